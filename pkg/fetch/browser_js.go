//go:build js

package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"syscall/js"
)

// Browser is the Doer over the fetch function of the JavaScript global
// scope: a page's, a worker's or Node's. The zero value is ready, follows
// redirects as fetch does, and may be used from several goroutines;
// NoRedirects(Browser{}) is one that follows none.
type Browser struct {
	// manualRedirects sends requests with fetch's redirect "manual": a
	// browser then answers a redirect with an opaque response, which Do
	// turns into a *RedirectError, and Node.js with the redirect itself.
	manualRedirects bool
}

// Do sends req through fetch. It reads req.Body whole before sending:
// fetch streams a request body only over HTTP/2 with extra options, and
// the workbench's requests are small JSON documents.
func (b Browser) Do(req *http.Request) (*http.Response, error) {
	if req == nil || req.URL == nil {
		return nil, errors.New("fetch: a request without a URL")
	}
	// As with http.Client, the request body is closed whatever happens.
	if req.Body != nil {
		defer req.Body.Close()
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	ctx := req.Context()
	op := method + " " + req.URL.String()
	fail := func(err error) (*http.Response, error) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		return nil, fmt.Errorf("fetch: %s: %w", op, err)
	}
	global := js.Global()
	if global.Get("fetch").Type() != js.TypeFunction {
		return fail(errors.New("this JavaScript environment has no fetch"))
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return fail(fmt.Errorf("reading the request body: %w", err))
		}
		body = b
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}

	headers := global.Get("Headers").New()
	for k, vs := range req.Header {
		for _, v := range vs {
			if err := call(headers, "append", k, v); err != nil {
				return fail(fmt.Errorf("header %q: %w", k, err))
			}
		}
	}
	opts := global.Get("Object").New()
	opts.Set("method", method)
	opts.Set("headers", headers)
	opts.Set("credentials", "same-origin")
	redirect := "follow"
	if b.manualRedirects {
		redirect = "manual"
	}
	opts.Set("redirect", redirect)
	if len(body) > 0 {
		a := global.Get("Uint8Array").New(len(body))
		js.CopyBytesToJS(a, body)
		opts.Set("body", a)
	}
	abort := global.Get("AbortController").New()
	opts.Set("signal", abort.Get("signal"))
	w := watchContext(ctx, abort)

	var promise js.Value
	if err := catch(func() { promise = global.Call("fetch", req.URL.String(), opts) }); err != nil {
		w.stop()
		return fail(err)
	}
	res, err := await(promise)
	if err != nil {
		w.stop()
		return fail(err)
	}

	if res.Get("type").String() == "opaqueredirect" {
		w.stop()
		return fail(&RedirectError{})
	}
	h := http.Header{}
	entries := res.Get("headers").Call("entries")
	for {
		next := entries.Call("next")
		if next.Get("done").Bool() {
			break
		}
		kv := next.Get("value")
		k := http.CanonicalHeaderKey(kv.Index(0).String())
		h[k] = append(h[k], kv.Index(1).String())
	}
	status := res.Get("status").Int()
	text := res.Get("statusText").String()
	if text == "" {
		text = http.StatusText(status)
	}
	resp := &http.Response{
		Status:     fmt.Sprintf("%d %s", status, text),
		StatusCode: status,
		Header:     h,
		Body:       http.NoBody,
		// Unknown: the browser has already undone any Content-Encoding,
		// so Content-Length need not be the length of what Body yields.
		ContentLength: -1,
		Request:       req,
	}
	if rb := res.Get("body"); rb.Truthy() {
		resp.Body = &stream{ctx: ctx, op: op, reader: rb.Call("getReader"), watch: w}
	} else {
		w.stop()
	}
	return resp, nil
}

// errClosed is a read of a body after its Close.
var errClosed = errors.New("fetch: read on a closed response body")

// stream is a response body read from a ReadableStream's reader, one chunk
// per read() as the caller asks for more.
type stream struct {
	ctx    context.Context
	op     string
	reader js.Value // ReadableStreamDefaultReader
	watch  *watch

	buf    []byte // the rest of the last chunk
	err    error  // sticky: io.EOF or the failure that ended the stream
	closed bool
}

func (s *stream) Read(p []byte) (int, error) {
	if s.closed {
		return 0, errClosed
	}
	for len(s.buf) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		r, err := await(s.reader.Call("read"))
		if s.closed {
			// Close, from another goroutine, cancelled the stream while
			// this read waited.
			return 0, errClosed
		}
		switch {
		case err != nil:
			if ctxErr := s.ctx.Err(); ctxErr != nil {
				err = ctxErr
			}
			s.err = fmt.Errorf("fetch: %s: reading the body: %w", s.op, err)
			s.watch.stop()
		case r.Get("done").Bool():
			s.err = io.EOF
			s.watch.stop()
		default:
			chunk := r.Get("value")
			n := chunk.Get("length").Int()
			if n <= len(p) {
				// The common case needs no buffer of its own.
				return js.CopyBytesToGo(p, chunk), nil
			}
			s.buf = make([]byte, n)
			js.CopyBytesToGo(s.buf, chunk)
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// Close cancels the stream if it has not ended, so the browser stops
// receiving it, and ends the context watch.
func (s *stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if s.err == nil {
		// The outcome does not matter; waiting for it keeps the promise
		// from being an unhandled rejection.
		_, _ = await(s.reader.Call("cancel"))
	}
	s.buf = nil
	s.watch.stop()
	return nil
}

// watch aborts a fetch when its request's context ends, until stopped.
type watch struct {
	done chan struct{}
	once sync.Once
}

func watchContext(ctx context.Context, abort js.Value) *watch {
	w := &watch{done: make(chan struct{})}
	if ctx.Done() == nil {
		return w
	}
	go func() {
		select {
		case <-ctx.Done():
			abort.Call("abort")
		case <-w.done:
		}
	}()
	return w
}

func (w *watch) stop() { w.once.Do(func() { close(w.done) }) }

// await waits for a promise to settle. A rejection becomes an error
// carrying the JavaScript error's name and message.
func await(p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	onOK := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{v: first(args)}
		return nil
	})
	defer onOK.Release()
	onErr := js.FuncOf(func(_ js.Value, args []js.Value) any {
		ch <- settled{err: jsError(first(args))}
		return nil
	})
	defer onErr.Release()
	p.Call("then", onOK, onErr)
	s := <-ch
	return s.v, s.err
}

func first(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// jsError describes a thrown or rejected JavaScript value.
func jsError(v js.Value) error {
	if v.Type() == js.TypeObject {
		name, msg := v.Get("name"), v.Get("message")
		if name.Type() == js.TypeString && msg.Type() == js.TypeString {
			return fmt.Errorf("%s: %s", name.String(), msg.String())
		}
	}
	return fmt.Errorf("JavaScript error: %s", js.Global().Get("String").Invoke(v).String())
}

// call calls a method that may throw, as Headers.append does for a name or
// value it refuses.
func call(v js.Value, method string, args ...any) error {
	return catch(func() { v.Call(method, args...) })
}

// catch runs f and turns a JavaScript exception into an error.
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			je, ok := r.(js.Error)
			if !ok {
				panic(r)
			}
			err = jsError(je.Value)
		}
	}()
	f()
	return nil
}
