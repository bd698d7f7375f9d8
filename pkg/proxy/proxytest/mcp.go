package proxytest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names under which a host of the MCP relay must configure an MCPUpstream
// for the MCP suite: once without and once with Authorization forwarding.
const (
	MCPRecorder     = "rec"
	MCPRecorderAuth = "rec-auth"
)

// What the recorder's two endpoints are, as request URIs. The query on the
// first shows that the relay sends the configured URL whole.
const (
	mcpRecPath     = "/mcp?tenant=fixed"
	mcpRecAuthPath = "/mcp-auth"
)

// MCPSession is the session id the recorder hands out.
const MCPSession = "sess-RECORDER-0123456789abcdef"

// MCPUpstream is a loopback HTTP server standing in for an MCP server
// behind the relay. It records every request, whatever its path, and
// answers in the shape of MCP's streamable HTTP transport: a POST gets a
// JSON-RPC result carrying ResponseSentinel and MCPSession, a GET that
// accepts text/event-stream gets a stream of Events events sent in lockstep
// with the client (as Upstream's completions are), any other GET a 405, a
// DELETE a 204. A POST whose JSON-RPC method is "test/html" gets
// HTMLPage as text/html, "test/redirect" a 307 to the recorder's own
// /stolen, "test/stall" one event and then nothing, "test/slow-headers"
// no answer (these two until the request ends, Close or Hold).
type MCPUpstream struct {
	// URL and AuthURL are the endpoints to configure under MCPRecorder
	// and MCPRecorderAuth.
	URL, AuthURL string
	// Host is the host:port the recorder listens on, the Host a relayed
	// request must name.
	Host string
	recording
}

// NewMCPUpstream starts an MCPUpstream on 127.0.0.1 and closes it when t
// ends.
func NewMCPUpstream(t testing.TB) *MCPUpstream {
	u := StartMCPUpstream()
	t.Cleanup(u.Close)
	return u
}

// StartMCPUpstream starts an MCPUpstream on 127.0.0.1; Close stops it.
func StartMCPUpstream() *MCPUpstream {
	u := &MCPUpstream{}
	u.start(u.serve)
	u.URL = u.srv.URL + mcpRecPath
	u.AuthURL = u.srv.URL + mcpRecAuthPath
	u.Host = strings.TrimPrefix(u.srv.URL, "http://")
	return u
}

// Entries is the allowlist naming the recorder, in the "name=URL,…" form.
func (u *MCPUpstream) Entries() string {
	return MCPRecorder + "=" + u.URL + "," + MCPRecorderAuth + "=" + u.AuthURL
}

func (u *MCPUpstream) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	h := w.Header()
	// What the relay must not pass back.
	h.Set("Set-Cookie", "mcp=upstream-cookie; Path=/; HttpOnly")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id")
	h.Set(PrivateHeader, "private-value")
	h.Set("Www-Authenticate", `Bearer resource_metadata="http://127.0.0.2:9/.well-known/oauth-protected-resource"`)
	// What it must pass back, commas intact.
	h.Set("Cache-Control", "no-cache, no-store")
	h.Set("Mcp-Session-Id", MCPSession)
	h.Set("Mcp-Protocol-Version", "2025-11-25")

	switch r.Method {
	case http.MethodPost:
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		err := json.Unmarshal(body, &req)
		switch req.Method {
		case "test/html":
			h.Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, HTMLPage)
			return
		case "test/redirect":
			u.redirect(w, http.StatusTemporaryRedirect)
			return
		case "test/stall":
			u.stall(w, r)
			return
		case "test/silent":
			u.silent(w, r)
			return
		case "test/slow-headers":
			u.hold(r)
			return
		case "test/" + FaultShortBody, "test/" + FaultUnfinishedChunks, "test/" + FaultReset:
			cut(w, strings.TrimPrefix(req.Method, "test/"), "Mcp-Session-Id: "+MCPSession)
			return
		}
		if err != nil || len(req.ID) == 0 {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"result": map[string]any{"note": ResponseSentinel}})
	case http.MethodGet:
		if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
			h.Set("Allow", "POST, DELETE")
			writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": "GET needs Accept: text/event-stream"})
			return
		}
		u.stream(w, r)
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	default:
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": "method"})
	}
}

func (u *MCPUpstream) stream(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	u.lockstep(w, r, ": stream open\n\n", func(i int) string {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"event%d"}}`, i)
		return fmt.Sprintf("id: ev-%d\nevent: message\ndata: %s\n\n", i, msg)
	}, "")
}

// MCPServer is a real MCP server, the go-sdk's streamable-HTTP handler, on
// a loopback address, with its DNS-rebinding protection on: a request that
// names a Host other than a loopback one is refused with 403. (Behind a
// loopback relay the browser's Host is loopback too, so the check that the
// relay sends the server's own Host is the recorder's, which compares
// host and port.)
//
// It has two tools: "echo" returns its "text" argument as text and as
// structured content {"echo": text}; "fail" returns isError.
type MCPServer struct {
	URL  string // the endpoint, http://127.0.0.1:port/mcp
	JSON bool   // responses are application/json rather than text/event-stream
	srv  *httptest.Server
}

// NewMCPServer starts an MCPServer and closes it when t ends.
func NewMCPServer(t testing.TB, jsonResponses bool) *MCPServer {
	s := StartMCPServer(jsonResponses)
	t.Cleanup(s.Close)
	return s
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

// StartMCPServer starts an MCPServer; Close stops it.
func StartMCPServer(jsonResponses bool) *MCPServer {
	return startMCPServer(jsonResponses, mcpHandler(jsonResponses))
}

// mcpHandler is the go-sdk's streamable-HTTP handler for a server with
// the tools echo and fail.
func mcpHandler(jsonResponses bool) http.Handler {
	server := mcp.NewServer(&mcp.Implementation{Name: "relay-test-server", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, echoOut{in.Text}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "fail", Description: "Always fails."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "failed on purpose"}}}, nil, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonResponses})
}

// startMCPServer serves h at /mcp on a loopback port.
func startMCPServer(jsonResponses bool, h http.Handler) *MCPServer {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	s := &MCPServer{JSON: jsonResponses, srv: httptest.NewServer(mux)}
	s.URL = s.srv.URL + "/mcp"
	return s
}

// Close stops the server.
func (s *MCPServer) Close() { s.srv.Close() }
