//go:build js && wasm

package importworker

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"syscall/js"

	"workbench/pkg/library"
)

// Importer is what Serve imports with: library.Local over the worker's
// own library and verifier.
type Importer interface {
	Import(ctx context.Context, name string, data []byte) (library.Result, error)
	Resolve(ctx context.Context, name string, data []byte, choice library.Choice) (library.Result, error)
}

// message is one request the page posted and its file's bytes.
type message struct {
	req  request
	data []byte
	err  error
}

// Serve tells the page the worker is ready and answers its requests with
// im, one file at a time, until ctx ends. It runs in the worker's Go
// instance (cmd/importer), after what im needs is open.
func Serve(ctx context.Context, im Importer) error {
	var mu sync.Mutex
	var queue []message
	wake := make(chan struct{}, 1)
	// The handler runs on the worker's event loop, which the import's
	// IndexedDB calls need: it only queues, never waits.
	onMessage := js.FuncOf(func(_ js.Value, args []js.Value) any {
		m := receive(args[0].Get("data"))
		mu.Lock()
		queue = append(queue, m)
		mu.Unlock()
		select {
		case wake <- struct{}{}:
		default:
		}
		return nil
	})
	defer onMessage.Release()
	self := js.Global()
	self.Set("onmessage", onMessage)
	post(reply{Kind: kindReady})
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
		for {
			mu.Lock()
			if len(queue) == 0 {
				mu.Unlock()
				break
			}
			m := queue[0]
			queue = queue[1:]
			mu.Unlock()
			post(handle(ctx, im, m))
		}
	}
}

// Fail tells the page the worker cannot import, and why.
func Fail(err error) {
	post(reply{Kind: kindFailed, Error: err.Error()})
}

// receive reads one posted message: its request and its bytes.
func receive(v js.Value) message {
	if v.Type() != js.TypeObject {
		return message{err: fmt.Errorf("a message of type %s, not a request", v.Type())}
	}
	var m message
	if err := json.Unmarshal([]byte(v.Get("request").String()), &m.req); err != nil {
		return message{err: fmt.Errorf("the request: %w", err)}
	}
	if data := v.Get("data"); data.Truthy() {
		m.data = make([]byte, data.Length())
		js.CopyBytesToGo(m.data, data)
	}
	return m
}

// handle imports or resolves one file.
func handle(ctx context.Context, im Importer, m message) reply {
	name := m.req.Name
	if m.err != nil {
		return answer(m.req.ID, library.Result{Name: name}, m.err)
	}
	switch m.req.Op {
	case opImport:
		res, err := im.Import(ctx, name, m.data)
		return answer(m.req.ID, res, err)
	case opResolve:
		res, err := im.Resolve(ctx, name, m.data, m.req.Choice)
		return answer(m.req.ID, res, err)
	}
	return answer(m.req.ID, library.Result{Name: name}, fmt.Errorf("unknown operation %q", m.req.Op))
}

// post sends r to the page as JSON text.
func post(r reply) {
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(reply{Kind: r.Kind, ID: r.ID, Error: "the reply could not be written: " + err.Error()})
	}
	js.Global().Call("postMessage", string(b))
}
