package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

const testIndex = "<!doctype html><title>workbench</title><script src=\"/app.js\"></script>\n"

// writeSite makes a small built site: index, a script, a wasm file, a
// nested page and a _headers file.
func writeSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"index.html":      testIndex,
		"app.js":          "console.log(1)\n",
		"web/app.wasm":    "\x00asm\x01\x00\x00\x00",
		"docs/index.html": "<!doctype html><title>docs</title>\n",
		"_headers": "# security headers\n/*\n  Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval'; worker-src 'none'\n  X-Frame-Options: DENY\n" +
			"/web/*\n  Cache-Control: public, max-age=60\n/docs/*\n  X-Robots-Tag: noindex\n  ! X-Frame-Options\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Short clocks for the tests, so that each can be watched firing: the
// proxy's and the relay's, and the server's own.
var (
	testTimeouts       = proxytest.Timeouts{Body: 2 * time.Second, Header: 2 * time.Second, Idle: 3 * time.Second}
	testServerTimeouts = serverTimeouts{ReadHeader: time.Second, Read: 3 * time.Second, Write: 3 * time.Second, Idle: time.Second}
)

// withTestClocks sets cfg's clocks to the tests' and returns it.
func withTestClocks(cfg serveConfig) serveConfig {
	cfg.BodyTimeout, cfg.HeaderTimeout, cfg.IdleTimeout = testTimeouts.Body, testTimeouts.Header, testTimeouts.Idle
	cfg.WriteTimeout = testServerTimeouts.Write
	return cfg
}

// startServer serves newServeHandler(cfg) on srv, an unstarted loopback
// server, with the tests' server clocks.
func startServer(t *testing.T, srv *httptest.Server, cfg serveConfig) {
	t.Helper()
	h, err := newServeHandler(withTestClocks(cfg))
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	testServerTimeouts.apply(srv.Config)
	srv.Start()
	t.Cleanup(srv.Close)
}

// startServe runs serve's handler on a loopback server in front of a
// recording upstream.
func startServe(t *testing.T, log *slog.Logger) (proxytest.Target, string) {
	t.Helper()
	up := proxytest.NewUpstream(t)
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	h, err := newServeHandler(withTestClocks(serveConfig{Site: writeSite(t), AllowedOrigin: origin, Upstream: up.URL, Log: log}))
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	testServerTimeouts.apply(srv.Config)
	srv.Start()
	t.Cleanup(srv.Close)
	return proxytest.Target{
		Addr: strings.TrimPrefix(srv.URL, "http://"), Origin: origin, Layer: proxytest.Serve, Upstream: up,
		TransportHeaders: []string{"Content-Length", "Accept-Encoding"},
	}, srv.URL
}

// The same attack suite as the Worker's, against the local server.
func TestServeAttacks(t *testing.T) {
	tg, _ := startServe(t, nil)
	proxytest.RunAttacks(t, tg)
}

func TestServeForwarding(t *testing.T) {
	tg, _ := startServe(t, nil)
	proxytest.RunForwarding(t, tg)
}

func TestServeSSE(t *testing.T) {
	tg, _ := startServe(t, nil)
	proxytest.RunSSE(t, tg)
}

func TestServeSite(t *testing.T) {
	_, base := startServe(t, nil)
	const csp = "script-src 'self' 'wasm-unsafe-eval'; worker-src 'none'"
	tests := []struct {
		method, path string
		status       int
		contentType  string
		body         string // "" means not checked
		header       map[string]string
	}{
		{"GET", "/", 200, "text/html", testIndex, map[string]string{"Content-Security-Policy": csp, "X-Frame-Options": "DENY"}},
		{"GET", "/skills/0190b3c2-7d4e-7000-8000-000000000001/replay", 200, "text/html", testIndex, map[string]string{"Content-Security-Policy": csp}},
		{"GET", "/app.js", 200, "text/javascript", "console.log(1)\n", nil},
		{"GET", "/web/app.wasm", 200, "application/wasm", "", map[string]string{"Cache-Control": "public, max-age=60"}},
		{"GET", "/docs/", 200, "text/html", "<!doctype html><title>docs</title>\n", map[string]string{"X-Robots-Tag": "noindex", "X-Frame-Options": ""}},
		{"GET", "/_headers", 200, "text/html", testIndex, nil},
		{"GET", "/docs/../../../../etc/passwd", 200, "text/html", testIndex, nil},
		{"HEAD", "/", 200, "text/html", "", nil},
		{"POST", "/", 405, "text/plain", "", nil},
		{"GET", "/api/other", 404, "application/json", "", nil},
		// No registry here, and the registry's status says so.
		{"GET", "/api/registry/", 200, "application/json", `{"available":false,"reason":"this deployment has no registry: ` + noRegistry + `"}` + "\n",
			map[string]string{"Access-Control-Allow-Origin": "*"}},
		{"GET", "/api/registry/skills", 501, "application/json", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, base+tt.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tt.contentType)
			}
			if tt.body != "" && string(body) != tt.body {
				t.Errorf("body %q, want %q", body, tt.body)
			}
			for k, v := range tt.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestServeLogsHoldNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return buf.Write(p) })
	tg, _ := startServe(t, slog.New(slog.NewTextHandler(w, nil)))
	proxytest.RunForwarding(t, tg)
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if !strings.Contains(out, `path=chat/completions status=200`) {
		t.Fatalf("serve logged no proxy line:\n%s", out)
	}
	token := strings.TrimSpace(strings.TrimPrefix(proxytest.Key, "Bearer"))
	for _, s := range []string{token, token[:20], proxytest.BodySentinel, proxytest.ResponseSentinel} {
		if strings.Contains(out, s) {
			t.Errorf("serve's log contains %q", s)
		}
	}
}

func TestMatchPattern(t *testing.T) {
	tests := []struct {
		pat, path string
		want      bool
	}{
		{"/*", "/", true},
		{"/*", "/a/b/c", true},
		{"/", "/", true},
		{"/", "/a", false},
		{"/index.html", "/index.html", true},
		{"/web/*", "/web/app.wasm", true},
		{"/web/*", "/webx", false},
		{"/*.wasm", "/web/app.wasm", true},
		{"/*.wasm", "/web/app.js", false},
		{"/skills/:id/replay", "/skills/abc/replay", true},
		{"/skills/:id/replay", "/skills//replay", false},
		{"/skills/:id/replay", "/skills/a/b/replay", false},
		{"/skills/:id", "/skills/abc", true},
		{"/skills/:id", "/skills/", false},
	}
	for _, tt := range tests {
		if got := matchPattern(tt.pat, tt.path); got != tt.want {
			t.Errorf("matchPattern(%q, %q) = %v, want %v", tt.pat, tt.path, got, tt.want)
		}
	}
}

func TestReadHeadersFileErrors(t *testing.T) {
	for _, tt := range []struct{ file, errHas string }{
		{"  X-A: 1\n", "line 1: header before any path pattern"},
		{"/*\n  no colon\n", "line 2: want \"Name: value\""},
		{"https://example.org/*\n  X-A: 1\n", "line 1: pattern"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "_headers"), []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readHeadersFile(os.DirFS(dir))
		if err == nil || !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("%q: error %v, want %q", tt.file, err, tt.errHas)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestServeFlags(t *testing.T) {
	site := writeSite(t)
	tests := []struct {
		args   []string
		code   int
		errHas string
	}{
		{[]string{"--site", filepath.Join(site, "missing")}, 2, "not a directory"},
		{[]string{"--site", site, "--addr", "127.0.0.1:0", "--allowed-origin", "https://Workbench.example"}, 2, "lower case"},
		{[]string{"--site", site, "--addr", "127.0.0.1:0", "--openrouter-upstream", "https://evil.example/api/v1"}, 2, "loopback"},
		{[]string{"--site", site, "--addr", "not an address"}, 1, "--addr"},
		{[]string{"--site", site, "extra"}, 2, "unexpected argument"},
		{[]string{"--no-such-flag"}, 2, "not defined"},
		{[]string{"--site", site, "--rate-limit", "-1"}, 2, "--rate-limit -1"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"serve", "--no-bodies"}, tt.args...), nil, &stdout, &stderr)
			if code != tt.code || !strings.Contains(stderr.String(), tt.errHas) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.errHas)
			}
		})
	}
}

// TestServeCommand runs `workbench serve` for real: it listens, answers,
// and stops cleanly when its context ends.
func TestServeCommand(t *testing.T) {
	site := writeSite(t)
	up := proxytest.NewUpstream(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--no-bodies", "--addr", "127.0.0.1:0", "--site", site, "--openrouter-upstream", up.URL}, nil, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no start line: %v; stderr %s", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+) \(allowed origin (http://127\.0\.0\.1:\d+);`).FindStringSubmatch(line)
	if m == nil || m[1] != m[2] {
		t.Fatalf("start line %q does not name the address and a matching default origin", line)
	}
	req, _ := http.NewRequest("GET", m[1]+"/api/llm/openrouter/key", nil)
	req.Header.Set("Origin", m[2])
	req.Header.Set("Authorization", proxytest.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || up.Len() != 1 {
		t.Errorf("proxied GET → %d, upstream saw %d requests", resp.StatusCode, up.Len())
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d; stderr %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context ended")
	}
}

// startServeMCP runs serve's handler with the MCP relay configured for the
// recorder and two real MCP servers (SSE and JSON responses).
func startServeMCP(t *testing.T, log *slog.Logger) (proxytest.MCPTarget, *proxytest.MCPServer, *proxytest.MCPServer) {
	t.Helper()
	rec := proxytest.NewMCPUpstream(t)
	sse, js := proxytest.NewMCPServer(t, false), proxytest.NewMCPServer(t, true)
	servers, err := proxy.ParseMCPServers(rec.Entries() + ",sse=" + sse.URL + ",json=" + js.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	h, err := newServeHandler(withTestClocks(serveConfig{Site: writeSite(t), AllowedOrigin: origin, Upstream: proxy.OpenRouterAPI,
		MCP: servers, MCPAuthorization: []string{proxytest.MCPRecorderAuth}, Log: log}))
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	testServerTimeouts.apply(srv.Config)
	srv.Start()
	t.Cleanup(srv.Close)
	return proxytest.MCPTarget{
		Addr: strings.TrimPrefix(srv.URL, "http://"), Origin: origin, Layer: proxytest.Serve, Recorder: rec,
		Names:            []string{"json", proxytest.MCPRecorder, proxytest.MCPRecorderAuth, "sse"},
		TransportHeaders: []string{"Content-Length", "Accept-Encoding"},
	}, sse, js
}

// The MCP relay's suite against the local server.
func TestServeMCP(t *testing.T) {
	// This test and the other three that wait on the server's clocks run
	// side by side, each with its own server: they spend their time
	// waiting, not computing, and would otherwise add their waits up.
	t.Parallel()
	tg, sse, js := startServeMCP(t, nil)
	t.Run("attacks", func(t *testing.T) { proxytest.RunMCPAttacks(t, tg) })
	t.Run("forwarding", func(t *testing.T) { proxytest.RunMCPForwarding(t, tg) })
	t.Run("sse-stream", func(t *testing.T) { proxytest.RunMCPSSE(t, tg) })
	t.Run("session-sse", func(t *testing.T) { proxytest.RunMCPSession(t, tg, "sse", sse) })
	t.Run("session-json", func(t *testing.T) { proxytest.RunMCPSession(t, tg, "json", js) })
	t.Run("edge", func(t *testing.T) { proxytest.RunMCPEdge(t, tg) })
	t.Run("timeouts", func(t *testing.T) { proxytest.RunMCPTimeouts(t, tg, testTimeouts) })
}

func TestServeEdge(t *testing.T) {
	tg, _ := startServe(t, nil)
	proxytest.RunEdge(t, tg)
}

func TestServeTimeouts(t *testing.T) {
	t.Parallel() // as TestServeMCP
	tg, _ := startServe(t, nil)
	proxytest.RunTimeouts(t, tg, testTimeouts)
}

// TestServeStreamOutlastsServerTimeouts: a stream may run longer than
// the server's WriteTimeout (the proxy replaces it with a deadline per
// write) and ReadTimeout (which Go's server no longer applies once the
// body is read) as long as it keeps moving.
func TestServeStreamOutlastsServerTimeouts(t *testing.T) {
	t.Parallel() // as TestServeMCP
	tg, _ := startServe(t, nil)
	start := time.Now()
	// Five events 1.5 s apart: 7.5 s in all, longer than either server
	// timeout, each gap shorter than the idle timeout.
	proxytest.RunSSEPaced(t, tg, 1500*time.Millisecond)
	t.Logf("streamed for %s", time.Since(start).Round(time.Millisecond))
}

// TestServeIdleConnections: connections that send nothing, or nothing
// more after a request, are closed by the server's own clocks.
func TestServeIdleConnections(t *testing.T) {
	t.Parallel() // as TestServeMCP
	tg, _ := startServe(t, nil)
	proxytest.RunIdleConnections(t, tg.Addr, "/", 16, testServerTimeouts.ReadHeader+testServerTimeouts.Idle+5*time.Second)
}

// TestServeRateLimit: one client gets RateLimit requests under /api/ per
// period, then 429 with Retry-After; the site is not counted.
func TestServeRateLimit(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	startServer(t, srv, serveConfig{Site: writeSite(t), AllowedOrigin: origin, Upstream: proxy.OpenRouterAPI, RateLimit: 20})
	addr := strings.TrimPrefix(srv.URL, "http://")
	for i := 0; i < 30; i++ {
		resp, err := http.Get(srv.URL + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("the site → %d; it must not count against the API's budget", resp.StatusCode)
		}
	}
	proxytest.RunRateLimit(t, addr, origin, 20, 0)
}

// TestServeHostChecked: the site too answers for its own name only.
func TestServeHostChecked(t *testing.T) {
	_, base := startServe(t, nil)
	for _, c := range []struct {
		path   string
		host   string
		status int
	}{
		{"/", "", 200},
		{"/", "evil.example", 421},
		{"/skills/x/replay", "evil.example:80", 421},
		{"/api/other", "evil.example", 421},
	} {
		req, _ := http.NewRequest("GET", base+c.path, nil)
		if c.host != "" {
			req.Host = c.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || (c.status == 421 && strings.Contains(string(b), "<title>")) {
			t.Errorf("GET %s Host %q → %d %.100q, want %d", c.path, c.host, resp.StatusCode, b, c.status)
		}
	}
}

func TestServeMCPLogsHoldNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return buf.Write(p) })
	tg, sse, _ := startServeMCP(t, slog.New(slog.NewTextHandler(w, nil)))
	proxytest.RunMCPForwarding(t, tg)
	proxytest.RunMCPSession(t, tg, "sse", sse)
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if !strings.Contains(out, `msg=mcp method=POST server=rec status=200`) || !strings.Contains(out, `server=sse status=204`) {
		t.Fatalf("serve logged no relay line:\n%s", out)
	}
	token := strings.TrimSpace(strings.TrimPrefix(proxytest.Key, "Bearer"))
	for _, s := range []string{token, token[:20], proxytest.BodySentinel, proxytest.ResponseSentinel, proxytest.MCPSession, "127.0.0.1", "tenant"} {
		if strings.Contains(out, s) {
			t.Errorf("serve's log contains %q:\n%s", s, out)
		}
	}
}

// TestServeMCPCommand runs `workbench serve --mcp` for real and talks MCP
// through it to real MCP servers, in both response modes.
func TestServeMCPCommand(t *testing.T) {
	site := writeSite(t)
	sse, js := proxytest.NewMCPServer(t, false), proxytest.NewMCPServer(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--no-bodies", "--addr", "127.0.0.1:0", "--site", site,
			"--mcp", "everything-sse=" + sse.URL, "--mcp", "everything-json=" + js.URL}, nil, pw, &stderr)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("no start line: %v; stderr %s", err, stderr.String())
	}
	relayLine, err := br.ReadString('\n')
	if err != nil || relayLine != "workbench: MCP relay /api/mcp/<name> for everything-sse, everything-json\n" {
		t.Fatalf("relay line %q (%v)", relayLine, err)
	}
	go io.Copy(io.Discard, br)
	m := regexp.MustCompile(`at http://(127\.0\.0\.1:\d+) \(allowed origin (http://127\.0\.0\.1:\d+);`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("start line %q", line)
	}
	tg := proxytest.MCPTarget{Addr: m[1], Origin: m[2], Layer: proxytest.Serve}
	t.Run("sse", func(t *testing.T) { proxytest.RunMCPSession(t, tg, "everything-sse", sse) })
	t.Run("json", func(t *testing.T) { proxytest.RunMCPSession(t, tg, "everything-json", js) })
	req, _ := http.NewRequest("GET", "http://"+m[1]+"/api/mcp/", nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"servers":[{"name":"everything-json"},{"name":"everything-sse"}]}`+"\n" {
		t.Errorf("listing → %d %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d; stderr %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context ended")
	}
}

func TestServeMCPFlags(t *testing.T) {
	site := writeSite(t)
	base := []string{"--site", site, "--addr", "127.0.0.1:0"}
	tests := []struct {
		args   []string
		errHas string
	}{
		{[]string{"--mcp", "browser"}, `--mcp: MCP server "browser": want name=URL`},
		{[]string{"--mcp", "Browser=http://127.0.0.1:9/mcp"}, "want 1 to 64 of a-z 0-9 -"},
		{[]string{"--mcp", "b=http://10.0.0.5/mcp"}, "plain http is allowed only to a loopback host"},
		{[]string{"--mcp", "b=https://u:p@mcp.example/"}, "userinfo"},
		{[]string{"--mcp", "b=http://127.0.0.1:9/", "--mcp", "b=http://127.0.0.1:8/"}, "configured twice"},
		{[]string{"--mcp", "b=http://127.0.0.1:9/", "--mcp-authorization", "c"}, "not configured"},
		{[]string{"--mcp", ""}, "empty value"},
		// The URL is named without the credentials it may carry.
		{[]string{"--mcp", "b=http://user:PW-SECRET@10.0.0.5/mcp?key=Q-SECRET"}, `URL "http://…@10.0.0.5/mcp?…": userinfo is not allowed`},
		{[]string{"--mcp", "https://user:PW-SECRET@mcp.example/mcp"}, `"https://…@mcp.example/mcp": want name=URL`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(append([]string{"serve", "--no-bodies"}, base...), tt.args...), nil, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.errHas) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tt.errHas)
			}
			if strings.Contains(stderr.String(), "SECRET") {
				t.Errorf("stderr quotes a credential: %q", stderr.String())
			}
		})
	}
}

// compressedSite is a built site as the app's build writes it: app.wasm
// with its brotli and gzip copies, pages, the neutral shell as
// index.html with the home page behind a _redirects rewrite, and the
// cache rules of the site's _headers.
func compressedSite(t *testing.T, wasm []byte) string {
	t.Helper()
	var br, gz bytes.Buffer
	bw := brotli.NewWriter(&br)
	bw.Write(wasm)
	bw.Close()
	gw := gzip.NewWriter(&gz)
	gw.Write(wasm)
	gw.Close()
	dir := t.TempDir()
	files := map[string]string{
		"index.html":      "shell",
		"home.html":       "home",
		"skills.html":     "skills",
		"web/app.wasm":    string(wasm),
		"web/app.wasm.br": br.String(),
		"web/app.wasm.gz": gz.String(),
		"web/icon.svg":    "<svg></svg>",
		"_redirects":      "# the home page\n/ /home 200\n",
		"_headers": "/*\n  X-Frame-Options: DENY\n  Cache-Control: no-cache\n" +
			"/web/app.wasm\n  ! Cache-Control\n  Cache-Control: public, max-age=31536000, immutable\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestServeCompressedAndCached: app.wasm goes out in the encoding the
// request accepts, from the build's compressed copies, with Vary and the
// year-long immutable cache rule; pages stay no-cache; a revalidation
// with the ETag gets 304.
func TestServeCompressedAndCached(t *testing.T) {
	wasm := bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00 some module bytes "), 500)
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	startServer(t, srv, serveConfig{Site: compressedSite(t, wasm), AllowedOrigin: origin, Upstream: "http://127.0.0.1:9/api/v1"})
	// A client that neither asks for gzip on its own nor decodes it.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	const immutable, noCache = "public, max-age=31536000, immutable", "no-cache"
	for _, tc := range []struct {
		name, path, accept, rng string
		status                  int
		encoding                string // Content-Encoding sent
		vary                    bool   // Vary: Accept-Encoding
		cache, contentType      string
		body                    string // decoded; "" means app.wasm's bytes
	}{
		{"brotli preferred", "/web/app.wasm?v=0123456789abcdef", "gzip, deflate, br, zstd", "", 200, "br", true, immutable, "application/wasm", ""},
		{"gzip only", "/web/app.wasm?v=0123456789abcdef", "gzip", "", 200, "gzip", true, immutable, "application/wasm", ""},
		{"brotli refused", "/web/app.wasm", "br;q=0, gzip;q=0.5", "", 200, "gzip", true, immutable, "application/wasm", ""},
		{"any coding", "/web/app.wasm", "*", "", 200, "br", true, immutable, "application/wasm", ""},
		{"identity asked", "/web/app.wasm", "identity", "", 200, "", true, immutable, "application/wasm", ""},
		{"no Accept-Encoding", "/web/app.wasm", "", "", 200, "", true, immutable, "application/wasm", ""},
		{"range from the file", "/web/app.wasm", "br", "bytes=0-3", 206, "", true, immutable, "application/wasm", "\x00asm"},
		{"no compressed copy", "/web/icon.svg", "br, gzip", "", 200, "", false, noCache, "image/svg+xml", "<svg></svg>"},
		{"home through the rewrite", "/", "br", "", 200, "", false, noCache, "text/html", "home"},
		{"exact route's page", "/skills", "br", "", 200, "", false, noCache, "text/html", "skills"},
		{"deep link gets the shell", "/skills/0190b3c2-7d4e-7000-8000-000000000001", "br", "", 200, "", false, noCache, "text/html", "shell"},
		{"compressed copy not by name", "/web/app.wasm.br", "br", "", 200, "", false, noCache, "text/html", "shell"},
		{"control file not by name", "/_redirects", "", "", 200, "", false, noCache, "text/html", "shell"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
			if tc.accept != "" {
				req.Header.Set("Accept-Encoding", tc.accept)
			}
			if tc.rng != "" {
				req.Header.Set("Range", tc.rng)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if got := resp.Header.Get("Content-Encoding"); got != tc.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, tc.encoding)
			}
			if got := resp.Header.Get("Vary") == "Accept-Encoding"; got != tc.vary {
				t.Errorf("Vary %q, want Accept-Encoding: %v", resp.Header.Get("Vary"), tc.vary)
			}
			if got := resp.Header.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			if got := resp.Header.Get("X-Frame-Options"); got != "DENY" {
				t.Errorf("X-Frame-Options %q: the /* rule was not applied", got)
			}
			if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, tc.contentType) {
				t.Errorf("Content-Type %q, want %s", got, tc.contentType)
			}
			if want := resp.Header.Get("Content-Length"); want != strconv.Itoa(len(raw)) {
				t.Errorf("Content-Length %s, body %d bytes", want, len(raw))
			}
			body := decode(t, tc.encoding, raw)
			want := tc.body
			if want == "" {
				want = string(wasm)
			}
			if string(body) != want {
				t.Errorf("body (decoded) %.40q, want %.40q", body, want)
			}
			if tc.status != 200 {
				return
			}
			// Revalidation: the same request with the ETag is answered 304.
			etag := resp.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			req.Header.Set("If-None-Match", etag)
			again, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			again.Body.Close()
			if again.StatusCode != http.StatusNotModified {
				t.Errorf("revalidation with ETag %s → %d, want 304", etag, again.StatusCode)
			}
		})
	}
}

// The ETag of each encoding is its own, so a cache never answers a
// request for one encoding with another's bytes.
func TestServeETagPerEncoding(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	origin := "http://" + srv.Listener.Addr().String()
	startServer(t, srv, serveConfig{Site: compressedSite(t, bytes.Repeat([]byte("module "), 400)), AllowedOrigin: origin, Upstream: "http://127.0.0.1:9/api/v1"})
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	seen := map[string]string{}
	for _, accept := range []string{"br", "gzip", "identity"} {
		req, _ := http.NewRequest("GET", srv.URL+"/web/app.wasm", nil)
		req.Header.Set("Accept-Encoding", accept)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		etag := resp.Header.Get("ETag")
		if prev, ok := seen[etag]; ok {
			t.Errorf("%s and %s share the ETag %s", prev, accept, etag)
		}
		seen[etag] = accept
	}
}

func TestAcceptsEncoding(t *testing.T) {
	for _, tc := range []struct {
		header, coding string
		want           bool
	}{
		{"gzip, deflate, br, zstd", "br", true},
		{"gzip, deflate", "br", false},
		{"BR", "br", true},
		{"br;q=0", "br", false},
		{"br; q=0.0, *", "br", false},
		{"*", "gzip", true},
		{"*;q=0", "gzip", false},
		{"gzip;q=0.001", "gzip", true},
		{"", "gzip", false},
	} {
		if got := acceptsEncoding(tc.header, tc.coding); got != tc.want {
			t.Errorf("acceptsEncoding(%q, %q) = %v, want %v", tc.header, tc.coding, got, tc.want)
		}
	}
}

func TestReadRedirectsFileErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"/old /new 301\n", "takes only rewrites"},
		{"/ /home\n", "takes only rewrites"},
		{"/skills/* /shell 200\n", "not an exact path"},
		{"/ home 200\n", "not an exact path"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "_redirects"), []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readRedirectsFile(os.DirFS(dir))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: error %v, want one naming line 1 and %q", tc.file, err, tc.want)
		}
	}
}

// decode undoes a Content-Encoding.
func decode(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return b
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	default:
		t.Fatalf("unknown coding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", coding, err)
	}
	return out
}
