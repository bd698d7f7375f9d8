//go:build interop

// Interop with the reference TypeScript server,
// @modelcontextprotocol/server-everything, from the project's
// node_modules (make test-capability installs it). It skips only when the
// server is not installed, and fails instead when
// WORKBENCH_MCP_INTEROP_REQUIRED is set.

package capability

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"workbench/pkg/mcp"
	"workbench/pkg/runs"
	"workbench/pkg/services/servicestest"
)

func TestEverythingThroughTheGovernor(t *testing.T) {
	ctx := context.Background()
	c, err := mcp.Dial(ctx, servicestest.Everything(t), nil)
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
