//go:build !js

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"workbench/pkg/proxy"
)

// browserRenderingChrome is where wrangler dev's local Browser Rendering
// looks for the Chrome it would download (Chrome for Testing
// 126.0.6478.182), under XDG_CACHE_HOME; Debian's Chromium is linked
// there, since nothing can be downloaded here.
const browserRenderingChrome = ".wrangler/chrome/linux-126.0.6478.182/chrome-linux64/chrome"

// debianChromium is the Chromium binary itself (/usr/bin/chromium is a
// shell script that starts it).
const debianChromium = "/usr/lib/chromium/chromium"

// browserRenderingCache returns a new XDG_CACHE_HOME with Debian's
// Chromium where wrangler dev's Browser Rendering expects its browser. A
// test without Chromium is skipped, or fails when WORKBENCH_BODIES_REQUIRED
// is set.
func browserRenderingCache(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(debianChromium); err != nil {
		msg := fmt.Sprintf("no Chromium for Browser Rendering: %v (make chromium installs it)", err)
		if os.Getenv("WORKBENCH_BODIES_REQUIRED") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cache := t.TempDir()
	link := filepath.Join(cache, browserRenderingChrome)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(debianChromium, link); err != nil {
		t.Fatal(err)
	}
	return cache
}

// stopBrowsers ends the browsers wrangler dev's Browser Rendering started
// from the link under cache: each runs in a process group of its own,
// which outlives the dev server's.
func stopBrowsers(t *testing.T, cache string) {
	t.Helper()
	exe := filepath.Join(cache, browserRenderingChrome)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.HasPrefix(cmdline, []byte(exe+"\x00")) {
			continue
		}
		if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
			t.Logf("ending the browser %d: %v", pid, err)
		}
	}
}

// TestWorkerdBrowserBody runs the browser body on Cloudflare as `make
// deploy BROWSER_BODY=1` deploys it — proxy/browser under wrangler dev,
// with local Browser Rendering on Debian's Chromium, and the Worker with
// proxy/browser/binding.toml's service binding and the MCP_SERVERS entry
// make adds — and drives MCP sessions through the relay's /api/mcp/browser:
// one session navigates to a loopback page and reads it back in a
// snapshot; a second session after it does the same; then two sessions
// at once, each on a page of its own, each seeing only its own. Each
// session's DELETE gets the agent's 405, which the page's client accepts.
func TestWorkerdBrowserBody(t *testing.T) {
	d := requireWorker(t)
	cache := browserRenderingCache(t)
	bin := os.Getenv("WORKBENCH_WRANGLER")
	binding, err := os.ReadFile("browser/binding.toml")
	if err != nil {
		t.Fatal(err)
	}
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		name := strings.TrimPrefix(r.URL.Path, "/")
		fmt.Fprintf(w, "<!doctype html><title>Page %s</title><h1>Heading of page %s</h1><button>Press %s</button>", name, name, name)
	}))
	defer pages.Close()

	devRegistry := t.TempDir()
	body, err := startRegisteredEnv(bin, "proxy/browser/wrangler.toml", devRegistry, []string{"XDG_CACHE_HOME=" + cache})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		body.stop()
		stopBrowsers(t, cache)
	}()
	w, err := startDevEnv(bin, boundConfig(t, string(binding)), map[string]string{
		"OPENROUTER_UPSTREAM": d.up.URL,
		"MCP_SERVERS":         "browser=binding:BROWSER_MCP/mcp",
	}, nil, true, []string{"WRANGLER_REGISTRY_PATH=" + devRegistry})
	if err != nil {
		t.Fatal(err)
	}
	defer w.stop()
	defer func() {
		if t.Failed() {
			t.Logf("the browser body's log (its last 16 KiB):\n%s", tail(body.logs.String(), 16<<10))
		}
	}()

	visit := func(name string) error {
		s, err := startBrowserSession(w)
		if err != nil {
			return err
		}
		want := "Heading of page " + name
		text, err := s.call("browser_navigate", map[string]any{"url": pages.URL + "/" + name})
		if err != nil {
			return fmt.Errorf("session %s: %w", name, err)
		}
		if !strings.Contains(text, want) {
			return fmt.Errorf("session %s: browser_navigate answered without %q:\n%.2000s", name, want, text)
		}
		text, err = s.call("browser_snapshot", map[string]any{})
		if err != nil {
			return fmt.Errorf("session %s: %w", name, err)
		}
		if !strings.Contains(text, want) || !strings.Contains(text, "Press "+name) {
			return fmt.Errorf("session %s: the snapshot lacks its page:\n%.2000s", name, text)
		}
		for _, other := range []string{"one", "two", "three", "four"} {
			if other != name && strings.Contains(text, "page "+other) {
				return fmt.Errorf("session %s: the snapshot shows page %s:\n%.2000s", name, other, text)
			}
		}
		// The page's client ends a session with DELETE; the agent does
		// not take it (docs/deploy.md), and the client accepts a 405.
		if status, b, err := s.end(); err != nil || status != http.StatusMethodNotAllowed {
			return fmt.Errorf("session %s: DELETE → %d %.300s %v; want the agent's 405", name, status, b, err)
		}
		return nil
	}
	t.Run("first session", func(t *testing.T) {
		if err := visit("one"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("second session", func(t *testing.T) {
		if err := visit("two"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("two sessions at once", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, name := range []string{"three", "four"} {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = visit(name) }()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})
}

// browserSession is an MCP session with the browser body through the
// relay of w, in plain HTTP requests as the page's client makes them.
type browserSession struct {
	w       *devServer
	id      string
	version string // the protocol version the server chose
	nextID  int
}

// startBrowserSession initializes a session and checks the tools it
// lists.
func startBrowserSession(w *devServer) (*browserSession, error) {
	s := &browserSession{w: w}
	// What the page's client (pkg/mcp) offers.
	res, err := s.rpc("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "workbench-test", "version": "0"}})
	if err != nil {
		return nil, err
	}
	var hello struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &hello); err != nil || hello.ProtocolVersion == "" {
		return nil, fmt.Errorf("initialize: %s %v", res, err)
	}
	s.version = hello.ProtocolVersion
	if s.id == "" {
		return nil, fmt.Errorf("initialize: no Mcp-Session-Id")
	}
	if status, b, err := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0); err != nil || status != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized → %d %s %v", status, b, err)
	}
	res, err = s.rpc("tools/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var tools struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(res, &tools); err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"browser_navigate", "browser_snapshot", "browser_click"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			return nil, fmt.Errorf("tools/list has no %s: %v", want, names)
		}
	}
	return s, nil
}

// call calls tool and returns the text of its result, or an error for a
// result marked isError.
func (s *browserSession) call(tool string, args map[string]any) (string, error) {
	res, err := s.rpc("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return "", err
	}
	var r struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	var text strings.Builder
	for _, c := range r.Content {
		text.WriteString(c.Text)
	}
	if r.IsError {
		return "", fmt.Errorf("%s: isError: %s", tool, text.String())
	}
	return text.String(), nil
}

// rpc sends a JSON-RPC request and returns its result, read from the
// SSE stream (or JSON body) the relay passes back.
func (s *browserSession) rpc(method string, params any) (json.RawMessage, error) {
	s.nextID++
	id := s.nextID
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	status, b, err := s.post(string(msg), id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("%s → %d %.500s", method, status, b)
	}
	var r struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.ID != id {
		return nil, fmt.Errorf("%s: no answer with id %d: %.500s", method, id, b)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %s", method, r.Error)
	}
	return r.Result, nil
}

// end asks to end the session with DELETE, as the page's client does.
func (s *browserSession) end() (int, []byte, error) {
	req, _ := http.NewRequest("DELETE", s.w.origin+proxy.MCPMountPath+"browser", nil)
	req.Header.Set("Origin", s.w.origin)
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", s.version)
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// post sends one JSON-RPC message and returns the status and, for a
// request (id > 0), the message answering it: the JSON body, or the
// event of an SSE stream whose data has that id — read up to that event
// and no further, as the page's client (pkg/mcp) reads: after a tool call
// the browser body leaves the stream open (docs/deploy.md). It keeps the
// session id the server hands out.
func (s *browserSession) post(msg string, id int) (int, []byte, error) {
	req, _ := http.NewRequest("POST", s.w.origin+proxy.MCPMountPath+"browser", strings.NewReader(msg))
	req.Header.Set("Origin", s.w.origin)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", s.version)
	}
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if v := resp.Header.Get("Mcp-Session-Id"); v != "" && s.id == "" {
		s.id = v
	}
	if id == 0 || resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	events := bufio.NewReader(resp.Body)
	var data []string
	for {
		line, err := events.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && data != nil:
			ev := []byte(strings.Join(data, "\n"))
			data = nil
			var m struct {
				ID int `json:"id"`
			}
			if json.Unmarshal(ev, &m) == nil && m.ID == id {
				return resp.StatusCode, ev, nil
			}
		}
		if err != nil {
			return resp.StatusCode, nil, fmt.Errorf("the event stream ended without the answer to %d: %w", id, err)
		}
	}
}
