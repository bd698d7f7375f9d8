package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// both runs check against the proxy and the relay, each built around
// doer with the given timeouts, and a request for each built from hdr.
func both(t *testing.T, doer Doer, header, idle time.Duration, check func(t *testing.T, h http.Handler, req func(hdr map[string][]string) *http.Request)) {
	t.Helper()
	p, err := New(Config{AllowedOrigin: testOrigin, Doer: doer, HeaderTimeout: header, IdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMCPRelay(MCPConfig{AllowedOrigin: testOrigin, Servers: []MCPServer{{"shell", mcpShellURL + "?token=QUERY-SECRET"}},
		Doer: doer, HeaderTimeout: header, IdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("proxy", func(t *testing.T) {
		check(t, p, func(h map[string][]string) *http.Request {
			return request("GET", MountPath+"key", h, "")
		})
	})
	t.Run("relay", func(t *testing.T) {
		check(t, m, func(h map[string][]string) *http.Request {
			return request("GET", MCPMountPath+"shell", h, "")
		})
	})
}

// TestHostChecked: a request naming a Host other than the workbench's is
// refused before anything else, even a GET that a browser attests as
// same-origin, which is what a DNS-rebinding page sends.
func TestHostChecked(t *testing.T) {
	for _, tt := range []struct {
		name, host string
		status     int
	}{
		{"own", "workbench.example.org", 200},
		{"own, other case", "Workbench.Example.ORG", 200},
		{"rebinding name", "evil.example", 421},
		{"own name, other port", "workbench.example.org:8443", 421},
		{"suffix", "workbench.example.org.evil.example", 421},
		{"empty", "", 421},
	} {
		t.Run(tt.name, func(t *testing.T) {
			both(t, &recorder{}, 0, 0, func(t *testing.T, h http.Handler, req func(map[string][]string) *http.Request) {
				r := req(hdr("Sec-Fetch-Site", "same-origin"))
				r.Host = tt.host
				rr := httptest.NewRecorder()
				h.ServeHTTP(rr, r)
				if rr.Code != tt.status {
					t.Fatalf("Host %q: status %d, want %d; %s", tt.host, rr.Code, tt.status, rr.Body)
				}
				if tt.status == 421 {
					if e := decodeError(t, rr); e.Code != CodeHostForbidden {
						t.Errorf("code %q", e.Code)
					}
				}
			})
		})
	}
}

// TestAPIResponsesCannotRunAsPages: whatever the upstream answers, the
// client gets the sandboxing CSP and nosniff, and anything but JSON or an
// event stream as a download.
func TestAPIResponsesCannotRunAsPages(t *testing.T) {
	for _, tt := range []struct {
		contentType string
		attachment  bool
	}{
		{"application/json", false},
		{"application/json; charset=utf-8", false},
		{"Text/Event-Stream", false},
		{"text/html", true},
		{"text/html; charset=utf-8", true},
		{"image/svg+xml", true},
		{"application/xhtml+xml", true},
		{"text/plain", true},
		{"", true},
		{"application/json, text/html", true},
	} {
		t.Run(tt.contentType, func(t *testing.T) {
			doer := &recorder{resp: func() (*http.Response, error) {
				h := http.Header{"Content-Security-Policy": {"script-src *"}, "Content-Disposition": {"inline"}}
				if tt.contentType != "" {
					h.Set("Content-Type", tt.contentType)
				}
				return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader("<script>alert(1)</script>"))}, nil
			}}
			both(t, doer, 0, 0, func(t *testing.T, h http.Handler, req func(map[string][]string) *http.Request) {
				rr := httptest.NewRecorder()
				h.ServeHTTP(rr, req(hdr("Origin", testOrigin)))
				checkAPIHeaders(t, rr.Header())
				if got := rr.Header().Get("Content-Disposition"); (got == "attachment") != tt.attachment || (got != "" && got != "attachment") {
					t.Errorf("Content-Disposition %q, want attachment: %v", got, tt.attachment)
				}
			})
		})
	}
	t.Run("own answers", func(t *testing.T) {
		both(t, &recorder{}, 0, 0, func(t *testing.T, h http.Handler, req func(map[string][]string) *http.Request) {
			for _, r := range []*http.Request{req(hdr("Origin", "https://evil.example")), req(hdr("Origin", testOrigin))} {
				r.Method = http.MethodOptions
				rr := httptest.NewRecorder()
				h.ServeHTTP(rr, r)
				checkAPIHeaders(t, rr.Header())
			}
		})
		m := newTestRelay(t, &recorder{}, 0, nil)
		rr := httptest.NewRecorder()
		m.ServeHTTP(rr, request("GET", MCPMountPath, hdr("Origin", testOrigin), ""))
		checkAPIHeaders(t, rr.Header())
	})
}

func checkAPIHeaders(t *testing.T, h http.Header) {
	t.Helper()
	if got := h.Values("Content-Security-Policy"); len(got) != 1 || got[0] != "default-src 'none'; sandbox" {
		t.Errorf("Content-Security-Policy %q", got)
	}
	if got := h.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", got)
	}
}

// TestHeaderValueCap: a forwarded header value over MaxHeaderValueBytes
// is refused, one at the cap passes.
func TestHeaderValueCap(t *testing.T) {
	long := func(n int) string { return "Bearer " + strings.Repeat("a", n-len("Bearer ")) }
	for _, tt := range []struct {
		name   string
		hdr    map[string][]string
		status int
	}{
		{"authorization at cap", hdr("Origin", testOrigin, "Authorization", long(MaxHeaderValueBytes)), 200},
		{"authorization over cap", hdr("Origin", testOrigin, "Authorization", long(MaxHeaderValueBytes+1)), 431},
		{"referer over cap", hdr("Origin", testOrigin, "Http-Referer", testOrigin+"/"+strings.Repeat("a", MaxHeaderValueBytes)), 431},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			h := newTestHandler(t, rec, 0)
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, request("GET", MountPath+"key", tt.hdr, ""))
			if rr.Code != tt.status {
				t.Fatalf("status %d, want %d; %s", rr.Code, tt.status, rr.Body)
			}
			if tt.status == 431 {
				checkRefusal(t, rr, rec, 431, CodeHeaderTooLarge)
			}
		})
	}
	for _, k := range []string{"Mcp-Session-Id", "Accept", "Last-Event-Id", "Mcp-Protocol-Version"} {
		t.Run("relay "+k, func(t *testing.T) {
			rec := &recorder{}
			m := newTestRelay(t, rec, 0, nil)
			rr := httptest.NewRecorder()
			m.ServeHTTP(rr, request("GET", MCPMountPath+"shell", hdr("Origin", testOrigin, k, strings.Repeat("s", MaxHeaderValueBytes+1)), ""))
			checkRefusal(t, rr, rec, 431, CodeHeaderTooLarge)
		})
	}
}

// TestUpstreamErrorsQuoteNoURL: what net/http (and the runtime's fetch)
// report quotes the request URL, query and all; the 502 must not.
func TestUpstreamErrorsQuoteNoURL(t *testing.T) {
	doer := DoerFunc(func(r *http.Request) (*http.Response, error) {
		return nil, &url.Error{Op: r.Method, URL: r.URL.String(), Err: errors.New("connection reset by peer")}
	})
	both(t, doer, 0, 0, func(t *testing.T, h http.Handler, req func(map[string][]string) *http.Request) {
		r := req(hdr("Origin", testOrigin))
		if strings.HasPrefix(r.URL.Path, MountPath) {
			// The relay's configured URL carries the query instead.
			r.URL.RawQuery = "q=QUERY-SECRET"
		}
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, r)
		if rr.Code != 502 || decodeError(t, rr).Code != CodeUpstream {
			t.Fatalf("status %d %s, want 502 %s", rr.Code, rr.Body, CodeUpstream)
		}
		for _, leak := range []string{"QUERY-SECRET", "openrouter.ai", "127.0.0.1", "http"} {
			if strings.Contains(rr.Body.String(), leak) {
				t.Errorf("the 502 quotes %q: %s", leak, rr.Body)
			}
		}
	})
}

// blockingDoer answers only when released; whether it honours the
// request's context is up to honour (the Worker's fetch does not).
type blockingDoer struct {
	honour  bool
	release chan struct{}
}

func (d *blockingDoer) Do(r *http.Request) (*http.Response, error) {
	if d.honour {
		select {
		case <-r.Context().Done():
			return nil, r.Context().Err()
		case <-d.release:
		}
	} else {
		<-d.release
	}
	return okResponse(`{}`), nil
}

// TestHeaderTimeout: an upstream that sends no headers is given up after
// the header timeout with a 504, whether or not the Doer honours the
// context.
func TestHeaderTimeout(t *testing.T) {
	for _, honour := range []bool{true, false} {
		d := &blockingDoer{honour: honour, release: make(chan struct{})}
		t.Cleanup(func() { close(d.release) })
		both(t, d, 50*time.Millisecond, time.Minute, func(t *testing.T, h http.Handler, req func(map[string][]string) *http.Request) {
			start := time.Now()
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, req(hdr("Origin", testOrigin)))
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("answered after %s", el)
			}
			if rr.Code != 504 || decodeError(t, rr).Code != CodeUpstreamTimeout {
				t.Errorf("honour=%v: %d %s, want 504 %s", honour, rr.Code, rr.Body, CodeUpstreamTimeout)
			}
		})
	}
}

// stallingBody sends one chunk, then blocks until closed. closedEOF makes
// the blocked Read end as the Fetch API's reader does when canceled (a
// clean end) rather than with an error.
type stallingBody struct {
	first     string
	closedEOF bool
	once      sync.Once
	closed    chan struct{}
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if b.first != "" {
		n := copy(p, b.first)
		b.first = b.first[n:]
		return n, nil
	}
	<-b.closed
	if b.closedEOF {
		return 0, io.EOF
	}
	return 0, errors.New("read on closed body")
}

func (b *stallingBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return nil
}

// TestIdleTimeout: a body that stops arriving is cut after the idle
// timeout, broken off for the client too, and the log says why.
func TestIdleTimeout(t *testing.T) {
	for _, eof := range []bool{false, true} {
		doer := &recorder{resp: func() (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: &stallingBody{first: "data: 1\n\n", closedEOF: eof, closed: make(chan struct{})}}, nil
		}}
		var mu sync.Mutex
		var codes []string
		p, err := New(Config{AllowedOrigin: testOrigin, Doer: doer, IdleTimeout: 50 * time.Millisecond,
			Log: func(e Event) { mu.Lock(); codes = append(codes, e.Code); mu.Unlock() }})
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewMCPRelay(MCPConfig{AllowedOrigin: testOrigin, Servers: []MCPServer{{"shell", mcpShellURL}}, Doer: doer,
			IdleTimeout: 50 * time.Millisecond, Log: func(e MCPEvent) { mu.Lock(); codes = append(codes, e.Code); mu.Unlock() }})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			h    http.Handler
			path string
		}{{p, MountPath + "models"}, {m, MCPMountPath + "shell"}} {
			start := time.Now()
			rr := httptest.NewRecorder()
			if !serveAborting(r.h, rr, request("GET", r.path, hdr("Origin", testOrigin), "")) {
				t.Errorf("%s: the stalled body was ended as if whole; want the response aborted", r.path)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("%s: cut after %s", r.path, el)
			}
			if rr.Code != 200 || rr.Body.String() != "data: 1\n\n" {
				t.Errorf("%s: %d %q", r.path, rr.Code, rr.Body)
			}
		}
		mu.Lock()
		if len(codes) != 2 || codes[0] != CodeUpstreamIdle || codes[1] != CodeUpstreamIdle {
			t.Errorf("eof=%v: logged codes %q, want %s twice", eof, codes, CodeUpstreamIdle)
		}
		mu.Unlock()
	}
}

func TestNegativeTimeoutsRefused(t *testing.T) {
	if _, err := New(Config{AllowedOrigin: testOrigin, Doer: &recorder{}, HeaderTimeout: -1}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("New: %v", err)
	}
	if _, err := NewMCPRelay(MCPConfig{AllowedOrigin: testOrigin, Doer: &recorder{}, IdleTimeout: -1}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("NewMCPRelay: %v", err)
	}
}

// TestConfigErrorsQuoteNoCredentials: a rejected MCP URL is named in the
// startup error without its userinfo or query.
func TestConfigErrorsQuoteNoCredentials(t *testing.T) {
	for _, u := range []string{
		"http://user:PASSWORD-SECRET@10.0.0.5/mcp",
		"https://TOKEN-SECRET@mcp.example.net/mcp#frag",
		"ftp://mcp.example.net/mcp?key=QUERY-SECRET",
		"http://10.0.0.5/mcp?key=QUERY-SECRET",
	} {
		_, err := NewMCPRelay(MCPConfig{AllowedOrigin: testOrigin, Servers: []MCPServer{{"b", u}}, Doer: &recorder{}})
		if err == nil {
			t.Fatalf("%s accepted", u)
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("error quotes a credential: %v", err)
		}
		if !strings.Contains(err.Error(), `MCP server "b"`) {
			t.Errorf("error does not say which server: %v", err)
		}
	}
	_, err := ParseMCPServer("https://user:PASSWORD-SECRET@mcp.example.net/mcp")
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("ParseMCPServer: %v", err)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://mcp.example.net/mcp":                "https://mcp.example.net/mcp",
		"https://u:p@mcp.example.net/mcp?k=v":        "https://…@mcp.example.net/mcp?…",
		"https://tok@mcp.example.net":                "https://…@mcp.example.net",
		"http://h/p@x?y@z":                           "http://h/p@x?…",
		"u:p@host/x":                                 "…@host/x",
		"https://a@b@mcp.example.net:8443/mcp?x=1#f": "https://…@mcp.example.net:8443/mcp?…",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHeaderTimeoutClosesLateResponse makes sure the handler does not
// wait for a Doer that ignores cancelation: roundTrip returns at the
// deadline and closes the late response's body itself.
func TestHeaderTimeoutClosesLateResponse(t *testing.T) {
	release := make(chan struct{})
	closed := make(chan struct{})
	doer := DoerFunc(func(*http.Request) (*http.Response, error) {
		<-release
		return &http.Response{StatusCode: 200, Body: closeNotifier{closed}}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:9/", nil)
	if _, err := roundTrip(doer, req, cancel, 10*time.Millisecond); !errors.Is(err, errHeaderTimeout) {
		t.Fatalf("roundTrip: %v", err)
	}
	if ctx.Err() == nil {
		t.Errorf("the exchange was not canceled")
	}
	close(release)
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Errorf("the late response's body was never closed")
	}
}

type closeNotifier struct{ c chan struct{} }

func (closeNotifier) Read([]byte) (int, error) { return 0, io.EOF }
func (n closeNotifier) Close() error           { close(n.c); return nil }

// TestBodyTimeout: a body that does not arrive whole within the body
// timeout is answered 408 and never forwarded; the blocked read is ended
// (here by closing the body, as in the Worker) before the handler returns.
func TestBodyTimeout(t *testing.T) {
	rec := &recorder{}
	p, err := New(Config{AllowedOrigin: testOrigin, Doer: rec, BodyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMCPRelay(MCPConfig{AllowedOrigin: testOrigin, Servers: []MCPServer{{"shell", mcpShellURL}}, Doer: rec, BodyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h      http.Handler
		method string
		path   string
	}{{p, "POST", MountPath + "chat/completions"}, {m, "POST", MCPMountPath + "shell"}, {m, "GET", MCPMountPath}} {
		body := &stallingBody{first: "{", closed: make(chan struct{})}
		r := request(c.method, c.path, hdr("Origin", testOrigin, "Content-Type", "application/json"), "x")
		r.Body = body
		r.ContentLength = -1
		start := time.Now()
		rr := httptest.NewRecorder()
		c.h.ServeHTTP(rr, r)
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s %s: answered after %s", c.method, c.path, el)
		}
		if c.method == "GET" {
			// One byte is enough to refuse a GET body: no waiting.
			checkRefusal(t, rr, rec, 400, CodeBody)
			continue
		}
		checkRefusal(t, rr, rec, 408, CodeBodyTimeout)
		select {
		case <-body.closed:
		default:
			t.Errorf("%s: the stalled body was not closed", c.path)
		}
	}
}

func TestLimiter(t *testing.T) {
	l, err := NewLimiter(3, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		key   string
		at    time.Duration
		ok    bool
		retry time.Duration
	}{
		{"a", 0, true, 0},
		{"a", time.Second, true, 0},
		{"b", time.Second, true, 0},
		{"a", 2 * time.Second, true, 0},
		{"a", 3 * time.Second, false, 7 * time.Second},
		{"a", 9 * time.Second, false, time.Second},
		{"b", 9 * time.Second, true, 0},
		{"a", 10 * time.Second, true, 0}, // a new window
		{"b", 10 * time.Second, true, 0},
	}
	for i, s := range steps {
		ok, retry := l.Allow(s.key, t0.Add(s.at))
		if ok != s.ok || retry != s.retry {
			t.Errorf("step %d (%s at %s): %v %s, want %v %s", i, s.key, s.at, ok, retry, s.ok, s.retry)
		}
	}
	if _, err := NewLimiter(0, time.Second); err == nil {
		t.Errorf("a zero limit was accepted")
	}
}

func TestWriteRateLimited(t *testing.T) {
	for _, c := range []struct {
		retry time.Duration
		want  string
	}{{1500 * time.Millisecond, "2"}, {0, "1"}, {60 * time.Second, "60"}} {
		rr := httptest.NewRecorder()
		WriteRateLimited(rr, 600, time.Minute, c.retry)
		if rr.Code != 429 || rr.Header().Get("Retry-After") != c.want || decodeError(t, rr).Code != CodeRateLimited {
			t.Errorf("retry %s: %d Retry-After %q %s", c.retry, rr.Code, rr.Header().Get("Retry-After"), rr.Body)
		}
		checkAPIHeaders(t, rr.Header())
	}
}

// TestAnswerMethod: a route's methods go on; OPTIONS is answered 204 with
// Allow and no Access-Control-* header; anything else is refused 405 with
// Allow and what the route takes.
func TestAnswerMethod(t *testing.T) {
	const allow = "GET, POST, OPTIONS"
	for _, tc := range []struct {
		method   string
		answered bool
		status   int
	}{
		{http.MethodGet, false, 0},
		{http.MethodPost, false, 0},
		{http.MethodOptions, true, http.StatusNoContent},
		{http.MethodDelete, true, http.StatusMethodNotAllowed},
		{"get", true, http.StatusMethodNotAllowed}, // methods are case-sensitive
	} {
		t.Run(tc.method, func(t *testing.T) {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(tc.method, "/api/openrouter/v1/models", nil)
			var refused *Error
			status, answered := answerMethod(w, r, allow, "use GET or POST", func(e *Error) {
				refused = e
				WriteError(w, e)
			})
			if answered != tc.answered || status != tc.status {
				t.Fatalf("answered %v with %d, want %v with %d", answered, status, tc.answered, tc.status)
			}
			if !answered {
				if w.Header().Get("Allow") != "" || refused != nil {
					t.Fatal("a method the route takes was answered")
				}
				return
			}
			if got := w.Header().Get("Allow"); got != allow {
				t.Errorf("Allow %q, want %q", got, allow)
			}
			if w.Code != tc.status {
				t.Errorf("wrote %d, want %d", w.Code, tc.status)
			}
			for k := range w.Header() {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("answer carries %s", k)
				}
			}
			if tc.status == http.StatusMethodNotAllowed {
				if refused == nil || refused.Code != CodeMethod || !strings.Contains(refused.Message, "method "+tc.method+" is not allowed; use GET or POST") {
					t.Errorf("refusal %+v", refused)
				}
			} else if refused != nil {
				t.Errorf("OPTIONS was refused: %+v", refused)
			}
		})
	}
}
