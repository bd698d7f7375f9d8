//go:build js && wasm

package idb

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/hack-pad/safejs"

	"workbench/pkg/store"
)

// txn is one IndexedDB transaction of one store operation. Requests that
// write are issued without waiting: a failing one aborts the transaction,
// and wait reports that. Reads wait for their result (get), which keeps the
// transaction active (see the package doc).
type txn struct {
	op      string
	tx      safejs.Value
	done    <-chan event
	release func()
	final   *event // the complete or abort event, once seen
	// failed is the first request that failed, so that an abort names
	// the object store and key that caused it.
	failed atomic.Pointer[target]
	funcs  []safejs.Func // request error handlers, released with the transaction
}

// target names a record: its object store and key.
type target struct{ store, key string }

// begin starts a transaction over the named object stores; mode is
// "readonly" or "readwrite".
func (d *DB) begin(ctx context.Context, op, mode string, stores ...string) (*txn, error) {
	if err := ctx.Err(); err != nil {
		return nil, &store.Error{Op: op, Kind: store.ErrAborted, Err: err}
	}
	db, err := d.conn(op)
	if err != nil {
		return nil, err
	}
	names := make([]any, len(stores))
	for i, s := range stores {
		names[i] = s
	}
	tx, err := db.Call("transaction", names, mode)
	if err != nil {
		return nil, fail(op, "", "", thrown(err))
	}
	done, release, err := listen(tx, "complete", "abort")
	if err != nil {
		return nil, &store.Error{Op: op, Kind: store.ErrAborted, Err: err}
	}
	t := &txn{op: op, tx: tx, done: done}
	t.release = func() {
		release()
		for _, f := range t.funcs {
			f.Release()
		}
		t.funcs = nil
	}
	return t, nil
}

// objectStore returns the transaction's object store name.
func (t *txn) objectStore(name string) (safejs.Value, error) {
	os, err := t.tx.Call("objectStore", name)
	if err != nil {
		return safejs.Value{}, fail(t.op, name, "", thrown(err))
	}
	return os, nil
}

// call issues a request (put, add, delete, clear) on an object store
// without waiting for it. A call that throws at once (a key the store
// cannot use, a value it cannot clone) aborts the transaction.
func (t *txn) call(storeName, key, method string, args ...any) error {
	os, err := t.objectStore(storeName)
	if err != nil {
		return t.abort(err)
	}
	req, err := os.Call(method, args...)
	if err != nil {
		return t.abort(fail(t.op, storeName, key, thrown(err)))
	}
	f, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		t.failed.CompareAndSwap(nil, &target{storeName, key})
		return nil
	})
	if err == nil {
		t.funcs = append(t.funcs, f)
		err = req.Set("onerror", f)
	}
	if err != nil {
		return t.abort(&store.Error{Op: t.op, Store: storeName, Key: key, Kind: store.ErrAborted, Err: err})
	}
	return nil
}

// get issues a read request (get, getAll, count, openCursor …) and waits
// for its result; a get of a key that is not stored returns undefined.
func (t *txn) get(ctx context.Context, source safejs.Value, storeName, key string, method string, args ...any) (safejs.Value, error) {
	req, err := source.Call(method, args...)
	if err != nil {
		return safejs.Value{}, t.abort(fail(t.op, storeName, key, thrown(err)))
	}
	return t.result(ctx, req, storeName, key)
}

// result waits for the next success or error event of req, a request of
// this transaction, and returns its result. A cursor's request fires
// once per step: after each continue or advance, result waits for the
// next.
func (t *txn) result(ctx context.Context, req safejs.Value, storeName, key string) (safejs.Value, error) {
	res, derr, err := request(ctx, req)
	switch {
	case err != nil:
		return safejs.Value{}, t.abort(&store.Error{Op: t.op, Store: storeName, Key: key, Kind: store.ErrAborted, Err: err})
	case derr != nil:
		// The failed request aborts the transaction by itself; wait for
		// that so the caller gets the transaction's own error.
		t.failed.CompareAndSwap(nil, &target{storeName, key})
		return safejs.Value{}, t.wait(ctx)
	}
	return res, nil
}

// abort aborts the transaction because of cause, waits until IndexedDB has
// rolled it back, and returns cause.
func (t *txn) abort(cause error) error {
	if t.final == nil {
		_, _ = t.tx.Call("abort") // throws if already finished; the event says how
		ev := <-t.done
		t.final = &ev
		t.release()
	}
	return cause
}

// wait waits for the transaction to complete and returns nil, or returns
// why it aborted, naming the request that failed first. A cancelled
// context aborts the transaction unless it completes first.
func (t *txn) wait(ctx context.Context) error {
	if t.final == nil {
		select {
		case ev := <-t.done:
			t.final = &ev
		case <-ctx.Done():
			_, _ = t.tx.Call("abort")
			ev := <-t.done
			t.final = &ev
			if ev.name == "abort" {
				t.release()
				return &store.Error{Op: t.op, Kind: store.ErrAborted, Err: ctx.Err()}
			}
		}
		t.release()
	}
	if t.final.name == "complete" {
		return nil
	}
	var at target
	if f := t.failed.Load(); f != nil {
		at = *f
	}
	if t.final.err == nil {
		return &store.Error{Op: t.op, Store: at.store, Key: at.key, Kind: store.ErrAborted,
			Err: errors.New("the transaction was aborted")}
	}
	return fail(t.op, at.store, at.key, t.final.err)
}
