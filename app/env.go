package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/mcp"
	"workbench/pkg/openrouter"
	"workbench/pkg/session"
	"workbench/pkg/store"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// env is what the pages share: made once in main and handed to every
// page's component by its route factory (never a package variable), so a
// test can build a page with an env of its own.
//
// The OpenRouter key lives in the session Storage only (sessionStorage in
// the browser); env never copies it anywhere else, and the library store
// never sees it.
type env struct {
	// session is the tab's sessionStorage; nil when the browser refused it,
	// with sessionErr saying why.
	session    *session.Storage
	sessionErr error
	mu         sync.Mutex
	library    store.Store // the opened IndexedDB library, once open

	verdicts map[string]verdictCheck // re-derived verdicts by content hash

	// palette is the capability palette's state across pages (see
	// palette_state.go).
	palette paletteShared

	// mcpRevisions remembers, for the page's lifetime, the protocol
	// revision each MCP endpoint negotiated, so that every dial after the
	// first skips the probe a session-only server refuses (a failed
	// request in the console each time). Every mcp.Options the app
	// builds carries it.
	mcpRevisions mcp.Revisions

	verifierOnce sync.Once
	verifier     *verify.Verifier
	verifierErr  error

	// importer gives the tab's import worker, started on first use and
	// again after it failed (importers); nil natively, where the flows
	// import in this instance.
	importer func(context.Context) (workbench.Importer, error)

	// flows is the flow layer every page and the palette call (newFlows).
	flows *workbench.Flows
}

func newEnv() *env {
	s, err := session.Open()
	e := &env{session: s, sessionErr: err, importer: importers()}
	e.flows = e.newFlows()
	return e
}

// sessionStorage returns the tab's session storage, or why there is none.
func (e *env) sessionStorage() (*session.Storage, error) {
	if e.session == nil {
		if e.sessionErr == nil {
			return nil, errors.New("session storage is not available")
		}
		return nil, e.sessionErr
	}
	return e.session, nil
}

// origin is the page's own origin (scheme://host[:port]), the base of
// every request the app makes: the proxy, the MCP relay, nothing else.
func (e *env) origin() string {
	u := app.Window().URL()
	return u.Scheme + "://" + u.Host
}

// store opens the library on first use and returns it. A failed open is
// not remembered, so the next call tries again (after the tab that
// blocked an upgrade closed, say). blocked is called while another tab
// holds an older version of the database open. Call it from a goroutine
// (Context.Async), never from an event handler: it waits for IndexedDB.
func (e *env) store(ctx context.Context, blocked func()) (store.Store, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.library != nil {
		return e.library, nil
	}
	st, err := openLibrary(ctx, blocked)
	if err != nil {
		return nil, fmt.Errorf("opening the library: %w", err)
	}
	e.library = st
	return st, nil
}

// dropStore forgets a library connection that the browser closed (to let
// another tab upgrade it), so the next store call reopens it.
func (e *env) dropStore(err error) {
	if !errors.Is(err, store.ErrClosed) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.library = nil
}

// verify returns the bundle verifier, compiling the schemas on first use.
func (e *env) verify() (*verify.Verifier, error) {
	e.verifierOnce.Do(func() {
		e.verifier, e.verifierErr = verify.Standard()
	})
	return e.verifier, e.verifierErr
}

// startImporter starts the tab's import worker unless it is running: the
// import page calls it as it opens, so that the worker has compiled before
// the first file arrives.
func (e *env) startImporter() {
	if e.importer != nil {
		_, _ = e.importer(context.Background())
	}
}

// verdict returns the re-derived verdict of the bundle with this content
// hash, if one was computed in this tab.
func (e *env) verdict(contentHash string) (verdictCheck, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.verdicts[contentHash]
	return c, ok
}

// keepVerdict remembers a re-derived verdict. A content hash names
// immutable bytes and verification reads nothing else, so it cannot go
// stale.
func (e *env) keepVerdict(contentHash string, c verdictCheck) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.verdicts == nil {
		e.verdicts = map[string]verdictCheck{}
	}
	e.verdicts[contentHash] = c
}

// openRouterClient returns a client for the tab's key, through the
// same-origin proxy; nil and no error when the tab keeps no key.
func (e *env) openRouterClient() (*openrouter.Client, error) {
	s, err := e.sessionStorage()
	if err != nil {
		return nil, err
	}
	key, ok, err := s.Key()
	if err != nil || !ok {
		return nil, err
	}
	return openrouter.New(key, openrouter.WithBaseURL(e.origin()+openrouter.DefaultBaseURL))
}
