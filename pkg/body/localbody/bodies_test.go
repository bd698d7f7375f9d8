//go:build bodies

package localbody_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"workbench/pkg/body/localbody"
	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/mcp"
)

// ownerEnv, when set, makes the test binary an owner of bodies instead
// of a test run (TestOwnerKilled): its value is the node_modules
// directory.
const ownerEnv = "LOCALBODY_TEST_OWNER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(ownerEnv); dir != "" {
		os.Exit(own(dir))
	}
	os.Exit(m.Run())
}

// own starts both bodies, has the browser open a page (so that
// Chromium runs), says "ready" and waits to be killed.
func own(modules string) int {
	ctx := context.Background()
	bodies, err := localbody.Start(ctx, localbody.Options{NodeModules: modules}, &localbody.Browser{}, &localbody.Host{Dir: os.Getenv("LOCALBODY_TEST_DIR")})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	if _, err := navigate(ctx, bodies[0].URL()); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("ready")
	select {}
}

// navigate opens a blank page in the browser body at url: Playwright
// MCP starts Chromium for the first page of a session, and closes it
// when the session ends, so the session is returned open.
func navigate(ctx context.Context, url string) (*mcp.Client, error) {
	c, err := mcp.Dial(ctx, url, &mcp.Options{Timeout: time.Minute})
	if err != nil {
		return nil, err
	}
	res, err := c.CallTool(ctx, "browser_navigate", map[string]any{"url": "about:blank"})
	if err == nil && res.IsError {
		err = fmt.Errorf("browser_navigate: %+v", res.Content)
	}
	if err != nil {
		c.Close(ctx)
		return nil, err
	}
	return c, nil
}

// closeSoon ends c's session, if its server is still there to hear it.
func closeSoon(c *mcp.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c.Close(ctx)
}

// TestStartAndStop starts both bodies, uses each, and stops them: nothing
// they started is left.
func TestStartAndStop(t *testing.T) {
	mark := mcpbodytest.Mark(t)
	dir := filepath.Join(t.TempDir(), "work") // made by the host body
	ctx := context.Background()
	start := time.Now()
	bodies, err := localbody.Start(ctx, mcpbodytest.Options(t), &localbody.Browser{}, &localbody.Host{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("both bodies answered after %s", time.Since(start).Round(time.Millisecond))
	defer localbody.StopAll(bodies)
	browser, host := bodies[0], bodies[1]
	if browser.Name() != "browser" || host.Name() != "host" || browser.About() != "Playwright MCP on Chromium, headless" ||
		host.About() != "filesystem server on "+dir+", file tools only" {
		t.Errorf("bodies %s (%s), %s (%s)", browser.Name(), browser.About(), host.Name(), host.About())
	}
	pw, err := navigate(ctx, browser.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer closeSoon(pw)
	c, err := mcp.Dial(ctx, host.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CallTool(ctx, "write_file", map[string]any{"path": filepath.Join(dir, "note.txt"), "content": "hello"}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil || string(b) != "hello" {
		t.Errorf("the written file holds %q (%v)", b, err)
	}
	res, err := c.CallTool(ctx, "read_text_file", map[string]any{"path": "/etc/hostname"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "outside allowed directories") {
		t.Errorf("reading outside the folder: %+v, %v; want the server's refusal", res, err)
	}
	c.Close(ctx)
	// Each body answers its own name only, and a browser page of
	// another origin not at all.
	for _, b := range bodies {
		for name, set := range map[string]func(*http.Request){
			"rebinding Host": func(r *http.Request) { r.Host = "evil.example" + r.URL.Host[strings.LastIndexByte(r.URL.Host, ':'):] },
			"other port":     func(r *http.Request) { r.Host = "127.0.0.1:1" },
			"cross-site page": func(r *http.Request) {
				r.Header.Set("Origin", "https://evil.example")
				r.Header.Set("Sec-Fetch-Site", "cross-site")
			},
		} {
			req, _ := http.NewRequest("POST", b.URL(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			set(req)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			// Playwright MCP does not look at Origin; a page's JSON POST
			// needs a CORS preflight, which it does not answer.
			if resp.StatusCode != http.StatusForbidden && !(name == "cross-site page" && b.Name() == "browser") {
				t.Errorf("the %s body answers a request with a %s: %d, want 403", b.Name(), name, resp.StatusCode)
			}
		}
	}
	before := mcpbodytest.Running(t, mark)
	mcpbodytest.RequireBodies(t, before)
	start = time.Now()
	localbody.StopAll(bodies)
	t.Logf("stopped in %s", time.Since(start).Round(time.Millisecond))
	mcpbodytest.RequireGone(t, mark, before)
	for _, b := range bodies {
		if b.Err() == nil {
			t.Errorf("the %s body says it is up after Stop", b.Name())
		}
		if _, err := http.Post(b.URL(), "application/json", strings.NewReader("{}")); err == nil {
			t.Errorf("the %s body's URL still answers after Stop", b.Name())
		}
	}
}

// logLines is a slog handler's output, safe for the supervisor's
// goroutine.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 30 s: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kill kills the body's first process, as a crash would, and returns
// once it is gone.
func kill(t *testing.T, mark string) {
	t.Helper()
	for _, p := range mcpbodytest.Running(t, mark) {
		if p.Name == "node" {
			syscall.Kill(p.PID, syscall.SIGKILL)
			eventually(t, "node ends", func() bool { return !p.Alive() })
			return
		}
	}
	t.Fatal("no node process to kill")
}

// TestRestart kills each body's server: its URL fails, and then the
// body is back at the same URL, said in the log.
func TestRestart(t *testing.T) {
	policy := localbody.Restart{Attempts: 3, Delay: 500 * time.Millisecond, MaxDelay: time.Second, Healthy: time.Minute}
	ctx := context.Background()
	t.Run("browser", func(t *testing.T) {
		mark := mcpbodytest.Mark(t)
		var log logLines
		o := mcpbodytest.Options(t)
		o.Restart, o.Log = policy, slog.New(slog.NewTextHandler(&log, nil))
		b, err := localbody.StartBrowser(ctx, o, localbody.Browser{})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Stop()
		pw, err := navigate(ctx, b.URL())
		if err != nil {
			t.Fatal(err)
		}
		defer closeSoon(pw)
		before := mcpbodytest.Running(t, mark)
		if n := mcpbodytest.Names(before); !slices.Contains(n, "chromium") {
			t.Fatalf("the browser body's processes are %v; want chromium among them", n)
		}
		kill(t, mark)
		eventually(t, "the body says it is down", func() bool { return b.Err() != nil })
		if _, err := mcp.Dial(ctx, b.URL(), &mcp.Options{ProtocolVersion: mcp.ProtocolVersion}); err == nil && b.Err() != nil {
			t.Errorf("a handshake worked while the body was down (%v)", b.Err())
		}
		eventually(t, "the body is back", func() bool { return b.Err() == nil })
		// Chromium ended with the Playwright MCP that started it.
		mcpbodytest.RequireGone(t, "", before)
		if pw, err := navigate(ctx, b.URL()); err != nil {
			t.Errorf("after the restart: %v", err)
		} else {
			closeSoon(pw)
		}
		if l := log.String(); !strings.Contains(l, "the browser body is down (Playwright MCP ended: signal: killed") ||
			!strings.Contains(l, "restarting in 500ms, attempt 1 of 3") || !strings.Contains(l, "the browser body was restarted at "+b.URL()) {
			t.Errorf("log:\n%s", l)
		}
	})
	t.Run("host", func(t *testing.T) {
		mark := mcpbodytest.Mark(t)
		var log logLines
		o := mcpbodytest.Options(t)
		// Time enough to see the bridge answer 503 before the restart.
		o.Restart, o.Log = policy, slog.New(slog.NewTextHandler(&log, nil))
		o.Restart.Delay = 2 * time.Second
		dir := t.TempDir()
		b, err := localbody.StartHost(ctx, o, localbody.Host{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Stop()
		c, err := mcp.Dial(ctx, b.URL(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		kill(t, mark)
		eventually(t, "the body says it is down", func() bool { return b.Err() != nil })
		eventually(t, "the bridge answers 503", func() bool {
			_, err := c.ListTools(ctx)
			return err != nil && strings.Contains(err.Error(), "503")
		})
		eventually(t, "the body is back", func() bool { return b.Err() == nil })
		// The bridge's session outlived the server: the same client goes on.
		res, err := c.CallTool(ctx, "list_allowed_directories", nil)
		if err != nil || !strings.Contains(res.Content[0].Text, dir) {
			t.Errorf("after the restart: %+v, %v", res, err)
		}
		if l := log.String(); !strings.Contains(l, "the host body is down (the filesystem server ended: signal: killed") ||
			!strings.Contains(l, "the host body was restarted") {
			t.Errorf("log:\n%s", l)
		}
	})
}

// TestGiveUp: a body that cannot come back is given up after the
// policy's attempts, with one line saying why, and its URL keeps failing.
func TestGiveUp(t *testing.T) {
	mark := mcpbodytest.Mark(t)
	var log logLines
	o := mcpbodytest.Options(t)
	o.Restart, o.Log = localbody.Restart{Attempts: 2, Delay: 50 * time.Millisecond, MaxDelay: 100 * time.Millisecond, Healthy: time.Minute},
		slog.New(slog.NewTextHandler(&log, nil))
	dir := filepath.Join(t.TempDir(), "work")
	b, err := localbody.StartHost(context.Background(), o, localbody.Host{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	// The server refuses to start without its folder.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	kill(t, mark)
	eventually(t, "the body is given up", func() bool {
		err := b.Err()
		return err != nil && strings.Contains(err.Error(), "not restarted")
	})
	want := "the host body is down and is not restarted: it stopped 3 times in a row, the last time: "
	if err := b.Err().Error(); !strings.HasPrefix(err, want) || !strings.Contains(err, "None of the specified directories are accessible") {
		t.Errorf("Err() = %q", err)
	}
	if n := strings.Count(log.String(), "not restarted"); n != 1 {
		t.Errorf("%d lines say it is given up, want 1:\n%s", n, log.String())
	}
	resp, err := http.Post(b.URL(), "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("given up, the URL answers %d, want 503", resp.StatusCode)
	}
}

// TestOwnerKilled starts bodies in another process and SIGKILLs it:
// nothing it started is left, Chromium included.
func TestOwnerKilled(t *testing.T) {
	mark := mcpbodytest.Mark(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// A body killed with its owner never removes its directory: it goes
	// in a temporary directory of the test's, short enough for Chromium's
	// socket in it (browserDir).
	tmp, err := os.MkdirTemp("", "wb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	cmd.Env = append(os.Environ(), ownerEnv+"="+mcpbodytest.Options(t).NodeModules, "LOCALBODY_TEST_DIR="+t.TempDir(),
		"TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		t.Fatalf("the owner said %q (%v); stderr %s", line, err, stderr.String())
	}
	before := mcpbodytest.Running(t, mark)
	mcpbodytest.RequireBodies(t, before)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	mcpbodytest.RequireGone(t, mark, before)
}
