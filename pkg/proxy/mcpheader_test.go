package proxy

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// secretValue stands for an operator's credential; no error may quote it.
const secretValue = "Bearer OPERATOR-SECRET-0123456789"

func TestMCPHeaderVar(t *testing.T) {
	for in, want := range map[string]string{
		"browser":      "MCP_HEADER_BROWSER",
		"github-tools": "MCP_HEADER_GITHUB_TOOLS",
		"a1-b2-c3":     "MCP_HEADER_A1_B2_C3",
	} {
		if got := MCPHeaderVar(in); got != want {
			t.Errorf("MCPHeaderVar(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMCPHeader(t *testing.T) {
	h, err := ParseMCPHeader("gh", " Authorization :  "+secretValue+" ")
	if err != nil || h != (MCPHeader{"gh", "Authorization", secretValue}) {
		t.Errorf("got %+v, %v", h, err)
	}
	// A colon in the value stays in the value.
	h, err = ParseMCPHeader("gh", "X-Api-Key: a:b")
	if err != nil || h.Name != "X-Api-Key" || h.Value != "a:b" {
		t.Errorf("got %+v, %v", h, err)
	}
	if _, err := ParseMCPHeader("gh", secretValue); err == nil || strings.Contains(err.Error(), "OPERATOR-SECRET") {
		t.Errorf("no colon: %v; want an error that does not quote the value", err)
	}
}

func TestNewMCPRelayChecksHeaders(t *testing.T) {
	servers := []MCPServer{{"shell", mcpShellURL}, {"browser", mcpBrowserURL}}
	tests := []struct {
		name    string
		headers []MCPHeader
		auth    []string
		errHas  string
	}{
		{"authorization", []MCPHeader{{"shell", "Authorization", secretValue}}, nil, ""},
		{"api key, lower case", []MCPHeader{{"shell", "x-api-key", "k-123"}}, nil, ""},
		{"one each", []MCPHeader{{"shell", "Authorization", secretValue}, {"browser", "X-Api-Key", "k"}}, nil, ""},
		{"auth forwarded for the other", []MCPHeader{{"shell", "Authorization", secretValue}}, []string{"browser"}, ""},
		{"unknown server", []MCPHeader{{"nope", "Authorization", secretValue}}, nil, "not configured"},
		{"two for one", []MCPHeader{{"shell", "Authorization", secretValue}, {"shell", "X-Api-Key", "k"}}, nil, "two headers"},
		{"both authorizations", []MCPHeader{{"browser", "authorization", secretValue}}, []string{"browser"}, "choose one"},
		{"empty name", []MCPHeader{{"shell", "", secretValue}}, nil, "empty header name"},
		{"name with space", []MCPHeader{{"shell", "X Key", secretValue}}, nil, "HTTP token"},
		{"name with colon", []MCPHeader{{"shell", "X:Key", secretValue}}, nil, "HTTP token"},
		{"session header", []MCPHeader{{"shell", "Mcp-Session-Id", "s"}}, nil, "forwards from the page"},
		{"content type", []MCPHeader{{"shell", "content-type", "text/plain"}}, nil, "forwards from the page"},
		{"host", []MCPHeader{{"shell", "Host", "evil.example"}}, nil, "managed by HTTP"},
		{"content length", []MCPHeader{{"shell", "Content-Length", "1"}}, nil, "managed by HTTP"},
		{"empty value", []MCPHeader{{"shell", "Authorization", ""}}, nil, "empty value"},
		{"CRLF in value", []MCPHeader{{"shell", "Authorization", secretValue + "\r\nX-Evil: 1"}}, nil, "printable ASCII"},
		{"non-ASCII value", []MCPHeader{{"shell", "Authorization", secretValue + "é"}}, nil, "printable ASCII"},
		{"oversized value", []MCPHeader{{"shell", "Authorization", secretValue + strings.Repeat("a", MaxHeaderValueBytes)}}, nil, "exceeds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := MCPConfig{AllowedOrigin: testOrigin, Servers: servers, AuthorizationFor: tt.auth, Headers: tt.headers, Doer: &recorder{}}
			_, err := NewMCPRelay(cfg)
			checkConfigErr(t, "NewMCPRelay", "headers", err, tt.errHas)
			if err != nil && strings.Contains(err.Error(), "OPERATOR-SECRET") {
				t.Errorf("the error quotes the secret: %v", err)
			}
		})
	}
}

// TestMCPHeaderSent: the operator's header reaches its server alone,
// replaces whatever the page sent under its name, and never comes back.
// The page's own Authorization still reaches only servers configured for
// it.
func TestMCPHeaderSent(t *testing.T) {
	rec := &recorder{resp: mcpResponse(200, `{"jsonrpc":"2.0","id":1,"result":{}}`, "Content-Type", "application/json")}
	m, err := NewMCPRelay(MCPConfig{
		AllowedOrigin:    testOrigin,
		Servers:          []MCPServer{{"shell", mcpShellURL}, {"browser", mcpBrowserURL}, {"keyed", "https://keyed.example/mcp"}},
		AuthorizationFor: []string{"browser"},
		Headers:          []MCPHeader{{"shell", "authorization", secretValue}, {"keyed", "X-Api-Key", "key-123"}},
		Doer:             rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	const page = "Bearer page-token"
	for _, tt := range []struct {
		server string
		sent   map[string][]string // besides the MCP headers
		want   map[string]string   // header → value upstream; "" for absent
	}{
		{"shell", hdr("Authorization", page), map[string]string{"Authorization": secretValue}},
		{"shell", nil, map[string]string{"Authorization": secretValue}},
		{"keyed", hdr("Authorization", page, "X-Api-Key", "page-key"), map[string]string{"X-Api-Key": "key-123", "Authorization": ""}},
		{"browser", hdr("Authorization", page), map[string]string{"Authorization": page, "X-Api-Key": ""}},
	} {
		t.Run(tt.server, func(t *testing.T) {
			h := hdr("Origin", testOrigin, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
			for k, v := range tt.sent {
				h[k] = v
			}
			rr := httptest.NewRecorder()
			m.ServeHTTP(rr, request("POST", MCPMountPath+tt.server, h, `{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			if rr.Code != 200 {
				t.Fatalf("status %d: %s", rr.Code, rr.Body)
			}
			got := rec.calls[len(rec.calls)-1].Header
			for k, v := range tt.want {
				if vs := got.Values(k); v == "" && len(vs) != 0 || v != "" && (len(vs) != 1 || vs[0] != v) {
					t.Errorf("upstream %s = %q, want %q", k, vs, v)
				}
			}
			if strings.Contains(rr.Body.String()+headerDump(rr.Header()), "OPERATOR-SECRET") {
				t.Errorf("the response carries the secret")
			}
		})
	}
}

func headerDump(h http.Header) string {
	var b strings.Builder
	h.Write(&b)
	return b.String()
}
