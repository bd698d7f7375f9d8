//go:build js && wasm

package importworker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"syscall/js"

	"workbench/pkg/library"
)

// Client is the page's side: a workbench.Importer whose imports run in
// the worker. Its methods may be called from several goroutines.
type Client struct {
	worker js.Value
	funcs  []js.Func

	ready chan struct{} // closed once the worker is ready or has failed

	mu      sync.Mutex
	err     error // why the worker cannot import; set before ready closes
	next    int
	waiting map[int]chan reply
}

// Start starts the worker from the script at url, or adopts the one the
// page's loader started from it (EarlyGlobal), and returns its client at
// once: the worker compiles and opens the library meanwhile, and the
// first Import waits for it.
func Start(url string) *Client {
	c := &Client{ready: make(chan struct{}), waiting: map[int]chan reply{}}
	worker, early := adopt(url)
	if !worker.Truthy() {
		if err := catch(func() { worker = js.Global().Get("Worker").New(url) }); err != nil {
			c.fail(fmt.Errorf("the import worker could not be started: %w", err))
			return c
		}
	}
	c.worker = worker
	onError := func(event js.Value) {
		// A script that cannot be fetched or parsed gives an error event
		// with no message; an exception in the worker gives its own.
		err := fmt.Errorf("the import worker could not be loaded from %s", url)
		if m := event.Get("message"); m.Type() == js.TypeString && m.String() != "" {
			err = fmt.Errorf("the import worker failed: %s", m.String())
		}
		c.fail(err)
	}
	onMessageFunc := js.FuncOf(func(_ js.Value, args []js.Value) any {
		c.receive(args[0].Get("data"))
		return nil
	})
	onErrorFunc := js.FuncOf(func(_ js.Value, args []js.Value) any {
		onError(args[0])
		return nil
	})
	c.funcs = []js.Func{onMessageFunc, onErrorFunc}
	worker.Set("onmessage", onMessageFunc)
	worker.Set("onerror", onErrorFunc)
	worker.Set("onmessageerror", onErrorFunc)
	// What the worker said before this instance listened, in order. No
	// message is dispatched meanwhile: this runs without yielding to the
	// event loop.
	for i := 0; i < early.Length(); i++ {
		if ev := early.Index(i); ev.Get("error").Type() == js.TypeString {
			onError(js.ValueOf(map[string]any{"message": ev.Get("error").String()}))
		} else {
			c.receive(ev.Get("data"))
		}
	}
	return c
}

// adopt takes the worker the page's loader started from url, and what it
// has said so far; an undefined worker when there is none.
func adopt(url string) (worker, early js.Value) {
	g := js.Global()
	pre := g.Get(EarlyGlobal)
	if pre.Type() != js.TypeObject || pre.Get("url").String() != url {
		return js.Undefined(), g.Get("Array").New()
	}
	g.Delete(EarlyGlobal)
	return pre.Get("worker"), pre.Get("early")
}

// Failed reports whether the worker cannot import, and why.
func (c *Client) Failed() error {
	select {
	case <-c.ready:
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Import imports one file in the worker (library.Import).
func (c *Client) Import(ctx context.Context, name string, data []byte) (library.Result, error) {
	return c.call(ctx, request{Op: opImport, Name: name}, data)
}

// Resolve resolves one collided file in the worker (library.Resolve).
func (c *Client) Resolve(ctx context.Context, name string, data []byte, choice library.Choice) (library.Result, error) {
	return c.call(ctx, request{Op: opResolve, Name: name, Choice: choice}, data)
}

// call sends one request and waits for its reply. When ctx ends first
// the worker may still finish the file; its reply is then dropped.
func (c *Client) call(ctx context.Context, req request, data []byte) (library.Result, error) {
	res := library.Result{Name: req.Name}
	select {
	case <-c.ready:
	case <-ctx.Done():
		return res, ctx.Err()
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return res, err
	}
	c.next++
	req.ID = c.next
	c.waiting[req.ID] = ch
	c.mu.Unlock()

	text, err := json.Marshal(req)
	if err != nil {
		c.forget(req.ID)
		return res, err
	}
	buf := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(buf, data)
	msg := js.Global().Get("Object").New()
	msg.Set("request", string(text))
	msg.Set("data", buf)
	transfer := js.Global().Get("Array").New(buf.Get("buffer"))
	if err := catch(func() { c.worker.Call("postMessage", msg, transfer) }); err != nil {
		c.forget(req.ID)
		return res, fmt.Errorf("sending %s to the import worker: %w", req.Name, err)
	}
	select {
	case r := <-ch:
		return r.outcome()
	case <-ctx.Done():
		c.forget(req.ID)
		return res, ctx.Err()
	}
}

// forget stops waiting for request id.
func (c *Client) forget(id int) {
	c.mu.Lock()
	delete(c.waiting, id)
	c.mu.Unlock()
}

// receive takes one message from the worker. It runs on the page's event
// loop and never waits.
func (c *Client) receive(v js.Value) {
	if v.Type() != js.TypeString {
		c.fail(fmt.Errorf("the import worker sent a message of type %s", v.Type()))
		return
	}
	r, err := decodeReply(v.String())
	if err != nil {
		c.fail(err)
		return
	}
	switch r.Kind {
	case kindReady:
		c.mu.Lock()
		select {
		case <-c.ready:
		default:
			close(c.ready)
		}
		c.mu.Unlock()
	case kindFailed:
		c.fail(fmt.Errorf("the import worker cannot import: %s", r.Error))
	case kindResult:
		c.mu.Lock()
		ch, ok := c.waiting[r.ID]
		delete(c.waiting, r.ID)
		c.mu.Unlock()
		if ok {
			ch <- r
		}
	}
}

// fail records why the worker cannot import, ends its waiting requests
// with that reason and stops the worker.
func (c *Client) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	waiting := c.waiting
	c.waiting = map[int]chan reply{}
	select {
	case <-c.ready:
	default:
		close(c.ready)
	}
	c.mu.Unlock()
	for id, ch := range waiting {
		ch <- reply{Kind: kindResult, ID: id, Error: err.Error()}
	}
	if c.worker.Truthy() {
		c.worker.Call("terminate")
		c.worker = js.Undefined()
	}
	for _, f := range c.funcs {
		f.Release()
	}
	c.funcs = nil
}

// catch runs f and returns the JavaScript exception it threw, if any.
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if jerr, ok := r.(js.Error); ok {
				err = errors.New(jerr.Error())
				return
			}
			panic(r)
		}
	}()
	f()
	return nil
}
