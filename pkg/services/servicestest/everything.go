package servicestest

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"workbench/pkg/modtest"
)

// Everything starts the reference TypeScript MCP server,
// @modelcontextprotocol/server-everything, from the module's node_modules
// on a free loopback port until t ends, and returns its endpoint. It is a
// real server that offers none of the [&] services' tools. It skips t
// when the server is not installed, and fails it instead when
// WORKBENCH_MCP_INTEROP_REQUIRED is set (the make targets that install it,
// test-services, test-mcp and test-capability, set it).
func Everything(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(modtest.Root(t), "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("WORKBENCH_MCP_INTEROP_REQUIRED") != "" {
			t.Fatalf("server-everything is not installed: %v", err)
		}
		t.Skipf("server-everything is not installed (%v); run make node-deps", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting server-everything: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("server-everything output:\n%s", logs.String())
		}
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(20 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything did not listen on %s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}
