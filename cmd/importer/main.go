//go:build js && wasm

// Command importer is the page's import worker (package importworker): a
// Go instance with the engine alone — the strict reader, the verifier and
// the IndexedDB library — that the import page starts in a Web Worker
// from /web/importer.js. It has no UI and imports nothing that draws one.
// It compiles the verifier, opens the library, warms the verifier up,
// says it is ready, and imports each file the page sends until the page
// goes.
package main

import (
	"context"
	"errors"
	"fmt"

	"workbench/pkg/importworker"
	"workbench/pkg/library"
	"workbench/pkg/store"
	"workbench/pkg/store/idb"
	"workbench/pkg/verify"
)

func main() {
	ctx := context.Background()
	v, err := verify.Standard()
	if err != nil {
		importworker.Fail(fmt.Errorf("compiling the verifier: %w", err))
		return
	}
	warmCtx, stopWarm := context.WithCancel(ctx)
	lib := &libraryDB{v: v, arrived: stopWarm}
	if _, err := lib.local(ctx); err != nil {
		importworker.Fail(err)
		return
	}
	// The verifier runs the spec's valid fixture until the first file
	// arrives, so that the browser has compiled its hot code by then. A
	// sample it refuses leaves only the warm-up undone: a real file's
	// verification says what is wrong.
	go func() { _, _ = v.Warm(warmCtx, verify.WarmBudget) }()
	if err := importworker.Serve(ctx, lib); err != nil {
		importworker.Fail(err)
	}
}

// libraryDB imports into the browser's library, opened again after the
// browser closed it (another tab's upgrade, store.ErrClosed): that import
// fails with the reason, as it would on the page, and the next one opens
// the library anew. Serve calls it from one goroutine.
type libraryDB struct {
	v  *verify.Verifier
	st store.Store
	// arrived ends the warm-up: a file is here, and this instance's one
	// thread is its.
	arrived func()
}

// local is the library as it is open now.
func (l *libraryDB) local(ctx context.Context) (library.Local, error) {
	if l.st == nil {
		st, err := idb.Open(ctx, store.DatabaseName, nil)
		if err != nil {
			return library.Local{}, fmt.Errorf("opening the library: %w", err)
		}
		l.st = st
	}
	return library.Local{Store: l.st, Verifier: l.v}, nil
}

func (l *libraryDB) Import(ctx context.Context, name string, data []byte) (library.Result, error) {
	return l.run(ctx, name, func(lc library.Local) (library.Result, error) { return lc.Import(ctx, name, data) })
}

func (l *libraryDB) Resolve(ctx context.Context, name string, data []byte, choice library.Choice) (library.Result, error) {
	return l.run(ctx, name, func(lc library.Local) (library.Result, error) { return lc.Resolve(ctx, name, data, choice) })
}

// run ends the warm-up and runs one file's import in the library as it is
// open now, forgetting a library the browser closed.
func (l *libraryDB) run(ctx context.Context, name string, f func(library.Local) (library.Result, error)) (library.Result, error) {
	l.arrived()
	lc, err := l.local(ctx)
	if err != nil {
		return library.Result{Name: name}, err
	}
	res, err := f(lc)
	if errors.Is(err, store.ErrClosed) {
		l.st = nil
	}
	return res, err
}
