package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MCPMountPath is where the MCP relay is mounted on the workbench origin.
// A GET of MCPMountPath itself lists the configured server names;
// MCPMountPath + "<name>" is relayed to the server configured under that
// name.
const MCPMountPath = "/api/mcp/"

// MaxMCPNameBytes caps the length of a server name.
const MaxMCPNameBytes = 64

// mcpRequestHeaders are the request headers of MCP's streamable HTTP
// transport (revision 2025-11-25, and Mcp-Method and Mcp-Name, which the
// stateless revision 2026-07-28 puts on every request so servers can route
// without reading the body); with Authorization for servers configured to
// receive it, they are the only ones that reach an MCP server.
var mcpRequestHeaders = [...]string{"Accept", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id", "Mcp-Method", "Mcp-Name"}

// mcpResponseHeaders are the only MCP server response headers the client
// sees: what it needs to read the body and to keep its session.
var mcpResponseHeaders = [...]string{"Content-Type", "Cache-Control", "Mcp-Session-Id", "Mcp-Protocol-Version"}

// MCPServer is one entry of the relay's allowlist.
type MCPServer struct {
	// Name is how the browser addresses the server: MCPMountPath + Name.
	// One to MaxMCPNameBytes of a–z, 0–9 and "-".
	Name string
	// URL is the server's streamable-HTTP endpoint, the only URL requests
	// for Name are ever sent to: http or https with a host, no userinfo,
	// no fragment; plain http only to a loopback host unless
	// MCPConfig.AllowHTTP is set. A query, if present, is part of it.
	//
	// Or URL is "binding:" followed by the name of a Cloudflare service
	// binding and, optionally, the path to ask for (binding:BROWSER_MCP/mcp;
	// "/" when there is none): the server is another Worker of the
	// deployment, reached through that binding and through nothing else —
	// it needs no public URL. Only a relay whose MCPConfig.Bindings
	// resolves the name (the Cloudflare Worker's) takes such a server.
	URL string
}

// MCPBindingScheme begins an MCPServer.URL that names a service binding.
const MCPBindingScheme = "binding:"

// MaxMCPBindingBytes caps the length of a service binding's name.
const MaxMCPBindingBytes = 64

// ParseMCPServer parses one allowlist entry written "name=URL", the form
// of `workbench serve --mcp`. The parts are checked by NewMCPRelay.
func ParseMCPServer(entry string) (MCPServer, error) {
	name, u, ok := strings.Cut(entry, "=")
	if !ok || name == "" || u == "" {
		return MCPServer{}, fmt.Errorf("MCP server %s: want name=URL", clip(redactURL(entry)))
	}
	return MCPServer{Name: name, URL: u}, nil
}

// ParseMCPServers parses an allowlist written as "name=URL" entries
// separated by commas or white space, the form of the Worker's MCP_SERVERS
// var. A URL containing a comma must percent-encode it (%2C). An empty or
// blank list is no servers.
func ParseMCPServers(list string) ([]MCPServer, error) {
	var out []MCPServer
	for i, entry := range SplitList(list) {
		s, err := ParseMCPServer(entry)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i+1, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// SplitList splits a Worker var holding a list into its items, separated
// by commas or white space; empty items are dropped.
func SplitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// MCPConfig is everything an MCPRelay depends on. Like Config, it is read
// once by NewMCPRelay; the relay keeps no other state.
type MCPConfig struct {
	// AllowedOrigin is the workbench's own origin, or SameOrigin; see
	// Config.
	AllowedOrigin string

	// Hosts are the Host values requests may name; empty means the Host
	// rule of Config (the AllowedOrigin's own host, or the same-origin
	// default). A relay serving a page of another origin (the pairing
	// server on the visitor's loopback) names its own address here, and
	// then needs an AllowedOrigin.
	Hosts []string

	// MountPath is where the relay is mounted: MountPath itself is the
	// listing, MountPath + "<name>" a server. Empty means MCPMountPath.
	// It starts and ends with "/".
	MountPath string

	// Servers is the allowlist. Names are unique. It may be empty: the
	// listing is then empty and every name is unknown.
	Servers []MCPServer

	// AuthorizationFor names the servers that receive the browser's
	// Authorization header ("Bearer <token>", byte for byte). For every
	// other server it is dropped like any other header, so a token meant
	// for one server never reaches another. Each name must be in Servers.
	AuthorizationFor []string

	// Headers are the operator's: each is added to every request to its
	// server, replacing any header of that name from the page, and never
	// shown to the page (see MCPHeader). At most one per server; a server
	// in AuthorizationFor cannot also have an Authorization header here.
	Headers []MCPHeader

	// AllowHTTP permits plain-http URLs to non-loopback hosts, for a
	// server on a network the operator trusts. Off, plain http is refused
	// for anything but a loopback host.
	AllowHTTP bool

	// MaxBody caps a POST body in bytes; zero means DefaultMaxBody.
	MaxBody int64

	// Doer performs the upstream round trip; see Doer. Required.
	Doer Doer

	// Bindings returns the Doer that reaches the service binding named
	// binding, for the servers whose URL names one (see MCPServer), or an
	// error when there is no such binding. Nil: no server may name one,
	// as everywhere but in the Cloudflare Worker.
	Bindings func(binding string) (Doer, error)

	// BodyTimeout, HeaderTimeout and IdleTimeout are as in Config. A
	// tool call whose server answers with one JSON body after working
	// longer than HeaderTimeout gets a 504; a server that streams
	// progress does not.
	BodyTimeout, HeaderTimeout, IdleTimeout time.Duration

	// Log, when non-nil, is called once per request after the response
	// has been written.
	Log func(MCPEvent)
}

// MCPEvent describes one relayed or refused request for logging. Like
// Event it holds nothing secret: no header value (so no session id or
// token), no URL, no body.
type MCPEvent struct {
	Method   string        // request method
	Server   string        // the server name from a well-formed path; "" for the listing or a malformed path
	Status   int           // status sent to the client; 499 when the client left first
	Code     string        // error code when the relay refused or failed; "" when the server answered
	Duration time.Duration // from the start of handling to the end of the response
}

// MCPRelay relays MCP streamable-HTTP requests from the workbench page to
// a fixed allowlist of named MCP servers, for servers a browser cannot
// reach itself (no CORS headers). Create it with NewMCPRelay.
//
// A request to the mount path (MCPMountPath unless MCPConfig.MountPath
// says otherwise) + "<name>" is sent to exactly the URL
// configured for name (or through exactly its service binding), never to
// one derived from the request, when all of
// these hold, checked in this order; otherwise the relay answers with the
// package's JSON error and contacts nothing:
//
//   - Host and Origin: as for Handler (Host one of MCPConfig.Hosts when
//     they are given, and then Origin exactly AllowedOrigin). A browser's
//     POST and DELETE carry Origin; a same-origin GET (the SSE stream)
//     carries Sec-Fetch-Site instead.
//   - Path: the mount path followed by a name of a–z 0–9 "-" and nothing
//     else: no sub-path, no trailing slash, no percent-encoding, no query.
//     A dot, a slash or an encoding of either cannot be part of a name, so
//     no traversal can be written. An unknown name is a 404 that does not
//     list the configured ones.
//   - Method: POST (JSON-RPC messages), GET (the server's SSE stream) or
//     DELETE (ending a session). OPTIONS is answered here, 204 with Allow
//     and no Access-Control-* header, and never relayed.
//   - Headers: only Accept, Content-Type, Mcp-Session-Id,
//     MCP-Protocol-Version, Last-Event-ID, Mcp-Method and Mcp-Name are
//     forwarded, plus
//     Authorization for servers in MCPConfig.AuthorizationFor. Each at most
//     once, at most MaxHeaderValueBytes, printable ASCII, and without a
//     comma except in Accept. A server's operator header
//     (MCPConfig.Headers) is added last. Host is
//     the server's own (its DNS-rebinding check sees its own name), and the
//     browser's Origin, cookies and everything else are dropped.
//   - Body: POST is application/json of at most MaxBody bytes, read whole
//     within BodyTimeout first; GET and DELETE have none.
//
// The server's status and body pass through, streamed and flushed per
// read; only Content-Type, Cache-Control, Mcp-Session-Id and
// MCP-Protocol-Version come back, with the headers every /api/ response
// carries (see Handler). A redirect is not followed (502). Timeouts, and
// a body that breaks off or stalls (broken off for the client too), are
// as for Handler.
//
// A GET of the mount path itself (same origin) answers
// {"servers":[{"name":…},…]}, sorted by name: which servers are
// configured, never where they are.
type MCPRelay struct {
	origin  string
	hosts   []string // the Host values requests may name; none: checkSite's rule
	mount   string
	clock   timeouts
	servers map[string]mcpUpstream
	names   []string // sorted
	maxBody int64
	log     func(MCPEvent)
}

type mcpUpstream struct {
	url    *url.URL
	doer   Doer      // the relay's, or a service binding's
	auth   bool      // forward Authorization
	header MCPHeader // the operator's header; Name "" for none
}

// NewMCPRelay checks cfg and returns an MCPRelay for it.
func NewMCPRelay(cfg MCPConfig) (*MCPRelay, error) {
	if err := checkAllowedOrigin(cfg.AllowedOrigin); err != nil {
		return nil, fmt.Errorf("proxy: AllowedOrigin %q: %w", cfg.AllowedOrigin, err)
	}
	clock, err := checkExchange(cfg.MaxBody, cfg.Doer, cfg.BodyTimeout, cfg.HeaderTimeout, cfg.IdleTimeout)
	if err != nil {
		return nil, err
	}
	m := &MCPRelay{origin: cfg.AllowedOrigin, hosts: slices.Clone(cfg.Hosts), mount: cfg.MountPath, clock: clock,
		servers: make(map[string]mcpUpstream, len(cfg.Servers)), maxBody: cfg.MaxBody, log: cfg.Log}
	if m.maxBody == 0 {
		m.maxBody = DefaultMaxBody
	}
	if len(m.hosts) > 0 && cfg.AllowedOrigin == SameOrigin {
		return nil, errors.New("proxy: Hosts are for a relay serving a page of another origin; name that AllowedOrigin")
	}
	for _, h := range m.hosts {
		if h == "" || strings.ContainsAny(h, "/@?# ") {
			return nil, fmt.Errorf("proxy: Hosts: %s is not a host[:port]", clip(strconv.Quote(h)))
		}
	}
	if m.mount == "" {
		m.mount = MCPMountPath
	}
	if len(m.mount) < 2 || m.mount[0] != '/' || m.mount[len(m.mount)-1] != '/' || strings.ContainsAny(m.mount, "%?#.\\") {
		return nil, fmt.Errorf("proxy: MountPath %s: want /path/ in plain bytes", clip(strconv.Quote(m.mount)))
	}
	for i, s := range cfg.Servers {
		if !validMCPName(s.Name) {
			return nil, fmt.Errorf("proxy: MCP server %d: name %s: want 1 to %d of a-z 0-9 -", i+1, clip(s.Name), MaxMCPNameBytes)
		}
		if _, dup := m.servers[s.Name]; dup {
			return nil, fmt.Errorf("proxy: MCP server %d: name %q is configured twice", i+1, s.Name)
		}
		up := mcpUpstream{doer: cfg.Doer}
		if binding, ok := strings.CutPrefix(s.URL, MCPBindingScheme); ok {
			if up.url, up.doer, err = bindMCPServer(binding, cfg.Bindings); err != nil {
				return nil, fmt.Errorf("proxy: MCP server %q: %w", s.Name, err)
			}
		} else if up.url, err = checkMCPURL(s.URL, cfg.AllowHTTP); err != nil {
			// The URL is quoted without userinfo or query: either
			// may hold a credential, and this error reaches logs.
			return nil, fmt.Errorf("proxy: MCP server %q: URL %s: %w", s.Name, clip(redactURL(s.URL)), err)
		}
		m.servers[s.Name] = up
		m.names = append(m.names, s.Name)
	}
	for _, name := range cfg.AuthorizationFor {
		up, ok := m.servers[name]
		if !ok {
			return nil, fmt.Errorf("proxy: Authorization is to be forwarded to MCP server %s, which is not configured", clip(name))
		}
		up.auth = true
		m.servers[name] = up
	}
	if err := addMCPHeaders(m.servers, cfg.Headers); err != nil {
		return nil, err
	}
	slices.Sort(m.names)
	return m, nil
}

func validMCPName(s string) bool {
	if s == "" || len(s) > MaxMCPNameBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// bindMCPServer checks a server written binding:NAME[/path] (target is
// what follows the scheme) and returns the URL its requests name — the
// path on a host that is the binding's name, which no DNS resolves: the
// request goes to the bound Worker whatever its URL says — and the Doer
// that reaches the binding.
func bindMCPServer(target string, bindings func(string) (Doer, error)) (*url.URL, Doer, error) {
	name, path, _ := strings.Cut(target, "/")
	path = "/" + path
	if !validBindingName(name) {
		return nil, nil, fmt.Errorf("service binding %s: want 1 to %d of A-Z a-z 0-9 _, not starting with a digit", clip(strconv.Quote(name)), MaxMCPBindingBytes)
	}
	if len(path) > MaxPathBytes || strings.ContainsAny(path, "%?#\\") || strings.Contains(path, "//") ||
		slices.Contains(strings.Split(path, "/"), "..") || slices.Contains(strings.Split(path, "/"), ".") {
		return nil, nil, fmt.Errorf("service binding %s: path %s: want /segments in plain bytes", name, clip(strconv.Quote(path)))
	}
	if bindings == nil {
		return nil, nil, fmt.Errorf("service binding %s: service bindings are the Cloudflare Worker's; elsewhere an MCP server needs a URL", name)
	}
	d, err := bindings(name)
	if err != nil {
		return nil, nil, fmt.Errorf("service binding %s: %w", name, err)
	}
	if d == nil {
		return nil, nil, fmt.Errorf("service binding %s: no Doer", name)
	}
	return &url.URL{Scheme: "https", Host: strings.ToLower(strings.ReplaceAll(name, "_", "-")) + ".binding", Path: path}, d, nil
}

// validBindingName reports whether s is a binding name as wrangler
// accepts one: a JavaScript identifier of ASCII letters, digits and "_".
func validBindingName(s string) bool {
	if s == "" || len(s) > MaxMCPBindingBytes || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// checkMCPURL accepts an http(s) endpoint with a host; plain http only to
// a loopback host unless allowHTTP, so that a typo cannot send session ids
// and tokens in the clear across a network.
func checkMCPURL(s string, allowHTTP bool) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, errors.New("scheme must be http or https")
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return nil, errors.New("want http(s)://host[:port][/path]")
	case u.User != nil:
		return nil, errors.New("userinfo is not allowed; configure a token with AuthorizationFor instead")
	case u.Fragment != "" || strings.Contains(s, "#"):
		return nil, errors.New("a fragment is not allowed")
	case u.Scheme == "http" && !allowHTTP && !isLoopback(u.Hostname()):
		return nil, errors.New("plain http is allowed only to a loopback host; use https, or allow http explicitly")
	}
	return u, nil
}

// Names returns the configured server names, sorted.
func (m *MCPRelay) Names() []string { return slices.Clone(m.names) }

// ServeHTTP applies the rules to r and relays it or refuses it. Like
// Handler's, it logs and then panics with http.ErrAbortHandler when the
// server's body breaks off or stalls after its status was passed on.
func (m *MCPRelay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ev := MCPEvent{Method: r.Method}
	m.serve(w, r, &ev)
	if m.log != nil {
		ev.Duration = time.Since(start)
		m.log(ev)
	}
	abortBroken(ev.Code)
}

const (
	mcpAllowed     = "GET, POST, DELETE, OPTIONS"
	mcpListAllowed = "GET, OPTIONS"
)

func (m *MCPRelay) serve(w http.ResponseWriter, r *http.Request, ev *MCPEvent) {
	refuse := func(e *Error) {
		ev.Status, ev.Code = e.Status, e.Code
		WriteError(w, e)
	}
	m.clock.start(w)
	if len(m.hosts) > 0 {
		if e := checkHosts(r, m.hosts); e != nil {
			refuse(e)
			return
		}
		if e := checkRequestOrigin(r, m.origin); e != nil {
			refuse(e)
			return
		}
	} else if e := checkSite(r, m.origin); e != nil {
		refuse(e)
		return
	}
	name, e := checkMCPPath(r.URL, m.mount)
	if e != nil {
		refuse(e)
		return
	}
	if name == "" {
		m.list(w, r, ev, refuse)
		return
	}
	ev.Server = name
	up, ok := m.servers[name]
	if !ok {
		refuse(errorf(http.StatusNotFound, CodeMCPUnknown, "no MCP server named %q is configured", name))
		return
	}
	if status, answered := answerMethod(w, r, mcpAllowed, "the MCP relay takes POST, GET and DELETE", refuse); answered {
		ev.Status = status
		return
	}
	hdr := make(http.Header, len(mcpRequestHeaders)+1)
	for _, k := range mcpRequestHeaders {
		v, ok, e := headerValue(r.Header, k, k == "Accept")
		if e != nil {
			refuse(e)
			return
		}
		if ok {
			hdr[k] = []string{v}
		}
	}
	if up.auth {
		v, ok, e := headerValue(r.Header, "Authorization", false)
		if e != nil {
			refuse(e)
			return
		}
		if ok {
			hdr["Authorization"] = []string{v}
		}
	}
	up.setMCPHeader(hdr)
	body, e := m.clock.readBody(w, r, m.maxBody)
	if e != nil {
		refuse(e)
		return
	}

	var br io.Reader
	if r.Method == http.MethodPost {
		br = bytes.NewReader(body)
	}
	target := *up.url
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, r.Method, target.String(), br)
	if err != nil {
		refuse(errorf(http.StatusInternalServerError, CodeMisconfigured, "cannot build the request to MCP server %q", name))
		return
	}
	req.Header = hdr
	// The client is told the server's name only, never its URL.
	resp, e := m.clock.exchange(up.doer, req, cancel, r, fmt.Sprintf("MCP server %q", name))
	if e != nil {
		if e.Code == CodeClientGone {
			ev.Status, ev.Code = e.Status, e.Code
			return
		}
		refuse(e)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.StatusCode != http.StatusNotModified {
		refuse(errorf(http.StatusBadGateway, CodeRedirect, "MCP server %q answered %d (a redirect); the relay does not follow redirects", name, resp.StatusCode))
		return
	}
	ev.Status = resp.StatusCode
	_, err = passBack(w, resp, mcpResponseHeaders[:], m.clock)
	ev.Code = brokenCode(err, r)
}

// mcpListing is the wire shape of the listing.
type mcpListing struct {
	Servers []mcpListed `json:"servers"`
}

type mcpListed struct {
	Name string `json:"name"`
}

func (m *MCPRelay) list(w http.ResponseWriter, r *http.Request, ev *MCPEvent, refuse func(*Error)) {
	if status, answered := answerMethod(w, r, mcpListAllowed, m.mount+" lists the MCP servers on GET", refuse); answered {
		ev.Status = status
		return
	}
	if _, e := m.clock.readBody(w, r, 0); e != nil {
		refuse(e)
		return
	}
	l := mcpListing{Servers: make([]mcpListed, 0, len(m.names))}
	for _, n := range m.names {
		l.Servers = append(l.Servers, mcpListed{n})
	}
	b, err := json.Marshal(l)
	if err != nil {
		refuse(errorf(http.StatusInternalServerError, CodeMisconfigured, "encoding the listing: %v", err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	secureAPIHeaders(h)
	w.WriteHeader(http.StatusOK)
	ev.Status = http.StatusOK
	w.Write(append(b, '\n'))
}

// checkMCPPath returns the server name after mount, or "" for the
// listing. The path must be plain bytes (escaped form equal to decoded) so
// that what was checked is what was asked for.
func checkMCPPath(u *url.URL, mount string) (string, *Error) {
	if u.Opaque != "" {
		return "", errorf(http.StatusBadRequest, CodePath, "opaque request target is not allowed")
	}
	p := u.Path
	if !strings.HasPrefix(p, mount) {
		return "", errorf(http.StatusNotFound, CodeNotFound, "not under %s", mount)
	}
	rest := p[len(mount):]
	if len(rest) > MaxPathBytes {
		return "", errorf(http.StatusRequestURITooLong, CodeTooLong, "path exceeds %d bytes", MaxPathBytes)
	}
	if ep := u.EscapedPath(); ep != p || strings.ContainsRune(u.RawPath, '%') {
		return "", errorf(http.StatusBadRequest, CodePath, "the path must be %s<name> in plain bytes; percent-encoding is not allowed", mount)
	}
	if u.RawQuery != "" || u.ForceQuery {
		return "", errorf(http.StatusBadRequest, CodeQuery, "the MCP relay takes no query; each name stands for one configured URL")
	}
	if rest == "" {
		return "", nil
	}
	if strings.IndexByte(rest, '/') >= 0 {
		return "", errorf(http.StatusBadRequest, CodePath, "the path must be %s<name> with nothing after the name; got %s", mount, clip(rest))
	}
	if !validMCPName(rest) {
		return "", errorf(http.StatusBadRequest, CodePath, "MCP server name %s: want 1 to %d of a-z 0-9 -", clip(rest), MaxMCPNameBytes)
	}
	return rest, nil
}
