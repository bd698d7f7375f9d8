package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

const testOrigin = "https://workbench.example.org"

func TestNewChecksConfig(t *testing.T) {
	doer := DoerFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("unused") })
	tests := []struct {
		name   string
		cfg    Config
		errHas string // "" means New must succeed
	}{
		{"defaults", Config{AllowedOrigin: testOrigin, Doer: doer}, ""},
		{"openrouter", Config{AllowedOrigin: testOrigin, Upstream: OpenRouterAPI, Doer: doer}, ""},
		{"loopback v4", Config{AllowedOrigin: "http://127.0.0.1:8000", Upstream: "http://127.0.0.1:9/api/v1", Doer: doer}, ""},
		{"loopback v4 range", Config{AllowedOrigin: testOrigin, Upstream: "http://127.8.9.10:9/api/v1", Doer: doer}, ""},
		{"loopback v6", Config{AllowedOrigin: testOrigin, Upstream: "http://[::1]:9/api/v1", Doer: doer}, ""},
		{"localhost", Config{AllowedOrigin: testOrigin, Upstream: "https://localhost:9/api/v1", Doer: doer}, ""},
		{"same origin", Config{AllowedOrigin: SameOrigin, Doer: doer}, ""},
		{"origin null", Config{AllowedOrigin: "null", Doer: doer}, "AllowedOrigin"},
		{"origin with path", Config{AllowedOrigin: testOrigin + "/", Doer: doer}, "no path"},
		{"origin with query", Config{AllowedOrigin: testOrigin + "?x", Doer: doer}, "no path"},
		{"origin with fragment", Config{AllowedOrigin: testOrigin + "#", Doer: doer}, "no path"},
		{"origin upper case", Config{AllowedOrigin: "https://Workbench.example.org", Doer: doer}, "lower case"},
		{"origin ftp", Config{AllowedOrigin: "ftp://workbench.example.org", Doer: doer}, "scheme"},
		{"origin userinfo", Config{AllowedOrigin: "https://u@workbench.example.org", Doer: doer}, "scheme://host"},
		{"upstream trailing slash", Config{AllowedOrigin: testOrigin, Upstream: OpenRouterAPI + "/", Doer: doer}, "loopback"},
		{"upstream other version", Config{AllowedOrigin: testOrigin, Upstream: "https://openrouter.ai/api/v2", Doer: doer}, "loopback"},
		{"upstream plain http", Config{AllowedOrigin: testOrigin, Upstream: "http://openrouter.ai/api/v1", Doer: doer}, "only"},
		{"upstream other host", Config{AllowedOrigin: testOrigin, Upstream: "https://evil.example/api/v1", Doer: doer}, "only"},
		{"upstream lookalike", Config{AllowedOrigin: testOrigin, Upstream: "http://127.0.0.1.evil.example/api/v1", Doer: doer}, "only"},
		{"upstream private net", Config{AllowedOrigin: testOrigin, Upstream: "http://10.0.0.1/api/v1", Doer: doer}, "only"},
		{"upstream query", Config{AllowedOrigin: testOrigin, Upstream: "http://127.0.0.1:9/api/v1?x=1", Doer: doer}, "loopback"},
		{"upstream userinfo", Config{AllowedOrigin: testOrigin, Upstream: "http://u:p@127.0.0.1:9/api/v1", Doer: doer}, "loopback"},
		{"upstream file", Config{AllowedOrigin: testOrigin, Upstream: "file:///api/v1", Doer: doer}, "scheme"},
		{"negative cap", Config{AllowedOrigin: testOrigin, MaxBody: -1, Doer: doer}, "negative"},
		{"no doer", Config{AllowedOrigin: testOrigin}, "Doer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			checkConfigErr(t, "New", tt.cfg, err, tt.errHas)
		})
	}
}

// checkConfigErr fails t unless err, what constructor fn returned for
// cfg, is what errHas asks: nil when errHas is "", otherwise an error
// mentioning errHas.
func checkConfigErr(t *testing.T, fn string, cfg any, err error, errHas string) {
	t.Helper()
	switch {
	case errHas == "" && err != nil:
		t.Fatalf("%s: %v", fn, err)
	case errHas != "" && err == nil:
		t.Fatalf("%s accepted %+v", fn, cfg)
	case errHas != "" && !strings.Contains(err.Error(), errHas):
		t.Fatalf("%s: %v; want it to mention %q", fn, err, errHas)
	}
}

// recorder is a Doer that records what would have gone upstream and
// answers with a fixed response.
type recorder struct {
	calls  []*http.Request
	bodies [][]byte
	resp   func() (*http.Response, error)
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.calls = append(r.calls, req)
	var b []byte
	if req.Body != nil {
		b, _ = io.ReadAll(req.Body)
	}
	r.bodies = append(r.bodies, b)
	if r.resp != nil {
		return r.resp()
	}
	return okResponse(`{"data":{}}`), nil
}

func okResponse(body string) *http.Response {
	return &http.Response{
		StatusCode: 200,
		Header: http.Header{
			"Content-Type":                {"application/json"},
			"Set-Cookie":                  {"a=b"},
			"Access-Control-Allow-Origin": {"*"},
			"Server":                      {"upstream"},
			"X-Ratelimit-Remaining":       {"9"},
			"Content-Length":              {"11"},
		},
		Body: io.NopCloser(strings.NewReader(body)),
	}
}

func newTestHandler(t *testing.T, rec *recorder, maxBody int64) *Handler {
	t.Helper()
	h, err := New(Config{AllowedOrigin: testOrigin, MaxBody: maxBody, Doer: rec})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// request builds a request field by field, so that it may hold what no
// wire parser would let through (CR/LF in values, NUL in the path).
func request(method, path string, hdr map[string][]string, body string) *http.Request {
	r := httptest.NewRequest(method, "/", strings.NewReader(body))
	r.URL = &url.URL{Path: path}
	r.Host = HostOf(testOrigin)
	r.RequestURI = ""
	r.Header = http.Header{}
	for k, v := range hdr {
		r.Header[http.CanonicalHeaderKey(k)] = v
	}
	if body == "" {
		r.Body = http.NoBody
		r.ContentLength = 0
	}
	return r
}

func hdr(kv ...string) map[string][]string {
	m := map[string][]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = append(m[kv[i]], kv[i+1])
	}
	return m
}

func decodeError(t *testing.T, rr *httptest.ResponseRecorder) errorDetail {
	t.Helper()
	var b errorBody
	if err := json.Unmarshal(rr.Body.Bytes(), &b); err != nil {
		t.Fatalf("error body %q is not the JSON error shape: %v", rr.Body.Bytes(), err)
	}
	if ct := rr.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type %q", ct)
	}
	if b.Error.Message == "" {
		t.Errorf("error %q has no message", b.Error.Code)
	}
	return b.Error
}

// TestRefusals covers requests that never reach the upstream, including
// those no HTTP parser would deliver, so that the handler holds the rules
// on its own whatever server fronts it.
func TestRefusals(t *testing.T) {
	const key = "Bearer sk-or-v1-abc"
	ok := func(kv ...string) map[string][]string {
		return hdr(append([]string{"Origin", testOrigin, "Authorization", key}, kv...)...)
	}
	tests := []struct {
		name   string
		method string
		path   string
		hdr    map[string][]string
		body   string
		status int
		code   string
	}{
		{"crlf in authorization", "GET", MountPath + "key", hdr("Origin", testOrigin, "Authorization", "Bearer k\r\nX-Injected: 1"), "", 400, CodeHeader},
		{"lf in authorization", "GET", MountPath + "key", hdr("Origin", testOrigin, "Authorization", "Bearer k\nHost: evil.example"), "", 400, CodeHeader},
		{"nul in authorization", "GET", MountPath + "key", hdr("Origin", testOrigin, "Authorization", "Bearer k\x00"), "", 400, CodeHeader},
		{"del in authorization", "GET", MountPath + "key", hdr("Origin", testOrigin, "Authorization", "Bearer k\x7f"), "", 400, CodeHeader},
		{"crlf in content-type", "POST", MountPath + "chat/completions", ok("Content-Type", "application/json\r\nX-Injected: 1"), "{}", 400, CodeHeader},
		{"crlf in referer", "GET", MountPath + "key", ok("HTTP-Referer", "https://a.example/\r\nX-Injected: 1"), "", 400, CodeHeader},
		{"basic authorization", "GET", MountPath + "key", hdr("Origin", testOrigin, "Authorization", "Basic dXNlcjpwYXNz"), "", 400, CodeHeader},
		{"bearer without token", "GET", MountPath + "key", hdr("Origin", testOrigin, "Authorization", "Bearer "), "", 400, CodeHeader},
		{"bearer folded", "GET", MountPath + "key", hdr("Origin", testOrigin, "Authorization", "Bearer k X-Injected: 1"), "", 400, CodeHeader},
		{"duplicate authorization", "GET", MountPath + "key", hdr("Origin", testOrigin, "Authorization", key, "Authorization", key), "", 400, CodeHeader},
		{"comma in referer", "GET", MountPath + "key", ok("HTTP-Referer", "https://a.example/, https://b.example/"), "", 400, CodeHeader},
		{"nul in path", "GET", MountPath + "ke\x00y", ok(), "", 400, CodePath},
		{"cr in path", "GET", MountPath + "key\r\nHost: evil.example", ok(), "", 400, CodePath},
		{"dotdot", "GET", MountPath + "../../x", ok(), "", 400, CodePath},
		{"dotdot at end", "GET", MountPath + "chat/..", ok(), "", 400, CodePath},
		{"decoded slash", "GET", MountPath + "a%2fb", ok(), "", 400, CodePath},
		{"space", "GET", MountPath + "a b", ok(), "", 400, CodePath},
		{"colon", "GET", MountPath + "https:", ok(), "", 400, CodePath},
		{"outside mount", "GET", "/api/llm/other/key", ok(), "", 404, CodeNotFound},
		{"nothing after mount", "GET", MountPath, ok(), "", 404, CodeNotFound},
		{"too long", "GET", MountPath + strings.Repeat("a/", MaxPathBytes), ok(), "", 414, CodeTooLong},
		{"no origin", "GET", MountPath + "key", hdr("Authorization", key), "", 403, CodeOriginMissing},
		{"same-origin claim on post", "POST", MountPath + "chat/completions", hdr("Authorization", key, "Content-Type", "application/json", "Sec-Fetch-Site", "same-origin"), "{}", 403, CodeOriginMissing},
		{"two sec-fetch-site", "GET", MountPath + "key", hdr("Authorization", key, "Sec-Fetch-Site", "same-origin", "Sec-Fetch-Site", "same-origin"), "", 403, CodeOriginMissing},
		{"null origin", "GET", MountPath + "key", hdr("Origin", "null"), "", 403, CodeOriginForbidden},
		{"foreign origin", "GET", MountPath + "key", hdr("Origin", "https://evil.example"), "", 403, CodeOriginForbidden},
		{"origin of a subdomain", "GET", MountPath + "key", hdr("Origin", "https://x.workbench.example.org"), "", 403, CodeOriginForbidden},
		{"origin over http", "GET", MountPath + "key", hdr("Origin", "http://workbench.example.org"), "", 403, CodeOriginForbidden},
		{"foreign preflight", "OPTIONS", MountPath + "chat/completions", hdr("Origin", "https://evil.example", "Access-Control-Request-Method", "POST"), "", 403, CodeOriginForbidden},
		{"put", "PUT", MountPath + "key", ok(), "", 405, CodeMethod},
		{"connect", "CONNECT", MountPath + "key", ok(), "", 405, CodeMethod},
		{"lower-case get", "get", MountPath + "key", ok(), "", 405, CodeMethod},
		{"get with body", "GET", MountPath + "key", ok(), "x", 400, CodeBody},
		{"post text/plain", "POST", MountPath + "chat/completions", ok("Content-Type", "text/plain"), "{}", 415, CodeMediaType},
		{"post json lookalike", "POST", MountPath + "chat/completions", ok("Content-Type", "application/jsonx"), "{}", 415, CodeMediaType},
		{"post over cap", "POST", MountPath + "chat/completions", ok("Content-Type", "application/json"), strings.Repeat("x", 101), 413, CodeTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			h := newTestHandler(t, rec, 100)
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, request(tt.method, tt.path, tt.hdr, tt.body))
			checkRefusal(t, rr, rec, tt.status, tt.code)
		})
	}
}

// checkRefusal checks an answer the handler gave on its own: its status,
// the JSON error's code, no call upstream, no CORS grant. It returns the
// error.
func checkRefusal(t *testing.T, rr *httptest.ResponseRecorder, rec *recorder, status int, code string) errorDetail {
	t.Helper()
	if rr.Code != status {
		t.Errorf("status %d, want %d; body %s", rr.Code, status, rr.Body)
	}
	e := decodeError(t, rr)
	if e.Code != code {
		t.Errorf("code %q, want %q (%s)", e.Code, code, e.Message)
	}
	if len(rec.calls) != 0 {
		t.Errorf("the upstream was called with %s", rec.calls[0].URL)
	}
	checkNoCORS(t, rr.Header(), "refusal")
	return e
}

// checkNoCORS fails t if h, the headers of what, grants another origin
// anything.
func checkNoCORS(t *testing.T, h http.Header, what string) {
	t.Helper()
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("%s carries %s", what, k)
		}
	}
}

// TestOversizedBodyNotRead checks that a declared length over the cap is
// refused before a byte of the body is read.
func TestOversizedBodyNotRead(t *testing.T) {
	rec := &recorder{}
	h := newTestHandler(t, rec, 100)
	r := request("POST", MountPath+"chat/completions", hdr("Origin", testOrigin, "Content-Type", "application/json"), "")
	r.ContentLength = 1 << 30
	r.Body = io.NopCloser(readerFunc(func([]byte) (int, error) {
		t.Error("the body was read")
		return 0, io.EOF
	}))
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, r)
	if rr.Code != 413 || len(rec.calls) != 0 {
		t.Fatalf("status %d, %d upstream calls; want 413 and none", rr.Code, len(rec.calls))
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestForwarded checks what the handler hands the Doer and what it passes
// back.
func TestForwarded(t *testing.T) {
	const key = "Bearer  sk-or-v1-abc+/~="
	rec := &recorder{}
	h := newTestHandler(t, rec, 0)
	r := request("POST", MountPath+"chat/completions", hdr(
		"Origin", testOrigin, "Authorization", key, "Content-Type", "application/json",
		"HTTP-Referer", testOrigin+"/skills/x", "Cookie", "c=1", "X-Forwarded-For", "203.0.113.1",
		"CF-Connecting-IP", "203.0.113.1", "X-Api-Key", "k", "X-Title", "t", "User-Agent", "ua",
	), `{"stream":false}`)
	r.URL.RawQuery = "a=1&b=%2F"
	r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, "client"))
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, r)
	if rr.Code != 200 {
		t.Fatalf("status %d: %s", rr.Code, rr.Body)
	}
	if len(rec.calls) != 1 {
		t.Fatalf("%d upstream calls, want 1", len(rec.calls))
	}
	up := rec.calls[0]
	if got, want := up.URL.String(), OpenRouterAPI+"/chat/completions?a=1&b=%2F"; got != want {
		t.Errorf("upstream URL %s, want %s", got, want)
	}
	if up.Method != "POST" || string(rec.bodies[0]) != `{"stream":false}` {
		t.Errorf("upstream got %s %q", up.Method, rec.bodies[0])
	}
	want := http.Header{"Authorization": {key}, "Content-Type": {"application/json"}, "Http-Referer": {testOrigin + "/skills/x"}}
	if !equalHeader(up.Header, want) {
		t.Errorf("upstream headers %v, want exactly %v", up.Header, want)
	}
	if up.Context().Value(ctxKey{}) != "client" {
		t.Errorf("upstream request is not tied to the client's context")
	}
	got := rr.Header()
	// Content-Length is the upstream's, for a body passed on as it came.
	wantResp := http.Header{"Content-Type": {"application/json"}, "X-Ratelimit-Remaining": {"9"}, "X-Content-Type-Options": {"nosniff"},
		"Content-Security-Policy": {apiCSP}, "Content-Length": {"11"}}
	if !equalHeader(got, wantResp) {
		t.Errorf("response headers %v, want exactly %v", got, wantResp)
	}
	if rr.Body.String() != `{"data":{}}` {
		t.Errorf("body %q", rr.Body)
	}
}

type ctxKey struct{}

// TestDeclaredLength: the upstream's Content-Length is passed on only
// when it is the length of the bytes passed on, so that a body that
// breaks off is short of it for the client too.
func TestDeclaredLength(t *testing.T) {
	for _, tt := range []struct {
		name         string
		header       http.Header
		te           []string
		uncompressed bool
		want         string
	}{
		{"declared", http.Header{"Content-Length": {"100"}}, nil, false, "100"},
		{"zero", http.Header{"Content-Length": {"0"}}, nil, false, "0"},
		{"none", http.Header{}, nil, false, ""},
		{"chunked", http.Header{"Content-Length": {"100"}}, []string{"chunked"}, false, ""},
		{"coded", http.Header{"Content-Length": {"100"}, "Content-Encoding": {"gzip"}}, nil, false, ""},
		{"decoded by the client", http.Header{"Content-Length": {"100"}}, nil, true, ""},
		{"two", http.Header{"Content-Length": {"100", "100"}}, nil, false, ""},
		{"negative", http.Header{"Content-Length": {"-1"}}, nil, false, ""},
		{"not a number", http.Header{"Content-Length": {"1e3"}}, nil, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doer := &recorder{resp: func() (*http.Response, error) {
				h := tt.header.Clone()
				h.Set("Content-Type", "application/json")
				return &http.Response{StatusCode: 200, Header: h, TransferEncoding: tt.te, Uncompressed: tt.uncompressed,
					Body: io.NopCloser(strings.NewReader(""))}, nil
			}}
			rr := httptest.NewRecorder()
			serveAborting(newTestHandler(t, doer, 0), rr, request("GET", MountPath+"key", hdr("Origin", testOrigin), ""))
			if got := rr.Header().Get("Content-Length"); got != tt.want {
				t.Errorf("Content-Length %q, want %q", got, tt.want)
			}
		})
	}
}

func equalHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestSameOriginGet is the request a browser makes for a same-origin
// fetch("…/key"): no Origin, Sec-Fetch-Site: same-origin.
func TestSameOriginGet(t *testing.T) {
	rec := &recorder{}
	h := newTestHandler(t, rec, 0)
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, request("GET", MountPath+"key", hdr("Authorization", "Bearer k", "Sec-Fetch-Site", "same-origin"), ""))
	if rr.Code != 200 || len(rec.calls) != 1 || rec.calls[0].URL.String() != OpenRouterAPI+"/key" {
		t.Fatalf("status %d, calls %d", rr.Code, len(rec.calls))
	}
}

func TestOptionsAnsweredLocally(t *testing.T) {
	rec := &recorder{}
	h := newTestHandler(t, rec, 0)
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, request("OPTIONS", MountPath+"chat/completions", hdr("Origin", testOrigin, "Access-Control-Request-Method", "POST"), ""))
	if rr.Code != 204 || rr.Header().Get("Allow") != "GET, POST, OPTIONS" || len(rec.calls) != 0 {
		t.Fatalf("status %d, Allow %q, %d upstream calls", rr.Code, rr.Header().Get("Allow"), len(rec.calls))
	}
	checkNoCORS(t, rr.Header(), "OPTIONS answer")
}

func TestUpstreamFailures(t *testing.T) {
	tests := []struct {
		name   string
		resp   func() (*http.Response, error)
		status int
		code   string
	}{
		{"unreachable", func() (*http.Response, error) { return nil, errors.New("dial tcp: connection refused") }, 502, CodeUpstream},
		{"redirect", func() (*http.Response, error) {
			return &http.Response{StatusCode: 302, Header: http.Header{"Location": {"https://evil.example/"}}, Body: http.NoBody}, nil
		}, 502, CodeRedirect},
		{"permanent redirect", func() (*http.Response, error) {
			return &http.Response{StatusCode: 308, Header: http.Header{"Location": {"https://evil.example/"}}, Body: http.NoBody}, nil
		}, 502, CodeRedirect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ev Event
			h, err := New(Config{AllowedOrigin: testOrigin, Doer: &recorder{resp: tt.resp}, Log: func(e Event) { ev = e }})
			if err != nil {
				t.Fatal(err)
			}
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, request("GET", MountPath+"key", hdr("Origin", testOrigin), ""))
			if rr.Code != tt.status {
				t.Errorf("status %d, want %d", rr.Code, tt.status)
			}
			if e := decodeError(t, rr); e.Code != tt.code {
				t.Errorf("code %q, want %q", e.Code, tt.code)
			}
			if rr.Header().Get("Location") != "" {
				t.Errorf("Location passed back")
			}
			if ev.Status != tt.status || ev.Code != tt.code || ev.Path != "key" {
				t.Errorf("event %+v", ev)
			}
		})
	}
}

// flushCounter is a ResponseWriter that records the body as it stood at
// each Flush.
type flushCounter struct {
	*httptest.ResponseRecorder
	atFlush []string
}

func (f *flushCounter) Flush() { f.atFlush = append(f.atFlush, f.Body.String()) }

// chunks is an upstream body that arrives in pieces.
type chunks struct{ parts []string }

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.parts[0])
	c.parts[0] = c.parts[0][n:]
	if c.parts[0] == "" {
		c.parts = c.parts[1:]
	}
	return n, nil
}

// streaming is a Doer whose upstream answers 200 with an event stream
// arriving in parts.
func streaming(parts []string) *recorder {
	return &recorder{resp: func() (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(&chunks{parts: slices.Clone(parts)})}, nil
	}}
}

// checkEachFlushed fails t unless the body was flushed after each of
// parts arrived, and only then.
func (f *flushCounter) checkEachFlushed(t *testing.T, parts []string) {
	t.Helper()
	var want []string
	for i := range parts {
		want = append(want, strings.Join(parts[:i+1], ""))
	}
	if !slices.Equal(f.atFlush, want) {
		t.Errorf("body at each flush %q, want %q", f.atFlush, want)
	}
}

func TestStreamFlushesEachChunk(t *testing.T) {
	parts := []string{"data: 1\n\n", "data: 2\n\n", "data: [DONE]\n\n"}
	rec := streaming(parts)
	var ev Event
	h, err := New(Config{AllowedOrigin: testOrigin, Doer: rec, Log: func(e Event) { ev = e }})
	if err != nil {
		t.Fatal(err)
	}
	w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	h.ServeHTTP(w, request("POST", MountPath+"chat/completions", hdr("Origin", testOrigin, "Content-Type", "application/json"), `{"stream":true}`))
	w.checkEachFlushed(t, parts)
	if ev.Bytes != int64(len(strings.Join(parts, ""))) || ev.Upstream != 200 || ev.Code != "" {
		t.Errorf("event %+v", ev)
	}
}

func TestStreamBreaksOff(t *testing.T) {
	rec := &recorder{resp: func() (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(io.MultiReader(strings.NewReader("data: 1\n\n"), readerFunc(func([]byte) (int, error) {
				return 0, errors.New("connection reset")
			})))}, nil
	}}
	var ev Event
	h, err := New(Config{AllowedOrigin: testOrigin, Doer: rec, Log: func(e Event) { ev = e }})
	if err != nil {
		t.Fatal(err)
	}
	rr := httptest.NewRecorder()
	aborted := serveAborting(h, rr, request("GET", MountPath+"models", hdr("Origin", testOrigin), ""))
	if rr.Code != 200 || rr.Body.String() != "data: 1\n\n" || ev.Code != CodeUpstreamBroken {
		t.Errorf("status %d body %q event %+v", rr.Code, rr.Body, ev)
	}
	if !aborted {
		t.Errorf("the handler returned normally, which ends the body as if whole; want it to abort (http.ErrAbortHandler)")
	}
}

// serveAborting serves r with h and reports whether h aborted the
// response by panicking with http.ErrAbortHandler, after which net/http's
// server closes the connection without ending the body. Any other panic
// goes on.
func serveAborting(h http.Handler, w http.ResponseWriter, r *http.Request) (aborted bool) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			aborted = true
		}
	}()
	h.ServeHTTP(w, r)
	return false
}

func TestClientGoneBeforeUpstreamAnswers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec := &recorder{resp: func() (*http.Response, error) {
		cancel()
		return nil, context.Canceled
	}}
	var ev Event
	h, err := New(Config{AllowedOrigin: testOrigin, Doer: rec, Log: func(e Event) { ev = e }})
	if err != nil {
		t.Fatal(err)
	}
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, request("GET", MountPath+"key", hdr("Origin", testOrigin), "").WithContext(ctx))
	if ev.Code != CodeClientGone || rr.Body.Len() != 0 {
		t.Errorf("event %+v, body %q", ev, rr.Body)
	}
}

func TestWriteError(t *testing.T) {
	rr := httptest.NewRecorder()
	WriteError(rr, &Error{Status: 500, Code: CodeMisconfigured, Message: `ALLOWED_ORIGIN "" is not an origin`})
	if rr.Code != 500 || rr.Body.String() != `{"error":{"code":"proxy_misconfigured","message":"ALLOWED_ORIGIN \"\" is not an origin"}}`+"\n" {
		t.Errorf("%d %s", rr.Code, rr.Body)
	}
	if rr.Header().Get("Cache-Control") != "no-store" || rr.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers %v", rr.Header())
	}
}

// FuzzCheckPath checks the path rule's guarantee: whatever request target
// arrives, an accepted one yields an upstream URL on the configured host
// whose path is the base plus plain segments, and that survives a parse
// round trip unchanged (nothing for a later hop to re-decode).
func FuzzCheckPath(f *testing.F) {
	for _, s := range []string{
		MountPath + "key", MountPath + "chat/completions", MountPath + "../key", MountPath + "%2e%2e/key",
		MountPath + "%252e%252e/key", MountPath + `..\key`, MountPath + "/evil.example/x", MountPath + "@evil.example",
		MountPath + "models?supported_parameters=tools", "//evil.example" + MountPath + "key", "http://evil.example" + MountPath + "key",
		MountPath + "key%00", MountPath + "a/./b", MountPath + "~/.-_",
	} {
		f.Add(s)
	}
	base, _ := url.Parse(OpenRouterAPI)
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		rest, e := checkPath(u)
		if e != nil {
			return
		}
		got := *base
		got.Path = base.Path + "/" + rest
		got.RawQuery = u.RawQuery
		s := got.String()
		back, err := url.Parse(s)
		if err != nil {
			t.Fatalf("accepted %q, built unparsable %q: %v", target, s, err)
		}
		if back.Scheme != "https" || back.Host != "openrouter.ai" || back.User != nil {
			t.Fatalf("accepted %q, built %q: wrong host", target, s)
		}
		if !strings.HasPrefix(back.EscapedPath(), "/api/v1/") || back.EscapedPath() != back.Path {
			t.Fatalf("accepted %q, built %q: path %q escaped %q", target, s, back.Path, back.EscapedPath())
		}
		for _, seg := range strings.Split(strings.TrimPrefix(back.Path, "/api/v1/"), "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("accepted %q, built %q with segment %q", target, s, seg)
			}
		}
	})
}
