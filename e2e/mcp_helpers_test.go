package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"workbench/pkg/mcp"
)

// playwrightMCP starts Playwright MCP on Debian's Chromium, as make
// test-bodies does (docs/bodies.md): headless, each MCP session in a
// browser context of its own, Chromium kept off the network. It returns
// the server's endpoint. Without the npm package or Chromium the test is
// skipped, or fails when WORKBENCH_BODIES_REQUIRED is set (make test-e2e
// sets it after installing both).
func playwrightMCP(t *testing.T) string {
	t.Helper()
	cli := filepath.Join(setup.root, "node_modules", "@playwright", "mcp", "cli.js")
	for _, f := range []string{cli, setup.chromium} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("WORKBENCH_BODIES_REQUIRED") != "" {
				t.Fatal(err)
			}
			t.Skipf("%v (make test-e2e installs Playwright MCP)", err)
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
	var logs procLog
	cmd := exec.Command("node", cli, "--headless", "--no-sandbox", "--executable-path", setup.chromium,
		"--port", port, "--host", "127.0.0.1", "--isolated", "--allowed-hosts", "*",
		"--output-dir", filepath.Join(dir, "out"), "--config", filepath.Join(dir, "config.json"))
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Chromium is Playwright's child: end the whole process group.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		if t.Failed() {
			t.Logf("Playwright MCP log:\n%s", logs.String())
		}
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
			t.Fatalf("Playwright MCP did not come up: %v\n%s", err, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// procLog is a process's output, written and read from several
// goroutines.
type procLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *procLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *procLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitLong polls a JavaScript condition for as long as a real browser body
// may take (Chromium starting, a navigation, a model step per action).
func (s *session) waitLong(cond string) {
	s.t.Helper()
	s.do(chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(3*time.Minute)))
}

// present is a JavaScript condition: some element matches sel.
func present(sel string) string { return fmt.Sprintf(`!!document.querySelector(%q)`, sel) }

// storedBundle is what the MCP tests read of a stored bundle: which body
// it was taught on and who authorized each edge.
type storedBundle struct {
	Manifest struct {
		BodyChoice string `json:"body_choice"`
	} `json:"manifest"`
	Trace struct {
		Edges []struct {
			Authorization *struct {
				Authorizer string `json:"authorizer"`
				Decision   string `json:"decision"`
			} `json:"authorization"`
		} `json:"edges"`
	} `json:"interaction_trace"`
}

// storedBundles reads every bundle of the page's library.
func (s *session) storedBundles() []storedBundle {
	s.t.Helper()
	var l struct {
		Bundles []storedBundle `json:"bundles"`
	}
	if err := json.Unmarshal([]byte(eval[string](s, readLibrary)), &l); err != nil {
		s.t.Fatalf("reading the library: %v", err)
	}
	return l.Bundles
}
