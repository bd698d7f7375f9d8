package proxytest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Layer names a host of the proxy handler. Hosts differ in what their
// front HTTP server does before the handler runs: workerd resolves dot
// segments and backslashes as a browser would, Go's server rejects some
// malformed requests itself.
type Layer string

const (
	Native  Layer = "native"  // Go's net/http server in front of the handler
	Serve   Layer = "serve"   // workbench serve: Native, with the site beside the proxy
	Workerd Layer = "workerd" // the Worker under wrangler dev
)

// Target is a running host of the proxy handler.
type Target struct {
	Addr     string    // host:port the host listens on
	Origin   string    // the origin it was configured to allow
	Layer    Layer     // which column of the attack table applies
	Upstream *Upstream // the upstream it forwards to
	// TransportHeaders are header names the host's own HTTP client adds
	// to an upstream request (Content-Length, Accept-Encoding …); they may
	// reach the upstream besides the three forwarded ones. Canonical form.
	TransportHeaders []string
	// Settle, when not nil, is called after a request the host answered
	// before its body ended (an oversized or trickled upload), after one
	// whose answer the host broke off (an upstream body cut or stalled:
	// the Worker errors its response stream) and after an Unsettling
	// attack, before the next is sent. Under wrangler dev the front's next request to the Worker
	// can fail after either, as if the Worker had restarted; Settle
	// spends that failure on a request of its own; what it saw, if
	// anything, is logged.
	Settle func() (seen string, err error)
}

// settle calls tg.Settle, if any.
func (tg Target) settle(t *testing.T) {
	t.Helper()
	if tg.Settle == nil {
		return
	}
	seen, err := tg.Settle()
	if err != nil {
		t.Fatalf("settling the front after %s: %v", t.Name(), err)
	}
	if seen != "" {
		t.Logf("settling the front: %s", seen)
	}
}

// Want is the expected outcome of one attack on one layer.
type Want struct {
	Status int    // the response status
	Code   string // the proxy's JSON error code; "" when a front server answers or the request is forwarded
	// Forwarded is the request URI the upstream must receive when the
	// layer normalizes the attack into an ordinary request (workerd's URL
	// parser resolves "..", for instance); "" means the upstream must
	// receive nothing.
	Forwarded string
	// Closes is, for an attack with a Pipelined request, whether the host
	// closes the connection after answering the first request, so that
	// the second is neither answered nor forwarded; when false, the
	// second must be answered Then.Status and reach the upstream as
	// Then.Forwarded.
	Closes bool
	Then   *Want
}

func refused(status int, code string) Want { return Want{Status: status, Code: code} }
func front(status int) Want                { return Want{Status: status} }
func forwarded(status int, uri string) Want {
	return Want{Status: status, Forwarded: uri}
}

// Attack is one hostile request, written as raw HTTP/1.1 so that its bytes
// reach the host exactly as given. In Target and Headers, {origin} and
// {key} are replaced by the target's origin and Key.
type Attack struct {
	Name    string
	Method  string
	Target  string   // request-target, exactly as sent
	Host    string   // the Host header; "" means the target's own address
	Headers []string // header lines without CRLF; Host and Connection are added
	Body    string
	// BodySize, when positive, makes the body that many bytes (Body
	// followed by filler) sent with Content-Length, or chunked when
	// Chunked is set.
	BodySize int
	Chunked  bool
	// RawBody, when set, follows the headers verbatim, with no length
	// header added.
	RawBody string
	// Pipelined, when set, is a second request written on the same
	// connection right behind this one (HTTP/1.1 pipelining), which then
	// goes without Connection: close. It is rendered like any attack, and
	// its own expectations are the Want's Closes and Then.
	Pipelined *Attack
	// Unsettling marks an attack after which wrangler dev's front may
	// fail its next request to the Worker: a scheme-relative target
	// (//evil.example/…), which the front answers itself and workerd then
	// logs as an uncaught "invalid URL" exception. The next POST once got
	// the front's 503 "Your worker restarted mid-request". The table calls
	// Target.Settle after it, as after an upload.
	Unsettling bool
	Native     Want
	Serve      Want // when zero, Native applies
	Workerd    Want
}

// want returns the expected outcome on layer l.
func (a Attack) want(l Layer) Want {
	switch {
	case l == Workerd:
		return a.Workerd
	case l == Serve && a.Serve.Status != 0:
		return a.Serve
	}
	return a.Native
}

const (
	mp      = "/api/llm/openrouter/"
	jsonCT  = "Content-Type: application/json"
	okBody  = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"` + BodySentinel + `"}]}`
	capSize = 4<<20 + 1 // proxy.DefaultMaxBody + 1, literal so that this package stays independent of the one it tests
)

// Attacks is the hostile-request table. Every entry is refused or, where a
// layer's URL parser normalizes it, forwarded only to a canonical path
// under /api/v1/.
func Attacks() []Attack {
	both := func(w Want) (Want, Want) { return w, w }
	std := []string{"Origin: {origin}", "Authorization: {key}"}
	post := []string{"Origin: {origin}", "Authorization: {key}", jsonCT}
	a := func(name, method, target string, headers []string, native, workerd Want) Attack {
		return Attack{Name: name, Method: method, Target: target, Headers: headers, Native: native, Workerd: workerd}
	}
	pathBad := refused(400, "path_invalid")
	list := []Attack{
		// Traversal, plain and in every encoding.
		// workerd resolves dot segments as a browser does; what leaves
		// /api/ is the static site's, which answers with index.html.
		a("dotdot", "GET", mp+"../../../etc/passwd", std, pathBad, front(200)),
		a("dotdot-inside", "GET", mp+"chat/../key", std, pathBad, forwarded(200, "/api/v1/key")),
		a("dot", "GET", mp+"./key", std, pathBad, forwarded(200, "/api/v1/key")),
		a("pct-dotdot", "GET", mp+"%2e%2e/%2e%2e/%2e%2e/x", std, pathBad, front(200)),
		a("pct-dotdot-upper", "GET", mp+"%2E%2E/key", std, pathBad, refused(404, "not_found")),
		a("pct-dot", "GET", mp+"%2e/key", std, pathBad, forwarded(200, "/api/v1/key")),
		a("double-pct-dotdot", "GET", mp+"%252e%252e/%252e%252e/key", std, pathBad, pathBad),
		a("dotdot-pct-slash", "GET", mp+"..%2f..%2f..%2fkey", std, pathBad, pathBad),
		a("pct-slash", "GET", mp+"chat%2fcompletions", std, pathBad, pathBad),
		a("double-pct-slash", "GET", mp+"..%252f..%252fkey", std, pathBad, pathBad),
		a("backslash", "GET", mp+`..\..\key`, std, pathBad, refused(404, "not_found")),
		a("pct-backslash", "GET", mp+"..%5c..%5ckey", std, pathBad, pathBad),
		a("overlong-utf8-dot", "GET", mp+"%c0%ae%c0%ae/key", std, pathBad, pathBad),
		a("fullwidth-dot", "GET", mp+"\xef\xbc\x8e\xef\xbc\x8e/key", std, pathBad, pathBad),
		a("semicolon", "GET", mp+"key;x=..", std, pathBad, pathBad),
		a("pct-nul", "GET", mp+"key%00.json", std, pathBad, pathBad),
		a("raw-nul", "GET", mp+"key\x00", std, front(400), front(400)),
		a("pct-crlf", "GET", mp+"key%0d%0aHost:%20evil.example", std, pathBad, pathBad),
		// Another host smuggled into the path.
		a("double-slash-host", "GET", mp+"/evil.example/api/v1/key", std, pathBad, pathBad),
		a("at-host", "GET", mp+"@evil.example/key", std, pathBad, pathBad),
		a("userinfo", "GET", mp+"key@evil.example", std, pathBad, pathBad),
		a("absolute-url-in-path", "GET", mp+"https://evil.example/api/v1/key", std, pathBad, pathBad),
		// The static site redirects this to the same-origin path
		// /evil.example/…; RunAttacks checks no redirect leaves the origin.
		{Name: "scheme-relative-target", Method: "GET", Target: "//evil.example" + mp + "key", Headers: std, Unsettling: true,
			Native: refused(404, "not_found"), Serve: front(200), Workerd: front(307)},
		// An absolute-form request-target names a host, which takes the
		// place of Host (RFC 9112 §3.2.2): not the workbench's own.
		// (wrangler dev's local front refuses it outright.)
		a("absolute-form-target", "GET", "http://evil.example"+mp+"key", std, refused(421, "host_forbidden"), front(500)),
		// Paths outside the mount or without an endpoint.
		a("prefix-confusion", "GET", "/api/llm/openrouterx/key", std, refused(404, "not_found"), refused(404, "not_found")),
		a("mount-only", "GET", mp, std, refused(404, "not_found"), refused(404, "not_found")),
		a("trailing-slash", "GET", mp+"models/", std, pathBad, pathBad),
		a("overlong-path", "GET", mp+strings.Repeat("a", 3000), std, refused(414, "uri_too_long"), refused(414, "uri_too_long")),
		a("query-raw-quote", "GET", mp+`key?x="<script>`, std, refused(400, "query_invalid"), forwarded(200, "/api/v1/key?x=%22%3Cscript%3E")),
		// Header smuggling.
		a("duplicate-authorization", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: {key}", "Authorization: Bearer sk-or-v1-other"}, refused(400, "header_invalid"), refused(400, "header_invalid")),
		a("comma-authorization", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: Bearer a,Bearer b"}, refused(400, "header_invalid"), refused(400, "header_invalid")),
		a("duplicate-content-type", "POST", mp+"chat/completions", []string{"Origin: {origin}", "Authorization: {key}", jsonCT, "Content-Type: text/plain"}, refused(400, "header_invalid"), refused(400, "header_invalid")),
		a("duplicate-referer", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: {key}", "HTTP-Referer: http://a.example/", "HTTP-Referer: http://b.example/"}, refused(400, "header_invalid"), refused(400, "header_invalid")),
		// Go's server refuses a bare CR; wrangler dev's front ends the
		// line there, so the handler sees "Bearer k" and a separate
		// X-Injected header, which it drops.
		a("bare-cr-in-authorization", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: Bearer k\rX-Injected: 1"}, front(400), forwarded(200, "/api/v1/key")),
		a("obs-fold-authorization", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: Bearer k", " X-Injected: 1"}, refused(400, "header_invalid"), front(400)),
		a("basic-authorization", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: Basic dXNlcjpwYXNz"}, refused(400, "header_invalid"), refused(400, "header_invalid")),
		a("non-ascii-authorization", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: Bearer k\xff\xfe"}, refused(400, "header_invalid"), refused(400, "header_invalid")),
		// A value over the 8 KiB cap, however well-formed.
		a("oversized-authorization", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: Bearer " + strings.Repeat("k", 8<<10)}, refused(431, "header_too_large"), refused(431, "header_too_large")),
		a("oversized-referer", "GET", mp+"key", []string{"Origin: {origin}", "Authorization: {key}", "HTTP-Referer: {origin}/" + strings.Repeat("r", 8<<10)}, refused(431, "header_too_large"), refused(431, "header_too_large")),
		// Origin: missing, null, foreign, lookalike, repeated.
		a("no-origin-post", "POST", mp+"chat/completions", []string{"Authorization: {key}", jsonCT}, refused(403, "origin_missing"), refused(403, "origin_missing")),
		a("no-origin-get", "GET", mp+"key", []string{"Authorization: {key}"}, refused(403, "origin_missing"), refused(403, "origin_missing")),
		a("no-origin-cross-site-get", "GET", mp+"key", []string{"Authorization: {key}", "Sec-Fetch-Site: cross-site"}, refused(403, "origin_missing"), refused(403, "origin_missing")),
		a("no-origin-same-origin-post", "POST", mp+"chat/completions", []string{"Authorization: {key}", jsonCT, "Sec-Fetch-Site: same-origin"}, refused(403, "origin_missing"), refused(403, "origin_missing")),
		a("null-origin", "GET", mp+"key", []string{"Origin: null", "Authorization: {key}"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("foreign-origin", "POST", mp+"chat/completions", []string{"Origin: https://evil.example", "Authorization: {key}", jsonCT}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("foreign-origin-same-site-claim", "GET", mp+"key", []string{"Origin: https://evil.example", "Authorization: {key}", "Sec-Fetch-Site: same-origin"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("origin-trailing-slash", "GET", mp+"key", []string{"Origin: {origin}/", "Authorization: {key}"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("origin-suffix", "GET", mp+"key", []string{"Origin: {origin}.evil.example", "Authorization: {key}"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("origin-upper-case", "GET", mp+"key", []string{"Origin: {ORIGIN}", "Authorization: {key}"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		a("two-origins", "GET", mp+"key", []string{"Origin: {origin}", "Origin: {origin}", "Authorization: {key}"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		// DNS rebinding: a page on evil.example, its name now resolving to
		// the proxy's address, is same-origin with itself; its GET carries
		// no Origin and the browser's own Sec-Fetch-Site: same-origin.
		// Only the Host gives it away.
		{Name: "dns-rebinding-get", Method: "GET", Target: mp + "key", Host: "evil.example:{port}", Headers: []string{"Authorization: {key}", "Sec-Fetch-Site: same-origin"},
			Native: refused(421, "host_forbidden"), Workerd: refused(421, "host_forbidden")},
		{Name: "dns-rebinding-post", Method: "POST", Target: mp + "chat/completions", Host: "evil.example:{port}", Headers: []string{"Origin: http://evil.example:{port}", "Authorization: {key}", jsonCT},
			Native: refused(421, "host_forbidden"), Workerd: refused(421, "host_forbidden")},
		// The right name on another port is another origin.
		{Name: "host-other-port", Method: "GET", Target: mp + "key", Host: "127.0.0.1:1", Headers: []string{"Authorization: {key}", "Sec-Fetch-Site: same-origin"},
			Native: refused(421, "host_forbidden"), Workerd: refused(421, "host_forbidden")},
		// One route written through another. Go's server routes the
		// decoded path, which has a dot segment: the relay's route
		// refuses it, the bare proxy does not know the path. workerd
		// resolves "%2e%2e" before any Worker code runs, so the Worker
		// sees, routes and checks the canonical proxy request.
		{Name: "cross-route-from-relay", Method: "GET", Target: "/api/mcp/%2e%2e/llm/openrouter/key", Headers: std,
			Native: refused(404, "not_found"), Serve: pathBad, Workerd: forwarded(200, "/api/v1/key")},
		a("cross-origin-preflight", "OPTIONS", mp+"chat/completions", []string{"Origin: https://evil.example", "Access-Control-Request-Method: POST", "Access-Control-Request-Headers: authorization, content-type"}, refused(403, "origin_forbidden"), refused(403, "origin_forbidden")),
		// Methods.
		a("put", "PUT", mp+"key", std, refused(405, "method_not_allowed"), refused(405, "method_not_allowed")),
		a("delete", "DELETE", mp+"keys/abc", std, refused(405, "method_not_allowed"), refused(405, "method_not_allowed")),
		a("patch", "PATCH", mp+"key", std, refused(405, "method_not_allowed"), refused(405, "method_not_allowed")),
		a("trace", "TRACE", mp+"key", std, refused(405, "method_not_allowed"), refused(405, "method_not_allowed")),
		a("head", "HEAD", mp+"key", std, refused(405, ""), refused(405, "")),
		// Bodies.
		a("text-plain-post", "POST", mp+"chat/completions", []string{"Origin: {origin}", "Authorization: {key}", "Content-Type: text/plain"}, refused(415, "unsupported_media"), refused(415, "unsupported_media")),
		a("form-post", "POST", mp+"chat/completions", []string{"Origin: {origin}", "Authorization: {key}", "Content-Type: application/x-www-form-urlencoded"}, refused(415, "unsupported_media"), refused(415, "unsupported_media")),
		a("no-content-type-post", "POST", mp+"chat/completions", std, refused(415, "unsupported_media"), refused(415, "unsupported_media")),
	}
	for i := range list {
		if list[i].Method == "POST" && list[i].Body == "" {
			list[i].Body = okBody
		}
	}
	n, w := both(refused(413, "body_too_large"))
	list = append(list,
		Attack{Name: "oversized-body", Method: "POST", Target: mp + "chat/completions", Headers: post, Body: okBody, BodySize: capSize, Native: n, Workerd: w},
		Attack{Name: "oversized-chunked-body", Method: "POST", Target: mp + "chat/completions", Headers: post, Body: okBody, BodySize: capSize, Chunked: true, Native: n, Workerd: w},
		Attack{Name: "cl-and-te", Method: "POST", Target: mp + "chat/completions", Headers: slices.Concat(post, []string{"Content-Length: 4", "Transfer-Encoding: chunked"}), RawBody: "2\r\n{}\r\n0\r\n\r\n",
			// Transfer-Encoding wins (RFC 9112 §6.3); the proxy re-frames
			// the body it forwards, so nothing is smuggled either way.
			Native: forwarded(200, "/api/v1/chat/completions"), Workerd: forwarded(200, "/api/v1/chat/completions")},
		Attack{Name: "get-with-body", Method: "GET", Target: mp + "key", Headers: std, Body: BodySentinel, Native: refused(400, "body_invalid"), Workerd: refused(400, "body_invalid")},
		clAndTEPipelined(mp+"chat/completions", post, "{}", "/api/v1/chat/completions", &Attack{Method: "GET", Target: mp + "key", Headers: std}, "/api/v1/key"),
	)
	return list
}

// clAndTEPipelined is request smuggling's opening move: a POST of body
// to target carrying both framings (Content-Length and Transfer-Encoding:
// chunked), then next on the same kept-alive connection. Whoever reads
// the first body by the other framing puts a request boundary elsewhere;
// RFC 9112 §6.1 has the server close the connection after such a
// request. Go's server does only when told to: workbench serve does, and
// the bare handlers' host (proxy.CloseAfterChunked). The first request
// reaches the server behind as first; next, where it is answered, as
// then.
//
// wrangler dev (workerd 1.20260426) frames the first body by
// Transfer-Encoding, as the RFC asks, but keeps the connection and
// answers next as a request of its own: that is its behaviour, recorded
// in the Workerd column. Connections belong to the runtime there, not to
// the Worker; in production, to Cloudflare's edge (not measured).
func clAndTEPipelined(target string, headers []string, body, first string, next *Attack, then string) Attack {
	return Attack{Name: "cl-and-te-pipelined", Method: "POST", Target: target,
		Headers: slices.Concat(headers, []string{"Content-Length: 4", "Transfer-Encoding: chunked"}),
		RawBody: fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body), Pipelined: next,
		Native:  Want{Status: 200, Forwarded: first, Closes: true},
		Workerd: Want{Status: 200, Forwarded: first, Then: &Want{Status: 200, Forwarded: then}}}
}

// Response is a response read off the wire.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	Close  bool // the response said Connection: close (which net/http takes out of Header)
}

// sendPipelined writes raw to addr and reads one response, and then,
// when method2 is not "", the response to the pipelined second request:
// nil when the host closed the connection instead.
func sendPipelined(addr, method, method2 string, raw []byte) (first, second *Response, err error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	// A host may answer before it has read an oversized body and then
	// close; write concurrently so the answer is still read.
	go c.Write(raw)
	br := bufio.NewReader(c)
	read := func(method string) (*Response, error) {
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("reading the body: %w", err)
		}
		return &Response{resp.StatusCode, resp.Header, body, resp.Close}, nil
	}
	if first, err = read(method); err != nil || method2 == "" {
		return first, nil, err
	}
	second, err = read(method2)
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) {
		return first, nil, nil // closed
	}
	return first, second, err
}

func (tg Target) expand(s string) string {
	_, port, _ := net.SplitHostPort(tg.Addr)
	return strings.NewReplacer("{origin}", tg.Origin, "{ORIGIN}", strings.ToUpper(tg.Origin), "{key}", Key, "{port}", port).Replace(s)
}

// raw renders a as bytes on the wire, and its Pipelined request after
// it.
func (tg Target) raw(a Attack) []byte {
	if a.Pipelined == nil {
		return tg.render(a, "Connection: close\r\n")
	}
	return append(tg.render(a, ""), tg.render(*a.Pipelined, "Connection: close\r\n")...)
}

// render renders one request, conn (a header line with its CRLF, or "")
// ending its headers.
func (tg Target) render(a Attack, conn string) []byte {
	var b bytes.Buffer
	host := tg.Addr
	if a.Host != "" {
		host = tg.expand(a.Host)
	}
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", a.Method, tg.expand(a.Target), host)
	for _, h := range a.Headers {
		b.WriteString(tg.expand(h))
		b.WriteString("\r\n")
	}
	body := []byte(a.Body)
	if a.BodySize > len(body) {
		body = append(body, bytes.Repeat([]byte("x"), a.BodySize-len(body))...)
	}
	switch {
	case a.RawBody != "":
		b.WriteString(conn + "\r\n")
		b.WriteString(a.RawBody)
	case a.Chunked:
		b.WriteString("Transfer-Encoding: chunked\r\n" + conn + "\r\n")
		for len(body) > 0 {
			n := min(len(body), 64<<10)
			fmt.Fprintf(&b, "%x\r\n", n)
			b.Write(body[:n])
			b.WriteString("\r\n")
			body = body[n:]
		}
		b.WriteString("0\r\n\r\n")
	case len(body) > 0:
		fmt.Fprintf(&b, "Content-Length: %d\r\n%s\r\n", len(body), conn)
		b.Write(body)
	default:
		b.WriteString(conn + "\r\n")
	}
	return b.Bytes()
}

// side names, for failure messages, the host under test and the server
// behind it.
type side struct{ host, server string }

// RunAttacks sends every attack of Attacks to tg and checks the outcome on
// tg.Layer, then checks that the upstream never received a request outside
// a canonical /api/v1/ path.
func RunAttacks(t *testing.T, tg Target) {
	runAttackTable(t, tg, &tg.Upstream.recording, side{"proxy", "upstream"}, Attacks(), func(t *testing.T, _ *Response, got []Received) {
		for _, r := range got {
			tg.checkOnlyAllowedHeaders(t, r, "X-Injected", "evil.example")
		}
	})
	for _, r := range tg.Upstream.Requests() {
		if !canonicalUpstreamPath(r.RequestURI) {
			t.Errorf("upstream received %s %q, outside a canonical /api/v1/ path", r.Method, r.RequestURI)
		}
	}
}

// runAttackTable sends each attack to tg and checks the outcome on
// tg.Layer: the status, the error code, what rec (the server behind tg)
// received — nothing, or exactly the request the layer normalized the
// attack into — and that the answer neither leaks a header nor redirects
// off the origin. check adds what depends on the host.
func runAttackTable(t *testing.T, tg Target, rec *recording, sd side, attacks []Attack, check func(t *testing.T, resp *Response, got []Received)) {
	for _, a := range attacks {
		t.Run(a.Name, func(t *testing.T) {
			if a.BodySize > 0 || a.Unsettling {
				defer tg.settle(t)
			}
			want := a.want(tg.Layer)
			mark := rec.Len()
			method2 := ""
			if a.Pipelined != nil {
				method2 = a.Pipelined.Method
			}
			resp, second, err := sendPipelined(tg.Addr, a.Method, method2, tg.raw(a))
			if err != nil {
				t.Fatalf("%s %q: %v", a.Method, a.Target, err)
			}
			got := rec.Requests()[mark:]
			if a.Pipelined != nil {
				got = checkPipelined(t, want, resp, second, got, sd)
			}
			t.Logf("%s %.80q → %d %.200s", a.Method, a.Target, resp.Status, resp.Body)
			if resp.Status != want.Status {
				t.Errorf("status %d, want %d; body %.300s", resp.Status, want.Status, resp.Body)
			}
			if want.Code != "" {
				if code := errorCode(resp); code != want.Code {
					t.Errorf("error code %q, want %q; body %.300s", code, want.Code, resp.Body)
				}
			}
			switch {
			case want.Forwarded == "" && len(got) > 0:
				t.Errorf("reached the %s at %q; it must not", sd.server, got[0].RequestURI)
			case want.Forwarded != "" && (len(got) != 1 || got[0].RequestURI != want.Forwarded):
				t.Errorf("%s received %v, want exactly %q", sd.server, uris(got), want.Forwarded)
			}
			checkNoLeakyHeaders(t, resp.Header)
			if want.Code != "" {
				// The handler's own answer: never a page.
				checkAPIHeaders(t, resp.Header)
			}
			if loc := resp.Header.Get("Location"); loc != "" && (!strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\")) {
				t.Errorf("redirects off the origin: Location %q", loc)
			}
			check(t, resp, got)
		})
	}
}

// checkPipelined checks the second of two pipelined requests against
// want: closed (no answer, nothing forwarded, and the first answer says
// Connection: close) or answered and forwarded as want.Then says. It
// returns what the server received for the first request, for the
// table's usual checks.
func checkPipelined(t *testing.T, want Want, first, second *Response, got []Received, sd side) []Received {
	t.Helper()
	switch {
	case want.Closes && second != nil:
		t.Errorf("the %s answered the pipelined request (%d %.200s) on the connection it should have closed", sd.host, second.Status, second.Body)
	case want.Closes && !first.Close:
		t.Errorf("the first answer does not say Connection: close")
	case want.Closes:
		t.Logf("the %s answered the first request with Connection: close and closed the connection", sd.host)
	case second == nil:
		t.Errorf("the %s closed the connection; want the pipelined request answered %d", sd.host, want.Then.Status)
	case second.Status != want.Then.Status:
		t.Errorf("pipelined request: status %d, want %d; body %.300s", second.Status, want.Then.Status, second.Body)
	default:
		t.Logf("the %s kept the connection and answered the pipelined request %d", sd.host, second.Status)
	}
	var wantSecond string
	if !want.Closes && want.Then != nil {
		wantSecond = want.Then.Forwarded
	}
	switch {
	case wantSecond == "" && len(got) > 1:
		t.Errorf("the pipelined request reached the %s at %q", sd.server, got[1].RequestURI)
		return got[:1]
	case wantSecond != "" && (len(got) != 2 || got[1].RequestURI != wantSecond):
		t.Errorf("%s received %v, want the pipelined request as %q second", sd.server, uris(got), wantSecond)
	}
	if len(got) > 1 {
		return got[:1]
	}
	return got
}

// checkOnlyAllowedHeaders fails if r carries a header other than the three
// forwarded ones and tg's transport headers, or a value containing any of
// the given sentinels.
func (tg Target) checkOnlyAllowedHeaders(t *testing.T, r Received, sentinels ...string) {
	t.Helper()
	allowed := append([]string{"Authorization", "Content-Type", "Http-Referer"}, tg.TransportHeaders...)
	checkOnlyHeaders(t, "upstream", r, allowed, "", sentinels...)
}

// checkOnlyHeaders fails if r, as server received it, carries a header
// not in allowed, or a value containing any of sentinels; the value of
// the header named exempt is not searched (where it is allowed, it is a
// token checked byte for byte).
func checkOnlyHeaders(t *testing.T, server string, r Received, allowed []string, exempt string, sentinels ...string) {
	t.Helper()
	for k, vs := range r.Header {
		if !slices.Contains(allowed, k) {
			t.Errorf("%s received header %s: %q; only %v may arrive", server, k, vs, allowed)
		}
		if k == exempt {
			continue
		}
		for _, v := range vs {
			for _, s := range sentinels {
				if strings.Contains(v, s) {
					t.Errorf("%s header %s carries %q", server, k, s)
				}
			}
		}
	}
}

// merged is the union of ms, a later map's value winning.
func merged(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func uris(rs []Received) []string {
	var s []string
	for _, r := range rs {
		s = append(s, r.RequestURI)
	}
	return s
}

func errorCode(r *Response) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(r.Body, &e) != nil {
		return ""
	}
	return e.Error.Code
}

// checkNoLeakyHeaders fails if a response carries anything that would let
// another origin read it or that the upstream meant for itself.
func checkNoLeakyHeaders(t *testing.T, h http.Header) {
	t.Helper()
	for k := range h {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "access-control-") || lk == "set-cookie" || lk == strings.ToLower(PrivateHeader) {
			t.Errorf("response carries %s: %q", k, h[k])
		}
	}
}

// client is an HTTP client for the ordinary flows: no redirects followed,
// no connection reuse surprises.
func client() *http.Client {
	return &http.Client{
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{DisableCompression: true},
	}
}

func (tg Target) do(t *testing.T, method, path string, hdr map[string]string, body string) *Response {
	t.Helper()
	resp := tg.roundTrip(t, method, path, hdr, body)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return &Response{resp.StatusCode, resp.Header, b, resp.Close}
}

// roundTrip sends method path through tg with the headers hdr (each
// name as given) and body, and returns the response with its body unread,
// for the caller to close.
func (tg Target) roundTrip(t *testing.T, method, path string, hdr map[string]string, body string) *http.Response {
	t.Helper()
	resp, err := tg.send(t, method, path, hdr, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// send is roundTrip returning the client's error instead of failing t.
func (tg Target) send(t *testing.T, method, path string, hdr map[string]string, body string) (*http.Response, error) {
	t.Helper()
	var br io.Reader
	if body != "" {
		br = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, "http://"+tg.Addr+path, br)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = []string{v}
	}
	return client().Do(req)
}

// RunForwarding checks the ordinary flows end to end: what the upstream
// receives (only the three headers, Authorization byte for byte, whatever
// else the client sent) and what the client gets back (status, body and
// the allowed headers; no cookie, no CORS grant, no private header).
func RunForwarding(t *testing.T, tg Target) {
	referer := "http://" + tg.Addr + "/skills/0190b3c2-aaaa/replay?x=1&y=%2C"
	junk := map[string]string{
		"Cookie":              "session=COOKIE-SENTINEL",
		"X-Forwarded-For":     "203.0.113.9",
		"X-Real-Ip":           "203.0.113.9",
		"Forwarded":           "for=203.0.113.9;host=evil.example",
		"Cf-Connecting-Ip":    "203.0.113.9",
		"Cf-Ipcountry":        "XX",
		"Cf-Ray":              "JUNK-RAY",
		"X-Api-Key":           "APIKEY-SENTINEL",
		"Proxy-Authorization": "Basic UFJPWFktU0VOVElORUw=",
		"X-Title":             "TITLE-SENTINEL",
		"Referer":             "http://evil.example/REFERER-SENTINEL",
		"User-Agent":          "UA-SENTINEL",
		"Accept":              "text/event-stream",
		"Accept-Language":     "xx-SENTINEL",
		"X-Custom":            "CUSTOM-SENTINEL",
		"Sec-Fetch-Site":      "same-origin",
	}
	sentinels := []string{"COOKIE-SENTINEL", "203.0.113.9", "JUNK-RAY", "APIKEY-SENTINEL", "UFJPWFktU0VOVElORUw=",
		"TITLE-SENTINEL", "REFERER-SENTINEL", "UA-SENTINEL", "xx-SENTINEL", "CUSTOM-SENTINEL", "evil.example", "XX"}

	checkReceived := func(t *testing.T, r Received, contentType string) {
		t.Helper()
		if got := r.Header.Values("Authorization"); len(got) != 1 || got[0] != Key {
			t.Errorf("upstream Authorization %q, want exactly %q", got, Key)
		}
		if got := r.Header.Values("Http-Referer"); len(got) != 1 || got[0] != referer {
			t.Errorf("upstream HTTP-Referer %q, want %q", got, referer)
		}
		if contentType != "" {
			if got := r.Header.Values("Content-Type"); len(got) != 1 || got[0] != contentType {
				t.Errorf("upstream Content-Type %q, want %q", got, contentType)
			}
		}
		tg.checkOnlyAllowedHeaders(t, r, sentinels...)
	}
	checkResponse := func(t *testing.T, resp *Response, wantStatus int) {
		t.Helper()
		if resp.Status != wantStatus {
			t.Fatalf("status %d, want %d; body %.300s", resp.Status, wantStatus, resp.Body)
		}
		if !bytes.Contains(resp.Body, []byte(ResponseSentinel)) {
			t.Errorf("body %.300s lacks the upstream's body", resp.Body)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q, want the upstream's application/json", ct)
		}
		if cc := strings.Join(resp.Header.Values("Cache-Control"), ", "); cc != "no-cache, no-store" {
			t.Errorf("Cache-Control %q, want the upstream's %q", cc, "no-cache, no-store")
		}
		checkNoLeakyHeaders(t, resp.Header)
	}
	withJunk := func(extra map[string]string) map[string]string {
		return merged(map[string]string{"Authorization": Key, "Http-Referer": referer}, junk, extra)
	}

	t.Run("get-key", func(t *testing.T) {
		mark := tg.Upstream.Len()
		resp := tg.do(t, "GET", mp+"key", withJunk(map[string]string{"Origin": tg.Origin}), "")
		checkResponse(t, resp, 200)
		got := tg.Upstream.Requests()[mark:]
		if len(got) != 1 || got[0].Method != "GET" || got[0].RequestURI != "/api/v1/key" {
			t.Fatalf("upstream received %v, want GET /api/v1/key", uris(got))
		}
		checkReceived(t, got[0], "")
	})
	t.Run("same-origin-get-without-origin", func(t *testing.T) {
		// What a browser sends for fetch("/api/llm/openrouter/models").
		mark := tg.Upstream.Len()
		resp := tg.do(t, "GET", mp+"models?supported_parameters=tools", withJunk(nil), "")
		checkResponse(t, resp, 200)
		got := tg.Upstream.Requests()[mark:]
		if len(got) != 1 || got[0].RequestURI != "/api/v1/models?supported_parameters=tools" {
			t.Fatalf("upstream received %v, want /api/v1/models?supported_parameters=tools", uris(got))
		}
		checkReceived(t, got[0], "")
	})
	t.Run("post-chat-completion", func(t *testing.T) {
		mark := tg.Upstream.Len()
		ct := "application/json; charset=utf-8"
		resp := tg.do(t, "POST", mp+"chat/completions", withJunk(map[string]string{"Origin": tg.Origin, "Content-Type": ct}), okBody)
		checkResponse(t, resp, 200)
		got := tg.Upstream.Requests()[mark:]
		if len(got) != 1 || got[0].Method != "POST" || got[0].RequestURI != "/api/v1/chat/completions" {
			t.Fatalf("upstream received %v, want POST /api/v1/chat/completions", uris(got))
		}
		checkReceived(t, got[0], ct)
		var names []string
		for k := range got[0].Header {
			names = append(names, k)
		}
		slices.Sort(names)
		t.Logf("%s: the upstream received only %v", tg.Layer, names)
		if string(got[0].Body) != okBody {
			t.Errorf("upstream body %q, want %q", got[0].Body, okBody)
		}
	})
	t.Run("upstream-error-passed-through", func(t *testing.T) {
		resp := tg.do(t, "GET", mp+"no-such-endpoint", map[string]string{"Origin": tg.Origin, "Authorization": Key}, "")
		if resp.Status != 404 || !bytes.Contains(resp.Body, []byte(`"Not Found"`)) {
			t.Errorf("got %d %.200s, want the upstream's 404", resp.Status, resp.Body)
		}
		checkNoLeakyHeaders(t, resp.Header)
	})
	t.Run("redirect-not-followed", func(t *testing.T) {
		// The key must not follow a redirect anywhere, not even back
		// to the upstream's own host: each status that keeps or drops
		// the method is a 502, and /stolen is never asked for.
		for _, code := range []string{"302", "307", "308"} {
			mark := tg.Upstream.Len()
			resp := tg.do(t, "GET", mp+"redirect/"+code, map[string]string{"Origin": tg.Origin, "Authorization": Key}, "")
			if resp.Status != 502 || errorCode(resp) != "upstream_redirect" {
				t.Errorf("%s: got %d %.200s, want 502 upstream_redirect", code, resp.Status, resp.Body)
			}
			if resp.Header.Get("Location") != "" {
				t.Errorf("%s: Location %q passed back", code, resp.Header.Get("Location"))
			}
			checkAPIHeaders(t, resp.Header)
			if got := tg.Upstream.Requests()[mark:]; len(got) != 1 {
				t.Errorf("%s: upstream received %v, want one request (no redirect followed)", code, uris(got))
			}
		}
	})
	t.Run("same-origin-options", func(t *testing.T) {
		mark := tg.Upstream.Len()
		resp := tg.do(t, "OPTIONS", mp+"chat/completions", map[string]string{"Origin": tg.Origin}, "")
		if resp.Status != 204 {
			t.Errorf("status %d, want 204", resp.Status)
		}
		if got := resp.Header.Get("Allow"); got != "GET, POST, OPTIONS" {
			t.Errorf("Allow %q", got)
		}
		checkNoLeakyHeaders(t, resp.Header)
		if tg.Upstream.Len() != mark {
			t.Errorf("OPTIONS reached the upstream")
		}
	})
	t.Run("body-at-cap", func(t *testing.T) {
		// The largest body allowed passes whole.
		body := okBody[:len(okBody)-1] + strings.Repeat(" ", capSize-1-len(okBody)) + "}"
		mark := tg.Upstream.Len()
		resp := tg.do(t, "POST", mp+"chat/completions", map[string]string{"Origin": tg.Origin, "Authorization": Key, "Content-Type": "application/json"}, body)
		if resp.Status != 200 {
			t.Fatalf("status %d for a body of exactly the cap; body %.200s", resp.Status, resp.Body)
		}
		got := tg.Upstream.Requests()[mark:]
		if len(got) != 1 || len(got[0].Body) != capSize-1 {
			t.Errorf("upstream received %d requests, want 1 with %d bytes", len(got), capSize-1)
		}
	})
}

// SSETiming is how long each streamed event took from leaving the upstream
// to reaching the client.
type SSETiming []time.Duration

// RunSSE streams a chat completion through tg in lockstep with the
// upstream: the upstream sends event i+1 only after the client has read
// event i. A proxy that buffers the stream stalls the upstream, which the
// test reports; no timing threshold is involved. It returns the per-event
// delivery delay.
func RunSSE(t *testing.T, tg Target) SSETiming {
	t.Helper()
	return runSSE(t, tg, 0)
}

// RunSSEPaced is RunSSE with the client waiting pace before it lets the
// upstream send each event: a stream that keeps moving but lasts
// Events×pace in all, which a host must not cut for its length.
func RunSSEPaced(t *testing.T, tg Target, pace time.Duration) {
	t.Helper()
	runSSE(t, tg, pace)
}

func runSSE(t *testing.T, tg Target, pace time.Duration) SSETiming {
	t.Helper()
	body := `{"model":"openai/gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"` + BodySentinel + `"}]}`
	stalls := tg.Upstream.Stalls()
	resp := tg.openStream(t, "POST", mp+"chat/completions",
		map[string]string{"Origin": tg.Origin, "Authorization": Key, "Content-Type": "application/json"}, body)
	defer resp.Body.Close()
	checkNoLeakyHeaders(t, resp.Header)
	var content strings.Builder
	d := readLockstep(t, tg.Layer, &tg.Upstream.recording, side{"proxy", "upstream"}, stalls, pace, resp.Body, func(i int, ev string) {
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		data, ok := strings.CutPrefix(strings.TrimSpace(ev), "data: ")
		if !ok || json.Unmarshal([]byte(data), &chunk) != nil || len(chunk.Choices) != 1 {
			t.Fatalf("event %d %q is not a completion chunk", i, ev)
		}
		content.WriteString(chunk.Choices[0].Delta.Content)
	}, "data: [DONE]")
	if want := "part0 part1 part2 part3 part4 "; content.String() != want {
		t.Errorf("streamed content %q, want %q", content.String(), want)
	}
	return d
}

// openStream sends a request through tg that must be answered 200 with
// an event stream, and returns the response with its body unread, for
// the caller to close.
func (tg Target) openStream(t *testing.T, method, path string, hdr map[string]string, body string) *http.Response {
	t.Helper()
	resp := tg.roundTrip(t, method, path, hdr, body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("status %d, Content-Type %q, body %.300s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return resp
}

// readLockstep reads from body a stream that rec sends in lockstep with
// the client (see recording.lockstep): the opening comment, Events events
// handed to event, then end unless it is "". It fails t if rec stalled
// since it counted stalls, which means the host in between buffers the
// stream, and returns each event's delivery delay: from when rec began
// writing it to when the client had read it.
func readLockstep(t *testing.T, layer Layer, rec *recording, sd side, stalls int, pace time.Duration, body io.Reader, event func(i int, ev string), end string) SSETiming {
	t.Helper()
	br := bufio.NewReader(body)
	var arrived []time.Time
	readEvent := func() string {
		var ev strings.Builder
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("stream ended after %d events: %v", len(arrived), err)
			}
			if line == "\n" {
				return ev.String()
			}
			ev.WriteString(line)
		}
	}
	if c := readEvent(); !strings.HasPrefix(c, ":") {
		t.Fatalf("first event %q, want the %s's comment", c, sd.server)
	}
	arrived = append(arrived, time.Now())
	for i := 0; i < Events; i++ {
		time.Sleep(pace)
		rec.Release()
		ev := readEvent()
		arrived = append(arrived, time.Now())
		event(i, ev)
	}
	if end != "" {
		if ev := readEvent(); strings.TrimSpace(ev) != end {
			t.Fatalf("last event %q, want %q", ev, end)
		}
		arrived = append(arrived, time.Now())
	}
	if n := rec.Stalls() - stalls; n > 0 {
		t.Errorf("the %s stalled %d times waiting for the client to see an event: the %s buffers the stream", sd.server, n, sd.host)
	}
	flushed := rec.Flushed()
	if len(flushed) != len(arrived) {
		t.Fatalf("%s flushed %d events, client read %d", sd.server, len(flushed), len(arrived))
	}
	var d SSETiming
	for i := range flushed {
		d = append(d, arrived[i].Sub(flushed[i]))
	}
	t.Logf("%s: per-event delivery delay (%s flush → client read): %v", layer, sd.server, d)
	return d
}
