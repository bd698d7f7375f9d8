//go:build !js

package capability

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
	"workbench/pkg/policy"
	"workbench/pkg/runs"
	"workbench/pkg/services"
)

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

// goSDKServer starts an in-process MCP server (the go-sdk's) with a
// read-only tool, a destructive one and one that declares nothing.
func goSDKServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "capability-test", Version: "1.0.0"}, nil)
	yes := true
	sdk.AddTool(s, &sdk.Tool{Name: "add", Title: "Add numbers", Description: "Adds two integers.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	s.AddTool(&sdk.Tool{Name: "wipe", Description: "Deletes everything.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "permission denied"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "note", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "noted"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(30 * time.Second):
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "not cancelled"}}}, nil
			}
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestMCPServerProvider(t *testing.T) {
	url := goSDKServer(t)
	c, err := mcp.Dial(context.Background(), url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })

	for _, trusted := range []bool{true, false} {
		p := &MCPServer{Name: "local", Client: c, Trusted: trusted, Capability: "&body.os"}
		caps, err := p.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m := byID(t, caps)
		want := map[string]policy.Effect{"wait": policy.EffectRead, "add": policy.EffectRead, "wipe": policy.EffectDestructive, "note": policy.EffectWrite}
		for name, eff := range want {
			cp, ok := m["mcp/local:"+name]
			if !ok {
				t.Fatalf("no %s in %v", name, m)
			}
			if !trusted {
				eff = policy.EffectUnknown
			}
			if cp.Effect != eff || cp.Source != "mcp/local" || cp.PolicyCapability != "&body.os" || len(cp.InputSchema) == 0 {
				t.Errorf("trusted=%v %s: %+v", trusted, name, cp)
			}
		}
		if m["mcp/local:add"].Title != "Add numbers" {
			t.Errorf("title %q", m["mcp/local:add"].Title)
		}
	}

	p := &MCPServer{Name: "local", Client: c, Trusted: true, Capability: "&body.os"}
	cat, err := NewCatalog(p)
	if err != nil {
		t.Fatal(err)
	}
	gov := NewGovernor(context.Background(), cat, GovernorOptions{})
	ctx := context.Background()

	// A schema problem is caught before the server is asked.
	if _, err := gov.Invoke(ctx, Proposal{CapabilityID: "mcp/local:add", Input: json.RawMessage(`{"a":"one","b":2}`)}); !isRefusal(err, RefusedInvalid) {
		t.Fatalf("bad input: %v", err)
	}
	rc, err := gov.Invoke(ctx, Proposal{CapabilityID: "mcp/local:add", Input: json.RawMessage(`{"a":2,"b":40}`)})
	if err != nil {
		t.Fatal(err)
	}
	gov.Wait()
	tl := runs.NewTimeline(0)
	if _, err := runs.Replay(ctx, gov.Log(), rc.RunID, tl, 0, nil); err != nil {
		t.Fatal(err)
	}
	res := last(tl.Events(), runs.EventToolResult)
	if res["status"] != "ok" || res["result"].(map[string]any)["sum"] != float64(42) {
		t.Errorf("add: %v", res)
	}

	// A tool that reports failure fails its run, after approval.
	rc, err = gov.Invoke(ctx, Proposal{CapabilityID: "mcp/local:wipe", Input: json.RawMessage(`{"path":"/"}`), Confirmed: true})
	if err != nil || rc.Status != StatusApprovalRequired {
		t.Fatalf("wipe: %+v %v", rc, err)
	}
	if _, err := gov.Grant(rc.ApprovalID); err != nil {
		t.Fatal(err)
	}
	pend := Pending{Proposal: Proposal{CapabilityID: "mcp/local:wipe", Input: json.RawMessage(`{"path":"/"}`), Confirmed: true}, Receipt: rc}
	if _, err := gov.Invoke(ctx, pend.Resume()); err != nil {
		t.Fatal(err)
	}
	gov.Wait()
	run, _ := gov.Log().Run(rc.RunID)
	if run.State != runs.StateFailed || !strings.Contains(run.Error, "permission denied") {
		t.Errorf("wipe run %+v", run)
	}
}

func TestCancelARunningInvocation(t *testing.T) {
	ctx := context.Background()
	c, err := mcp.Dial(ctx, goSDKServer(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	cat, err := NewCatalog(&MCPServer{Name: "local", Client: c, Trusted: true})
	if err != nil {
		t.Fatal(err)
	}
	gov := NewGovernor(ctx, cat, GovernorOptions{})
	rc, err := gov.Invoke(ctx, Proposal{CapabilityID: "mcp/local:wait"})
	if err != nil {
		t.Fatal(err)
	}
	if run, _ := gov.Log().Run(rc.RunID); run.State != runs.StateRunning {
		t.Fatalf("state %s before the tool answered", run.State)
	}
	if !gov.Cancel(rc.RunID) {
		t.Fatal("Cancel found no running dispatch")
	}
	gov.Wait()
	if run, _ := gov.Log().Run(rc.RunID); run.State != runs.StateCancelled {
		t.Errorf("state %s after Cancel", run.State)
	}
	if gov.Cancel(rc.RunID) {
		t.Error("Cancel of an ended run reported a running one")
	}
}

func TestServersFromConfig(t *testing.T) {
	ctx := context.Background()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	cfg := services.Config{Endpoints: map[string]string{"local": goSDKServer(t), "down": deadURL}}
	ps := Servers(cfg, func(n string) bool { return n == "local" }, func(string) string { return "" }, nil)
	if len(ps) != 2 || ps[0].Name != "down" || ps[1].Name != "local" || !ps[1].Trusted || ps[0].Trusted {
		t.Fatalf("providers %+v", ps)
	}
	cat, err := NewCatalog(ps[0], ps[1])
	if err != nil {
		t.Fatal(err)
	}
	l := cat.List(ctx)
	if len(l.Failures) != 1 || l.Failures[0].Source != "mcp/down" || len(l.Capabilities) != 4 {
		t.Fatalf("%d capabilities, failures %v", len(l.Capabilities), l.Failures)
	}
	if c := byID(t, l.Capabilities)["mcp/local:note"]; c.PolicyCapability != "&mcp.local" {
		t.Errorf("capability %q", c.PolicyCapability)
	}
	t.Cleanup(func() { ps[1].Client.Close(ctx) })
}
