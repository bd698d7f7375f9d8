//go:build js

package fetch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"syscall/js"
	"testing"
	"time"
)

// nodeServer is testdata/server.js listening on loopback.
type nodeServer struct {
	URL string
	js  js.Value
}

func (s *nodeServer) release() { s.js.Call("release") }

// startNodeServer starts the test server through Node.js's own http
// module: fetch reaches real sockets, not the in-process network that
// httptest uses under js/wasm.
func startNodeServer(t *testing.T) *nodeServer {
	t.Helper()
	require := js.Global().Get("require")
	if require.Type() != js.TypeFunction {
		t.Skip("not running under Node.js: no require to start the test server")
	}
	path, err := filepath.Abs("testdata/server.js")
	if err != nil {
		t.Fatal(err)
	}
	v, err := await(require.Invoke(path).Call("start"))
	if err != nil {
		t.Fatalf("starting the test server: %v", err)
	}
	t.Cleanup(func() { v.Call("close") })
	return &nodeServer{URL: v.Get("url").String(), js: v}
}

// spyFetch records the options of every fetch call until the test ends.
func spyFetch(t *testing.T) *[]js.Value {
	t.Helper()
	orig := js.Global().Get("fetch")
	var seen []js.Value
	spy := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 1 {
			seen = append(seen, args[1])
		}
		return orig.Invoke(toAny(args)...)
	})
	js.Global().Set("fetch", spy)
	t.Cleanup(func() {
		js.Global().Set("fetch", orig)
		spy.Release()
	})
	return &seen
}

func toAny(vs []js.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func TestDefaultIsBrowser(t *testing.T) {
	if _, ok := Default().(Browser); !ok {
		t.Fatalf("Default() = %T, want Browser", Default())
	}
}

func TestRequestAndResponse(t *testing.T) {
	srv := startNodeServer(t)
	seen := spyFetch(t)
	tests := []struct {
		name   string
		method string
		body   string
		header http.Header
	}{
		{"GET", http.MethodGet, "", http.Header{"Accept": {"application/json"}}},
		{"POST with body", http.MethodPost, `{"jsonrpc":"2.0","id":1}`, http.Header{
			"Content-Type":         {"application/json"},
			"Authorization":        {"Bearer sk-test"},
			"Mcp-Session-Id":       {"abc"},
			"Mcp-Protocol-Version": {"2025-11-25"},
			"Http-Referer":         {"https://w.example"},
		}},
		{"DELETE", http.MethodDelete, "", http.Header{"Mcp-Session-Id": {"abc"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req, err := http.NewRequestWithContext(context.Background(), tt.method, srv.URL+"/echo?q=1", body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header = tt.header
			resp, err := Browser{}.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 || resp.Status != "200 OK" {
				t.Errorf("status %d %q", resp.StatusCode, resp.Status)
			}
			if got := resp.Header.Get("Mcp-Session-Id"); got != "s-1" {
				t.Errorf("Mcp-Session-Id %q", got)
			}
			if got := resp.Header.Get("X-Multi"); got != "a, b" {
				t.Errorf("X-Multi %q, want fetch's joined %q", got, "a, b")
			}
			if resp.Request != req {
				t.Error("Response.Request is not the request")
			}
			var echo struct {
				Method  string            `json:"method"`
				Path    string            `json:"path"`
				Headers map[string]string `json:"headers"`
				Body    string            `json:"body"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&echo); err != nil {
				t.Fatal(err)
			}
			if echo.Method != tt.method || echo.Path != "/echo?q=1" || echo.Body != tt.body {
				t.Errorf("server saw %s %s %q", echo.Method, echo.Path, echo.Body)
			}
			for k, vs := range tt.header {
				if got := echo.Headers[strings.ToLower(k)]; got != vs[0] {
					t.Errorf("header %s arrived as %q, want %q", k, got, vs[0])
				}
			}
		})
	}
	if len(*seen) != len(tests) {
		t.Fatalf("%d fetch calls, want %d", len(*seen), len(tests))
	}
	for i, o := range *seen {
		if c, r := o.Get("credentials").String(), o.Get("redirect").String(); c != "same-origin" || r != "follow" {
			t.Errorf("call %d: credentials %q, redirect %q", i, c, r)
		}
		if o.Get("signal").IsUndefined() {
			t.Errorf("call %d: no abort signal", i)
		}
	}
}

func TestStatusAndEmptyBody(t *testing.T) {
	srv := startNodeServer(t)
	tests := []struct {
		path   string
		code   int
		status string
		body   string
	}{
		{"/status?code=429", 429, "429 Too Many Requests", "status body"},
		{"/status?code=404", 404, "404 Not Found", "status body"},
		{"/empty", 204, "204 No Content", ""},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
		resp, err := Browser{}.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != tt.code || resp.Status != tt.status || string(b) != tt.body {
			t.Errorf("%s: %q %q, %v; want %q %q", tt.path, resp.Status, b, err, tt.status, tt.body)
		}
		if tt.code == 429 && resp.Header.Get("Retry-After") != "7" {
			t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
		}
	}
}

// An event stream is delivered as it arrives: the first event is read
// while the server still holds the response open.
func TestStreamIsNotBuffered(t *testing.T) {
	srv := startNodeServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sse", nil)
	resp, err := Browser{}.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	r := bufio.NewReader(resp.Body)
	line, err := r.ReadString('\n')
	if err != nil || line != "data: one\n" {
		t.Fatalf("first line %q, %v (a timeout here means the body was buffered)", line, err)
	}
	srv.release()
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != "\ndata: two\n\n" {
		t.Errorf("rest %q, %v", rest, err)
	}
}

func TestContextEnds(t *testing.T) {
	srv := startNodeServer(t)

	t.Run("before the answer", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/hang", nil)
		start := time.Now()
		_, err := Browser{}.Do(req)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want one wrapping context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the abort took %v", d)
		}
	})

	t.Run("while the body is read", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/partial", nil)
		resp, err := Browser{}.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		buf := make([]byte, 64)
		n, err := resp.Body.Read(buf)
		if err != nil || string(buf[:n]) != "first part;" {
			t.Fatalf("first read %q, %v", buf[:n], err)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err = resp.Body.Read(buf)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("read after cancel: %v, want one wrapping context.Canceled", err)
		}
	})

	t.Run("already ended", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/echo", nil)
		if _, err := (Browser{}).Do(req); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestFailures(t *testing.T) {
	srv := startNodeServer(t)
	tests := []struct {
		name string
		req  func() *http.Request
		want string
	}{
		{"refused", func() *http.Request {
			// Port 1 on loopback has no listener.
			r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
			return r
		}, "fetch: GET http://127.0.0.1:1/: TypeError"},
		{"bad header name", func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, srv.URL+"/echo", nil)
			r.Header["Bad Name"] = []string{"x"}
			return r
		}, `header "Bad Name"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := Browser{}.Do(tt.req())
			if err == nil {
				resp.Body.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// Closing a body before its end cancels the stream; reading after Close
// fails.
func TestCloseEarly(t *testing.T) {
	srv := startNodeServer(t)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/sse", nil)
	resp, err := Browser{}.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := resp.Body.Read(buf); !errors.Is(err, errClosed) {
		t.Errorf("read after Close: %v", err)
	}
}

// Close from another goroutine ends a read that waits for the next chunk,
// with an error rather than a clean end of stream.
func TestCloseDuringRead(t *testing.T) {
	srv := startNodeServer(t)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/sse", nil)
	resp, err := Browser{}.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	first, err := io.ReadAll(io.LimitReader(resp.Body, int64(len("data: one\n\n"))))
	if err != nil || string(first) != "data: one\n\n" {
		t.Fatalf("first event %q, %v", first, err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := resp.Body.Read(make([]byte, 64))
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	resp.Body.Close()
	select {
	case err := <-got:
		if !errors.Is(err, errClosed) {
			t.Errorf("the waiting read returned %v, want errClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the waiting read")
	}
}

// NoRedirects(Browser{}) asks fetch for redirect "manual" and follows no
// redirect to another port: the target never sees the request's
// Authorization, and the error names the status and the target. Under
// Node.js a manual redirect is the 3xx answer itself; in a browser it is
// an opaque response, which Do turns into a RedirectError of its own.
func TestNoRedirectsBrowser(t *testing.T) {
	from, thief := startNodeServer(t), startNodeServer(t)
	seen := spyFetch(t)
	d := NoRedirects(Browser{})
	if b, ok := d.(noRedirects).d.(Browser); !ok || !b.manualRedirects {
		t.Fatalf("NoRedirects(Browser{}) sends through %#v, not a Browser in manual mode", d.(noRedirects).d)
	}
	for _, status := range []int{301, 302, 303, 307, 308} {
		target := thief.URL + "/capture"
		req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/redirect?status=%d&to=%s", from.URL, status, url.QueryEscape(target)), strings.NewReader(`{}`))
		req.Header.Set("Authorization", "Bearer sk-secret")
		resp, err := d.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%d: answered %d, want an error", status, resp.StatusCode)
		}
		var re *RedirectError
		if !errors.As(err, &re) || re.Status != status || re.Location != target {
			t.Errorf("%d: error %v, want a RedirectError naming %d and %s", status, err, status, target)
		}
	}
	if got := thief.js.Call("captured").String(); got != "" {
		t.Errorf("the redirect target got requests with Authorization %q", got)
	}
	for i, o := range *seen {
		if r := o.Get("redirect").String(); r != "manual" {
			t.Errorf("fetch call %d: redirect %q, want manual", i, r)
		}
	}
}

// A browser's opaque redirect, which hides the status and the target, is
// an error wrapping a RedirectError with neither.
func TestOpaqueRedirect(t *testing.T) {
	orig := js.Global().Get("fetch")
	fake := js.FuncOf(func(js.Value, []js.Value) any {
		res := js.Global().Get("Object").New()
		res.Set("type", "opaqueredirect")
		res.Set("status", 0)
		return js.Global().Get("Promise").Call("resolve", res)
	})
	js.Global().Set("fetch", fake)
	t.Cleanup(func() {
		js.Global().Set("fetch", orig)
		fake.Release()
	})
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:9/x", nil)
	_, err := NoRedirects(Browser{}).Do(req)
	var re *RedirectError
	if !errors.As(err, &re) || re.Status != 0 || re.Location != "" || !strings.Contains(err.Error(), "hides the status") {
		t.Fatalf("error %v, want a RedirectError without status or target", err)
	}
}
