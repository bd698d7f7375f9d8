// Package proxytest tests an OpenRouter proxy from outside, over HTTP: a
// recording loopback upstream that answers in OpenRouter's wire format, and
// a suite of attacks and checks that runs unchanged against any host of
// package proxy's handler (the native server, the Worker under workerd).
//
// It exists for tests only. Its upstream lives on a loopback address, which
// proxy.New accepts only because it is loopback; no production path can
// reach it.
package proxytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Secrets and markers the suite plants so that it can look for them where
// they must not be: in logs, in the upstream's view, in the client's view.
const (
	// Key is the OpenRouter key the suite sends. The internal double space
	// checks that Authorization travels byte for byte.
	Key = "Bearer  sk-or-v1-0123456789abcdefSENTINELKEY_~.-+/=="
	// BodySentinel is planted in every request body.
	BodySentinel = "REQUEST-BODY-SENTINEL-7f3a"
	// ResponseSentinel is in every upstream response body.
	ResponseSentinel = "RESPONSE-BODY-SENTINEL-91c2"
	// PrivateHeader is a response header the upstream sets and the client
	// must not see.
	PrivateHeader = "X-Upstream-Private"
)

// Received is one request as the upstream saw it.
type Received struct {
	Method     string
	RequestURI string
	Header     http.Header
	Body       []byte
	Host       string // the Host the request named
}

// Upstream is a loopback HTTP server standing in for
// https://openrouter.ai/api/v1. It records every request it receives,
// whatever its path.
//
// It answers GET /api/v1/key and /api/v1/models, POST
// /api/v1/chat/completions (JSON, or server-sent events when the body asks
// for "stream": true), and the faults of an upstream gone wrong:
// GET /api/v1/redirect/{302,307,308} (a redirect to its own /stolen, so
// that a proxy that follows it is seen), /api/v1/html (a page with a
// script), /api/v1/hangup (the connection closed without an answer),
// /api/v1/slow-headers (no answer until the request ends) and
// /api/v1/stall (one event, then nothing), /api/v1/silent (headers, then
// nothing), and replies that break off
// after their headers: /api/v1/short-body (a Content-Length it does not
// keep), /api/v1/unfinished-chunks (a chunked body without its last
// chunk) and /api/v1/reset (a connection reset mid-body). Those that wait
// give up after Hold or when Close is called.
// Streamed completions go in lockstep with the client: after flushing each
// event the upstream waits for Release, so a proxy that buffers the stream
// is caught without any timing threshold.
type Upstream struct {
	// URL is the base to configure the proxy with: http://127.0.0.1:port/api/v1.
	URL string
	recording
}

// Events is the number of data events a streamed completion sends,
// [DONE] excluded.
const Events = 5

// StallTimeout is how long a streamed completion waits for Release before
// counting a stall and going on.
const StallTimeout = 10 * time.Second

// Hold is the longest an upstream keeps a request it answers slowly on
// purpose, should the host in front never give up.
const Hold = 30 * time.Second

// HTMLPage is what the upstream's html endpoints answer, as text/html.
const HTMLPage = "<!doctype html><title>upstream page</title><script>fetch('/api/mcp/').then(r => r.text()).then(t => document.title = t)</script>\n"

// NewUpstream starts an Upstream on 127.0.0.1 and closes it when t ends.
func NewUpstream(t testing.TB) *Upstream {
	u := StartUpstream()
	t.Cleanup(u.Close)
	return u
}

// StartUpstream starts an Upstream on 127.0.0.1; Close stops it. For a
// TestMain, where there is no testing.TB yet.
func StartUpstream() *Upstream {
	u := &Upstream{}
	u.start(u.serve)
	u.URL = u.srv.URL + "/api/v1"
	return u
}

// recording is the loopback server under both upstreams: it records
// every request it receives, whatever its path, before the upstream's
// own handler answers, and streams events in lockstep with the client.
type recording struct {
	srv     *httptest.Server
	release chan struct{}
	closing chan struct{} // closed by Close: requests held on purpose end

	mu      sync.Mutex
	reqs    []Received
	stalls  int
	flushed []time.Time
}

// start serves on 127.0.0.1, handing serve each request with its body
// once it is recorded.
func (rec *recording) start(serve func(w http.ResponseWriter, r *http.Request, body []byte)) {
	rec.release = make(chan struct{})
	rec.closing = make(chan struct{})
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, Received{r.Method, r.RequestURI, r.Header.Clone(), body, r.Host})
		rec.mu.Unlock()
		serve(w, r, body)
	}))
}

// Close stops the server, first ending any request it holds.
func (rec *recording) Close() {
	close(rec.closing)
	rec.srv.Close()
}

// hold blocks until the request ends, Close is called or Hold has passed.
func (rec *recording) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-rec.closing:
	case <-time.After(Hold):
	}
}

// hangUp closes the connection of w's request without an answer.
func hangUp(w http.ResponseWriter) {
	if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
		c.Close()
	}
}

// stall sends the headers and one event, then nothing until hold ends.
func (rec *recording) stall(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, StallFirst)
	w.(http.Flusher).Flush()
	rec.hold(r)
}

// silent sends the headers of an event stream and then nothing until
// hold ends.
func (rec *recording) silent(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	rec.hold(r)
}

// StallFirst is the one event a stalling upstream sends.
const StallFirst = "data: {\"before\":\"the stall\"}\n\n"

// CutFirst is what an upstream whose reply breaks off sends of its body
// before the break: the start of a JSON document, 54 bytes.
const CutFirst = `{"id":"gen-cut","choices":[{"message":{"content":"half`

// cutPromised is the Content-Length the short-body reply declares.
const cutPromised = 100

// Faults of a reply that breaks off after its headers, the paths (or MCP
// methods) that produce them.
const (
	FaultShortBody        = "short-body"        // Content-Length 100, CutFirst, then the connection closed
	FaultUnfinishedChunks = "unfinished-chunks" // chunked, CutFirst as one chunk, closed without the last chunk
	FaultReset            = "reset"             // chunked, CutFirst, then the connection reset (RST)
)

// cut answers with a reply that breaks off after CutFirst as fault says,
// written on the raw connection so that nothing in net/http completes it.
// extra are header lines (without CRLF) the reply carries besides its
// Content-Type.
func cut(w http.ResponseWriter, fault string, extra ...string) {
	c, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer c.Close()
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	for _, h := range extra {
		head += h + "\r\n"
	}
	switch fault {
	case FaultShortBody:
		fmt.Fprintf(brw, "%sContent-Length: %d\r\nConnection: close\r\n\r\n%s", head, cutPromised, CutFirst)
	default:
		fmt.Fprintf(brw, "%sTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n%x\r\n%s\r\n", head, len(CutFirst), CutFirst)
	}
	brw.Flush()
	if fault == FaultReset {
		if tc, ok := c.(*net.TCPConn); ok {
			// Give the peer time to read the chunk, then make Close send
			// RST instead of FIN.
			time.Sleep(100 * time.Millisecond)
			tc.SetLinger(0)
		}
	}
}

// redirect answers with a redirect of the given status to the server's
// own /stolen, where a request that followed it would be recorded.
func (rec *recording) redirect(w http.ResponseWriter, code int) {
	w.Header().Set("Location", rec.srv.URL+"/stolen")
	w.WriteHeader(code)
}

// Requests returns a copy of everything received so far.
func (rec *recording) Requests() []Received {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]Received(nil), rec.reqs...)
}

// Len is the number of requests received so far.
func (rec *recording) Len() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return len(rec.reqs)
}

// Release lets the stream under way send its next event.
func (rec *recording) Release() {
	select {
	case rec.release <- struct{}{}:
	case <-time.After(StallTimeout):
	}
}

// Stalls counts events a stream sent only after waiting StallTimeout for
// a Release that did not come.
func (rec *recording) Stalls() int {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.stalls
}

// Flushed returns when the server began writing each event of the last
// stream.
func (rec *recording) Flushed() []time.Time {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]time.Time(nil), rec.flushed...)
}

// lockstep writes a stream whose headers are already sent: open, then
// Events events made by event, each only once the client has called
// Release for it (or StallTimeout has passed, counted as a stall), then
// end unless it is "". Each write is flushed, and stamped before it is
// made, so that the stamp exists by the time the client can have read it.
func (rec *recording) lockstep(w http.ResponseWriter, r *http.Request, open string, event func(i int) string, end string) {
	f := w.(http.Flusher)
	rec.mu.Lock()
	rec.flushed = rec.flushed[:0]
	rec.mu.Unlock()
	send := func(s string) {
		rec.mu.Lock()
		rec.flushed = append(rec.flushed, time.Now())
		rec.mu.Unlock()
		io.WriteString(w, s)
		f.Flush()
	}
	send(open)
	for i := 0; i < Events; i++ {
		select {
		case <-rec.release:
		case <-r.Context().Done():
			return
		case <-time.After(StallTimeout):
			rec.mu.Lock()
			rec.stalls++
			rec.mu.Unlock()
		}
		send(event(i))
	}
	if end != "" {
		send(end)
	}
}

func (u *Upstream) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	h := w.Header()
	// Headers a real upstream may send that the proxy must not pass back.
	h.Set("Set-Cookie", "__cf_bm=upstream-cookie; Path=/; HttpOnly")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set(PrivateHeader, "private-value")
	// A comma inside a passed header: the Worker must not mangle it.
	h.Set("Cache-Control", "no-cache, no-store")

	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/key":
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{
			"label": "sk-or-v1-012…cdef", "limit": nil, "limit_remaining": nil,
			"usage": 0.25, "is_free_tier": false, "note": ResponseSentinel,
		}})
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/models":
		writeJSON(w, http.StatusOK, map[string]any{"data": []any{
			map[string]any{"id": "openai/gpt-4o-mini", "name": "GPT-4o mini", "description": ResponseSentinel},
		}})
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/redirect/302":
		u.redirect(w, http.StatusFound)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/redirect/307":
		u.redirect(w, http.StatusTemporaryRedirect)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/redirect/308":
		u.redirect(w, http.StatusPermanentRedirect)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/html":
		h.Del("Cache-Control")
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", "script-src 'unsafe-inline'")
		io.WriteString(w, HTMLPage)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/hangup":
		hangUp(w)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/slow-headers":
		u.hold(r)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/stall":
		u.stall(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/silent":
		u.silent(w, r)
	case r.Method == http.MethodGet && (r.URL.Path == "/api/v1/"+FaultShortBody || r.URL.Path == "/api/v1/"+FaultUnfinishedChunks || r.URL.Path == "/api/v1/"+FaultReset):
		cut(w, strings.TrimPrefix(r.URL.Path, "/api/v1/"))
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/chat/completions":
		var req struct {
			Stream bool `json:"stream"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": "invalid JSON"}})
			return
		}
		if req.Stream {
			u.stream(w, r)
			return
		}
		writeJSON(w, http.StatusOK, completion(ResponseSentinel))
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "Not Found"}})
	}
}

func (u *Upstream) stream(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Del("Cache-Control")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	u.lockstep(w, r, ": OPENROUTER PROCESSING\n\n", func(i int) string {
		chunk := map[string]any{"id": "gen-1", "object": "chat.completion.chunk",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": fmt.Sprintf("part%d ", i)}}}}
		if i == Events-1 {
			chunk["usage"] = map[string]any{"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8, "cost": 0.0001}
		}
		b, _ := json.Marshal(chunk)
		return "data: " + string(b) + "\n\n"
	}, "data: [DONE]\n\n")
}

func completion(content string) map[string]any {
	return map[string]any{
		"id": "gen-1", "object": "chat.completion", "model": "openai/gpt-4o-mini",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8, "cost": 0.0001},
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// canonicalUpstreamPath reports whether a request URI the upstream received
// is one the proxy may send: under /api/v1/, plain unreserved segments.
func canonicalUpstreamPath(uri string) bool {
	p, _, _ := strings.Cut(uri, "?")
	rest, ok := strings.CutPrefix(p, "/api/v1/")
	if !ok || rest == "" {
		return false
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
				return false
			}
		}
	}
	return true
}
