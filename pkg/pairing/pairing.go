// Package pairing is the guard in front of the bodies a visitor runs on
// their own machine for a deployed workbench page (`workbench bodies`):
// the page talks MCP to http://127.0.0.1:PORT/mcp/<name> directly, and
// this handler lets that one page in and nothing else.
//
// A request is answered only when all of these hold, checked in this
// order; otherwise it gets the proxy's JSON error and reaches no body:
//
//   - Host is 127.0.0.1:PORT or localhost:PORT, the server's own address:
//     a page that rebinds its own name to 127.0.0.1 sends its own name
//     (421 host_forbidden).
//   - Origin is exactly the paired page's origin: none, "null", another
//     or two are 403 (origin_missing, origin_forbidden). A browser sends
//     Origin on every cross-origin fetch; other programs on the machine
//     are not what the check keeps out, the secret is.
//   - OPTIONS is the CORS preflight and is answered here, 204, from the
//     Host and the Origin alone (a preflight carries no credentials).
//   - Authorization is "Bearer <the pairing secret>", once, compared in
//     constant time (401 pairing_secret_missing or pairing_secret_wrong,
//     with WWW-Authenticate: Bearer). A secret anywhere else (the query,
//     another scheme) is not one.
//
// Then the request goes on to the MCP relay of package proxy, mounted at
// MountPath with the bodies as its allowlist, which applies its own rules
// (path, method, headers, body size, clocks) and drops Authorization: the
// secret never reaches a body.
//
// Cross-origin reads are allowed for the paired origin alone, never "*":
// every response to it carries Access-Control-Allow-Origin with that
// origin, Vary: Origin, and exposes Mcp-Session-Id and
// MCP-Protocol-Version. A refused Host or Origin gets no CORS header, so
// the page that sent it cannot even read the refusal.
//
// This is the lesson of MCP Inspector's CVE-2025-49596: a local MCP
// endpoint without authentication, reachable from any web page the
// person has open (by a cross-origin request or DNS rebinding), lets that
// page run what the endpoint runs.
package pairing

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/proxy"
)

// MountPath is where the bodies are served: MountPath + "<name>" is a
// body, a GET of MountPath itself lists their names as the relay's
// listing does ({"servers":[{"name":…},…]}).
const MountPath = "/mcp/"

// DefaultAddr is where `workbench bodies` listens unless told otherwise:
// a loopback port near wrangler dev's 8787, which nothing of the
// workbench uses.
const DefaultAddr = "127.0.0.1:8790"

// Error codes of the refusals this package adds to the proxy's.
const (
	CodeSecretMissing = "pairing_secret_missing" // 401: no Authorization: Bearer header
	CodeSecretWrong   = "pairing_secret_wrong"   // 401: a Bearer token that is not the secret
)

// AllowHeaders are the request headers the paired page may send: what
// the workbench's MCP client (package mcp) sends, and Authorization for
// the secret.
const AllowHeaders = "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method, Mcp-Name"

// ExposeHeaders are the response headers the page's MCP client reads
// beyond the CORS-safelisted ones.
const ExposeHeaders = "Mcp-Session-Id, MCP-Protocol-Version"

// AllowMethods are the methods of MCP's streamable HTTP transport.
const AllowMethods = "GET, POST, DELETE"

// MaxAge is how long, in seconds, a browser may keep a preflight's
// answer.
const MaxAge = "600"

// NewSecret returns a fresh pairing secret: 26 characters of base32
// (A–Z, 2–7), 130 random bits from crypto/rand, safe in a URL and easy
// to copy.
func NewSecret() string { return rand.Text() }

// Config is everything a Handler needs.
type Config struct {
	// Origin is the paired page's origin, exactly as a browser sends it:
	// https://host[:port], or http:// on a loopback host (a workbench
	// served locally, as in tests). Lower case, no path.
	Origin string
	// Addr is the address the server listens on, 127.0.0.1:PORT or
	// localhost:PORT with the real port: the Host values it answers for
	// are 127.0.0.1:PORT and localhost:PORT.
	Addr string
	// Secret is the pairing secret (NewSecret); at least 16 characters.
	Secret string
	// Servers are the bodies, by name (the relay's allowlist).
	Servers []proxy.MCPServer
	// Doer performs the round trip to a body: proxy.NewHTTPDoer().
	Doer proxy.Doer
	// Log, when non-nil, is called once per request, relayed or
	// refused, after the response has been written. Like the relay's, it
	// holds no header value and no body: never the secret.
	Log func(proxy.MCPEvent)
}

// Handler applies the pairing rules and relays what passes them.
type Handler struct {
	origin string
	hosts  []string
	secret []byte
	relay  *proxy.MCPRelay
	log    func(proxy.MCPEvent)
}

// New checks cfg and returns its Handler.
func New(cfg Config) (*Handler, error) {
	if err := CheckOrigin(cfg.Origin); err != nil {
		return nil, fmt.Errorf("pairing: origin %q: %w", cfg.Origin, err)
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("pairing: address %q: %w", cfg.Addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return nil, fmt.Errorf("pairing: address %q: want the port it listens on", cfg.Addr)
	}
	if host != "127.0.0.1" && host != "localhost" {
		return nil, fmt.Errorf("pairing: address %q: the bodies are served on 127.0.0.1 only", cfg.Addr)
	}
	if len(cfg.Secret) < 16 {
		return nil, errors.New("pairing: the secret is shorter than 16 characters")
	}
	hosts := []string{"127.0.0.1:" + port, "localhost:" + port}
	relay, err := proxy.NewMCPRelay(proxy.MCPConfig{AllowedOrigin: cfg.Origin, Hosts: hosts, MountPath: MountPath,
		Servers: cfg.Servers, Doer: cfg.Doer, Log: cfg.Log})
	if err != nil {
		return nil, fmt.Errorf("pairing: %w", err)
	}
	return &Handler{origin: cfg.Origin, hosts: hosts, secret: []byte(cfg.Secret), relay: relay, log: cfg.Log}, nil
}

// CheckOrigin accepts an origin a deployed workbench can have: https, or
// http on a loopback host; serialized as a browser does.
func CheckOrigin(o string) error {
	u, err := url.Parse(o)
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("scheme must be https (or http on a loopback host)")
	case u.Host == "" || u.User != nil || u.Opaque != "":
		return errors.New("want https://host[:port]")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.HasSuffix(o, "#"):
		return errors.New("an origin has no path, query or fragment")
	case o != strings.ToLower(o):
		return errors.New("browsers serialize origins in lower case")
	case u.Scheme == "http" && !loopback(u.Hostname()):
		return errors.New("plain http is allowed only for a loopback host; a deployed workbench is https")
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// ServeHTTP applies the rules to r.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	refuse := func(e *proxy.Error) {
		proxy.WriteError(w, e)
		if h.log != nil {
			h.log(proxy.MCPEvent{Method: r.Method, Status: e.Status, Code: e.Code, Duration: time.Since(start)})
		}
	}
	if !h.ownHost(r.Host) {
		refuse(&proxy.Error{Status: http.StatusMisdirectedRequest, Code: proxy.CodeHostForbidden,
			Message: fmt.Sprintf("Host %s is not this server's own %s", clip(strconv.Quote(r.Host)), strings.Join(h.hosts, " or "))})
		return
	}
	if e := h.checkRequestOrigin(r); e != nil {
		refuse(e)
		return
	}
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", h.origin)
	hd.Add("Vary", "Origin")
	if r.Method == http.MethodOptions {
		if !strings.HasPrefix(r.URL.Path, MountPath) {
			refuse(&proxy.Error{Status: http.StatusNotFound, Code: proxy.CodeNotFound, Message: "the bodies are under " + MountPath})
			return
		}
		h.preflight(w, r)
		if h.log != nil {
			h.log(proxy.MCPEvent{Method: r.Method, Status: http.StatusNoContent, Duration: time.Since(start)})
		}
		return
	}
	hd.Set("Access-Control-Expose-Headers", ExposeHeaders)
	if e := h.checkSecret(r); e != nil {
		hd.Set("WWW-Authenticate", `Bearer realm="workbench bodies"`)
		refuse(e)
		return
	}
	// The relay forwards Authorization to no body; it is dropped here
	// too, so that no later change of the relay's configuration can
	// pass the secret on.
	r2 := r.Clone(r.Context())
	r2.Header.Del("Authorization")
	h.relay.ServeHTTP(w, r2)
}

func (h *Handler) ownHost(host string) bool {
	for _, o := range h.hosts {
		if strings.EqualFold(host, o) {
			return true
		}
	}
	return false
}

// checkRequestOrigin requires exactly the paired origin. Unlike the
// relay on the workbench's own origin, no request goes without Origin:
// the page is always cross-origin here.
func (h *Handler) checkRequestOrigin(r *http.Request) *proxy.Error {
	origins := r.Header.Values("Origin")
	switch {
	case len(origins) == 0:
		return &proxy.Error{Status: http.StatusForbidden, Code: proxy.CodeOriginMissing,
			Message: "missing Origin header; only the workbench page at " + h.origin + " may use these bodies"}
	case len(origins) > 1:
		return &proxy.Error{Status: http.StatusForbidden, Code: proxy.CodeOriginForbidden,
			Message: fmt.Sprintf("%d Origin headers; want exactly one", len(origins))}
	case origins[0] != h.origin:
		return &proxy.Error{Status: http.StatusForbidden, Code: proxy.CodeOriginForbidden,
			Message: fmt.Sprintf("Origin %s is refused; only the workbench page at %s may use these bodies", clip(strconv.Quote(origins[0])), h.origin)}
	}
	return nil
}

// preflight answers a CORS preflight from the paired origin.
func (h *Handler) preflight(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Methods", AllowMethods)
	hd.Set("Access-Control-Allow-Headers", AllowHeaders)
	hd.Set("Access-Control-Max-Age", MaxAge)
	hd.Add("Vary", "Access-Control-Request-Method")
	hd.Add("Vary", "Access-Control-Request-Headers")
	// Chromium's Private Network Access asks before a public page may
	// reach a loopback address.
	if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
		hd.Set("Access-Control-Allow-Private-Network", "true")
		hd.Add("Vary", "Access-Control-Request-Private-Network")
	}
	hd.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}

// checkSecret requires exactly one Authorization: Bearer <secret>.
func (h *Handler) checkSecret(r *http.Request) *proxy.Error {
	vs := r.Header.Values("Authorization")
	const want = "want Authorization: Bearer <the pairing secret that workbench bodies printed>"
	if len(vs) == 0 {
		return &proxy.Error{Status: http.StatusUnauthorized, Code: CodeSecretMissing, Message: "no pairing secret; " + want}
	}
	if len(vs) > 1 {
		return &proxy.Error{Status: http.StatusUnauthorized, Code: CodeSecretWrong, Message: "more than one Authorization header; " + want}
	}
	scheme, token, ok := strings.Cut(vs[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return &proxy.Error{Status: http.StatusUnauthorized, Code: CodeSecretMissing, Message: "the Authorization header is not a Bearer token; " + want}
	}
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), h.secret) != 1 {
		return &proxy.Error{Status: http.StatusUnauthorized, Code: CodeSecretWrong,
			Message: "the pairing secret is wrong; copy it again from the terminal where workbench bodies runs (a restart prints a new one)"}
	}
	return nil
}

// clip shortens text a request supplied before it is echoed.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
