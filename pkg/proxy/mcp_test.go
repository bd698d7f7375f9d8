package proxy

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
)

const (
	mcpBrowserURL = "https://mcp.example.net/browser/mcp?tenant=fixed"
	mcpShellURL   = "http://127.0.0.1:9/mcp"
)

func newTestRelay(t *testing.T, doer Doer, maxBody int64, log func(MCPEvent)) *MCPRelay {
	t.Helper()
	m, err := NewMCPRelay(MCPConfig{
		AllowedOrigin:    testOrigin,
		Servers:          []MCPServer{{"shell", mcpShellURL}, {"browser", mcpBrowserURL}},
		AuthorizationFor: []string{"browser"},
		MaxBody:          maxBody,
		Doer:             doer,
		Log:              log,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewMCPRelayChecksConfig(t *testing.T) {
	doer := DoerFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("unused") })
	one := func(name, u string) []MCPServer { return []MCPServer{{name, u}} }
	bindings := func(name string) (Doer, error) {
		if name == "ELSEWHERE" {
			return nil, errors.New("no such binding")
		}
		return doer, nil
	}
	tests := []struct {
		name   string
		cfg    MCPConfig
		errHas string // "" means NewMCPRelay must succeed
	}{
		{"no servers", MCPConfig{AllowedOrigin: testOrigin, Doer: doer}, ""},
		{"https", MCPConfig{AllowedOrigin: testOrigin, Servers: one("browser", "https://mcp.example.net/mcp"), Doer: doer}, ""},
		{"https with query", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "https://mcp.example.net/mcp?k=v"), Doer: doer}, ""},
		{"loopback http", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b-2", "http://127.0.0.1:8931/mcp"), Doer: doer}, ""},
		{"localhost http", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "http://localhost:8931"), Doer: doer}, ""},
		{"v6 loopback http", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "http://[::1]:8931/mcp"), Doer: doer}, ""},
		{"lan http allowed", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "http://10.0.0.5:8931/mcp"), AllowHTTP: true, Doer: doer}, ""},
		{"auth for configured", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "https://a.example/"), AuthorizationFor: []string{"b"}, Doer: doer}, ""},
		{"lan http", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "http://10.0.0.5:8931/mcp"), Doer: doer}, "loopback"},
		{"lookalike loopback", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "http://127.0.0.1.evil.example/mcp"), Doer: doer}, "loopback"},
		{"ftp", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "ftp://mcp.example.net/"), Doer: doer}, "scheme"},
		{"relative", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "/mcp"), Doer: doer}, "scheme"},
		{"no host", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "https:///mcp"), Doer: doer}, "host"},
		{"port only", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "https://:443/mcp"), Doer: doer}, "host"},
		{"userinfo", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "https://u:p@mcp.example.net/"), Doer: doer}, "userinfo"},
		{"fragment", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "https://mcp.example.net/#x"), Doer: doer}, "fragment"},
		{"empty fragment", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "https://mcp.example.net/#"), Doer: doer}, "fragment"},
		{"upper-case name", MCPConfig{AllowedOrigin: testOrigin, Servers: one("Browser", "https://a.example/"), Doer: doer}, "a-z 0-9"},
		{"dot name", MCPConfig{AllowedOrigin: testOrigin, Servers: one("..", "https://a.example/"), Doer: doer}, "a-z 0-9"},
		{"empty name", MCPConfig{AllowedOrigin: testOrigin, Servers: one("", "https://a.example/"), Doer: doer}, "a-z 0-9"},
		{"long name", MCPConfig{AllowedOrigin: testOrigin, Servers: one(strings.Repeat("a", MaxMCPNameBytes+1), "https://a.example/"), Doer: doer}, "a-z 0-9"},
		{"duplicate name", MCPConfig{AllowedOrigin: testOrigin, Servers: []MCPServer{{"b", "https://a.example/"}, {"b", "https://b.example/"}}, Doer: doer}, "twice"},
		{"auth for unknown", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "https://a.example/"), AuthorizationFor: []string{"c"}, Doer: doer}, "not configured"},
		{"bad origin", MCPConfig{AllowedOrigin: "null", Doer: doer}, "AllowedOrigin"},
		{"negative cap", MCPConfig{AllowedOrigin: testOrigin, MaxBody: -1, Doer: doer}, "negative"},
		{"no doer", MCPConfig{AllowedOrigin: testOrigin}, "Doer"},
		{"own mount and hosts", MCPConfig{AllowedOrigin: testOrigin, MountPath: "/mcp/", Hosts: []string{"127.0.0.1:8790", "localhost:8790"}, Doer: doer}, ""},
		{"mount without slash", MCPConfig{AllowedOrigin: testOrigin, MountPath: "/mcp", Doer: doer}, "MountPath"},
		{"relative mount", MCPConfig{AllowedOrigin: testOrigin, MountPath: "mcp/", Doer: doer}, "MountPath"},
		{"dotted mount", MCPConfig{AllowedOrigin: testOrigin, MountPath: "/../", Doer: doer}, "MountPath"},
		{"encoded mount", MCPConfig{AllowedOrigin: testOrigin, MountPath: "/m%63p/", Doer: doer}, "MountPath"},
		{"host with a path", MCPConfig{AllowedOrigin: testOrigin, Hosts: []string{"127.0.0.1:8790/x"}, Doer: doer}, "Hosts"},
		{"empty host", MCPConfig{AllowedOrigin: testOrigin, Hosts: []string{""}, Doer: doer}, "Hosts"},
		{"hosts without an origin", MCPConfig{AllowedOrigin: SameOrigin, Hosts: []string{"127.0.0.1:8790"}, Doer: doer}, "AllowedOrigin"},
		{"binding", MCPConfig{AllowedOrigin: testOrigin, Servers: one("browser", "binding:BROWSER_MCP/mcp"), Bindings: bindings, Doer: doer}, ""},
		{"binding without a path", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:B"), Bindings: bindings, Doer: doer}, ""},
		{"binding with the page's token", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:B"), AuthorizationFor: []string{"b"}, Bindings: bindings, Doer: doer}, ""},
		{"binding outside the Worker", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:BROWSER_MCP/mcp"), Doer: doer}, "Cloudflare Worker's"},
		{"binding not bound", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:ELSEWHERE"), Bindings: bindings, Doer: doer}, "ELSEWHERE: no such binding"},
		{"binding without a name", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:/mcp"), Bindings: bindings, Doer: doer}, "want 1 to"},
		{"binding name with a dot", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:B.X/mcp"), Bindings: bindings, Doer: doer}, "want 1 to"},
		{"binding name with a digit first", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:1B"), Bindings: bindings, Doer: doer}, "want 1 to"},
		{"binding name too long", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:"+strings.Repeat("B", MaxMCPBindingBytes+1)), Bindings: bindings, Doer: doer}, "want 1 to"},
		{"binding path with a query", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:B/mcp?x=1"), Bindings: bindings, Doer: doer}, "plain bytes"},
		{"binding path escaping", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:B/a/../mcp"), Bindings: bindings, Doer: doer}, "plain bytes"},
		{"binding path encoded", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:B/m%63p"), Bindings: bindings, Doer: doer}, "plain bytes"},
		{"binding path doubled slash", MCPConfig{AllowedOrigin: testOrigin, Servers: one("b", "binding:B//mcp"), Bindings: bindings, Doer: doer}, "plain bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewMCPRelay(tt.cfg)
			checkConfigErr(t, "NewMCPRelay", tt.cfg, err, tt.errHas)
		})
	}
}

func TestParseMCPServers(t *testing.T) {
	tests := []struct {
		in     string
		want   []MCPServer
		errHas string
	}{
		{"", nil, ""},
		{"  \n", nil, ""},
		{"browser=http://127.0.0.1:8931/mcp", []MCPServer{{"browser", "http://127.0.0.1:8931/mcp"}}, ""},
		{"a=https://a.example/mcp?x=1, b=https://b.example/mcp\n c=https://c.example/?q=a=b",
			[]MCPServer{{"a", "https://a.example/mcp?x=1"}, {"b", "https://b.example/mcp"}, {"c", "https://c.example/?q=a=b"}}, ""},
		{"browser=binding:BROWSER_MCP/mcp", []MCPServer{{"browser", "binding:BROWSER_MCP/mcp"}}, ""},
		{"a=https://a.example/,,b", nil, "entry 2: MCP server \"b\": want name=URL"},
		{"=https://a.example/", nil, "entry 1"},
		{"a=", nil, "entry 1"},
	}
	for _, tt := range tests {
		got, err := ParseMCPServers(tt.in)
		switch {
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("ParseMCPServers(%q): %v; want an error with %q", tt.in, err, tt.errHas)
		case tt.errHas == "" && (err != nil || !slices.Equal(got, tt.want)):
			t.Errorf("ParseMCPServers(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestMCPRefusals covers requests the relay must answer itself, including
// ones no wire parser would deliver.
func TestMCPRefusals(t *testing.T) {
	const mp = MCPMountPath
	post := func(kv ...string) map[string][]string {
		return hdr(append([]string{"Origin", testOrigin, "Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, kv...)...)
	}
	okBody := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	tests := []struct {
		name   string
		method string
		path   string
		query  string
		hdr    map[string][]string
		body   string
		status int
		code   string
	}{
		{"no origin", "POST", mp + "shell", "", hdr("Content-Type", "application/json"), okBody, 403, CodeOriginMissing},
		{"no origin delete", "DELETE", mp + "shell", "", hdr("Mcp-Session-Id", "s1"), "", 403, CodeOriginMissing},
		{"no origin cross-site get", "GET", mp + "shell", "", hdr("Sec-Fetch-Site", "cross-site"), "", 403, CodeOriginMissing},
		{"foreign origin", "POST", mp + "shell", "", post("Origin", "https://evil.example"), okBody, 403, CodeOriginForbidden},
		{"null origin listing", "GET", mp, "", hdr("Origin", "null"), "", 403, CodeOriginForbidden},
		{"foreign preflight", "OPTIONS", mp + "shell", "", hdr("Origin", "https://evil.example", "Access-Control-Request-Method", "POST"), "", 403, CodeOriginForbidden},
		{"unknown name", "POST", mp + "nosuch", "", post(), okBody, 404, CodeMCPUnknown},
		{"outside mount", "POST", "/api/mcpx/shell", "", post(), okBody, 404, CodeNotFound},
		{"dotdot", "POST", mp + "../llm/openrouter/chat/completions", "", post(), okBody, 400, CodePath},
		{"dotdot name", "POST", mp + "..", "", post(), okBody, 400, CodePath},
		{"dot name", "POST", mp + ".", "", post(), okBody, 400, CodePath},
		{"dotdot after name", "POST", mp + "shell/../browser", "", post(), okBody, 400, CodePath},
		{"sub-path", "POST", mp + "shell/sse", "", post(), okBody, 400, CodePath},
		{"trailing slash", "POST", mp + "shell/", "", post(), okBody, 400, CodePath},
		{"double slash", "POST", mp + "/shell", "", post(), okBody, 400, CodePath},
		{"url in path", "POST", mp + "https://evil.example/mcp", "", post(), okBody, 400, CodePath},
		{"host in path", "POST", mp + "@evil.example", "", post(), okBody, 400, CodePath},
		{"upper case", "POST", mp + "Shell", "", post(), okBody, 400, CodePath},
		{"nul", "POST", mp + "shell\x00", "", post(), okBody, 400, CodePath},
		{"crlf", "POST", mp + "shell\r\nHost: evil.example", "", post(), okBody, 400, CodePath},
		{"backslash", "POST", mp + `..\x`, "", post(), okBody, 400, CodePath},
		{"long name", "POST", mp + strings.Repeat("a", MaxMCPNameBytes+1), "", post(), okBody, 400, CodePath},
		{"too long", "POST", mp + strings.Repeat("a", MaxPathBytes+1), "", post(), okBody, 414, CodeTooLong},
		{"query", "POST", mp + "shell", "url=https://evil.example/mcp", post(), okBody, 400, CodeQuery},
		{"query on listing", "GET", mp, "x", hdr("Origin", testOrigin), "", 400, CodeQuery},
		{"put", "PUT", mp + "shell", "", post(), okBody, 405, CodeMethod},
		{"patch", "PATCH", mp + "shell", "", post(), okBody, 405, CodeMethod},
		{"head", "HEAD", mp + "shell", "", hdr("Origin", testOrigin), "", 405, CodeMethod},
		{"post to listing", "POST", mp, "", post(), okBody, 405, CodeMethod},
		{"delete listing", "DELETE", mp, "", hdr("Origin", testOrigin), "", 405, CodeMethod},
		{"duplicate session", "POST", mp + "shell", "", post("Mcp-Session-Id", "a", "Mcp-Session-Id", "b"), okBody, 400, CodeHeader},
		{"folded session", "POST", mp + "shell", "", post("Mcp-Session-Id", "a,b"), okBody, 400, CodeHeader},
		{"crlf in session", "POST", mp + "shell", "", post("Mcp-Session-Id", "a\r\nHost: evil.example"), okBody, 400, CodeHeader},
		{"non-ascii session", "POST", mp + "shell", "", post("Mcp-Session-Id", "a\xff"), okBody, 400, CodeHeader},
		{"duplicate protocol version", "POST", mp + "shell", "", post("Mcp-Protocol-Version", "2025-11-25", "Mcp-Protocol-Version", "2025-06-18"), okBody, 400, CodeHeader},
		{"duplicate accept", "POST", mp + "shell", "", post("Accept", "text/event-stream"), okBody, 400, CodeHeader},
		{"crlf in last-event-id", "GET", mp + "shell", "", hdr("Origin", testOrigin, "Last-Event-Id", "1\nHost: evil.example"), "", 400, CodeHeader},
		{"basic auth to auth server", "POST", mp + "browser", "", post("Authorization", "Basic dXNlcjpwYXNz"), okBody, 400, CodeHeader},
		{"text/plain", "POST", mp + "shell", "", hdr("Origin", testOrigin, "Content-Type", "text/plain"), okBody, 415, CodeMediaType},
		{"no content type", "POST", mp + "shell", "", hdr("Origin", testOrigin), okBody, 415, CodeMediaType},
		{"over cap", "POST", mp + "shell", "", post(), strings.Repeat(" ", 101), 413, CodeTooLarge},
		{"get with body", "GET", mp + "shell", "", hdr("Origin", testOrigin), "x", 400, CodeBody},
		{"delete with body", "DELETE", mp + "shell", "", hdr("Origin", testOrigin), "x", 400, CodeBody},
		{"listing with body", "GET", mp, "", hdr("Origin", testOrigin), "x", 400, CodeBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			var ev MCPEvent
			m := newTestRelay(t, rec, 100, func(e MCPEvent) { ev = e })
			r := request(tt.method, tt.path, tt.hdr, tt.body)
			r.URL.RawQuery = tt.query
			rr := httptest.NewRecorder()
			m.ServeHTTP(rr, r)
			e := checkRefusal(t, rr, rec, tt.status, tt.code)
			if e.Code == CodeMCPUnknown && (strings.Contains(e.Message, "shell") || strings.Contains(e.Message, "browser")) {
				t.Errorf("unknown-name message %q leaks a configured name", e.Message)
			}
			if ev.Status != tt.status || ev.Code != tt.code {
				t.Errorf("event %+v, want status %d code %s", ev, tt.status, tt.code)
			}
		})
	}
}

func mcpResponse(status int, body string, kv ...string) func() (*http.Response, error) {
	return func() (*http.Response, error) {
		h := http.Header{
			"Set-Cookie":                  {"a=b"},
			"Access-Control-Allow-Origin": {"*"},
			"Server":                      {"upstream"},
			"Location":                    {"https://evil.example/"},
			"Www-Authenticate":            {`Bearer resource_metadata="https://evil.example/"`},
		}
		for i := 0; i < len(kv); i += 2 {
			h.Add(kv[i], kv[i+1])
		}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body))}, nil
	}
}

// TestMCPForwarded checks what the relay hands the Doer for each method and
// what it passes back, the session id travelling both ways.
func TestMCPForwarded(t *testing.T) {
	const (
		session = "sess-0123456789abcdef"
		initReq = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
		initRes = `{"jsonrpc":"2.0","id":1,"result":{}}`
		token   = "Bearer  tok-abc+/="
	)
	junk := []string{"Cookie", "c=1", "X-Forwarded-For", "203.0.113.1", "X-Forwarded-Host", "evil.example",
		"Forwarded", "host=evil.example", "X-Mcp-Server", "https://evil.example/mcp", "X-Original-Url", "/api/mcp/browser",
		"User-Agent", "ua", "Referer", testOrigin + "/x"}
	tests := []struct {
		name       string
		method     string
		server     string
		hdr        []string
		body       string
		resp       func() (*http.Response, error)
		wantURL    string
		wantHeader http.Header
		wantStatus int
		wantResp   http.Header
		wantBody   string
	}{
		{
			name: "initialize", method: "POST", server: "shell",
			hdr:  []string{"Origin", testOrigin, "Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Authorization", token},
			body: initReq,
			resp: mcpResponse(200, initRes, "Content-Type", "application/json", "Mcp-Session-Id", session, "Cache-Control", "no-cache, no-store", "X-Private", "p"),
			// Authorization is dropped: shell is not in AuthorizationFor.
			wantURL:    mcpShellURL,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}},
			wantStatus: 200,
			wantResp:   http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {session}, "Cache-Control": {"no-cache, no-store"}, "X-Content-Type-Options": {"nosniff"}, "Content-Security-Policy": {apiCSP}},
			wantBody:   initRes,
		},
		{
			name: "call with session and token", method: "POST", server: "browser",
			hdr:  []string{"Origin", testOrigin, "Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Session-Id", session, "Mcp-Protocol-Version", "2025-11-25", "Authorization", token},
			body: initReq,
			resp: mcpResponse(200, "event: message\ndata: {}\n\n", "Content-Type", "text/event-stream", "Mcp-Protocol-Version", "2025-11-25"),
			// The configured URL exactly, query included.
			wantURL: mcpBrowserURL,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"Mcp-Session-Id": {session}, "Mcp-Protocol-Version": {"2025-11-25"}, "Authorization": {token}},
			wantStatus: 200,
			wantResp:   http.Header{"Content-Type": {"text/event-stream"}, "Mcp-Protocol-Version": {"2025-11-25"}, "X-Content-Type-Options": {"nosniff"}, "Content-Security-Policy": {apiCSP}},
			wantBody:   "event: message\ndata: {}\n\n",
		},
		{
			name: "stateless revision routing headers", method: "POST", server: "shell",
			hdr:     []string{"Origin", testOrigin, "Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "read_file", "X-Other", "dropped"},
			body:    initReq,
			resp:    mcpResponse(200, "{}", "Content-Type", "application/json"),
			wantURL: mcpShellURL,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
				"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"read_file"}},
			wantStatus: 200,
			wantResp:   http.Header{"Content-Type": {"application/json"}, "X-Content-Type-Options": {"nosniff"}, "Content-Security-Policy": {apiCSP}},
			wantBody:   "{}",
		},
		{
			name: "stream resumption", method: "GET", server: "shell",
			hdr:        []string{"Sec-Fetch-Site", "same-origin", "Accept", "text/event-stream", "Mcp-Session-Id", session, "Last-Event-Id", "ev-7"},
			resp:       mcpResponse(200, "id: ev-8\ndata: {}\n\n", "Content-Type", "text/event-stream"),
			wantURL:    mcpShellURL,
			wantHeader: http.Header{"Accept": {"text/event-stream"}, "Mcp-Session-Id": {session}, "Last-Event-Id": {"ev-7"}},
			wantStatus: 200,
			wantResp:   http.Header{"Content-Type": {"text/event-stream"}, "X-Content-Type-Options": {"nosniff"}, "Content-Security-Policy": {apiCSP}},
			wantBody:   "id: ev-8\ndata: {}\n\n",
		},
		{
			name: "close session", method: "DELETE", server: "shell",
			hdr:        []string{"Origin", testOrigin, "Mcp-Session-Id", session},
			resp:       mcpResponse(204, ""),
			wantURL:    mcpShellURL,
			wantHeader: http.Header{"Mcp-Session-Id": {session}},
			wantStatus: 204,
			wantResp:   http.Header{"X-Content-Type-Options": {"nosniff"}, "Content-Security-Policy": {apiCSP}, "Content-Disposition": {"attachment"}},
		},
		{
			name: "session gone", method: "POST", server: "shell",
			hdr:        []string{"Origin", testOrigin, "Content-Type", "application/json", "Mcp-Session-Id", session},
			body:       initReq,
			resp:       mcpResponse(404, "session not found\n", "Content-Type", "text/plain; charset=utf-8"),
			wantURL:    mcpShellURL,
			wantHeader: http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {session}},
			wantStatus: 404,
			// Not JSON nor an event stream: a download, never a page.
			wantResp: http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "X-Content-Type-Options": {"nosniff"},
				"Content-Security-Policy": {apiCSP}, "Content-Disposition": {"attachment"}},
			wantBody: "session not found\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{resp: tt.resp}
			var ev MCPEvent
			m := newTestRelay(t, rec, 0, func(e MCPEvent) { ev = e })
			r := request(tt.method, MCPMountPath+tt.server, hdr(append(slices.Clone(junk), tt.hdr...)...), tt.body)
			r.Host = "workbench.example.org"
			rr := httptest.NewRecorder()
			m.ServeHTTP(rr, r)
			if len(rec.calls) != 1 {
				t.Fatalf("%d upstream calls, want 1; status %d %s", len(rec.calls), rr.Code, rr.Body)
			}
			up := rec.calls[0]
			if up.Method != tt.method || up.URL.String() != tt.wantURL {
				t.Errorf("upstream got %s %s, want %s %s", up.Method, up.URL, tt.method, tt.wantURL)
			}
			want, _ := url.Parse(tt.wantURL)
			if up.Host != "" && up.Host != want.Host {
				t.Errorf("upstream Host %q, want the server's own %q", up.Host, want.Host)
			}
			if !equalHeader(up.Header, tt.wantHeader) {
				t.Errorf("upstream headers %v, want exactly %v", up.Header, tt.wantHeader)
			}
			if string(rec.bodies[0]) != tt.body {
				t.Errorf("upstream body %q, want %q", rec.bodies[0], tt.body)
			}
			if rr.Code != tt.wantStatus || rr.Body.String() != tt.wantBody {
				t.Errorf("client got %d %q, want %d %q", rr.Code, rr.Body, tt.wantStatus, tt.wantBody)
			}
			if !equalHeader(rr.Header(), tt.wantResp) {
				t.Errorf("response headers %v, want exactly %v", rr.Header(), tt.wantResp)
			}
			if ev != (MCPEvent{Method: tt.method, Server: tt.server, Status: tt.wantStatus, Duration: ev.Duration}) {
				t.Errorf("event %+v", ev)
			}
		})
	}
}

// TestMCPBinding: a server reached through a service binding gets its
// requests through the binding's Doer, never the relay's, at the path its
// entry names, under the relay's rules: the page's Authorization only
// when configured, the operator's header added, other headers dropped.
func TestMCPBinding(t *testing.T) {
	const token = "Bearer tok-abc"
	unused := DoerFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("the relay's own Doer was asked for %s", r.URL)
		return nil, errors.New("unused")
	})
	for _, tt := range []struct {
		name, entry string
		authorize   bool
		header      []MCPHeader
		wantURL     string
		wantHeader  http.Header
	}{
		{"path", "binding:BROWSER_MCP/mcp", false, nil, "https://browser-mcp.binding/mcp",
			http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}},
		{"root", "binding:Browser", false, nil, "https://browser.binding/",
			http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}},
		{"page's token configured", "binding:BROWSER_MCP/mcp", true, nil, "https://browser-mcp.binding/mcp",
			http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}, "Authorization": {token}}},
		{"operator's header", "binding:BROWSER_MCP/mcp", false, []MCPHeader{{Server: "browser", Name: "X-Api-Key", Value: "k"}}, "https://browser-mcp.binding/mcp",
			http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}, "X-Api-Key": {"k"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{resp: mcpResponse(200, "{}", "Content-Type", "application/json")}
			var asked []string
			cfg := MCPConfig{
				AllowedOrigin: testOrigin,
				Servers:       []MCPServer{{"shell", mcpShellURL}, {"browser", tt.entry}},
				Headers:       tt.header,
				Doer:          unused,
				Bindings: func(name string) (Doer, error) {
					asked = append(asked, name)
					return rec, nil
				},
			}
			if tt.authorize {
				cfg.AuthorizationFor = []string{"browser"}
			}
			m, err := NewMCPRelay(cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := strings.CutPrefix(tt.entry, MCPBindingScheme)
			if want, _, _ = strings.Cut(want, "/"); !slices.Equal(asked, []string{want}) {
				t.Errorf("bindings asked for %q, want [%s]", asked, want)
			}
			rr := httptest.NewRecorder()
			r := request("POST", MCPMountPath+"browser", hdr("Origin", testOrigin, "Content-Type", "application/json",
				"Accept", "application/json, text/event-stream", "Authorization", token, "Cookie", "c=1"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			r.Host = "workbench.example.org"
			m.ServeHTTP(rr, r)
			if rr.Code != 200 || len(rec.calls) != 1 {
				t.Fatalf("→ %d %s after %d calls through the binding", rr.Code, rr.Body, len(rec.calls))
			}
			if got := rec.calls[0].URL.String(); got != tt.wantURL {
				t.Errorf("through the binding to %s, want %s", got, tt.wantURL)
			}
			if !equalHeader(rec.calls[0].Header, tt.wantHeader) {
				t.Errorf("headers through the binding %v, want exactly %v", rec.calls[0].Header, tt.wantHeader)
			}
			// The listing names the server, never how it is reached.
			rr = httptest.NewRecorder()
			m.ServeHTTP(rr, request("GET", MCPMountPath, hdr("Origin", testOrigin), ""))
			if rr.Body.String() != `{"servers":[{"name":"browser"},{"name":"shell"}]}`+"\n" {
				t.Errorf("listing %s", rr.Body)
			}
		})
	}
}

func TestMCPUpstreamFailures(t *testing.T) {
	tests := []struct {
		name   string
		resp   func() (*http.Response, error)
		status int
		code   string
	}{
		{"unreachable", func() (*http.Response, error) {
			return nil, errors.New(`Post "http://127.0.0.1:9/mcp": dial tcp 127.0.0.1:9: connection refused`)
		}, 502, CodeUpstream},
		{"redirect", mcpResponse(307, ""), 502, CodeRedirect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestRelay(t, &recorder{resp: tt.resp}, 0, nil)
			rr := httptest.NewRecorder()
			m.ServeHTTP(rr, request("POST", MCPMountPath+"shell", hdr("Origin", testOrigin, "Content-Type", "application/json"), `{}`))
			if rr.Code != tt.status {
				t.Errorf("status %d, want %d", rr.Code, tt.status)
			}
			e := decodeError(t, rr)
			if e.Code != tt.code {
				t.Errorf("code %q, want %q", e.Code, tt.code)
			}
			if strings.Contains(e.Message, "127.0.0.1") || rr.Header().Get("Location") != "" {
				t.Errorf("the answer reveals where the server is: %q, Location %q", e.Message, rr.Header().Get("Location"))
			}
		})
	}
}

func TestMCPListing(t *testing.T) {
	for _, h := range []map[string][]string{
		hdr("Origin", testOrigin),
		hdr("Sec-Fetch-Site", "same-origin"), // what fetch("/api/mcp/") sends
	} {
		rec := &recorder{}
		m := newTestRelay(t, rec, 0, nil)
		rr := httptest.NewRecorder()
		m.ServeHTTP(rr, request("GET", MCPMountPath, h, ""))
		if rr.Code != 200 || rr.Body.String() != `{"servers":[{"name":"browser"},{"name":"shell"}]}`+"\n" {
			t.Errorf("listing %d %s", rr.Code, rr.Body)
		}
		if ct := rr.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		if len(rec.calls) != 0 {
			t.Errorf("listing contacted a server")
		}
	}
	m, err := NewMCPRelay(MCPConfig{AllowedOrigin: testOrigin, Doer: &recorder{}})
	if err != nil {
		t.Fatal(err)
	}
	rr := httptest.NewRecorder()
	m.ServeHTTP(rr, request("GET", MCPMountPath, hdr("Origin", testOrigin), ""))
	var l struct {
		Servers []json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(rr.Body.Bytes(), &l); err != nil || l.Servers == nil || len(l.Servers) != 0 {
		t.Errorf("empty listing %s: want {\"servers\":[]}", rr.Body)
	}
}

func TestMCPOptionsAnsweredLocally(t *testing.T) {
	for path, allow := range map[string]string{MCPMountPath + "shell": "GET, POST, DELETE, OPTIONS", MCPMountPath: "GET, OPTIONS"} {
		rec := &recorder{}
		m := newTestRelay(t, rec, 0, nil)
		rr := httptest.NewRecorder()
		m.ServeHTTP(rr, request("OPTIONS", path, hdr("Origin", testOrigin, "Access-Control-Request-Method", "POST"), ""))
		if rr.Code != 204 || rr.Header().Get("Allow") != allow || len(rec.calls) != 0 {
			t.Errorf("%s: status %d, Allow %q, %d upstream calls", path, rr.Code, rr.Header().Get("Allow"), len(rec.calls))
		}
		checkNoCORS(t, rr.Header(), "OPTIONS answer")
	}
}

func TestMCPStreamFlushesEachChunk(t *testing.T) {
	parts := []string{"id: 1\ndata: {}\n\n", ": keepalive\n\n", "id: 2\ndata: {}\n\n"}
	m := newTestRelay(t, streaming(parts), 0, nil)
	w := &flushCounter{ResponseRecorder: httptest.NewRecorder()}
	m.ServeHTTP(w, request("GET", MCPMountPath+"shell", hdr("Origin", testOrigin, "Accept", "text/event-stream"), ""))
	w.checkEachFlushed(t, parts)
}

// FuzzCheckMCPPath checks the path rule's guarantee: whatever request
// target arrives, an accepted one names the listing or a well-formed
// server name, nothing else.
func FuzzCheckMCPPath(f *testing.F) {
	for _, s := range []string{
		MCPMountPath, MCPMountPath + "browser", MCPMountPath + "../x", MCPMountPath + "%2e%2e/x", MCPMountPath + "b%2fc",
		MCPMountPath + "b/", MCPMountPath + "b?u=http://evil.example/", "//evil.example" + MCPMountPath + "b",
		"http://evil.example" + MCPMountPath + "b", MCPMountPath + "r%65c", MCPMountPath + "b;x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil {
			return
		}
		name, e := checkMCPPath(u, MCPMountPath)
		if e != nil {
			return
		}
		if u.RawQuery != "" || u.Path != MCPMountPath+name || (name != "" && !validMCPName(name)) {
			t.Fatalf("accepted %q as name %q", target, name)
		}
	})
}

// TestMCPNoContentBodyNotRead: a 204 (a closed session) is passed without
// touching the body, which a Worker's fetch hands over unreadable.
func TestMCPNoContentBodyNotRead(t *testing.T) {
	rec := &recorder{resp: func() (*http.Response, error) {
		return &http.Response{StatusCode: 204, Header: http.Header{}, Body: io.NopCloser(readerFunc(func([]byte) (int, error) {
			t.Error("the body of a 204 was read")
			return 0, io.EOF
		}))}, nil
	}}
	m := newTestRelay(t, rec, 0, nil)
	rr := httptest.NewRecorder()
	m.ServeHTTP(rr, request("DELETE", MCPMountPath+"shell", hdr("Origin", testOrigin, "Mcp-Session-Id", "s"), ""))
	if rr.Code != 204 || rr.Body.Len() != 0 {
		t.Errorf("got %d %q, want 204 and no body", rr.Code, rr.Body)
	}
}
