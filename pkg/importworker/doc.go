// Package importworker runs the import of bundle files in a Web Worker: a
// second Go instance, the engine alone (cmd/importer), reads, verifies and
// stores each file while the page's instance stays free to paint and
// answer the person. Verifying a 10 MB bundle is about a second of CPU
// that would otherwise hold the page.
//
// Serve is the worker's side; Start gives the page a Client, which is a
// workbench.Importer, adopting a worker the page's loader started early
// (EarlyGlobal). A Result crosses as library.Result's JSON, which is
// whole: the page checks its report's signature against the person's
// trusted signers after the worker has gone on. The file's bytes are
// transferred to the worker, not copied twice. The worker writes to the same
// IndexedDB database the page reads, in one transaction per file, so a
// failed import leaves the library as it was, as on the page.
//
// The protocol is messages of the message type: the page sends Op
// "import" or "resolve" with an ID; the worker answers each ID once, and
// says "ready" once it can import, or "failed" with the reason it cannot.
package importworker

import (
	"encoding/json"
	"errors"
	"fmt"

	"workbench/pkg/library"
	"workbench/pkg/store"
)

// EarlyGlobal is the global under which a page's loader may leave a
// worker it started before the page's Go instance ran: {url, worker,
// early}, early being the messages ({data}) and errors ({error}) the
// worker sent meanwhile. Start adopts it when its url is the one asked
// for, so the worker compiles beside the app instead of after it.
const EarlyGlobal = "workbenchImportWorker"

// The kinds of the worker's messages.
const (
	kindReady  = "ready"
	kindFailed = "failed"
	kindResult = "result"
)

// reply is a message from the worker.
type reply struct {
	Kind string `json:"kind"`
	ID   int    `json:"id,omitempty"`
	// Result is the file's library.Result, for kindResult.
	Result *library.Result `json:"result,omitempty"`
	// Error is why the file could not be imported at all (kindResult),
	// or why the worker cannot import (kindFailed).
	Error string `json:"error,omitempty"`
	// StoreKind is the kind of store failure the error was (the text of
	// one of storeKinds), which the page branches on: a closed library is
	// opened again, a full one is said to be full.
	StoreKind string `json:"store_kind,omitempty"`
}

// storeKinds are the kinds of store failure a reply carries across.
var storeKinds = []error{
	store.ErrNotFound, store.ErrDuplicate, store.ErrConflict, store.ErrInvalid, store.ErrQuotaExceeded,
	store.ErrBlocked, store.ErrVersion, store.ErrAborted, store.ErrUnavailable, store.ErrClosed,
}

// Error is an import the worker could not do, with its reason as the
// worker gave it. errors.Is matches the kind of store failure it was.
type Error struct {
	Reason string
	kind   error
}

func (e *Error) Error() string { return e.Reason }

// Unwrap is the store.Err… kind of the failure, or nil.
func (e *Error) Unwrap() error { return e.kind }

// answer is the reply to request id: its result, or the error that kept
// the file from being imported at all.
func answer(id int, res library.Result, err error) reply {
	r := reply{Kind: kindResult, ID: id, Result: &res}
	if err != nil {
		r.Error = err.Error()
		for _, k := range storeKinds {
			if errors.Is(err, k) {
				r.StoreKind = k.Error()
				break
			}
		}
	}
	return r
}

// outcome is what a reply says to the caller of Import or Resolve.
func (r reply) outcome() (library.Result, error) {
	var res library.Result
	if r.Result != nil {
		res = *r.Result
	}
	if r.Error != "" {
		e := &Error{Reason: r.Error}
		for _, k := range storeKinds {
			if k.Error() == r.StoreKind {
				e.kind = k
			}
		}
		return res, e
	}
	return res, nil
}

// decodeReply reads a reply the worker posted as JSON text.
func decodeReply(text string) (reply, error) {
	var r reply
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return reply{}, fmt.Errorf("the import worker's reply: %w", err)
	}
	return r, nil
}
