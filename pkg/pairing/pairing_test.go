package pairing_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/mcp"
	"workbench/pkg/pairing"
	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

const origin = "https://workbench.example"

// secret is a pairing secret for the tests; a real one is NewSecret's.
const secret = "PAIRINGSECRETFORTHETESTS234"

// paired starts a pairing server in front of servers and returns its
// address (127.0.0.1:PORT).
func paired(t *testing.T, servers ...proxy.MCPServer) string {
	return pairedLog(t, nil, servers...)
}

// pairedLog is paired with a log.
func pairedLog(t *testing.T, log func(proxy.MCPEvent), servers ...proxy.MCPServer) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	addr := srv.Listener.Addr().String()
	h, err := pairing.New(pairing.Config{Origin: origin, Addr: addr, Secret: secret, Servers: servers, Doer: proxy.NewHTTPDoer(), Log: log})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(srv.Close)
	return addr
}

// attack is one hostile (or, last, friendly) request and what it must
// get. In Host and Headers, {port} is the pairing server's port, {secret}
// the secret.
type attack struct {
	name    string
	method  string
	target  string
	host    string // "" is the server's own 127.0.0.1:PORT
	headers []string
	body    string
	status  int
	code    string // the JSON error's code; "" when a body answered
	cors    bool   // Access-Control-Allow-Origin: origin on the answer
	relayed bool   // the request reached the body
}

const (
	auth   = "Authorization: Bearer {secret}"
	fromWB = "Origin: " + origin
	ctJSON = "Content-Type: application/json"
	accept = "Accept: application/json, text/event-stream"
	call   = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
)

func attacks() []attack {
	post := func(extra ...string) []string { return append([]string{fromWB, ctJSON, accept}, extra...) }
	return []attack{
		// The secret.
		{name: "no-secret", method: "POST", target: "/mcp/browser", headers: post(), body: call, status: 401, code: pairing.CodeSecretMissing, cors: true},
		{name: "no-secret-listing", method: "GET", target: "/mcp/", headers: []string{fromWB}, status: 401, code: pairing.CodeSecretMissing, cors: true},
		{name: "wrong-secret", method: "POST", target: "/mcp/browser", headers: post("Authorization: Bearer WRONGSECRETWRONGSECRET2345"), body: call, status: 401, code: pairing.CodeSecretWrong, cors: true},
		{name: "secret-prefix", method: "POST", target: "/mcp/browser", headers: post("Authorization: Bearer " + secret[:len(secret)-1]), body: call, status: 401, code: pairing.CodeSecretWrong, cors: true},
		{name: "secret-extended", method: "POST", target: "/mcp/browser", headers: post("Authorization: Bearer " + secret + "A"), body: call, status: 401, code: pairing.CodeSecretWrong, cors: true},
		{name: "empty-bearer", method: "POST", target: "/mcp/browser", headers: post("Authorization: Bearer "), body: call, status: 401, code: pairing.CodeSecretMissing, cors: true},
		{name: "secret-basic-scheme", method: "POST", target: "/mcp/browser", headers: post("Authorization: Basic {secret}"), body: call, status: 401, code: pairing.CodeSecretMissing, cors: true},
		{name: "secret-token-scheme", method: "POST", target: "/mcp/browser", headers: post("Authorization: Token {secret}"), body: call, status: 401, code: pairing.CodeSecretMissing, cors: true},
		{name: "secret-no-scheme", method: "POST", target: "/mcp/browser", headers: post("Authorization: {secret}"), body: call, status: 401, code: pairing.CodeSecretMissing, cors: true},
		{name: "secret-in-other-header", method: "POST", target: "/mcp/browser", headers: post("X-Pairing-Secret: {secret}", "Cookie: secret={secret}"), body: call, status: 401, code: pairing.CodeSecretMissing, cors: true},
		{name: "secret-in-query", method: "POST", target: "/mcp/browser?secret={secret}", headers: post(), body: call, status: 401, code: pairing.CodeSecretMissing, cors: true},
		{name: "secret-in-query-access-token", method: "GET", target: "/mcp/?access_token={secret}", headers: []string{fromWB}, status: 401, code: pairing.CodeSecretMissing, cors: true},
		// With the secret too, a query is not taken: each name is one URL.
		{name: "query-beside-secret", method: "POST", target: "/mcp/browser?secret={secret}", headers: post(auth), body: call, status: 400, code: proxy.CodeQuery, cors: true},
		{name: "two-authorizations", method: "POST", target: "/mcp/browser", headers: post(auth, "Authorization: Bearer WRONG"), body: call, status: 401, code: pairing.CodeSecretWrong, cors: true},
		// The Origin: checked before the secret, so a foreign page learns
		// nothing, not even whether the secret was right.
		{name: "foreign-origin", method: "POST", target: "/mcp/browser", headers: []string{"Origin: https://evil.example", ctJSON, accept, auth}, body: call, status: 403, code: proxy.CodeOriginForbidden},
		{name: "foreign-origin-listing", method: "GET", target: "/mcp/", headers: []string{"Origin: https://evil.example", auth}, status: 403, code: proxy.CodeOriginForbidden},
		{name: "missing-origin", method: "POST", target: "/mcp/browser", headers: []string{ctJSON, accept, auth}, body: call, status: 403, code: proxy.CodeOriginMissing},
		{name: "missing-origin-same-origin-get", method: "GET", target: "/mcp/", headers: []string{"Sec-Fetch-Site: same-origin", auth}, status: 403, code: proxy.CodeOriginMissing},
		{name: "null-origin", method: "POST", target: "/mcp/browser", headers: []string{"Origin: null", ctJSON, accept, auth}, body: call, status: 403, code: proxy.CodeOriginForbidden},
		{name: "origin-suffix", method: "POST", target: "/mcp/browser", headers: []string{"Origin: " + origin + ".evil.example", ctJSON, accept, auth}, body: call, status: 403, code: proxy.CodeOriginForbidden},
		{name: "origin-http", method: "POST", target: "/mcp/browser", headers: []string{"Origin: http://workbench.example", ctJSON, accept, auth}, body: call, status: 403, code: proxy.CodeOriginForbidden},
		{name: "origin-loopback", method: "POST", target: "/mcp/browser", headers: []string{"Origin: http://127.0.0.1:{port}", ctJSON, accept, auth}, body: call, status: 403, code: proxy.CodeOriginForbidden},
		{name: "two-origins", method: "POST", target: "/mcp/browser", headers: []string{fromWB, fromWB, ctJSON, accept, auth}, body: call, status: 403, code: proxy.CodeOriginForbidden},
		// DNS rebinding: a page whose own name now points at 127.0.0.1
		// sends its own name as Host (and as Origin).
		{name: "rebinding-host", method: "POST", target: "/mcp/browser", host: "evil.example:{port}", headers: []string{"Origin: http://evil.example:{port}", ctJSON, accept}, body: call, status: 421, code: proxy.CodeHostForbidden},
		{name: "rebinding-host-with-paired-origin", method: "POST", target: "/mcp/browser", host: "evil.example:{port}", headers: post(auth), body: call, status: 421, code: proxy.CodeHostForbidden},
		{name: "other-port", method: "GET", target: "/mcp/", host: "127.0.0.1:1", headers: []string{fromWB, auth}, status: 421, code: proxy.CodeHostForbidden},
		{name: "ipv6-loopback-not-served", method: "GET", target: "/mcp/", host: "[::1]:{port}", headers: []string{fromWB, auth}, status: 421, code: proxy.CodeHostForbidden},
		{name: "no-port", method: "GET", target: "/mcp/", host: "localhost", headers: []string{fromWB, auth}, status: 421, code: proxy.CodeHostForbidden},
		// CORS preflights: checked by Host and Origin alone.
		{name: "preflight-foreign-origin", method: "OPTIONS", target: "/mcp/browser", headers: []string{"Origin: https://evil.example", "Access-Control-Request-Method: POST"}, status: 403, code: proxy.CodeOriginForbidden},
		{name: "preflight-null-origin", method: "OPTIONS", target: "/mcp/browser", headers: []string{"Origin: null", "Access-Control-Request-Method: POST"}, status: 403, code: proxy.CodeOriginForbidden},
		{name: "preflight-rebinding-host", method: "OPTIONS", target: "/mcp/browser", host: "evil.example:{port}", headers: []string{fromWB, "Access-Control-Request-Method: POST"}, status: 421, code: proxy.CodeHostForbidden},
		{name: "preflight-outside-the-bodies", method: "OPTIONS", target: "/", headers: []string{fromWB, "Access-Control-Request-Method: POST"}, status: 404, code: proxy.CodeNotFound, cors: true},
		// Past the pairing, the relay's own rules.
		{name: "unknown-body", method: "POST", target: "/mcp/shell", headers: post(auth), body: call, status: 404, code: proxy.CodeMCPUnknown, cors: true},
		{name: "traversal", method: "POST", target: "/mcp/%2e%2e/browser", headers: post(auth), body: call, status: 400, code: proxy.CodePath, cors: true},
		{name: "workbench-relay-path", method: "POST", target: "/api/mcp/browser", headers: post(auth), body: call, status: 404, code: proxy.CodeNotFound, cors: true},
		{name: "not-json", method: "POST", target: "/mcp/browser", headers: []string{fromWB, "Content-Type: text/plain", accept, auth}, body: call, status: 415, code: proxy.CodeMediaType, cors: true},
		// The paired page.
		{name: "paired", method: "POST", target: "/mcp/browser", headers: post(auth), body: call, status: 200, cors: true, relayed: true},
		{name: "paired-localhost", method: "POST", target: "/mcp/host", host: "localhost:{port}", headers: post("Authorization: bearer {secret}"), body: call, status: 200, cors: true, relayed: true},
	}
}

// TestAttacks sends every request of the attack table to a pairing
// server in front of a recording body, and checks that the refused ones
// reach no body and that no request that reaches one carries the secret.
func TestAttacks(t *testing.T) {
	up := proxytest.NewMCPUpstream(t)
	var mu sync.Mutex
	var logged []proxy.MCPEvent
	log := func(e proxy.MCPEvent) {
		mu.Lock()
		logged = append(logged, e)
		mu.Unlock()
	}
	addr := pairedLog(t, log, proxy.MCPServer{Name: "browser", URL: up.URL}, proxy.MCPServer{Name: "host", URL: up.AuthURL})
	_, port, _ := net.SplitHostPort(addr)
	fill := func(s string) string {
		return strings.NewReplacer("{port}", port, "{secret}", secret).Replace(s)
	}
	for i, a := range attacks() {
		t.Run(a.name, func(t *testing.T) {
			before := up.Len()
			req, err := http.NewRequest(a.method, "http://"+addr+fill(a.target), strings.NewReader(a.body))
			if err != nil {
				t.Fatal(err)
			}
			if a.host != "" {
				req.Host = fill(a.host)
			}
			for _, h := range a.headers {
				k, v, _ := strings.Cut(fill(h), ": ")
				req.Header.Add(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != a.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, a.status, body)
			}
			if a.code != "" {
				var e struct {
					Error struct{ Code, Message string }
				}
				if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != a.code {
					t.Errorf("error %s, want code %q", body, a.code)
				}
				if strings.Contains(string(body), secret) {
					t.Errorf("the refusal quotes the secret: %s", body)
				}
			}
			acao := resp.Header.Values("Access-Control-Allow-Origin")
			switch {
			case a.cors && (len(acao) != 1 || acao[0] != origin):
				t.Errorf("Access-Control-Allow-Origin %q, want %q", acao, origin)
			case !a.cors:
				for k := range resp.Header {
					if strings.HasPrefix(k, "Access-Control-") {
						t.Errorf("a refused Host or Origin got CORS header %s: %q", k, resp.Header[k])
					}
				}
			}
			if a.status == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="workbench bodies"` {
				t.Errorf("401 with WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
			if got := up.Len() - before; got != map[bool]int{true: 1, false: 0}[a.relayed] {
				t.Errorf("%d requests reached the body, want relayed=%v", got, a.relayed)
			}
			// The event is logged once the handler has returned, which
			// may be just after the client has read the answer.
			for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
				mu.Lock()
				n := len(logged)
				mu.Unlock()
				if n > i || time.Now().After(deadline) {
					break
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(logged) != i+1 || logged[i].Status != resp.StatusCode || logged[i].Code != a.code {
				t.Errorf("log events %+v; want event %d with status %d code %q", logged, i, resp.StatusCode, a.code)
			}
		})
	}
	if len(logged) != len(attacks()) {
		t.Errorf("%d log events for %d requests", len(logged), len(attacks()))
	}
	for i, r := range up.Requests() {
		if v, ok := r.Header["Authorization"]; ok {
			t.Errorf("request %d reached the body with Authorization %q", i, v)
		}
		if strings.Contains(r.RequestURI, secret) {
			t.Errorf("request %d reached the body with the secret in %q", i, r.RequestURI)
		}
	}
}

// TestPreflight: the paired origin's preflight gets exactly the headers
// the page's MCP client needs, Chromium's private-network answer only
// when asked.
func TestPreflight(t *testing.T) {
	addr := paired(t, proxy.MCPServer{Name: "browser", URL: "http://127.0.0.1:9/mcp"})
	for _, pna := range []bool{false, true} {
		t.Run("private-network="+strconv.FormatBool(pna), func(t *testing.T) {
			req, _ := http.NewRequest("OPTIONS", "http://"+addr+"/mcp/browser", nil)
			req.Header.Set("Origin", origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,mcp-protocol-version,mcp-session-id")
			if pna {
				req.Header.Set("Access-Control-Request-Private-Network", "true")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			want := map[string]string{
				"Access-Control-Allow-Origin":  origin,
				"Access-Control-Allow-Methods": "GET, POST, DELETE",
				"Access-Control-Allow-Headers": "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name",
				"Access-Control-Max-Age":       "600",
			}
			if pna {
				want["Access-Control-Allow-Private-Network"] = "true"
			}
			if resp.StatusCode != http.StatusNoContent {
				t.Errorf("status %d, want 204", resp.StatusCode)
			}
			for k, v := range want {
				if got := resp.Header.Values(k); len(got) != 1 || got[0] != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
			for k := range resp.Header {
				if strings.HasPrefix(k, "Access-Control-") && want[k] == "" {
					t.Errorf("unexpected %s: %q", k, resp.Header[k])
				}
			}
			if v := resp.Header.Values("Vary"); !slices.Contains(v, "Origin") {
				t.Errorf("Vary %q lacks Origin", v)
			}
		})
	}
}

// authSeen wraps an MCP server's handler and records each request's
// Authorization and Origin headers.
type authSeen struct {
	h  http.Handler
	mu sync.Mutex
	n  int
	// seen holds every Authorization or Origin value that arrived.
	seen []string
}

func (a *authSeen) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.n++
	a.seen = append(a.seen, r.Header.Values("Authorization")...)
	a.seen = append(a.seen, r.Header.Values("Origin")...)
	a.mu.Unlock()
	a.h.ServeHTTP(w, r)
}

// TestSession: the paired page's MCP client completes the handshake,
// lists and calls tools through the pairing server, as the app will, and
// the body never sees the secret.
func TestSession(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "paired-body", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	sdk.AddTool(server, &sdk.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *sdk.CallToolRequest, x in) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: x.Text}}}, nil, nil
		})
	seen := &authSeen{h: sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)}
	body := httptest.NewServer(seen)
	t.Cleanup(body.Close)
	addr := paired(t, proxy.MCPServer{Name: "browser", URL: body.URL + "/mcp"})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hdr := http.Header{"Authorization": {"Bearer " + secret}, "Origin": {origin}}
	c, err := mcp.Dial(ctx, "http://"+addr+pairing.MountPath+"browser", &mcp.Options{Header: hdr})
	if err != nil {
		t.Fatal(err)
	}
	if info := c.ServerInfo(); info.ServerInfo.Name != "paired-body" {
		t.Errorf("server %+v", info)
	}
	tools, err := c.ListTools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != "echo" {
		t.Fatalf("tools %+v, %v", tools, err)
	}
	res, err := c.CallTool(ctx, "echo", map[string]any{"text": "through the pairing"})
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "through the pairing" {
		t.Errorf("echo: %+v, %v", res, err)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}

	// The listing, as the page checks its pairing.
	req, _ := http.NewRequest("GET", "http://"+addr+pairing.MountPath, nil)
	req.Header = hdr.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(list) != `{"servers":[{"name":"browser"}]}`+"\n" {
		t.Errorf("listing %d %s", resp.StatusCode, list)
	}

	seen.mu.Lock()
	defer seen.mu.Unlock()
	if seen.n < 3 {
		t.Errorf("the body saw %d requests, want the handshake, the listing and the call", seen.n)
	}
	if len(seen.seen) > 0 {
		t.Errorf("the body saw Authorization or Origin: %q", seen.seen)
	}
}

func TestNewRefuses(t *testing.T) {
	base := pairing.Config{Origin: origin, Addr: "127.0.0.1:8790", Secret: secret, Doer: proxy.NewHTTPDoer()}
	tests := []struct {
		name   string
		change func(*pairing.Config)
		errHas string
	}{
		{"http-origin", func(c *pairing.Config) { c.Origin = "http://workbench.example" }, "plain http is allowed only for a loopback host"},
		{"star-origin", func(c *pairing.Config) { c.Origin = "*" }, "scheme must be https"},
		{"origin-with-path", func(c *pairing.Config) { c.Origin = origin + "/app" }, "no path"},
		{"upper-case-origin", func(c *pairing.Config) { c.Origin = "https://Workbench.example" }, "lower case"},
		{"every-interface", func(c *pairing.Config) { c.Addr = "0.0.0.0:8790" }, "127.0.0.1 only"},
		{"no-port", func(c *pairing.Config) { c.Addr = "127.0.0.1:0" }, "the port it listens on"},
		{"short-secret", func(c *pairing.Config) { c.Secret = "short" }, "shorter than 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.change(&c)
			if _, err := pairing.New(c); err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("err %v, want %q", err, tt.errHas)
			}
		})
	}
	if _, err := pairing.New(pairing.Config{Origin: "http://127.0.0.1:8787", Addr: "localhost:8790", Secret: secret, Doer: proxy.NewHTTPDoer()}); err != nil {
		t.Errorf("a workbench served on loopback: %v", err)
	}
}

func TestNewSecret(t *testing.T) {
	a, b := pairing.NewSecret(), pairing.NewSecret()
	if a == b || len(a) != 26 || strings.Trim(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
		t.Errorf("secrets %q, %q: want two different 26-character base32 strings", a, b)
	}
}
