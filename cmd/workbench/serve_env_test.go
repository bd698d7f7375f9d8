package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

// TestServeMCPOperatorHeader runs `workbench serve` for real with an MCP
// server that requires a bearer token, relayed twice: as "keyed", whose
// operator header comes from WORKBENCH_MCP_HEADER_KEYED, and as "locked",
// with none.
func TestServeMCPOperatorHeader(t *testing.T) {
	srv := proxytest.StartTokenMCPServer()
	defer srv.Close()
	t.Setenv("WORKBENCH_MCP_HEADER_KEYED", proxytest.MCPOperatorHeader)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--no-bodies", "--addr", "127.0.0.1:0", "--site", writeSite(t),
			"--mcp", "keyed=" + srv.URL, "--mcp", "locked=" + srv.URL}, nil, pw, &stderr)
		pw.Close()
	}()
	br := bufio.NewReader(pr)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("no start line: %v; stderr %s", err, stderr.String())
	}
	go io.Copy(io.Discard, br)
	m := regexp.MustCompile(`at http://(127\.0\.0\.1:\d+) \(allowed origin (http://127\.0\.0\.1:\d+);`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("start line %q", line)
	}
	proxytest.RunMCPOperatorHeader(t, proxytest.MCPTarget{Addr: m[1], Origin: m[2], Layer: proxytest.Serve}, "locked", "keyed", srv)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context ended")
	}
	if strings.Contains(stderr.String(), proxytest.MCPToken) {
		t.Errorf("serve's log holds the token:\n%s", stderr.String())
	}
}

// TestServeMCPHeaderEnv: a malformed header stops serve at start, naming
// the variable and never the value.
func TestServeMCPHeaderEnv(t *testing.T) {
	t.Setenv("WORKBENCH_MCP_HEADER_B_2", "SECRET-WITHOUT-A-NAME")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"serve", "--no-bodies", "--addr", "127.0.0.1:0", "--site", writeSite(t), "--mcp", "b-2=http://127.0.0.1:9/mcp"}, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "WORKBENCH_MCP_HEADER_B_2") || strings.Contains(stderr.String(), "SECRET") {
		t.Errorf("exit %d, stderr %q; want 2 naming the variable, not the value", code, stderr.String())
	}
	t.Setenv("WORKBENCH_MCP_HEADER_B_2", "Host: evil.example")
	stderr.Reset()
	if code := run(context.Background(), []string{"serve", "--no-bodies", "--addr", "127.0.0.1:0", "--site", writeSite(t), "--mcp", "b-2=http://127.0.0.1:9/mcp"}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "managed by HTTP") {
		t.Errorf("exit %d, stderr %q; want 2: Host cannot be set", code, stderr.String())
	}
	got, err := mcpHeadersFromEnv([]proxy.MCPServer{{Name: "a"}, {Name: "b-2"}}, func(k string) string {
		return map[string]string{"WORKBENCH_MCP_HEADER_B_2": "X-Api-Key: k"}[k]
	})
	if err != nil || len(got) != 1 || got[0] != (proxy.MCPHeader{Server: "b-2", Name: "X-Api-Key", Value: "k"}) {
		t.Errorf("mcpHeadersFromEnv = %+v, %v", got, err)
	}
}
