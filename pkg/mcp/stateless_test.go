package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
)

// A server that speaks only revision 2026-07-28 (the go-sdk server in
// stateless mode, refusing the session handshake the client tries first):
// the client discovers it and then sends every request without a
// session, with the _meta triple and the Mcp-Method and Mcp-Name headers.
func TestStatelessGoSDK(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		t.Run(map[bool]string{false: "sse", true: "json"}[jsonMode], func(t *testing.T) {
			srv := newStatelessOnly(t, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: jsonMode, PropagateRequestCancellation: true})
			c := dial(t, srv.URL, nil)
			ctx := context.Background()
			info := c.ServerInfo()
			if info.ProtocolVersion != mcp.StatelessProtocolVersion || info.ServerInfo.Name != "interop-server" || c.SessionID() != "" {
				t.Fatalf("ServerInfo %+v, session %q", info, c.SessionID())
			}
			if !strings.Contains(string(info.Capabilities), `"tools"`) {
				t.Errorf("capabilities %s", info.Capabilities)
			}

			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != fixedTools+manyTools {
				t.Errorf("%d tools", len(tools))
			}

			res, err := c.CallTool(ctx, "echo", map[string]any{"text": "st", "times": 3})
			if err != nil {
				t.Fatal(err)
			}
			var out echoOut
			if json.Unmarshal(res.StructuredContent, &out); res.Text() != "ststst" || out != (echoOut{"ststst", 6}) {
				t.Errorf("echo: %q %s", res.Text(), res.StructuredContent)
			}
			if res, err := c.CallTool(ctx, "delete_all", map[string]any{"path": "/"}); err != nil || !res.IsError {
				t.Errorf("delete_all: %+v %v", res, err)
			}
			var re *mcp.RPCError
			if _, err := c.CallTool(ctx, "no_such_tool", nil); !errors.As(err, &re) {
				t.Errorf("unknown tool: %v", err)
			}

			if !jsonMode {
				var got []mcp.Progress
				res, err := c.CallTool(ctx, "progress", nil, mcp.WithProgress(func(p mcp.Progress) { got = append(got, p) }))
				if err != nil || res.Text() != "sent 3" || len(got) != 3 {
					t.Errorf("progress: %v %v %v", res, got, err)
				}
			}

			// Cancelling closes the request, which cancels the tool.
			_, err = c.CallTool(ctx, "block", nil, mcp.WithTimeout(200*time.Millisecond))
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("block: %v", err)
			}
			select {
			case <-srv.Cancelled:
			case <-time.After(10 * time.Second):
				t.Error("the tool was not cancelled by closing the request")
			}
			if err := c.Close(ctx); err != nil {
				t.Errorf("Close: %v", err)
			}

			var methods []string
			for _, r := range srv.Rec.requests() {
				methods = append(methods, r.Method+" "+r.RPC)
				if r.Session != "" || r.Version != mcp.StatelessProtocolVersion || r.MCPMethod != r.RPC {
					t.Errorf("%s %s: headers %+v", r.Method, r.RPC, r)
				}
				if r.RPC == "tools/call" && r.MCPName == "" {
					t.Errorf("tools/call without Mcp-Name")
				}
			}
			joined := strings.Join(methods, ",")
			if !strings.HasPrefix(joined, "POST server/discover,POST tools/list,") || strings.Contains(joined, "initialize") ||
				strings.Contains(joined, "cancelled") || strings.Contains(joined, "DELETE") {
				t.Errorf("requests: %s", joined)
			}
		})
	}
}

func TestPinnedProtocol(t *testing.T) {
	stateless := newSDKServerOpts(t, &sdk.StreamableHTTPOptions{Stateless: true})
	stateful := newSDKServer(t, false)
	tests := []struct {
		name, url, pin, want string
	}{
		{"2025 against a stateless server", stateless.URL, mcp.ProtocolVersion, mcp.ProtocolVersion},
		{"2026 against a stateless server", stateless.URL, mcp.StatelessProtocolVersion, mcp.StatelessProtocolVersion},
		{"2026 against a stateful server", stateful.URL, mcp.StatelessProtocolVersion, ""},
		{"auto against a stateful server", stateful.URL, "", mcp.ProtocolVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := mcp.Dial(context.Background(), tt.url, testOptions(&mcp.Options{ProtocolVersion: tt.pin}))
			if tt.want == "" {
				checkOneLine(t, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close(context.Background())
			if v := c.ServerInfo().ProtocolVersion; v != tt.want {
				t.Errorf("version %s, want %s", v, tt.want)
			}
			res, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "p"})
			if err != nil || res.Text() != "p" {
				t.Errorf("call: %v %v", res, err)
			}
		})
	}
	if _, err := mcp.Dial(context.Background(), stateful.URL, testOptions(&mcp.Options{ProtocolVersion: "2024-11-05"})); err == nil {
		t.Error("an unknown pinned version was accepted")
	}
}

// A 2026-07-28 server that asks for more input gets a clear error.
func TestInputRequired(t *testing.T) {
	f := newFaultServer(t, nil)
	f.stateless = func(m rpc) string {
		switch m.Method {
		case "server/discover":
			return `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mrtr","version":"1"}}}`
		default:
			return `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{}}}}`
		}
	}
	c := dial(t, f.URL, nil)
	if got := c.ServerInfo(); got.ServerInfo.Name != "mrtr" || got.ProtocolVersion != mcp.StatelessProtocolVersion {
		t.Errorf("ServerInfo %+v", got)
	}
	_, err := c.CallTool(context.Background(), "ask", nil)
	checkOneLine(t, err)
	if !errors.Is(err, mcp.ErrInputRequired) {
		t.Errorf("err = %v", err)
	}
	for _, m := range f.received() {
		if m.Method == "initialize" {
			continue // the session handshake this server refused, tried first
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		got := fmt.Sprintf("%s %s %s", p.Meta["io.modelcontextprotocol/protocolVersion"], p.Meta["io.modelcontextprotocol/clientInfo"], p.Meta["io.modelcontextprotocol/clientCapabilities"])
		if got != `"2026-07-28" {"name":"workbench","version":"0.1"} {}` {
			t.Errorf("%s _meta: %s", m.Method, got)
		}
	}
}

// newStatelessOnly is the go-sdk server in stateless mode as a server that
// speaks only revision 2026-07-28 would be: it refuses initialize
// (refuseInitialize), before its recorder sees it. The go-sdk server
// itself also accepts the session handshake.
func newStatelessOnly(t testing.TB, opts *sdk.StreamableHTTPOptions) *sdkServer {
	t.Helper()
	srv := newSDKServerOpts(t, opts)
	ts := httptest.NewServer(refuseInitialize(srv.Rec))
	t.Cleanup(ts.Close)
	only := *srv
	only.URL = ts.URL + "/mcp"
	return &only
}
