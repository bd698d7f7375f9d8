//go:build js && wasm

package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"

	"workbench/pkg/proxy"
)

// response is the ResponseWriter the handlers write to in the Worker:
// the bridge's (syumai/workers'), noting what abortOnPanic needs to know
// when a handler aborts: whether the bridge has handed the runtime the
// response yet, and the code the handler logged.
type response struct {
	http.ResponseWriter
	// wrote is set by the first Write, with which the bridge hands the
	// runtime the response, status and headers included. Until then
	// they can still change.
	wrote bool
	code  string // the log code of the handler's Event or MCPEvent
}

func (w *response) Write(p []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(p)
}

// Flush passes on to the bridge's Flush, which is all the handlers need
// of http.Flusher.
func (w *response) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the bridge's writer.
func (w *response) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// errAborted is what a broken-off response's body stream is errored with.
var errAborted = errors.New("the upstream's body broke off or stalled; the response is aborted")

// abortOnPanic, deferred by serve, does what net/http's server does when
// a handler panics with http.ErrAbortHandler: it ends the response
// without its end. Any other panic goes on.
//
// Before the first body byte the bridge has not handed the response to
// the runtime, so its status and headers become the failure they are: a
// 502 with the handler's code (upstream_idle for an upstream that sent
// headers and then nothing). After it, the body stream is errored:
// syumai/workers feeds the body from an io.Pipe and would end it cleanly
// when the handler returns, so the pipe is closed with an error instead,
// and the bridge errors the stream (ReadableStreamDefaultController.error).
// workerd ends an errored chunked body with its last chunk all the same
// (measured under wrangler dev; docs/proxy.md), so only a body whose
// length the upstream declared (passed on as Content-Length) reaches the
// client visibly short; the log has the handler's code either way. The
// bridge's ResponseWriter does not expose its pipe, so it is reached
// through the exported field Writer by reflection; should a later version
// of the bridge lose it, the Worker says so in its log, and the worker
// tests' broken-off upstreams fail.
func (w *response) abortOnPanic() {
	v := recover()
	if v == nil {
		return
	}
	if v != http.ErrAbortHandler {
		panic(v)
	}
	if !w.wrote {
		h := w.Header()
		for k := range h {
			delete(h, k)
		}
		msg := "the upstream's reply broke off before its body began"
		if w.code == proxy.CodeUpstreamIdle {
			msg = "the upstream sent its headers and then nothing within the idle timeout"
		}
		proxy.WriteError(w, &proxy.Error{Status: http.StatusBadGateway, Code: w.code, Message: msg})
		return
	}
	pw, ok := bodyPipe(w.ResponseWriter)
	if !ok {
		fmt.Printf("abort: the response writer %T has no body pipe; the broken-off response ends as if whole\n", w.ResponseWriter)
		return
	}
	pw.CloseWithError(errAborted)
}

// bodyPipe returns the pipe syumai/workers' ResponseWriter feeds the
// response body from: its field Writer, an *io.PipeWriter.
func bodyPipe(w http.ResponseWriter) (*io.PipeWriter, bool) {
	v := reflect.ValueOf(w)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	f := v.Elem().FieldByName("Writer")
	if !f.IsValid() || !f.CanInterface() {
		return nil, false
	}
	pw, ok := f.Interface().(*io.PipeWriter)
	return pw, ok && pw != nil
}
