package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/body/localbody"
	"workbench/pkg/proxy"
	"workbench/pkg/registry"
	"workbench/pkg/registry/server"
)

// runServe serves the built site, the OpenRouter proxy and the MCP relay
// on one local origin, the way the deployed Worker does: static files with
// the single-page-app fallback, the site's _headers rules, package proxy's
// handler under proxy.MountPath and its MCP relay under proxy.MCPMountPath.
// Unless told otherwise it also starts and owns the two local bodies
// (package localbody), relayed as browser and host, and stops them before
// it returns.
func runServe(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "127.0.0.1:8000", "`host:port` to listen on")
	upstream := fl.String("openrouter-upstream", proxy.OpenRouterAPI, "OpenRouter API base `URL`; only a loopback URL may replace the default (for tests)")
	origin := fl.String("allowed-origin", "", "the `origin` the browser loads the workbench from (default http://<addr>)")
	site := fl.String("site", "build/site", "`directory` of the built site")
	var mcpServers, mcpAuth multiFlag
	fl.Var(&mcpServers, "mcp", "relay `name=URL`: /api/mcp/<name> goes to the MCP server at URL (repeatable)")
	fl.Var(&mcpAuth, "mcp-authorization", "forward the browser's Authorization header to the MCP server `name` (repeatable; default: to none)")
	mcpHTTP := fl.Bool("mcp-allow-http", false, "allow plain-http MCP server URLs on non-loopback hosts")
	rateLimit := fl.Int("rate-limit", proxy.RateLimit, "`requests` per minute one client may make under /api/ (0: no limit)")
	noBodies := fl.Bool("no-bodies", false, "start no local bodies (the browser and host bodies are started by default)")
	var bf localBodyFlags
	bf.register(fl)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: workbench serve [flags]")
		fmt.Fprintln(stderr, "Serves the site, the OpenRouter proxy (/api/llm/openrouter/) and the MCP relay (/api/mcp/) on one origin,")
		fmt.Fprintln(stderr, "and starts a browser body (Playwright MCP on Chromium) and a host body (the filesystem server on one folder),")
		fmt.Fprintln(stderr, "relayed as browser and host; --mcp browser=URL or host=URL puts another server in a body's place.")
		fl.PrintDefaults()
		fmt.Fprintln(stderr, "Environment: WORKBENCH_MCP_HEADER_<NAME>=\"Header: value\" makes the relay add that header to every request to --mcp server <name> (upper case, - as _).")
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "workbench serve: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	var servers []proxy.MCPServer
	for _, e := range mcpServers {
		s, err := proxy.ParseMCPServer(e)
		if err != nil {
			fmt.Fprintf(stderr, "workbench serve: --mcp: %v\n", err)
			return 2
		}
		servers = append(servers, s)
	}
	headers, err := mcpHeadersFromEnv(servers, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "workbench serve: %v\n", err)
		return 2
	}
	if *rateLimit < 0 {
		fmt.Fprintf(stderr, "workbench serve: --rate-limit %d: want 0 (no limit) or more\n", *rateLimit)
		return 2
	}
	if st, err := os.Stat(*site); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "workbench serve: --site %s: not a directory (build the site first)\n", *site)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "workbench serve: --addr: %v\n", err)
		return 1
	}
	defer ln.Close()
	if *origin == "" {
		*origin = "http://" + ln.Addr().String()
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	cfg := serveConfig{Site: *site, AllowedOrigin: *origin, Upstream: *upstream,
		MCP: servers, MCPAuthorization: mcpAuth, MCPHeaders: headers, MCPAllowHTTP: *mcpHTTP, RateLimit: *rateLimit,
		WriteTimeout: defaultServerTimeouts.Write, Log: logger}
	// The settings are checked before any body starts.
	h, err := newServeHandler(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "workbench serve: %v\n", err)
		return 2
	}
	var bodies []*localbody.Body
	if !*noBodies {
		// A body named by --mcp is that server; the others are started.
		named := func(n string) bool {
			return slices.ContainsFunc(servers, func(s proxy.MCPServer) bool { return s.Name == n })
		}
		browser, host := !named(localbody.BrowserName), !named(localbody.HostName)
		if browser || host {
			if bodies, err = bf.start(ctx, logger, browser, host); err != nil {
				fmt.Fprintf(stderr, "workbench serve: %v (or run without the bodies: --no-bodies)\n", err)
				return 1
			}
			defer localbody.StopAll(bodies)
			for _, b := range bodies {
				servers = append(servers, proxy.MCPServer{Name: b.Name(), URL: b.URL()})
			}
			cfg.MCP = servers
			if h, err = newServeHandler(cfg); err != nil {
				fmt.Fprintf(stderr, "workbench serve: %v\n", err)
				return 1
			}
		}
	}
	srv := &http.Server{Handler: h}
	defaultServerTimeouts.apply(srv)
	fmt.Fprintf(stdout, "workbench: serving %s at http://%s (allowed origin %s; OpenRouter proxy %s → %s)\n",
		*site, ln.Addr(), *origin, proxy.MountPath, *upstream)
	for _, b := range bodies {
		fmt.Fprintf(stdout, "workbench: %s body: %s, at %s, relayed as %s%s\n", b.Name(), b.About(), b.URL(), proxy.MCPMountPath, b.Name())
	}
	if len(servers) > 0 {
		// Names only: a configured URL may hold a credential in its query.
		var names []string
		for _, s := range servers {
			names = append(names, s.Name)
		}
		fmt.Fprintf(stdout, "workbench: MCP relay %s<name> for %s\n", proxy.MCPMountPath, strings.Join(names, ", "))
	}
	return serveUntilDone(ctx, srv, ln, stderr, "workbench serve")
}

// serveConfig is what newServeHandler needs.
type serveConfig struct {
	Site          string // directory of the built site
	AllowedOrigin string
	Upstream      string
	// MCP is the MCP relay's allowlist; MCPAuthorization names the
	// servers that receive the browser's Authorization header;
	// MCPAllowHTTP permits plain http to non-loopback hosts.
	MCP              []proxy.MCPServer
	MCPAuthorization []string
	MCPAllowHTTP     bool
	// MCPHeaders are the operator's headers for MCP servers
	// (proxy.MCPConfig.Headers), read from the environment.
	MCPHeaders []proxy.MCPHeader
	// RateLimit is the requests one client (by IP address) may make under
	// /api/ per RatePeriod, which zero makes proxy.RatePeriod; zero
	// RateLimit is no limit.
	RateLimit  int
	RatePeriod time.Duration
	// BodyTimeout, HeaderTimeout and IdleTimeout are the proxy's and the
	// relay's clocks (proxy.Config); zero means their defaults.
	BodyTimeout, HeaderTimeout, IdleTimeout time.Duration
	// WriteTimeout is the server's (serverTimeouts.Write): the site
	// extends it for large files by their size, /api/ responses replace
	// it with their own clocks. Zero: the site sets no deadline.
	WriteTimeout time.Duration
	Log          *slog.Logger // one line per proxied or relayed request; nil for none
}

// serverTimeouts are the local server's own clocks, for every request:
// the proxy and the relay replace the read and write deadlines with
// theirs once a request is theirs.
type serverTimeouts struct {
	ReadHeader time.Duration // a request's headers, and a new connection's first request
	Read       time.Duration // a whole request, body included
	Write      time.Duration // a response, extended for large site files
	Idle       time.Duration // a kept-alive connection between requests
}

// defaultServerTimeouts bound a slow client: headers within 10 s, a whole
// request within 60 s, an idle connection closed after 60 s.
var defaultServerTimeouts = serverTimeouts{ReadHeader: 10 * time.Second, Read: 60 * time.Second, Write: 30 * time.Second, Idle: 60 * time.Second}

func (st serverTimeouts) apply(srv *http.Server) {
	srv.ReadHeaderTimeout = st.ReadHeader
	srv.ReadTimeout = st.Read
	srv.WriteTimeout = st.Write
	srv.IdleTimeout = st.Idle
	// Eight forwarded headers of at most 8 KiB each, and room for the
	// rest a browser sends.
	srv.MaxHeaderBytes = 128 << 10
}

// minSiteRate is the slowest transfer a site file is given time for on
// top of WriteTimeout: app.wasm (about 17 MB) gets 30 s + 4.5 min.
const minSiteRate = 64 << 10 // bytes per second

// noRegistry is why workbench serve answers no registry request: the
// registry keeps its bytes and its index in the Cloudflare deployment's
// R2 and D1.
const noRegistry = "workbench serve keeps none; a registry keeps its bundles in a Cloudflare deployment's R2 and D1 (docs/registry.md)"

// newServeHandler routes /api/ to the proxy, the MCP relay and the
// registry's handler (which says there is no registry here), and
// everything else to the site, as wrangler.toml does for the Worker, and
// closes the connection after a chunked request (proxy.CloseAfterChunked).
func newServeHandler(cfg serveConfig) (http.Handler, error) {
	var logf func(proxy.Event)
	var mcpLog func(proxy.MCPEvent)
	if cfg.Log != nil {
		logf = func(e proxy.Event) {
			cfg.Log.Info("proxy", "method", e.Method, "path", e.Path, "status", e.Status, "code", e.Code,
				"upstream", e.Upstream, "bytes", e.Bytes, "duration", e.Duration)
		}
		mcpLog = func(e proxy.MCPEvent) {
			cfg.Log.Info("mcp", "method", e.Method, "server", e.Server, "status", e.Status, "code", e.Code, "duration", e.Duration)
		}
	}
	doer := proxy.NewHTTPDoer()
	p, err := proxy.New(proxy.Config{AllowedOrigin: cfg.AllowedOrigin, Upstream: cfg.Upstream, Doer: doer, Log: logf,
		BodyTimeout: cfg.BodyTimeout, HeaderTimeout: cfg.HeaderTimeout, IdleTimeout: cfg.IdleTimeout})
	if err != nil {
		return nil, err
	}
	relay, err := proxy.NewMCPRelay(proxy.MCPConfig{AllowedOrigin: cfg.AllowedOrigin, Servers: cfg.MCP,
		AuthorizationFor: cfg.MCPAuthorization, Headers: cfg.MCPHeaders, AllowHTTP: cfg.MCPAllowHTTP, Doer: doer, Log: mcpLog,
		BodyTimeout: cfg.BodyTimeout, HeaderTimeout: cfg.HeaderTimeout, IdleTimeout: cfg.IdleTimeout})
	if err != nil {
		return nil, err
	}
	reg, err := server.New(server.Config{AllowedOrigin: cfg.AllowedOrigin, Unavailable: noRegistry})
	if err != nil {
		return nil, err
	}
	var limiter *proxy.Limiter
	period := cfg.RatePeriod
	if period == 0 {
		period = proxy.RatePeriod
	}
	if cfg.RateLimit > 0 {
		if limiter, err = proxy.NewLimiter(cfg.RateLimit, period); err != nil {
			return nil, err
		}
	}
	host := proxy.HostOf(cfg.AllowedOrigin)
	root, err := os.OpenRoot(cfg.Site)
	if err != nil {
		return nil, fmt.Errorf("--site: %w", err)
	}
	s := &siteHandler{fsys: root.FS(), write: cfg.WriteTimeout}
	if s.rules, err = readHeadersFile(s.fsys); err != nil {
		return nil, err
	}
	if s.rewrites, err = readRedirectsFile(s.fsys); err != nil {
		return nil, err
	}
	return proxy.CloseAfterChunked(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api := r.URL.Path == "/api" || strings.HasPrefix(r.URL.Path, "/api/")
		if !strings.EqualFold(r.Host, host) {
			// The site is served under its own name only, so that a
			// DNS-rebinding page gets nothing from it either.
			if api {
				proxy.WriteError(w, &proxy.Error{Status: http.StatusMisdirectedRequest, Code: proxy.CodeHostForbidden,
					Message: "Host " + strconv.Quote(r.Host) + " is not the workbench's own " + host})
				return
			}
			http.Error(w, "this server answers for "+host+" only", http.StatusMisdirectedRequest)
			return
		}
		if api && limiter != nil {
			client, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				client = r.RemoteAddr
			}
			if ok, retry := limiter.Allow(client, time.Now()); !ok {
				proxy.WriteRateLimited(w, cfg.RateLimit, period, retry)
				return
			}
		}
		switch {
		case strings.HasPrefix(r.URL.Path, proxy.MountPath):
			p.ServeHTTP(w, r)
		case strings.HasPrefix(r.URL.Path, proxy.MCPMountPath):
			relay.ServeHTTP(w, r)
		case strings.HasPrefix(r.URL.Path, registry.MountPath):
			reg.ServeHTTP(w, r)
		case api:
			proxy.WriteError(w, &proxy.Error{Status: http.StatusNotFound, Code: proxy.CodeNotFound,
				Message: "no API route here; the OpenRouter proxy is under " + proxy.MountPath + ", the MCP relay under " + proxy.MCPMountPath})
		default:
			s.ServeHTTP(w, r)
		}
	})), nil
}

// siteHandler serves the built site like Workers static assets in
// single-page-application mode: a file when one matches (name.html for a
// path without an extension, as the platform's HTML handling does), the
// target of a _redirects rewrite, index.html for any other path, with the
// headers the site's _headers file assigns. A file the build compressed
// beforehand (name.br, name.gz) is sent in its place when the request
// accepts that encoding.
type siteHandler struct {
	fsys     fs.FS // rooted at the site directory; cannot be escaped
	rules    []headerRule
	rewrites map[string]string // _redirects' 200 rewrites: request path → site path
	write    time.Duration     // the server's WriteTimeout; 0: none
}

// controlFile reports whether name is one of the platform's control files,
// which are never served as assets.
func controlFile(name string) bool {
	switch name {
	case "_headers", "_redirects", ".assetsignore":
		return true
	}
	return false
}

// precompressed are the encodings the site build writes beside a file,
// in the order the server prefers them.
var precompressed = []struct{ coding, suffix string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// precompressedSuffix reports whether name is a compressed copy the build
// wrote: those are sent only in place of their original, never by name.
func precompressedSuffix(name string) bool {
	for _, p := range precompressed {
		if strings.HasSuffix(name, p.suffix) {
			return true
		}
	}
	return false
}

func (s *siteHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := s.resolve(path.Clean("/" + r.URL.Path))
	f, err := s.fsys.Open(name)
	if err != nil {
		http.Error(w, "the site has no index.html", http.StatusNotFound)
		return
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		http.Error(w, "not a file", http.StatusNotFound)
		return
	}
	for _, rule := range applicable(s.rules, r.URL.Path) {
		rule.apply(w.Header())
	}
	h := w.Header()
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		h.Set("Content-Type", ct)
	}
	coding := ""
	// A compressed copy goes out only with its original's type: sniffed
	// from compressed bytes, the type would be wrong.
	if h.Get("Content-Type") != "" && s.hasPrecompressed(name) {
		h.Add("Vary", "Accept-Encoding")
		// A range is of the representation sent; ranges are asked of the
		// file itself, so they are answered from it.
		if r.Header.Get("Range") == "" {
			for _, p := range precompressed {
				if !acceptsEncoding(r.Header.Get("Accept-Encoding"), p.coding) {
					continue
				}
				cf, err := s.fsys.Open(name + p.suffix)
				if err != nil {
					continue
				}
				cst, err := cf.Stat()
				if err != nil {
					cf.Close()
					continue
				}
				defer cf.Close()
				f, st, coding = cf, cst, p.coding
				h.Set("Content-Encoding", coding)
				break
			}
		}
	}
	// The ETag names the file's version and the encoding sent, so that
	// a browser revalidating its copy gets 304 Not Modified.
	etag := fmt.Sprintf(`"%x-%x`, st.Size(), st.ModTime().UnixNano())
	if coding != "" {
		etag += "-" + coding
	}
	h.Set("ETag", etag+`"`)
	if s.write > 0 {
		// A file large enough to outlast WriteTimeout on a slow link
		// gets time in proportion to its size.
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.write + time.Duration(st.Size()/minSiteRate)*time.Second))
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		http.Error(w, "unseekable file", http.StatusInternalServerError)
		return
	}
	http.ServeContent(w, r, name, st.ModTime(), rs)
}

// resolve maps a cleaned request path to the name of the site file that
// answers it.
func (s *siteHandler) resolve(clean string) string {
	if to, ok := s.rewrites[clean]; ok {
		clean = to
	}
	name := strings.TrimPrefix(clean, "/")
	if name == "" {
		name = "index.html"
	}
	if st, err := fs.Stat(s.fsys, name); err == nil && st.IsDir() {
		name = path.Join(name, "index.html")
	} else if err != nil && path.Ext(name) == "" {
		// The platform's HTML handling: /skills is skills.html.
		name += ".html"
	}
	base := path.Base(name)
	if controlFile(base) || precompressedSuffix(base) || !fs.ValidPath(name) {
		return "index.html"
	}
	if st, err := fs.Stat(s.fsys, name); err != nil || st.IsDir() {
		// Deep links are the app's routes: serve it and let it route.
		return "index.html"
	}
	return name
}

// hasPrecompressed reports whether the build wrote a compressed copy of
// name.
func (s *siteHandler) hasPrecompressed(name string) bool {
	for _, p := range precompressed {
		if _, err := fs.Stat(s.fsys, name+p.suffix); err == nil {
			return true
		}
	}
	return false
}

// acceptsEncoding reports whether an Accept-Encoding header value accepts
// coding: named (or "*") with a quality above zero.
func acceptsEncoding(header, coding string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.TrimSpace(name)
		q := 1.0
		if k, v, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.TrimSpace(k) == "q" {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				q = f
			}
		}
		switch {
		case strings.EqualFold(name, coding):
			return q > 0
		case name == "*":
			star = q > 0
		}
	}
	return star
}

// readRedirectsFile parses the site's _redirects file, if it has one. Of
// the platform's format it takes what the site build writes: rewrites
// ("/from /to 200") of one exact path to another; any other line is an
// error rather than a rule served differently here than in production.
func readRedirectsFile(fsys fs.FS) (map[string]string, error) {
	b, err := fs.ReadFile(fsys, "_redirects")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("_redirects: %w", err)
	}
	rewrites := map[string]string{}
	for n, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		if len(fields) != 3 || fields[2] != "200" {
			return nil, fmt.Errorf("_redirects line %d: workbench serve takes only rewrites \"/from /to 200\", got %q", n+1, line)
		}
		from, to := fields[0], fields[1]
		for _, p := range []string{from, to} {
			if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "*:?#") {
				return nil, fmt.Errorf("_redirects line %d: %q is not an exact path", n+1, p)
			}
		}
		rewrites[from] = to
	}
	return rewrites, nil
}

// headerRule is one block of a _headers file: a path pattern ("*" matches
// any run of characters, ":name" one segment) with headers to set and
// names to remove.
type headerRule struct {
	pattern string
	set     [][2]string
	remove  []string
}

// readHeadersFile parses the site's _headers file, if it has one, in
// Workers static assets' format.
func readHeadersFile(fsys fs.FS) ([]headerRule, error) {
	f, err := fsys.Open("_headers")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("_headers: %w", err)
	}
	defer f.Close()
	var rules []headerRule
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case line[0] != ' ' && line[0] != '\t':
			if !strings.HasPrefix(trimmed, "/") {
				return nil, fmt.Errorf("_headers line %d: pattern %q does not start with /", n, trimmed)
			}
			rules = append(rules, headerRule{pattern: trimmed})
		case len(rules) == 0:
			return nil, fmt.Errorf("_headers line %d: header before any path pattern", n)
		case strings.HasPrefix(trimmed, "!"):
			r := &rules[len(rules)-1]
			r.remove = append(r.remove, strings.TrimSpace(trimmed[1:]))
		default:
			k, v, ok := strings.Cut(trimmed, ":")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, fmt.Errorf("_headers line %d: want \"Name: value\", got %q", n, trimmed)
			}
			r := &rules[len(rules)-1]
			r.set = append(r.set, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("_headers: %w", err)
	}
	return rules, nil
}

// applicable returns the rules whose pattern matches urlPath, in the
// file's order.
func applicable(rules []headerRule, urlPath string) []headerRule {
	var out []headerRule
	for _, r := range rules {
		if matchPattern(r.pattern, urlPath) {
			out = append(out, r)
		}
	}
	return out
}

// apply applies one matching rule as the platform does: first the names
// it detaches are removed (also those an earlier rule set), then its
// headers are set, a value joined to one an earlier rule left.
func (r headerRule) apply(h http.Header) {
	for _, k := range r.remove {
		h.Del(k)
	}
	for _, kv := range r.set {
		if prev := h.Get(kv[0]); prev != "" {
			h.Set(kv[0], prev+", "+kv[1])
		} else {
			h.Set(kv[0], kv[1])
		}
	}
}

// matchPattern matches a _headers path pattern against a URL path.
func matchPattern(pat, p string) bool {
	for pat != "" {
		switch {
		case pat[0] == '*':
			rest := pat[1:]
			for i := len(p); i >= 0; i-- {
				if matchPattern(rest, p[i:]) {
					return true
				}
			}
			return false
		case pat[0] == ':':
			end := strings.IndexByte(pat, '/')
			if end < 0 {
				end = len(pat)
			}
			seg := strings.IndexByte(p, '/')
			if seg < 0 {
				seg = len(p)
			}
			if seg == 0 {
				return false
			}
			pat, p = pat[end:], p[seg:]
		default:
			if p == "" || pat[0] != p[0] {
				return false
			}
			pat, p = pat[1:], p[1:]
		}
	}
	return p == ""
}
