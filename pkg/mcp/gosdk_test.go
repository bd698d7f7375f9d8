package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
)

// seen is one HTTP request the go-sdk server received.
type seen struct {
	Method, RPC, Session, Version, Accept, MCPMethod, MCPName string
}

// recorder wraps a handler and records what reaches it.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	reqs []seen
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := seen{Method: r.Method, Session: r.Header.Get("Mcp-Session-Id"),
		Version: r.Header.Get("MCP-Protocol-Version"), Accept: r.Header.Get("Accept"),
		MCPMethod: r.Header.Get("Mcp-Method"), MCPName: r.Header.Get("Mcp-Name")}
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		var m struct{ Method string }
		json.Unmarshal(b, &m)
		s.RPC = m.Method
		r.Body = io.NopCloser(strings.NewReader(string(b)))
	}
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, s)
	rec.mu.Unlock()
	rec.next.ServeHTTP(w, r)
}

func (rec *recorder) requests() []seen {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seen(nil), rec.reqs...)
}

// sdkServer is a go-sdk MCP server in this process with tools exercising
// the client: annotations, structured output, isError, pagination,
// progress, server-to-client requests and cancellation.
type sdkServer struct {
	URL       string
	Server    *sdk.Server
	Rec       *recorder
	Cancelled chan string // the block tool reports why its context ended
}

const manyTools = 120

type echoIn struct {
	Text  string `json:"text" jsonschema:"the text to echo"`
	Times int    `json:"times,omitempty" jsonschema:"how often"`
}

type echoOut struct {
	Echoed string `json:"echoed"`
	Length int    `json:"length"`
}

func boolp(b bool) *bool { return &b }

func newSDKServer(t testing.TB, jsonResponse bool) *sdkServer {
	t.Helper()
	return newSDKServerOpts(t, &sdk.StreamableHTTPOptions{JSONResponse: jsonResponse})
}

func newSDKServerOpts(t testing.TB, opts *sdk.StreamableHTTPOptions) *sdkServer {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "interop-server", Version: "1.2.3"}, &sdk.ServerOptions{PageSize: 50})
	st := &sdkServer{Server: s, Cancelled: make(chan string, 1)}

	sdk.AddTool(s, &sdk.Tool{
		Name:        "echo",
		Description: "Echoes its text.",
		Annotations: &sdk.ToolAnnotations{Title: "Echo", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolp(false)},
	}, func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
		text := strings.Repeat(in.Text, max(in.Times, 1))
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, echoOut{Echoed: text, Length: len(text)}, nil
	})
	s.AddTool(&sdk.Tool{
		Name:        "delete_all",
		Description: "Fails on purpose.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		Annotations: &sdk.ToolAnnotations{DestructiveHint: boolp(true)},
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "permission denied"}}}, nil
	})
	s.AddTool(&sdk.Tool{Name: "progress", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			tok := req.Params.GetProgressToken()
			sent := 0
			if tok != nil {
				for i := 1; i <= 3; i++ {
					err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
						ProgressToken: tok, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
					if err != nil {
						return nil, err
					}
					sent++
				}
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("sent %d", sent)}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "ask_client", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			pingErr := req.Session.Ping(ctx, nil)
			_, rootsErr := req.Session.ListRoots(ctx, nil)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{
				Text: fmt.Sprintf("ping: %v; roots: %v", pingErr, rootsErr)}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "block", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select {
			case <-ctx.Done():
				st.Cancelled <- context.Cause(ctx).Error()
				return nil, ctx.Err()
			case <-time.After(30 * time.Second):
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "not cancelled"}}}, nil
			}
		})
	s.AddTool(&sdk.Tool{Name: "picture", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a pixel"},
				&sdk.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
			}}, nil
		})
	for i := range manyTools {
		s.AddTool(&sdk.Tool{Name: fmt.Sprintf("filler_%03d", i), InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
			})
	}

	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, opts)
	st.Rec = &recorder{next: h}
	ts := httptest.NewServer(st.Rec)
	t.Cleanup(ts.Close)
	st.URL = ts.URL + "/mcp"
	return st
}

// fixedTools is the number of tools besides the fillers.
const fixedTools = 6

// testOptions returns opts with an HTTP client that reaches httptest
// servers. The package's default sends through fetch under js/wasm, and
// there (under Node.js) httptest listens on Go's in-process network, which
// only net/http reaches.
func testOptions(opts *mcp.Options) *mcp.Options {
	o := mcp.Options{}
	if opts != nil {
		o = *opts
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	return &o
}

func dial(t testing.TB, url string, opts *mcp.Options) *mcp.Client {
	t.Helper()
	c, err := mcp.Dial(context.Background(), url, testOptions(opts))
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func forModes(t *testing.T, f func(t *testing.T, srv *sdkServer, jsonMode bool)) {
	for _, jsonMode := range []bool{false, true} {
		name := "sse"
		if jsonMode {
			name = "json"
		}
		t.Run(name, func(t *testing.T) { f(t, newSDKServer(t, jsonMode), jsonMode) })
	}
}

func TestGoSDKHandshake(t *testing.T) {
	forModes(t, func(t *testing.T, srv *sdkServer, jsonMode bool) {
		c := dial(t, srv.URL, nil)
		info := c.ServerInfo()
		if info.ProtocolVersion != mcp.ProtocolVersion || info.ServerInfo.Name != "interop-server" || info.ServerInfo.Version != "1.2.3" {
			t.Errorf("ServerInfo = %+v", info)
		}
		if !strings.Contains(string(info.Capabilities), `"tools"`) {
			t.Errorf("capabilities %s lack tools", info.Capabilities)
		}
		session := c.SessionID()
		if session == "" {
			t.Fatal("no session ID")
		}
		if _, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "x"}); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(context.Background()); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if _, err := c.ListTools(context.Background()); !errors.Is(err, mcp.ErrClosed) {
			t.Errorf("after Close: %v, want ErrClosed", err)
		}
		reqs := srv.Rec.requests()
		var got []string
		for _, r := range reqs {
			got = append(got, r.Method+" "+r.RPC)
			if r.Method == "POST" && r.Accept != "application/json, text/event-stream" {
				t.Errorf("%s: Accept %q", r.RPC, r.Accept)
			}
			if r.RPC == "server/discover" {
				if r.Session != "" || r.Version != mcp.StatelessProtocolVersion || r.MCPMethod != "server/discover" {
					t.Errorf("server/discover carried %+v", r)
				}
				continue
			}
			if r.RPC == "initialize" {
				if r.Session != "" || r.Version != "" {
					t.Errorf("initialize carried session %q version %q", r.Session, r.Version)
				}
				continue
			}
			if r.Session != session || r.Version != mcp.ProtocolVersion {
				t.Errorf("%s %s: session %q version %q, want %q %q", r.Method, r.RPC, r.Session, r.Version, session, mcp.ProtocolVersion)
			}
		}
		// The session revision's handshake first: no probe the server
		// refuses.
		want := []string{"POST initialize", "POST notifications/initialized", "POST tools/call", "DELETE "}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("requests %q, want %q", got, want)
		}
	})
}

func TestGoSDKListTools(t *testing.T) {
	forModes(t, func(t *testing.T, srv *sdkServer, jsonMode bool) {
		c := dial(t, srv.URL, nil)
		tools, err := c.ListTools(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(tools) != fixedTools+manyTools {
			t.Fatalf("%d tools, want %d", len(tools), fixedTools+manyTools)
		}
		pages := 0
		for _, r := range srv.Rec.requests() {
			if r.RPC == "tools/list" {
				pages++
			}
		}
		if want := (fixedTools + manyTools + 49) / 50; pages != want {
			t.Errorf("%d tools/list requests, want %d pages", pages, want)
		}
		byName := map[string]mcp.Tool{}
		for _, tl := range tools {
			if _, dup := byName[tl.Name]; dup {
				t.Errorf("tool %q listed twice", tl.Name)
			}
			byName[tl.Name] = tl
		}
		echo := byName["echo"]
		bt := mcp.BodyTool(echo, "&body.test")
		a := bt.Annotations
		if a.Title != "Echo" || a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.IdempotentHint == nil || !*a.IdempotentHint ||
			a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint != nil || bt.Capability != "&body.test" {
			t.Errorf("echo as body tool: %+v", bt)
		}
		var schema struct {
			Properties map[string]struct{ Type string }
			Required   []string
		}
		if err := json.Unmarshal(bt.InputSchema, &schema); err != nil || schema.Properties["text"].Type != "string" ||
			schema.Properties["times"].Type != "integer" || len(schema.Required) != 1 || schema.Required[0] != "text" {
			t.Errorf("echo input schema %s (%v)", bt.InputSchema, err)
		}
		if len(echo.OutputSchema) == 0 {
			t.Error("echo has no output schema")
		}
		del := mcp.BodyTool(byName["delete_all"], "&body.os").Annotations
		if del.DestructiveHint == nil || !*del.DestructiveHint {
			t.Errorf("delete_all annotations %+v", del)
		}
	})
}

func TestGoSDKCallTool(t *testing.T) {
	forModes(t, func(t *testing.T, srv *sdkServer, jsonMode bool) {
		c := dial(t, srv.URL, nil)
		ctx := context.Background()

		res, err := c.CallTool(ctx, "echo", map[string]any{"text": "ab", "times": 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || res.Text() != "abab" {
			t.Errorf("echo = %+v", res)
		}
		var out echoOut
		if err := json.Unmarshal(res.StructuredContent, &out); err != nil || out != (echoOut{"abab", 4}) {
			t.Errorf("structured content %s (%v)", res.StructuredContent, err)
		}
		br, err := mcp.BodyResult(res)
		if err != nil || br.Text != "abab" || br.Structured.(map[string]any)["length"] != 4.0 {
			t.Errorf("BodyResult = %+v, %v", br, err)
		}

		res, err = c.CallTool(ctx, "delete_all", json.RawMessage(`{"path":"/"}`))
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || res.Text() != "permission denied" {
			t.Errorf("delete_all = %+v", res)
		}

		res, err = c.CallTool(ctx, "picture", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 2 || res.Content[1].Type != "image" || !strings.Contains(string(res.Content[1].Raw), `"mimeType":"image/png"`) {
			t.Errorf("picture content %+v", res.Content)
		}

		_, err = c.CallTool(ctx, "no_such_tool", nil)
		var rpc *mcp.RPCError
		if !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "no_such_tool") {
			t.Errorf("unknown tool: %v", err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("error spans lines: %q", err)
		}
	})
}

func TestGoSDKProgress(t *testing.T) {
	srv := newSDKServer(t, false)
	c := dial(t, srv.URL, nil)
	var got []mcp.Progress
	res, err := c.CallTool(context.Background(), "progress", nil, mcp.WithProgress(func(p mcp.Progress) { got = append(got, p) }))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text() != "sent 3" {
		t.Errorf("result %q", res.Text())
	}
	want := []mcp.Progress{{1, 3, "step 1"}, {2, 3, "step 2"}, {3, 3, "step 3"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("progress %v, want %v", got, want)
	}
	// Without the option no token is sent, so the server sends nothing.
	res, err = c.CallTool(context.Background(), "progress", nil)
	if err != nil || res.Text() != "sent 0" {
		t.Errorf("without progress: %v %v", res, err)
	}
}

// The server pings the client and asks for its roots while a tool runs; the
// requests arrive in the call's SSE stream. The client answers the ping
// and refuses roots/list with -32601, which the tool sees.
func TestGoSDKServerToClientRequests(t *testing.T) {
	srv := newSDKServer(t, false)
	c := dial(t, srv.URL, nil)
	res, err := c.CallTool(context.Background(), "ask_client", nil)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if !strings.HasPrefix(text, "ping: <nil>; roots: ") || !strings.Contains(text, `method "roots/list" is not supported by this client`) {
		t.Errorf("tool saw %q", text)
	}
	t.Logf("tool saw: %s", text)
}

// A call whose timeout passes sends notifications/cancelled, and the
// go-sdk server cancels the running tool.
func TestGoSDKCancellation(t *testing.T) {
	forModes(t, func(t *testing.T, srv *sdkServer, jsonMode bool) {
		c := dial(t, srv.URL, nil)
		start := time.Now()
		_, err := c.CallTool(context.Background(), "block", nil, mcp.WithTimeout(200*time.Millisecond))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want deadline exceeded", err)
		}
		if !strings.Contains(err.Error(), `tools/call "block"`) {
			t.Errorf("error %q does not name the call", err)
		}
		select {
		case why := <-srv.Cancelled:
			t.Logf("tool cancelled after %v: %s", time.Since(start).Round(time.Millisecond), why)
		case <-time.After(10 * time.Second):
			t.Fatal("the server's tool was never cancelled")
		}
		found := false
		for _, r := range srv.Rec.requests() {
			found = found || r.RPC == "notifications/cancelled"
		}
		if !found {
			t.Error("no notifications/cancelled reached the server")
		}
		// The session still works.
		if _, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "after"}); err != nil {
			t.Errorf("call after cancellation: %v", err)
		}
	})
}

// The server forgets the session (it closes it); the next call gets 404,
// re-initializes and succeeds on a new session.
func TestGoSDKSessionLost(t *testing.T) {
	forModes(t, func(t *testing.T, srv *sdkServer, jsonMode bool) {
		c := dial(t, srv.URL, nil)
		first := c.SessionID()
		for ss := range srv.Server.Sessions() {
			ss.Close()
		}
		res, err := c.CallTool(context.Background(), "echo", map[string]any{"text": "again"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() != "again" {
			t.Errorf("result %q", res.Text())
		}
		if c.SessionID() == first || c.SessionID() == "" {
			t.Errorf("session %q after re-initializing, was %q", c.SessionID(), first)
		}
		inits := 0
		for _, r := range srv.Rec.requests() {
			if r.RPC == "initialize" {
				inits++
			}
		}
		if inits != 2 {
			t.Errorf("%d initialize requests, want 2", inits)
		}
	})
}

func TestGoSDKConcurrentCalls(t *testing.T) {
	srv := newSDKServer(t, false)
	c := dial(t, srv.URL, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			want := fmt.Sprint(i)
			res, err := c.CallTool(context.Background(), "echo", map[string]any{"text": want})
			if err == nil && res.Text() != want {
				err = fmt.Errorf("call %d got %q", i, res.Text())
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
