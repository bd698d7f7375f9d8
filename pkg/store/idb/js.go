//go:build js && wasm

package idb

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/hack-pad/safejs"

	"workbench/pkg/store"
)

// event is the outcome of a request or transaction: which event fired
// (success, error, blocked, upgradeneeded, complete, abort) and, for
// failures, the DOMException.
type event struct {
	name string
	err  *domError
}

// listen sets a handler on each of target's on<name> properties that sends
// the event to the returned channel, and returns a function removing them.
// The handlers never block: the channel holds one event per name, and an
// event that repeats is dropped.
func listen(target safejs.Value, names ...string) (<-chan event, func(), error) {
	ch := make(chan event, len(names))
	var funcs []safejs.Func
	release := func() {
		for _, name := range names {
			_ = target.Set("on"+name, safejs.Null())
		}
		for _, f := range funcs {
			f.Release()
		}
	}
	for _, name := range names {
		f, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
			ev := event{name: name}
			if name == "error" || name == "abort" {
				ev.err = errorOf(target)
			}
			select {
			case ch <- ev:
			default: // a second event of a kind already reported
			}
			return nil
		})
		if err != nil {
			release()
			return nil, nil, err
		}
		funcs = append(funcs, f)
		if err := target.Set("on"+name, f); err != nil {
			release()
			return nil, nil, err
		}
	}
	return ch, release, nil
}

// errorOf reads the DOMException in target.error (a request or a
// transaction), or nil if there is none.
func errorOf(target safejs.Value) *domError {
	v, err := target.Get("error")
	if err != nil {
		return &domError{name: "UnknownError", message: err.Error()}
	}
	if v.IsNull() || v.IsUndefined() {
		return nil
	}
	return exception(v)
}

// exception reads a JavaScript error value's name and message.
func exception(v safejs.Value) *domError {
	d := &domError{name: "Error"}
	if n, err := v.Get("name"); err == nil && n.Type() == safejs.TypeString {
		d.name, _ = n.String()
	}
	if m, err := v.Get("message"); err == nil && m.Type() == safejs.TypeString {
		d.message, _ = m.String()
	}
	return d
}

// thrown turns the error of a JavaScript call that threw (safejs returns
// it) into a domError when it carries an exception.
func thrown(err error) *domError {
	var je js.Error
	if errors.As(err, &je) {
		return exception(safejs.Safe(je.Value))
	}
	return &domError{name: "Error", message: err.Error()}
}

// fail builds the *store.Error of a DOMException.
func fail(op, storeName, key string, d *domError) error {
	return &store.Error{Op: op, Store: storeName, Key: key, Kind: kindOf(d.name), Err: d}
}

// request waits for an IDBRequest to succeed or fail and returns its
// result. It blocks the calling goroutine, never the event loop.
func request(ctx context.Context, req safejs.Value) (safejs.Value, *domError, error) {
	ch, release, err := listen(req, "success", "error")
	if err != nil {
		return safejs.Value{}, nil, err
	}
	defer release()
	select {
	case ev := <-ch:
		if ev.name == "error" {
			if ev.err == nil {
				ev.err = &domError{name: "UnknownError", message: "request failed without an error"}
			}
			return safejs.Value{}, ev.err, nil
		}
		res, err := req.Get("result")
		return res, nil, err
	case <-ctx.Done():
		return safejs.Value{}, nil, ctx.Err()
	}
}

// jsString reads a string member of a JavaScript object.
func jsString(v safejs.Value, name string) (string, error) {
	m, err := v.Get(name)
	if err != nil {
		return "", err
	}
	if m.Type() != safejs.TypeString {
		return "", fmt.Errorf("member %q is %s, not a string", name, m.Type())
	}
	return m.String()
}

// jsInt reads an integer member of a JavaScript object.
func jsInt(v safejs.Value, name string) (int, error) {
	m, err := v.Get(name)
	if err != nil {
		return 0, err
	}
	if m.Type() != safejs.TypeNumber {
		return 0, fmt.Errorf("member %q is %s, not a number", name, m.Type())
	}
	return m.Int()
}

// each calls fn with every element of a JavaScript array.
func each(arr safejs.Value, fn func(safejs.Value) error) error {
	n, err := arr.Length()
	if err != nil {
		return err
	}
	for i := range n {
		v, err := arr.Index(i)
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return nil
}
