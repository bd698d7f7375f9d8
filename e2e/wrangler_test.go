package e2e

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"workbench/pkg/proxy/wranglertest"
)

// startWrangler serves the built site and the built Worker under
// `wrangler dev` (real workerd), as a Cloudflare deployment does: the
// repository's wrangler.toml with no ALLOWED_ORIGIN (the same-origin
// default), the OpenRouter upstream pointed at upstream, and with migrate
// the registry's D1 migrations applied first. It returns the dev server's
// origin once the Worker answers.
func startWrangler(t testing.TB, upstream string, migrate bool) string {
	t.Helper()
	bin := filepath.Join(setup.root, "node_modules", ".bin", "wrangler")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("wrangler is not installed (make node-deps): %v", err)
	}
	if _, err := os.Stat(filepath.Join(setup.root, "build", "worker", "index.mjs")); err != nil {
		t.Fatalf("the Worker is not built (make worker): %v", err)
	}
	tmp := t.TempDir()
	config, err := wranglertest.WriteConfig(setup.root, tmp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if migrate {
		if err := wranglertest.Migrate(bin, config, filepath.Join(tmp, "state"), tmp); err != nil {
			t.Fatal(err)
		}
	}
	port, inspector := freePort(t), freePort(t)
	cmd := exec.Command(bin, "dev", "--local", "--ip", "127.0.0.1", "--port", port, "--inspector-port", inspector,
		"--persist-to", filepath.Join(tmp, "state"), "--show-interactive-dev-session=false", "--log-level", "log",
		"--config", config, "--var", "OPENROUTER_UPSTREAM:"+upstream)
	cmd.Dir = tmp
	cmd.Env = wranglertest.Env(tmp)
	var logs lockedBuilder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so the end reaches workerd too
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
		if t.Failed() {
			t.Logf("wrangler dev's log:\n%s", logs.String())
		}
	})
	base := "http://127.0.0.1:" + port
	deadline := time.Now().Add(2 * time.Minute)
	for {
		// The site answers before the Worker does: a POST the Worker
		// refuses on its own (no Origin) shows it is up.
		if resp, err := http.Post(base+"/api/mcp/x", "application/json", strings.NewReader("{}")); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusForbidden {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("wrangler dev did not answer at %s within 2 minutes:\n%s", base, logs.String())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// lockedBuilder is a strings.Builder written by a process's two pipes.
type lockedBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuilder) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuilder) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
