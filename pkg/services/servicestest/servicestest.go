// Package servicestest is a contract test server for the [&] services'
// clients: a go-sdk MCP server, started in a test on loopback, that offers
// the tools delegatic-mcp, graphonomous-mcp and prism-eval publish, under
// their published names and input schemas, and answers each call with
// whatever the test scripts.
//
// It decides, stores and judges nothing: it exists so that a test can
// check the wire exchange — which arguments the workbench sends, and how
// it maps each kind of answer (a grant, a refusal, a malformed reply) —
// against a real MCP server. It is imported only by tests; no production
// path reaches it.
package servicestest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
)

// Published input schemas. The authorize schema is delegatic-mcp's
// ({action_type, policy_id, agent_id, approved_by, ttl_seconds?}); act and
// retrieve are graphonomous-mcp's loop-phase tools with the members its
// store_trace and replay actions read; observe is the equivalence judging
// contract the workbench's judge client sends (docs/services.md says which
// parts PRISM publishes).
const (
	AuthorizeSchema = `{"type":"object","properties":{
		"action_type":{"type":"string"},"policy_id":{"type":"string"},
		"agent_id":{"type":"string"},"approved_by":{"type":"string"},
		"ttl_seconds":{"type":"integer"}},
		"required":["action_type","policy_id","agent_id","approved_by"]}`
	ActSchema = `{"type":"object","properties":{
		"action":{"type":"string"},"interaction_trace":{"type":"string"},
		"content":{"type":"string"},"node_type":{"type":"string"}},
		"required":["action"]}`
	RetrieveSchema = `{"type":"object","properties":{
		"action":{"type":"string"},"trace_id":{"type":"string"},
		"state_hash":{"type":"string"},"body_subtype":{"type":"string"},
		"limit":{"type":"number"},"query":{"type":"string"}},
		"required":["action"]}`
	ObserveSchema = `{"type":"object","properties":{
		"original_output":{},"replay_output":{},"goal":{"type":"string"}},
		"required":["original_output","replay_output"]}`
)

// Reply is a scripted answer to one call: Structured becomes the result's
// structuredContent (and its JSON text block), Text a text block only;
// IsError marks the result as the tool's own failure. Hang blocks until
// the call's context ends, for timeout tests.
type Reply struct {
	Structured any
	Text       string
	IsError    bool
	Hang       bool
}

// Handler scripts a tool: given the arguments the client sent, it returns
// the reply.
type Handler func(args map[string]any) Reply

// Tool is one tool the server offers.
type Tool struct {
	Name    string
	Schema  string
	Handler Handler
}

// Call is one tools/call the server received.
type Call struct {
	Tool string
	Args map[string]any
}

// Server is a running contract test server.
type Server struct {
	URL  string
	srv  *httptest.Server
	mu   sync.Mutex
	seen []Call
}

// Start serves tools on 127.0.0.1 until t ends. URL is the MCP endpoint.
func Start(t testing.TB, tools ...Tool) *Server {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "services-contract-test-server", Version: "0.0.0"}, nil)
	cs := &Server{}
	for _, tl := range tools {
		tl := tl
		s.AddTool(&sdk.Tool{Name: tl.Name, InputSchema: json.RawMessage(tl.Schema)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var args map[string]any
				if len(req.Params.Arguments) > 0 {
					if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
						return nil, err
					}
				}
				cs.mu.Lock()
				cs.seen = append(cs.seen, Call{Tool: tl.Name, Args: args})
				cs.mu.Unlock()
				r := tl.Handler(args)
				if r.Hang {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				res := &sdk.CallToolResult{IsError: r.IsError}
				if r.Structured != nil {
					b, err := json.Marshal(r.Structured)
					if err != nil {
						return nil, err
					}
					res.StructuredContent = json.RawMessage(b)
					res.Content = []sdk.Content{&sdk.TextContent{Text: string(b)}}
				}
				if r.Text != "" {
					res.Content = append(res.Content, &sdk.TextContent{Text: r.Text})
				}
				if res.Content == nil {
					res.Content = []sdk.Content{}
				}
				return res, nil
			})
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{JSONResponse: true})
	cs.srv = httptest.NewServer(h)
	cs.URL = cs.srv.URL
	t.Cleanup(cs.srv.Close)
	return cs
}

// ClientOptions returns MCP client options that reach a Server in every
// build: requests go through net/http. The clients' default under js/wasm
// is the JavaScript fetch, and a Server, an in-process httptest server
// there, is reachable only through net/http. Each call returns new
// options, so a test may set more fields on them.
func ClientOptions() *mcp.Options { return &mcp.Options{HTTPClient: http.DefaultClient} }

// Close stops the server now; later calls find nothing listening.
func (s *Server) Close() { s.srv.CloseClientConnections(); s.srv.Close() }

// Calls returns the tool calls received so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.seen...)
}
