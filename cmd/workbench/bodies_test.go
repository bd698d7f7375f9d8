package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"workbench/pkg/proxy/proxytest"
)

func TestBodiesFlags(t *testing.T) {
	tests := []struct {
		args   []string
		errHas string
	}{
		{nil, "--allow-origin is required"},
		{[]string{"--allow-origin", "http://workbench.example"}, "plain http is allowed only for a loopback host"},
		{[]string{"--allow-origin", "*"}, "--allow-origin *: scheme must be https"},
		{[]string{"--allow-origin", "https://workbench.example/app"}, "no path"},
		{[]string{"--allow-origin", "https://workbench.example", "--addr", "0.0.0.0:8790"}, "loopback interface only"},
		{[]string{"--allow-origin", "https://workbench.example", "--addr", "8790"}, "want 127.0.0.1:PORT"},
		{[]string{"--allow-origin", "https://workbench.example", "extra"}, "unexpected argument"},
		{[]string{"--no-such-flag"}, "not defined"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"bodies"}, tt.args...), nil, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.errHas) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tt.errHas)
			}
		})
	}
}

// TestBodiesMissingPackages: where the npm packages are not installed (a
// test runs in its package's directory, which has no node_modules), serve
// and bodies say what is missing and how to install it, and start
// nothing.
func TestBodiesMissingPackages(t *testing.T) {
	site := writeSite(t)
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--site", site, "--host-dir", t.TempDir()},
		{"bodies", "--allow-origin", "https://workbench.example", "--addr", "127.0.0.1:0", "--host-dir", t.TempDir()},
	} {
		t.Run(args[0], func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, nil, &stdout, &stderr)
			// Without node on PATH, Node.js is what is missing.
			if code != 1 || !strings.Contains(stderr.String(), " is missing (") ||
				!(strings.Contains(stderr.String(), "`make node-deps` installs it") || strings.Contains(stderr.String(), "`make node` installs it")) {
				t.Errorf("exit %d, stderr %q", code, stderr.String())
			}
			if args[0] == "serve" && !strings.Contains(stderr.String(), "--no-bodies") {
				t.Errorf("serve does not say how to run without the bodies: %q", stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout %q: nothing is served", stdout.String())
			}
		})
	}
}

// TestServeMCPReplacesBodies: --mcp browser=URL and --mcp host=URL are
// the bodies; none is started (this test has no node_modules, so a start
// would fail).
func TestServeMCPReplacesBodies(t *testing.T) {
	site := writeSite(t)
	b, h := proxytest.NewMCPServer(t, false), proxytest.NewMCPServer(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--site", site, "--mcp", "browser=" + b.URL, "--mcp", "host=" + h.URL}, nil, pw, &stderr)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	var lines []string
	for len(lines) < 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("output %q: %v; stderr %s", lines, err, stderr.String())
		}
		lines = append(lines, line)
	}
	go io.Copy(io.Discard, br)
	if lines[1] != "workbench: MCP relay /api/mcp/<name> for browser, host\n" {
		t.Errorf("output %q: want the relay line after the start line, and no body line", lines)
	}
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+) `).FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("start line %q", lines[0])
	}
	req, _ := http.NewRequest("GET", m[1]+"/api/mcp/", nil)
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
