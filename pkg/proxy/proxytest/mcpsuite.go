package proxytest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// MCPTarget is a running host of the MCP relay, configured with an
// MCPUpstream under MCPRecorder and MCPRecorderAuth (the latter receiving
// Authorization) and possibly other servers.
type MCPTarget struct {
	Addr     string // host:port the host listens on
	Origin   string // the origin it was configured to allow
	Layer    Layer
	Recorder *MCPUpstream
	// Names is every configured server name, sorted: what the listing
	// must show.
	Names []string
	// TransportHeaders are header names the host's HTTP client adds on
	// its own; canonical form.
	TransportHeaders []string
	Settle           func() (string, error) // as Target.Settle
}

const (
	mcpMount = "/api/mcp/"
	mcpAcc   = "Accept: application/json, text/event-stream"
	mcpBody  = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + BodySentinel + `"}}}`
)

func (tg MCPTarget) proxyTarget() Target {
	return Target{Addr: tg.Addr, Origin: tg.Origin, Layer: tg.Layer, Settle: tg.Settle}
}

// MCPAttacks is the hostile-request table for the MCP relay. Every entry
// is refused or, where a layer's URL parser normalizes it into an ordinary
// request, relayed to exactly the configured URL of MCPRecorder.
func MCPAttacks() []Attack {
	rec := mcpMount + MCPRecorder
	post := []string{"Origin: {origin}", jsonCT, mcpAcc}
	with := func(extra ...string) []string { return slices.Concat(post, extra) }
	a := func(name, method, target string, headers []string, native, workerd Want) Attack {
		return Attack{Name: name, Method: method, Target: target, Headers: headers, Native: native, Workerd: workerd}
	}
	pathBad := refused(400, "path_invalid")
	toRec := forwarded(200, mcpRecPath)
	list := []Attack{
		// Traversal, plain and encoded. workerd resolves dot segments
		// first; what it makes of them is another same-origin path (the
		// Worker's JSON 404, the static site) or the recorder's own
		// configured URL, never anything else.
		a("dotdot", "POST", mcpMount+"../x", post, pathBad, refused(404, "not_found")),
		a("dotdot-out-of-api", "GET", mcpMount+"../../etc/passwd", []string{"Origin: {origin}"}, pathBad, front(200)),
		// workerd makes this a same-origin call of the OpenRouter proxy,
		// which answers from its own upstream.
		a("dotdot-to-proxy", "POST", mcpMount+"../llm/openrouter/chat/completions", post, pathBad, front(200)),
		a("dotdot-inside", "POST", mcpMount+"nosuch/../"+MCPRecorder, post, pathBad, toRec),
		a("dot", "POST", mcpMount+"./"+MCPRecorder, post, pathBad, toRec),
		a("pct-dotdot", "POST", mcpMount+"%2e%2e/x", post, pathBad, refused(404, "not_found")),
		a("pct-name", "POST", mcpMount+"r%65c", post, pathBad, pathBad),
		a("pct-slash", "POST", rec+"%2fx", post, pathBad, pathBad),
		a("double-pct-dotdot", "POST", mcpMount+"%252e%252e/x", post, pathBad, pathBad),
		a("backslash", "POST", mcpMount+`..\x`, post, pathBad, refused(404, "not_found")),
		a("pct-backslash", "POST", mcpMount+"..%5cx", post, pathBad, pathBad),
		a("pct-nul", "POST", rec+"%00", post, pathBad, pathBad),
		a("raw-nul", "POST", rec+"\x00", post, front(400), front(400)),
		a("semicolon", "POST", rec+";x=1", post, pathBad, pathBad),
		a("sub-path", "POST", rec+"/sse", post, pathBad, pathBad),
		a("trailing-slash", "POST", rec+"/", post, pathBad, pathBad),
		a("upper-case-name", "POST", mcpMount+strings.ToUpper(MCPRecorder), post, pathBad, pathBad),
		a("unknown-name", "POST", mcpMount+"evil", post, refused(404, "mcp_server_unknown"), refused(404, "mcp_server_unknown")),
		a("overlong-name", "POST", mcpMount+strings.Repeat("a", 3000), post, refused(414, "uri_too_long"), refused(414, "uri_too_long")),
		// A target named in the path, the query or a header.
		a("url-in-path", "POST", mcpMount+"http://evil.example/mcp", post, pathBad, pathBad),
		a("host-in-path", "POST", mcpMount+"@evil.example", post, pathBad, pathBad),
		a("double-slash-host", "POST", mcpMount+"/evil.example/mcp", post, pathBad, pathBad),
		a("url-in-query", "POST", rec+"?url=http://evil.example/mcp", post, refused(400, "query_invalid"), refused(400, "query_invalid")),
		a("target-in-query", "POST", rec+"?target=//evil.example/mcp&server=evil", post, refused(400, "query_invalid"), refused(400, "query_invalid")),
		a("url-in-headers", "POST", rec, with("X-Forwarded-Host: evil.example", "Forwarded: host=evil.example;proto=http",
			"X-Original-Url: http://evil.example/mcp", "X-Rewrite-Url: http://evil.example/mcp", "X-Mcp-Server-Url: http://evil.example/mcp",
			"Referer: http://evil.example/", "X-Forwarded-Proto: http"), toRec, toRec),
		// Not under /api/ at all: the static site refuses a POST.
		{Name: "scheme-relative-target", Method: "POST", Target: "//evil.example" + rec, Headers: post, Body: mcpBody, Unsettling: true,
			Native: refused(404, "not_found"), Serve: front(405), Workerd: front(405)},
		// wrangler dev's front refuses an absolute-form target; Go's
		// server takes its host for Host, which is not the workbench's.
		a("absolute-form-target", "POST", "http://evil.example"+rec, post, refused(421, "host_forbidden"), front(500)),
		// Origin.
		a("no-origin-post", "POST", rec, []string{jsonCT, mcpAcc}, refused(403, "origin_missing"), refused(403, "origin_missing")),
		a("no-origin-delete", "DELETE", rec, []string{"Mcp-Session-Id: " + MCPSession}, refused(403, "origin_missing"), refused(403, "origin_missing")),
		a("no-origin-cross-site-get", "GET", rec, []string{"Accept: text/event-stream", "Sec-Fetch-Site: cross-site"}, refused(403, "origin_missing"), refused(403, "origin_missing")),
		a("no-origin-same-origin-post", "POST", rec, []string{jsonCT, mcpAcc, "Sec-Fetch-Site: same-origin"}, refused(403, "origin_missing"), refused(403, "origin_missing")),
		a("null-origin", "POST", rec, []string{"Origin: null", jsonCT, mcpAcc}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("foreign-origin", "POST", rec, []string{"Origin: https://evil.example", jsonCT, mcpAcc}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("foreign-origin-listing", "GET", mcpMount, []string{"Origin: https://evil.example"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("origin-suffix", "POST", rec, []string{"Origin: {origin}.evil.example", jsonCT, mcpAcc}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("two-origins", "POST", rec, []string{"Origin: {origin}", "Origin: {origin}", jsonCT, mcpAcc}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		// DNS rebinding (see Attacks): the SSE GET and the listing as a
		// rebinding page would send them.
		{Name: "dns-rebinding-get", Method: "GET", Target: rec, Host: "evil.example:{port}", Headers: []string{"Accept: text/event-stream", "Sec-Fetch-Site: same-origin"},
			Native: refused(421, "host_forbidden"), Workerd: refused(421, "host_forbidden")},
		{Name: "dns-rebinding-listing", Method: "GET", Target: mcpMount, Host: "evil.example:{port}", Headers: []string{"Sec-Fetch-Site: same-origin"},
			Native: refused(421, "host_forbidden"), Workerd: refused(421, "host_forbidden")},
		{Name: "dns-rebinding-post", Method: "POST", Target: rec, Host: "evil.example:{port}", Headers: []string{"Origin: http://evil.example:{port}", jsonCT, mcpAcc},
			Native: refused(421, "host_forbidden"), Workerd: refused(421, "host_forbidden")},
		// The relay written through the proxy's route. Go's server keeps
		// the dot segment in the decoded path, which no route accepts.
		// workerd resolves "%2e%2e" (either case) before any Worker code
		// runs: what the Worker sees, routes and checks is the plain
		// relay request, held to every rule above (a foreign Origin is
		// refused as ever).
		a("cross-route-from-proxy", "POST", "/api/llm/%2e%2e/mcp/"+MCPRecorder, post, refused(404, "not_found"), toRec),
		// Through serve, the decoded path is under the proxy's route,
		// which refuses it.
		{Name: "cross-route-from-proxy-upper", Method: "POST", Target: mp + "%2E%2E/%2E%2E/mcp/" + MCPRecorder, Headers: post,
			Native: refused(404, "not_found"), Serve: pathBad, Workerd: toRec},
		{Name: "cross-route-foreign-origin", Method: "POST", Target: "/api/llm/%2e%2e/mcp/" + MCPRecorder, Headers: []string{"Origin: https://evil.example", jsonCT, mcpAcc},
			Native: refused(403, "origin_forbidden"), Serve: refused(404, "not_found"), Workerd: refused(403, "origin_forbidden")},
		a("cross-origin-preflight", "OPTIONS", rec, []string{"Origin: https://evil.example", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: mcp-session-id, content-type"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		// Methods.
		a("put", "PUT", rec, post, refused(405, "method_not_allowed"), refused(405, "method_not_allowed")),
		a("patch", "PATCH", rec, post, refused(405, "method_not_allowed"), refused(405, "method_not_allowed")),
		a("head", "HEAD", rec, []string{"Origin: {origin}"}, refused(405, ""), refused(405, "")),
		a("post-listing", "POST", mcpMount, post, refused(405, "method_not_allowed"), refused(405, "method_not_allowed")),
		// Header smuggling.
		a("duplicate-session", "POST", rec, with("Mcp-Session-Id: a", "Mcp-Session-Id: b"), refused(400, "header_invalid"), refused(400, "header_invalid")),
		a("comma-session", "POST", rec, with("Mcp-Session-Id: a,b"), refused(400, "header_invalid"), refused(400, "header_invalid")),
		a("non-ascii-session", "POST", rec, with("Mcp-Session-Id: a\xff\xfe"), refused(400, "header_invalid"), refused(400, "header_invalid")),
		a("oversized-session", "POST", rec, with("Mcp-Session-Id: "+strings.Repeat("s", 8<<10+1)), refused(431, "header_too_large"), refused(431, "header_too_large")),
		a("oversized-accept", "POST", mcpMount+MCPRecorderAuth, []string{"Origin: {origin}", jsonCT, "Accept: application/json, " + strings.Repeat("text/event-stream, ", 500)}, refused(431, "header_too_large"), refused(431, "header_too_large")),
		a("oversized-authorization", "POST", mcpMount+MCPRecorderAuth, with("Authorization: Bearer "+strings.Repeat("k", 8<<10)), refused(431, "header_too_large"), refused(431, "header_too_large")),
		a("duplicate-protocol-version", "POST", rec, with("MCP-Protocol-Version: 2025-11-25", "MCP-Protocol-Version: 2025-06-18"), refused(400, "header_invalid"), refused(400, "header_invalid")),
		// Go's server refuses a bare CR; wrangler dev's front ends the
		// line there, and the relay drops the X-Injected header it makes.
		a("bare-cr-in-session", "POST", rec, with("Mcp-Session-Id: a\rX-Injected: 1"), front(400), toRec),
		a("authorization-to-other-server", "POST", rec, with("Authorization: {key}"), toRec, toRec),
		a("basic-authorization", "POST", mcpMount+MCPRecorderAuth, with("Authorization: Basic dXNlcjpwYXNz"), refused(400, "header_invalid"), refused(400, "header_invalid")),
		// Bodies.
		a("text-plain-post", "POST", rec, []string{"Origin: {origin}", "Content-Type: text/plain", mcpAcc}, refused(415, "unsupported_media"), refused(415, "unsupported_media")),
		a("no-content-type-post", "POST", rec, []string{"Origin: {origin}", mcpAcc}, refused(415, "unsupported_media"), refused(415, "unsupported_media")),
	}
	for i := range list {
		if list[i].Method == "POST" && list[i].Body == "" {
			list[i].Body = mcpBody
		}
	}
	tooBig := refused(413, "body_too_large")
	list = append(list,
		Attack{Name: "oversized-body", Method: "POST", Target: rec, Headers: post, Body: mcpBody, BodySize: capSize, Native: tooBig, Workerd: tooBig},
		Attack{Name: "oversized-chunked-body", Method: "POST", Target: rec, Headers: post, Body: mcpBody, BodySize: capSize, Chunked: true, Native: tooBig, Workerd: tooBig},
		Attack{Name: "get-with-body", Method: "GET", Target: rec, Headers: []string{"Origin: {origin}", "Accept: text/event-stream"}, Body: BodySentinel,
			Native: refused(400, "body_invalid"), Workerd: refused(400, "body_invalid")},
		Attack{Name: "delete-with-body", Method: "DELETE", Target: rec, Headers: []string{"Origin: {origin}", "Mcp-Session-Id: " + MCPSession}, Body: BodySentinel,
			Native: refused(400, "body_invalid"), Workerd: refused(400, "body_invalid")},
		clAndTEPipelined(rec, post, mcpBody, mcpRecPath, &Attack{Method: "POST", Target: rec, Headers: post, Body: mcpBody}, mcpRecPath),
	)
	return list
}

// RunMCPAttacks sends every attack of MCPAttacks to tg and checks the
// outcome on tg.Layer, then checks that the recorder never received a
// request other than at its two configured URLs.
func RunMCPAttacks(t *testing.T, tg MCPTarget) {
	runAttackTable(t, tg.proxyTarget(), &tg.Recorder.recording, side{"relay", "MCP server"}, MCPAttacks(), func(t *testing.T, resp *Response, got []Received) {
		if strings.Contains(string(resp.Body), tg.Recorder.Host) {
			t.Errorf("the answer reveals the server's address: %.300s", resp.Body)
		}
		for _, r := range got {
			tg.checkOnlyMCPHeaders(t, r, "X-Injected", "evil.example", strings.TrimPrefix(Key, "Bearer  "))
		}
	})
	for _, r := range tg.Recorder.Requests() {
		if r.RequestURI != mcpRecPath && r.RequestURI != mcpRecAuthPath {
			t.Errorf("MCP server received %s %q, not a configured URL", r.Method, r.RequestURI)
		}
		if r.Host != tg.Recorder.Host {
			t.Errorf("MCP server received Host %q, want its own %q", r.Host, tg.Recorder.Host)
		}
	}
}

// checkOnlyMCPHeaders fails if r carries a header other than the
// forwarded MCP ones and tg's transport headers (Authorization only at the
// MCPRecorderAuth URL), or a value other than Authorization's containing a
// sentinel.
func (tg MCPTarget) checkOnlyMCPHeaders(t *testing.T, r Received, sentinels ...string) {
	t.Helper()
	allowed := append([]string{"Accept", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id", "Mcp-Method", "Mcp-Name"}, tg.TransportHeaders...)
	if r.RequestURI == mcpRecAuthPath {
		allowed = append(allowed, "Authorization")
	}
	checkOnlyHeaders(t, "MCP server", r, allowed, "Authorization", sentinels...)
}

func (tg MCPTarget) do(t *testing.T, method, path string, hdr map[string]string, body string) *Response {
	t.Helper()
	return tg.proxyTarget().do(t, method, path, hdr, body)
}

// RunMCPForwarding checks the ordinary flows end to end against the
// recorder: the listing, what the server receives (only the MCP headers,
// its own Host, Authorization only where configured) and what the client
// gets back (the session id, the protocol version, nothing leaky), for
// POST and DELETE.
func RunMCPForwarding(t *testing.T, tg MCPTarget) {
	junk := map[string]string{
		"Cookie": "session=COOKIE-SENTINEL", "X-Forwarded-For": "203.0.113.9", "X-Forwarded-Host": "evil.example",
		"Forwarded": "for=203.0.113.9;host=evil.example", "Cf-Connecting-Ip": "203.0.113.9", "X-Api-Key": "APIKEY-SENTINEL",
		"User-Agent": "UA-SENTINEL", "Referer": "http://" + tg.Addr + "/skills/x", "Proxy-Authorization": "Basic UFJPWFktU0VOVElORUw=",
		"X-Mcp-Server-Url": "http://evil.example/mcp",
	}
	sentinels := []string{"SENTINEL", "evil.example", "203.0.113.9"}
	merge := func(m map[string]string) map[string]string { return merged(junk, m) }
	t.Run("listing", func(t *testing.T) {
		// What fetch("/api/mcp/") sends: no Origin on a same-origin GET.
		resp := tg.do(t, "GET", mcpMount, map[string]string{"Sec-Fetch-Site": "same-origin"}, "")
		var l struct {
			Servers []struct {
				Name string `json:"name"`
			} `json:"servers"`
		}
		if resp.Status != 200 || json.Unmarshal(resp.Body, &l) != nil {
			t.Fatalf("listing → %d %.300s", resp.Status, resp.Body)
		}
		var names []string
		for _, s := range l.Servers {
			names = append(names, s.Name)
		}
		if !slices.Equal(names, tg.Names) {
			t.Errorf("listing names %v, want %v", names, tg.Names)
		}
		if strings.Contains(string(resp.Body), "127.0.0.1") || strings.Contains(string(resp.Body), "http") {
			t.Errorf("listing reveals URLs: %s", resp.Body)
		}
		checkNoLeakyHeaders(t, resp.Header)
	})
	t.Run("post-without-authorization", func(t *testing.T) {
		mark := tg.Recorder.Len()
		resp := tg.do(t, "POST", mcpMount+MCPRecorder, merge(map[string]string{
			"Origin": tg.Origin, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": "2025-11-25", "Authorization": Key,
		}), mcpBody)
		if resp.Status != 200 || !strings.Contains(string(resp.Body), ResponseSentinel) {
			t.Fatalf("POST → %d %.300s", resp.Status, resp.Body)
		}
		checkMCPResponseHeaders(t, resp.Header, "application/json")
		got := tg.Recorder.Requests()[mark:]
		if len(got) != 1 || got[0].Method != "POST" || got[0].RequestURI != mcpRecPath {
			t.Fatalf("MCP server received %v, want POST %s", uris(got), mcpRecPath)
		}
		r := got[0]
		tg.checkOnlyMCPHeaders(t, r, append(sentinels, "sk-or-v1")...)
		for k, v := range map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json", "Mcp-Protocol-Version": "2025-11-25"} {
			if got := r.Header.Values(k); len(got) != 1 || got[0] != v {
				t.Errorf("MCP server received %s %q, want %q", k, got, v)
			}
		}
		if r.Header.Get("Authorization") != "" {
			t.Errorf("Authorization reached a server not configured for it")
		}
		if string(r.Body) != mcpBody {
			t.Errorf("MCP server received body %q, want %q", r.Body, mcpBody)
		}
		if r.Host != tg.Recorder.Host {
			t.Errorf("MCP server received Host %q, want its own %q", r.Host, tg.Recorder.Host)
		}
	})
	t.Run("post-with-session-and-authorization", func(t *testing.T) {
		mark := tg.Recorder.Len()
		resp := tg.do(t, "POST", mcpMount+MCPRecorderAuth, merge(map[string]string{
			"Origin": tg.Origin, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": "2025-11-25", "Mcp-Session-Id": MCPSession, "Authorization": Key,
		}), mcpBody)
		if resp.Status != 200 {
			t.Fatalf("POST → %d %.300s", resp.Status, resp.Body)
		}
		got := tg.Recorder.Requests()[mark:]
		if len(got) != 1 || got[0].RequestURI != mcpRecAuthPath {
			t.Fatalf("MCP server received %v, want %s", uris(got), mcpRecAuthPath)
		}
		tg.checkOnlyMCPHeaders(t, got[0], sentinels...)
		if a := got[0].Header.Values("Authorization"); len(a) != 1 || a[0] != Key {
			t.Errorf("Authorization %q, want %q byte for byte", a, Key)
		}
		if s := got[0].Header.Values("Mcp-Session-Id"); len(s) != 1 || s[0] != MCPSession {
			t.Errorf("Mcp-Session-Id %q, want %q", s, MCPSession)
		}
	})
	t.Run("notification-accepted", func(t *testing.T) {
		resp := tg.do(t, "POST", mcpMount+MCPRecorder, map[string]string{"Origin": tg.Origin, "Content-Type": "application/json",
			"Mcp-Session-Id": MCPSession}, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if resp.Status != 202 || len(resp.Body) != 0 {
			t.Errorf("notification → %d %q, want 202 and no body", resp.Status, resp.Body)
		}
	})
	t.Run("delete", func(t *testing.T) {
		mark := tg.Recorder.Len()
		resp := tg.do(t, "DELETE", mcpMount+MCPRecorder, merge(map[string]string{"Origin": tg.Origin, "Mcp-Session-Id": MCPSession}), "")
		if resp.Status != 204 {
			t.Errorf("DELETE → %d %.300s, want 204", resp.Status, resp.Body)
		}
		got := tg.Recorder.Requests()[mark:]
		if len(got) != 1 || got[0].Method != "DELETE" || got[0].RequestURI != mcpRecPath || got[0].Header.Get("Mcp-Session-Id") != MCPSession {
			t.Fatalf("MCP server received %v, want DELETE %s with the session id", uris(got), mcpRecPath)
		}
		tg.checkOnlyMCPHeaders(t, got[0], sentinels...)
		if len(got[0].Body) != 0 {
			t.Errorf("DELETE carried a body %q", got[0].Body)
		}
	})
	t.Run("same-origin-options", func(t *testing.T) {
		mark := tg.Recorder.Len()
		resp := tg.do(t, "OPTIONS", mcpMount+MCPRecorder, map[string]string{"Origin": tg.Origin}, "")
		if resp.Status != 204 || resp.Header.Get("Allow") != "GET, POST, DELETE, OPTIONS" || tg.Recorder.Len() != mark {
			t.Errorf("OPTIONS → %d Allow %q, %d requests relayed", resp.Status, resp.Header.Get("Allow"), tg.Recorder.Len()-mark)
		}
		checkNoLeakyHeaders(t, resp.Header)
	})
}

// checkMCPResponseHeaders checks that the recorder's session id, protocol
// version and Cache-Control came back intact and nothing leaky did.
func checkMCPResponseHeaders(t *testing.T, h http.Header, contentType string) {
	t.Helper()
	checkNoLeakyHeaders(t, h)
	for k, v := range map[string]string{"Mcp-Session-Id": MCPSession, "Mcp-Protocol-Version": "2025-11-25",
		"Cache-Control": "no-cache, no-store", "Content-Type": contentType} {
		if got := strings.Join(h.Values(k), ", "); got != v {
			t.Errorf("response %s %q, want %q", k, got, v)
		}
	}
	if h.Get("Www-Authenticate") != "" {
		t.Errorf("response carries Www-Authenticate %q", h.Get("Www-Authenticate"))
	}
}

// RunMCPSSE opens the recorder's SSE stream through tg as a browser would
// (a same-origin GET with Last-Event-ID) and reads it in lockstep: the
// recorder sends event i+1 only after the client has read event i, so a
// relay that buffers stalls it. It returns the per-event delivery delay.
func RunMCPSSE(t *testing.T, tg MCPTarget) SSETiming {
	t.Helper()
	mark := tg.Recorder.Len()
	stalls := tg.Recorder.Stalls()
	resp := tg.proxyTarget().openStream(t, "GET", mcpMount+MCPRecorder, map[string]string{
		"Sec-Fetch-Site": "same-origin", "Accept": "text/event-stream", "Mcp-Session-Id": MCPSession,
		"Mcp-Protocol-Version": "2025-11-25", "Last-Event-Id": "ev-resume-3"}, "")
	defer resp.Body.Close()
	checkMCPResponseHeaders(t, resp.Header, "text/event-stream")
	got := tg.Recorder.Requests()[mark:]
	if len(got) != 1 || got[0].Method != "GET" || got[0].Header.Get("Last-Event-Id") != "ev-resume-3" || got[0].Header.Get("Mcp-Session-Id") != MCPSession {
		t.Fatalf("MCP server received %v with %v; want GET with Last-Event-ID and the session id", uris(got), got)
	}
	tg.checkOnlyMCPHeaders(t, got[0])
	return readLockstep(t, tg.Layer, &tg.Recorder.recording, side{"relay", "MCP server"}, stalls, 0, resp.Body, func(i int, ev string) {
		if !strings.HasPrefix(ev, "id: ev-") || !strings.Contains(ev, `"data":"event`) {
			t.Fatalf("event %d %q is not the server's", i, ev)
		}
	}, "")
}

// RunMCPSession talks MCP to a real MCPServer configured under name,
// through tg, with plain HTTP requests as the browser's client makes them:
// initialize, notifications/initialized, tools/list, tools/call (a result
// and an isError), DELETE, and a request on the ended session (404). JSON
// and SSE responses are both read; which one is expected follows
// srv.JSON.
func RunMCPSession(t *testing.T, tg MCPTarget, name string, srv *MCPServer) {
	t.Helper()
	var session string
	call := func(method string, body string) *Response {
		t.Helper()
		hdr := map[string]string{"Origin": tg.Origin, "Accept": "application/json, text/event-stream"}
		if body != "" {
			hdr["Content-Type"] = "application/json"
		}
		if session != "" {
			hdr["Mcp-Session-Id"] = session
			hdr["Mcp-Protocol-Version"] = "2025-11-25"
		}
		resp := tg.do(t, method, mcpMount+name, hdr, body)
		checkNoLeakyHeaders(t, resp.Header)
		return resp
	}
	// rpc sends a request and returns its JSON-RPC result, read from a
	// JSON body or from the SSE stream's message with the same id.
	rpc := func(id int, method, params string) json.RawMessage {
		t.Helper()
		resp := call("POST", `{"jsonrpc":"2.0","id":`+itoa(id)+`,"method":"`+method+`","params":`+params+`}`)
		if resp.Status != 200 {
			t.Fatalf("%s → %d %.300s", method, resp.Status, resp.Body)
		}
		ct := resp.Header.Get("Content-Type")
		wantCT := "text/event-stream"
		if srv.JSON {
			wantCT = "application/json"
		}
		if !strings.HasPrefix(ct, wantCT) {
			t.Fatalf("%s: Content-Type %q, want %s", method, ct, wantCT)
		}
		msgs := [][]byte{resp.Body}
		if wantCT == "text/event-stream" {
			msgs = sseData(t, resp.Body)
		}
		for _, m := range msgs {
			var r struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(m, &r) == nil && r.ID == id {
				if r.Error != nil {
					t.Fatalf("%s: JSON-RPC error %s", method, r.Error)
				}
				return r.Result
			}
		}
		t.Fatalf("%s: no response with id %d in %q", method, id, resp.Body)
		return nil
	}

	resp := call("POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"relay-test","version":"0"}}}`)
	if resp.Status != 200 {
		t.Fatalf("initialize → %d %.300s", resp.Status, resp.Body)
	}
	session = resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize answered without Mcp-Session-Id; headers %v", resp.Header)
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	msgs := [][]byte{resp.Body}
	if !srv.JSON {
		msgs = sseData(t, resp.Body)
	}
	if len(msgs) == 0 || json.Unmarshal(msgs[0], &struct {
		Result any `json:"result"`
	}{&init}) != nil || init.ServerInfo.Name != "relay-test-server" || init.ProtocolVersion != "2025-11-25" {
		t.Fatalf("initialize result %q", resp.Body)
	}

	resp = call("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.Status != 202 {
		t.Fatalf("notifications/initialized → %d %.300s", resp.Status, resp.Body)
	}

	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(rpc(2, "tools/list", `{}`), &list); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tl := range list.Tools {
		tools = append(tools, tl.Name)
	}
	if slices.Sort(tools); !slices.Equal(tools, []string{"echo", "fail"}) {
		t.Errorf("tools/list: %v, want [echo fail]", tools)
	}

	type result struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Structured map[string]any `json:"structuredContent"`
	}
	var echo result
	if err := json.Unmarshal(rpc(3, "tools/call", `{"name":"echo","arguments":{"text":"`+BodySentinel+`"}}`), &echo); err != nil {
		t.Fatal(err)
	}
	if echo.IsError || len(echo.Content) != 1 || echo.Content[0].Text != BodySentinel || echo.Structured["echo"] != BodySentinel {
		t.Errorf("tools/call echo: %+v", echo)
	}
	var fail result
	if err := json.Unmarshal(rpc(4, "tools/call", `{"name":"fail","arguments":{}}`), &fail); err != nil {
		t.Fatal(err)
	}
	if !fail.IsError || len(fail.Content) != 1 || fail.Content[0].Text != "failed on purpose" {
		t.Errorf("tools/call fail: %+v", fail)
	}

	resp = call("DELETE", "")
	if resp.Status != 204 {
		t.Fatalf("DELETE → %d %.300s", resp.Status, resp.Body)
	}
	resp = call("POST", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}`)
	if resp.Status != 404 {
		t.Errorf("request on the ended session → %d %.300s, want the server's 404", resp.Status, resp.Body)
	}
	t.Logf("%s: MCP session through the relay to %s (JSON responses: %v): initialize, tools/list, tools/call ×2, DELETE", tg.Layer, name, srv.JSON)
}

// sseData returns the data of each event in an SSE body (multi-line data
// joined with "\n", comments and other fields skipped).
func sseData(t *testing.T, body []byte) [][]byte {
	t.Helper()
	var out [][]byte
	var data []string
	flush := func() {
		if data != nil {
			out = append(out, []byte(strings.Join(data, "\n")))
			data = nil
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	if len(out) == 0 {
		t.Fatalf("no SSE data events in %q", body)
	}
	return out
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
