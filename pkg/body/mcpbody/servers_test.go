//go:build bodies

// Tests against real MCP servers started here: Playwright MCP driving
// Debian's Chromium, and the reference filesystem server. Run with
//
//	go test -tags bodies ./pkg/body/mcpbody
//
// (make test-bodies installs what they need). They skip when a server or
// Chromium is missing, and fail instead when WORKBENCH_BODIES_REQUIRED is
// set, as make test-bodies sets it.

package mcpbody_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
)

// root is the module's root directory.
func root(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// missing skips the test, or fails it when the servers are required.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("WORKBENCH_BODIES_REQUIRED") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (run make test-bodies)")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// server is an MCP server process of a test.
type server struct {
	URL  string
	cmd  *exec.Cmd
	logs *syncBuffer
	once sync.Once
}

// Stop ends the server and everything it started (its process group).
func (s *server) Stop() {
	s.once.Do(func() {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		s.cmd.Wait()
	})
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// start runs cmd in its own process group and waits until an MCP client
// can complete the handshake at url.
func start(t *testing.T, cmd *exec.Cmd, url string) *server {
	t.Helper()
	s := &server{URL: url, cmd: cmd, logs: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = s.logs, s.logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("server log of %s:\n%s", cmd.Args[0], s.logs.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		c, err := mcp.Dial(ctx, url, &mcp.Options{Timeout: 5 * time.Second})
		if err == nil {
			c.Close(ctx)
			return s
		}
		if ctx.Err() != nil {
			t.Fatalf("%s did not come up at %s: %v\n%s", cmd.Args[0], url, err, s.logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// startPlaywright starts Playwright MCP on Debian's Chromium, headless,
// each client in its own in-memory browser context, Chromium kept off the
// network it would otherwise call home to.
func startPlaywright(t *testing.T) *server {
	t.Helper()
	cli := filepath.Join(root(t), "node_modules", "@playwright", "mcp", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		missing(t, "Playwright MCP is not installed: %v", err)
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		missing(t, "Chromium is not installed: %v", err)
	}
	dir := t.TempDir()
	config := map[string]any{"browser": map[string]any{"launchOptions": map[string]any{"args": []string{
		"--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync",
	}}}}
	data, _ := json.Marshal(config)
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, data, 0o600); err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(freePort(t))
	cmd := exec.Command("node", cli, "--headless", "--no-sandbox", "--executable-path", chromium,
		"--port", port, "--host", "127.0.0.1", "--isolated", "--allowed-hosts", "*",
		"--output-dir", filepath.Join(dir, "out"), "--config", cfg)
	cmd.Dir = dir
	return start(t, cmd, "http://127.0.0.1:"+port+"/mcp")
}

// site is a small web site a test serves and can change.
type site struct {
	URL  string
	mu   sync.Mutex
	docs string // which /docs page is served
}

func (s *site) setDocs(v string) {
	s.mu.Lock()
	s.docs = v
	s.mu.Unlock()
}

// Pages of the site. /docs comes in three versions: the original, one
// with other text in the same layout, and one with another layout.
var docsPages = map[string]string{
	"original": `<h1>Getting started</h1><p>Install the tool, then run it.</p><a href="/">Home</a>`,
	"retitled": `<h1>Getting going</h1><p>Fetch the tool, then start it.</p><a href="/">Back</a>`,
	"relaid":   `<ul><li>Getting started</li><li>Install the tool</li></ul><table><tr><td>then run it</td></tr></table>`,
}

func startSite(t *testing.T) *site {
	t.Helper()
	s := &site{docs: "original"}
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body>%s</body></html>", title, body)
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		html(w, "Shop", `<h1>The shop</h1><p>Tools for every job.</p><nav><a href="/docs">Docs</a> <a href="/about">About</a></nav>`+
			`<form><label>Search <input name="q"></label><button type="submit">Go</button></form>`)
	})
	mux.HandleFunc("GET /about", func(w http.ResponseWriter, r *http.Request) {
		html(w, "About", `<h1>About the shop</h1><p>We sell tools.</p><a href="/">Home</a>`)
	})
	mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		v := s.docs
		s.mu.Unlock()
		html(w, "Docs", docsPages[v])
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	s.URL = "http://" + l.Addr().String()
	return s
}

// startFilesystem starts the reference filesystem server
// (@modelcontextprotocol/server-filesystem) on dir. It speaks MCP over
// stdio only, so the test serves it over streamable HTTP through a bridge
// made of go-sdk parts: a stdio client of the real server and an HTTP
// server offering the same tools, each call forwarded as it is. The
// files are read and written by the real server.
func startFilesystem(t *testing.T, dir string) *bridge {
	t.Helper()
	js := filepath.Join(root(t), "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	if _, err := os.Stat(js); err != nil {
		missing(t, "the filesystem MCP server is not installed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	logs := &syncBuffer{}
	cmd := exec.Command("node", js, dir)
	cmd.Stderr = logs
	client := sdk.NewClient(&sdk.Implementation{Name: "workbench-test-bridge", Version: "0.1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("start the filesystem server: %v\n%s", err, logs.String())
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	info := cs.InitializeResult().ServerInfo
	srv := sdk.NewServer(&sdk.Implementation{Name: info.Name, Version: info.Version}, nil)
	for _, tool := range lt.Tools {
		srv.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return cs.CallTool(ctx, &sdk.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
		})
	}
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	b := &bridge{URL: hs.URL, hs: hs, cs: cs}
	t.Cleanup(func() {
		b.Stop()
		if t.Failed() {
			t.Logf("filesystem server log:\n%s", logs.String())
		}
	})
	return b
}

// bridge is the filesystem server behind its HTTP bridge.
type bridge struct {
	URL  string
	hs   *httptest.Server
	cs   *sdk.ClientSession
	once sync.Once
}

// Stop takes the server away: the HTTP endpoint closes and the stdio
// server ends.
func (b *bridge) Stop() {
	b.once.Do(func() {
		b.hs.CloseClientConnections()
		b.hs.Close()
		b.cs.Close()
	})
}
