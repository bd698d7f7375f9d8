//go:build interop

// Interop with the reference TypeScript server,
// @modelcontextprotocol/server-everything, from the project's
// node_modules (make test-capability installs it). It skips only when the
// server is not installed, and fails instead when
// WORKBENCH_MCP_INTEROP_REQUIRED is set.

package capability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"workbench/pkg/mcp"
	"workbench/pkg/runs"
)

func everything(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("..", "..", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
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
		t.Fatal(err)
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
			t.Fatalf("server-everything did not listen: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}

func TestEverythingThroughTheGovernor(t *testing.T) {
	ctx := context.Background()
	c, err := mcp.Dial(ctx, everything(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	p := &MCPServer{Name: "everything", Client: c, Trusted: true}
	cat, err := NewCatalog(p)
	if err != nil {
		t.Fatal(err)
	}
	l := cat.List(ctx)
	if len(l.Failures) != 0 || len(l.Capabilities) < 10 {
		t.Fatalf("%d capabilities, failures %v", len(l.Capabilities), l.Failures)
	}
	// Every schema the server publishes is usable to check an input:
	// {} either fits or gets problems with pointers, never a schema error.
	for _, cp := range l.Capabilities {
		var ie *InputError
		if err := CheckInput(cp, json.RawMessage(`{}`)); err != nil && !errors.As(err, &ie) {
			t.Errorf("%s: %v", cp.ID, err)
		}
	}
	echo := byID(t, l.Capabilities)["mcp/everything:echo"]
	if echo.Effect != "read" || echo.NeedsConfirmation() {
		t.Errorf("echo: %+v", echo)
	}
	gov := NewGovernor(ctx, cat, GovernorOptions{})
	rc, err := gov.Invoke(ctx, Proposal{CapabilityID: echo.ID, Input: json.RawMessage(`{"message":"héllo"}`)})
	if err != nil {
		t.Fatal(err)
	}
	tl := runs.NewTimeline(0)
	res, err := runs.Follow(ctx, gov.Log(), rc.RunID, tl, nil)
	if err != nil || res.Outcome != runs.OutcomeEnded {
		t.Fatalf("%+v %v", res, err)
	}
	var data struct {
		Status string `json:"status"`
		Text   string `json:"text"`
	}
	for _, e := range tl.Events() {
		if e.Type == runs.EventToolResult {
			json.Unmarshal(e.Data, &data)
		}
	}
	if data.Status != "ok" || data.Text != "Echo: héllo" {
		t.Errorf("tool_result %+v", data)
	}
	if _, err := gov.Invoke(ctx, Proposal{CapabilityID: echo.ID, Input: json.RawMessage(`{"message":3}`)}); !isRefusal(err, RefusedInvalid) {
		t.Errorf("a number for the message: %v", err)
	}
}
