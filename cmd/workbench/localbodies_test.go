//go:build bodies

// serve and bodies as a person runs them, with their real bodies
// (Playwright MCP on Chromium, the filesystem server): each is reached
// through what stands in front of it (the relay, the pairing server), and
// once the command is stopped or killed nothing it started is left.
// make test-bodies runs this with -tags bodies and installs what it
// needs.

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/mcp"
	"workbench/pkg/modtest"
)

// asCommand, when set, makes the test binary the workbench command: the
// tests below start it as a process of its own, to stop and kill it.
const asCommand = "WORKBENCH_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(asCommand) != "" {
		main()
	}
	os.Exit(m.Run())
}

// started is a workbench command the test started as a process.
type started struct {
	cmd   *exec.Cmd
	lines *bufio.Scanner
	log   *syncBuffer
}

// syncBuffer is a command's stderr, written by exec's copying goroutine
// and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startCommand runs the workbench with args in the module's root, where
// node_modules is, and the test's mark in its environment.
func startCommand(t *testing.T, args ...string) *started {
	t.Helper()
	mcpbodytest.Require(t)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = modtest.Root(t)
	// The command is killed at the end (SIGKILL), so its bodies never
	// remove their directories: they go in one removed after it, whatever
	// a dying Chromium still writes there meanwhile, and short enough for
	// Chromium's socket in it (localbody's browserDir).
	tmp, err := os.MkdirTemp("", "wb-cmd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	cmd.Env = append(os.Environ(), asCommand+"=1", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &started{cmd: cmd, lines: bufio.NewScanner(out), log: &syncBuffer{}}
	cmd.Stderr = c.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("workbench %s log:\n%s", args[0], c.log)
		}
	})
	return c
}

// until reads output lines up to and including the first that matches
// re, and returns them.
func (c *started) until(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	var seen []string
	for c.lines.Scan() {
		seen = append(seen, c.lines.Text())
		if re.MatchString(c.lines.Text()) {
			go func() {
				for c.lines.Scan() {
				}
			}()
			return seen
		}
	}
	t.Fatalf("the command ended after %q", seen)
	return nil
}

// wantTools dials url with header, and fails t unless the server lists
// tool among its tools.
func wantTools(t *testing.T, ctx context.Context, url string, header http.Header, tool string) *mcp.Client {
	t.Helper()
	c, err := mcp.Dial(ctx, url, &mcp.Options{Header: header, Timeout: time.Minute})
	if err != nil {
		t.Fatalf("initialize %s: %v", url, err)
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatalf("tools/list %s: %v", url, err)
	}
	if !slices.ContainsFunc(tools, func(x mcp.Tool) bool { return x.Name == tool }) {
		t.Errorf("%s lists %d tools, not %s", url, len(tools), tool)
	}
	return c
}

// useBodies has each body answer initialize and tools/list at base+name,
// opens a page in the browser (so Chromium runs) and reads the host's
// folder. The sessions are returned open: Playwright MCP closes the
// browser when its session ends.
func useBodies(t *testing.T, base string, header http.Header, dir string) (browser, host *mcp.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := wantTools(t, ctx, base+"browser", header, "browser_navigate")
	if res, err := b.CallTool(ctx, "browser_navigate", map[string]any{"url": "about:blank"}); err != nil || res.IsError {
		t.Fatalf("browser_navigate: %+v, %v", res, err)
	}
	h := wantTools(t, ctx, base+"host", header, "write_file")
	res, err := h.CallTool(ctx, "list_allowed_directories", nil)
	if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, dir) {
		t.Errorf("list_allowed_directories: %+v, %v; want %s", res, err, dir)
	}
	return b, h
}

// TestLocalBodiesServe: serve starts both bodies, lists and relays them;
// Ctrl+C (SIGINT) stops serve and everything it started.
func TestLocalBodiesServe(t *testing.T) {
	mark := mcpbodytest.Mark(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	start := time.Now()
	c := startCommand(t, "serve", "--addr", "127.0.0.1:0", "--site", writeSite(t), "--host-dir", dir)
	lines := c.until(t, regexp.MustCompile(`^workbench: MCP relay `))
	t.Logf("serve and its bodies were up after %s", time.Since(start).Round(time.Millisecond))
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+) \(allowed origin (\S+);`).FindStringSubmatch(lines[0])
	if m == nil || len(lines) != 4 {
		t.Fatalf("output %q", lines)
	}
	base, origin := m[1], m[2]
	wantLines := []*regexp.Regexp{
		regexp.MustCompile(`^workbench: browser body: Playwright MCP on Chromium, headless, at http://127\.0\.0\.1:\d+/mcp, relayed as /api/mcp/browser$`),
		regexp.MustCompile(`^workbench: host body: filesystem server on ` + regexp.QuoteMeta(dir) + `, file tools only, at http://127\.0\.0\.1:\d+/mcp, relayed as /api/mcp/host$`),
		regexp.MustCompile(`^workbench: MCP relay /api/mcp/<name> for browser, host$`),
	}
	for i, re := range wantLines {
		if !re.MatchString(lines[i+1]) {
			t.Errorf("line %d %q, want %s", i+2, lines[i+1], re)
		}
	}
	req, _ := http.NewRequest("GET", base+"/api/mcp/", nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"servers":[{"name":"browser"},{"name":"host"}]}`+"\n" {
		t.Errorf("listing %s", body)
	}
	useBodies(t, base+"/api/mcp/", http.Header{"Origin": {origin}}, dir) // ended with serve
	before := mcpbodytest.Running(t, mark)
	mcpbodytest.RequireBodies(t, before)
	c.cmd.Process.Signal(syscall.SIGINT)
	stopped := time.Now()
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("serve after SIGINT: %v", err)
	}
	t.Logf("serve stopped %s after SIGINT", time.Since(stopped).Round(time.Millisecond))
	// serve waits for its bodies: nothing is left once it has exited.
	if left := mcpbodytest.Running(t, mark); len(left) > 0 {
		t.Errorf("left running when serve exited: %v", left)
	}
	mcpbodytest.RequireGone(t, mark, before)
}

// TestLocalBodiesPaired: bodies serves both to the paired page only;
// SIGKILL of the command leaves nothing it started.
func TestLocalBodiesPaired(t *testing.T) {
	mark := mcpbodytest.Mark(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	const origin = "https://workbench.example"
	start := time.Now()
	c := startCommand(t, "bodies", "--allow-origin", origin, "--addr", "127.0.0.1:0", "--host-dir", dir)
	lines := c.until(t, regexp.MustCompile(`^pairing secret: `))
	t.Logf("bodies was up after %s", time.Since(start).Round(time.Millisecond))
	if len(lines) != 4 {
		t.Fatalf("output %q", lines)
	}
	m := regexp.MustCompile(`^workbench: serving the bodies at (http://127\.0\.0\.1:\d+/mcp/) to the page at https://workbench\.example only; Ctrl\+C stops them$`).FindStringSubmatch(lines[2])
	if m == nil {
		t.Fatalf("line 3 %q", lines[2])
	}
	base := m[1]
	wantLines := []string{
		"workbench: browser body: Playwright MCP on Chromium, headless, at " + base + "browser",
		"workbench: host body: filesystem server on " + dir + ", file tools only, at " + base + "host",
	}
	for i, want := range wantLines {
		if lines[i] != want {
			t.Errorf("line %d %q, want %q", i+1, lines[i], want)
		}
	}
	secret := strings.TrimPrefix(lines[3], "pairing secret: ")
	if !regexp.MustCompile(`^[A-Z2-7]{26}$`).MatchString(secret) {
		t.Errorf("secret %q", secret)
	}
	// Unpaired: refused before any body.
	req, _ := http.NewRequest("GET", base, nil)
	req.Header.Set("Origin", origin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != origin {
		t.Errorf("without the secret: %d, Access-Control-Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	useBodies(t, base, http.Header{"Origin": {origin}, "Authorization": {"Bearer " + secret}}, dir) // ended with bodies
	before := mcpbodytest.Running(t, mark)
	mcpbodytest.RequireBodies(t, before)
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.cmd.Wait()
	mcpbodytest.RequireGone(t, mark, before)
}
