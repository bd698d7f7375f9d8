//go:build bodies

// The command line on a real browser body: Playwright MCP driving
// Debian's Chromium, started here (make test-bodies runs this with
// -tags bodies and installs what it needs).

package main

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
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"workbench/pkg/mcp"
	"workbench/pkg/openrouter/openroutertest"
)

// playwrightMCP starts Playwright MCP on a free port and returns its
// endpoint; Chromium is kept off the network (docs/bodies.md).
func playwrightMCP(t *testing.T) string {
	t.Helper()
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	cli := filepath.Join(root, "node_modules", "@playwright", "mcp", "cli.js")
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	for _, f := range []string{cli, chromium} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("WORKBENCH_BODIES_REQUIRED") != "" {
				t.Fatal(err)
			}
			t.Skipf("%v (run make test-bodies)", err)
		}
	}
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"browser": map[string]any{"launchOptions": map[string]any{"args": []string{
		"--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync"}}}})
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o600); err != nil {
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
		"--output-dir", filepath.Join(dir, "out"), "--config", filepath.Join(dir, "config.json"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	url := "http://127.0.0.1:" + port + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		c, err := mcp.Dial(ctx, url, &mcp.Options{Timeout: 5 * time.Second})
		if err == nil {
			c.Close(ctx)
			return url
		}
		if ctx.Err() != nil {
			t.Fatalf("Playwright MCP did not come up: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestTeachAndReplayOnBrowserBody: teach --body and replay --body on
// Playwright MCP, then the page changes and replay halts.
func TestTeachAndReplayOnBrowserBody(t *testing.T) {
	pw := playwrightMCP(t)
	var moved atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Shop</title><h1>The shop</h1><a href="/docs">Docs</a>`)
	})
	mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) {
		if moved.Load() {
			fmt.Fprint(w, `<!doctype html><title>Docs</title><ul><li>moved</li></ul>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Docs</title><h1>Getting started</h1>`)
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)

	// A model that clicks the Docs link, reading its reference from what
	// it was last shown: a tool result while teaching, the state on replay.
	click := openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
		seen := ""
		if m, ok := r.LastToolResult(); ok {
			seen = m.Text()
		} else if m, ok := r.LastUser(); ok {
			seen = m.Text()
		}
		for _, marker := range []string{`link "Docs" [ref=`, `"link":"Docs","ref":"`} {
			if _, rest, ok := strings.Cut(seen, marker); ok {
				return openroutertest.ToolCall("browser_click", map[string]any{"element": "Docs link", "target": rest[:strings.IndexAny(rest, `]"`)]})
			}
		}
		return openroutertest.Answer("I see no Docs link")
	})
	or := stand(t, openroutertest.WithScript(
		teacher(openroutertest.ToolCall("browser_navigate", map[string]any{"url": site.URL + "/"}), click, openroutertest.Answer("Getting started")),
		openroutertest.Script{Model: "example/replayer", Steps: []openroutertest.Step{click, click}},
	))
	file := filepath.Join(t.TempDir(), "docs.skill.json")
	code, stdout, stderr := pipeline(t, or, "teach", "--task", "Open "+site.URL+"/ , follow the Docs link and read its heading.",
		"--model", teacherModel, "--out", file, "--body", pw, "--trusted")
	wantCode(t, code, exitProven, stdout, stderr)
	if !strings.Contains(stdout, "browser body playwright") || !strings.Contains(stdout, "edge 1 browser_click: ok, allowed") {
		t.Errorf("teach output:\n%s", stdout)
	}
	next := filepath.Join(t.TempDir(), "docs.v2.skill.json")
	code, stdout, stderr = pipeline(t, or, "replay", file, "--model", "example/replayer", "--out", next, "--body", pw, "--trusted")
	wantCode(t, code, exitProven, stdout, stderr)

	moved.Store(true) // the docs page now has another layout
	code, stdout, stderr = pipeline(t, or, "replay", next, "--model", "example/replayer", "--out", filepath.Join(t.TempDir(), "v3.json"), "--body", pw, "--trusted")
	wantCode(t, code, exitUnproven, stdout, stderr)
	if !strings.Contains(stdout, "halted at edge 1") || !strings.Contains(stdout, "state_hash_mismatch") {
		t.Errorf("replay after the change:\n%s", stdout)
	}
}
