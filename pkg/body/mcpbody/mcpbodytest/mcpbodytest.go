// Package mcpbodytest starts the real MCP servers that body tests drive,
// each in a test's lifetime: Playwright MCP on Debian's Chromium for the
// browser body, and the reference filesystem server for the host body;
// and serves Shop, a site to teach a browser skill on and then change.
//
// A server whose npm package or browser is missing skips the test, or
// fails it when WORKBENCH_BODIES_REQUIRED is set (make test-bodies and
// make test-e2e set it after installing them). It is imported only by
// tests; no production path reaches it.
package mcpbodytest

import (
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
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
	"workbench/pkg/modtest"
)

// Chromium is the browser Playwright MCP drives: $CHROMIUM, or Debian's
// /usr/bin/chromium.
func Chromium() string {
	if c := os.Getenv("CHROMIUM"); c != "" {
		return c
	}
	return "/usr/bin/chromium"
}

// missing skips t, or fails it when the servers are required.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("WORKBENCH_BODIES_REQUIRED") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (make test-bodies and make test-e2e install it)")
}

// Server is an MCP server process a test started. It runs in a process
// group of its own, so that Stop also ends what it started (Playwright's
// Chromium).
type Server struct {
	// URL is the server's streamable HTTP endpoint.
	URL  string
	cmd  *exec.Cmd
	logs *logFile
	once sync.Once
}

// Stop ends the server and everything it started. It may be called more
// than once, and is called when the test ends.
func (s *Server) Stop() {
	s.once.Do(func() {
		killGroup(s.cmd)
		s.cmd.Wait()
	})
}

// Playwright starts Playwright MCP on Chromium, headless, on a free
// loopback port, each MCP session in an in-memory browser context of its
// own, Chromium kept off the network it would otherwise call home to
// (docs/bodies.md). It returns once an MCP client completes the handshake.
func Playwright(t testing.TB) *Server {
	t.Helper()
	cli := filepath.Join(modtest.Root(t), "node_modules", "@playwright", "mcp", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		missing(t, "Playwright MCP is not installed: %v", err)
	}
	chromium := Chromium()
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
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command("node", cli, "--headless", "--no-sandbox", "--executable-path", chromium,
		"--port", port, "--host", "127.0.0.1", "--isolated", "--allowed-hosts", "*",
		"--output-dir", filepath.Join(dir, "out"), "--config", cfg)
	cmd.Dir = dir
	return start(t, cmd, "http://127.0.0.1:"+port+"/mcp")
}

// start runs cmd in its own process group and waits until an MCP client
// can complete the handshake at url. Its output is logged when t fails.
func start(t testing.TB, cmd *exec.Cmd, url string) *Server {
	t.Helper()
	logs, f := newLogFile(t, filepath.Base(cmd.Args[0]))
	s := &Server{URL: url, cmd: cmd, logs: logs}
	cmd.Stdout, cmd.Stderr = f, f
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		s.Stop()
		if t.Failed() {
			t.Logf("server log of %s:\n%s", cmd.Args[0], s.logs.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
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

// logFile is where a server a test starts writes its output: a file in
// the test's temporary directory, which the process writes directly, so
// that the output can be read at any moment without a copying goroutine.
type logFile struct{ path string }

func newLogFile(t testing.TB, name string) (*logFile, *os.File) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return &logFile{f.Name()}, f
}

// String is the output so far.
func (l *logFile) String() string {
	b, err := os.ReadFile(l.path)
	if err != nil {
		return fmt.Sprintf("(reading the log: %v)", err)
	}
	return string(b)
}

// Bridge is the reference filesystem server behind an HTTP bridge.
type Bridge struct {
	// URL is the bridge's streamable HTTP endpoint.
	URL  string
	hs   *httptest.Server
	cs   *sdk.ClientSession
	once sync.Once
}

// Filesystem starts the reference filesystem server
// (@modelcontextprotocol/server-filesystem) on dir. It speaks MCP over
// stdio only, so it is served over streamable HTTP through a bridge made
// of go-sdk parts: a stdio client of the real server and an HTTP server
// offering the same tools, each call forwarded as it is. The files are
// read and written by the real server.
func Filesystem(t testing.TB, dir string) *Bridge {
	t.Helper()
	js := filepath.Join(modtest.Root(t), "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	if _, err := os.Stat(js); err != nil {
		missing(t, "the filesystem MCP server is not installed: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logs, f := newLogFile(t, "server-filesystem")
	cmd := exec.Command("node", js, dir)
	cmd.Stderr = f
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
	b := &Bridge{URL: hs.URL, hs: hs, cs: cs}
	t.Cleanup(func() {
		b.Stop()
		if t.Failed() {
			t.Logf("filesystem server log:\n%s", logs.String())
		}
	})
	return b
}

// Stop takes the server away: the HTTP endpoint closes and the stdio
// server ends. It may be called more than once, and is called when the
// test ends.
func (b *Bridge) Stop() {
	b.once.Do(func() {
		b.hs.CloseClientConnections()
		b.hs.Close()
		b.cs.Close()
	})
}
