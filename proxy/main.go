//go:build js && wasm

// Command proxy is the workbench's Cloudflare Worker. Workers static assets
// serve the site; requests under /api/ run here: those under
// proxy.MountPath go through package proxy's handler to OpenRouter, those
// under proxy.MCPMountPath through its MCP relay to the configured MCP
// servers. The Worker's entry module (proxy/index.mjs) sends those under
// /api/registry/ to the registry's own program (proxy/registry) instead.
//
// Settings come from Worker vars, read per request (every request runs in
// a fresh Go instance, so nothing is kept between requests):
//
//	ALLOWED_ORIGIN             optional; the workbench's origin, e.g.
//	                           https://workbench.example.org. Unset: the
//	                           same-origin default (proxy.SameOrigin), for the
//	                           Worker's workers.dev or pages.dev name
//	OPENROUTER_UPSTREAM        optional; defaults to https://openrouter.ai/api/v1
//	MCP_SERVERS                optional; the relay's allowlist, "name=URL" entries
//	                           separated by commas or white space; a URL
//	                           "binding:NAME[/path]" is the Worker's service
//	                           binding NAME (wrangler.toml's [[services]]), for
//	                           an MCP server that is another Worker of the
//	                           deployment (proxy.MCPServer)
//	MCP_FORWARD_AUTHORIZATION  optional; names of MCP servers that receive the
//	                           browser's Authorization header
//	MCP_ALLOW_HTTP             optional; "true" permits plain-http MCP URLs on
//	                           non-loopback hosts
//	MCP_HEADER_<NAME>          optional, a secret (`wrangler secret put`); the
//	                           header "Name: value" the relay adds to every
//	                           request to the MCP server <name>
//	                           (proxy.MCPHeaderVar)
//	BODY_TIMEOUT, HEADER_TIMEOUT, IDLE_TIMEOUT
//	                           optional Go durations ("30s"); the handlers'
//	                           clocks (proxy.Config), their defaults when unset
//
// A missing or malformed setting makes every request to the handler that
// needs it fail with 500 proxy_misconfigured: the Worker fails closed.
//
// Before anything else, each request is counted against its client's
// budget with the rate-limiting binding RL (wrangler.toml), keyed by
// CF-Connecting-IP: over it, 429 with Retry-After. Each request runs in a
// fresh Go instance, so the count cannot live in the Worker itself.
//
// A handler that finds the upstream's body broken off or stalled aborts
// its response with http.ErrAbortHandler, as net/http's server expects;
// here that panic is recovered (response.abortOnPanic): before any body
// byte the answer becomes a 502, after one the body stream is errored.
//
// The upstream round trip uses cloudflare/fetch's client directly. An
// *http.Client would pull TLS and HTTP/2 into the binary (twice the size)
// and its default transport fails inside workerd.
package main

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare/fetch"

	"workbench/pkg/proxy"
	"workbench/pkg/workerenv"
)

// registryMountPath is registry.MountPath, written out: importing package
// registry would link the verifier, whose packages' start-up costs every
// request of this program CPU (docs/registry.md, "Two Worker programs").
const registryMountPath = "/api/registry/"

// noRegistry is why this program alone (a Pages deployment) answers no
// registry request.
const noRegistry = "this deployment has no registry: it serves the proxy and the relay only (docs/registry.md)"

func main() {
	workers.Serve(http.HandlerFunc(serve))
}

func serve(bw http.ResponseWriter, r *http.Request) {
	w := &response{ResponseWriter: bw}
	defer w.abortOnPanic()
	workerenv.Unfold(r.Header)
	if ok, err := workerenv.Limit("RL", workerenv.Client(r)); err != nil {
		fmt.Printf("rate limit: %v\n", err)
		proxy.WriteError(w, &proxy.Error{Status: http.StatusInternalServerError, Code: proxy.CodeMisconfigured,
			Message: "the Worker's rate-limiting binding RL is missing or failed; the Worker's log says how"})
		return
	} else if !ok {
		proxy.WriteRateLimited(w, proxy.RateLimit, proxy.RatePeriod, proxy.RatePeriod)
		return
	}
	clock, err := timeouts()
	if err != nil {
		misconfigured(w, err)
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, proxy.MountPath):
	case strings.HasPrefix(r.URL.Path, proxy.MCPMountPath):
		serveMCP(w, r, clock, func(e proxy.MCPEvent) { w.code = e.Code; logMCPEvent(e) })
		return
	case r.URL.Path == registryMountPath && r.Method == http.MethodGet:
		// The registry's status (registry.Status, written out likewise):
		// asked by the Registry page before it lists.
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("Access-Control-Allow-Origin", "*")
		proxy.SecureAPIHeaders(h)
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"available":false,"reason":"` + noRegistry + `"}` + "\n"))
		return
	case strings.HasPrefix(r.URL.Path, registryMountPath):
		// The registry is a Worker program of its own (proxy/registry),
		// which the Worker's entry (proxy/index.mjs) sends these paths
		// to; a deployment of this program alone (Pages) has none.
		proxy.WriteError(w, &proxy.Error{Status: http.StatusNotImplemented, Code: "registry_unavailable", Message: noRegistry})
		return
	default:
		proxy.WriteError(w, &proxy.Error{Status: http.StatusNotFound, Code: proxy.CodeNotFound,
			Message: "no API route here; the OpenRouter proxy is under " + proxy.MountPath + ", the MCP relay under " + proxy.MCPMountPath})
		return
	}
	h, err := proxy.New(proxy.Config{
		AllowedOrigin: workerenv.Var("ALLOWED_ORIGIN"),
		Upstream:      workerenv.Var("OPENROUTER_UPSTREAM"),
		Doer:          fetchDoer{fetch.NewClient()},
		BodyTimeout:   clock.body,
		HeaderTimeout: clock.header,
		IdleTimeout:   clock.idle,
		Log:           func(e proxy.Event) { w.code = e.Code; logEvent(e) },
	})
	if err != nil {
		misconfigured(w, err)
		return
	}
	h.ServeHTTP(w, r)
}

// serveMCP relays r through package proxy's MCP relay, configured from
// the MCP_* vars, logging with log.
func serveMCP(w http.ResponseWriter, r *http.Request, clock clocks, log func(proxy.MCPEvent)) {
	m, err := newMCPRelay(clock, log)
	if err != nil {
		// The error may quote an MCP URL, which the relay keeps from
		// the browser; only the operator's log gets it.
		fmt.Printf("mcp relay misconfigured: %v\n", err)
		proxy.WriteError(w, &proxy.Error{Status: http.StatusInternalServerError, Code: proxy.CodeMisconfigured,
			Message: "the MCP relay's Worker vars are wrong; the Worker's log says how"})
		return
	}
	m.ServeHTTP(w, r)
}

func newMCPRelay(clock clocks, log func(proxy.MCPEvent)) (*proxy.MCPRelay, error) {
	servers, err := proxy.ParseMCPServers(workerenv.Var("MCP_SERVERS"))
	if err != nil {
		return nil, fmt.Errorf("MCP_SERVERS: %w", err)
	}
	var allowHTTP bool
	switch v := workerenv.Var("MCP_ALLOW_HTTP"); v {
	case "", "false":
	case "true":
		allowHTTP = true
	default:
		return nil, fmt.Errorf("MCP_ALLOW_HTTP %q: want true or false", v)
	}
	var headers []proxy.MCPHeader
	for _, s := range servers {
		v := workerenv.Var(proxy.MCPHeaderVar(s.Name))
		if v == "" {
			continue
		}
		h, err := proxy.ParseMCPHeader(s.Name, v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", proxy.MCPHeaderVar(s.Name), err)
		}
		headers = append(headers, h)
	}
	return proxy.NewMCPRelay(proxy.MCPConfig{
		AllowedOrigin:    workerenv.Var("ALLOWED_ORIGIN"),
		Servers:          servers,
		AuthorizationFor: proxy.SplitList(workerenv.Var("MCP_FORWARD_AUTHORIZATION")),
		Headers:          headers,
		AllowHTTP:        allowHTTP,
		Doer:             fetchDoer{fetch.NewClient()},
		Bindings:         serviceDoer,
		BodyTimeout:      clock.body,
		HeaderTimeout:    clock.header,
		IdleTimeout:      clock.idle,
		Log:              log,
	})
}

// misconfigured answers for a Worker whose OpenRouter vars are wrong.
func misconfigured(w http.ResponseWriter, err error) {
	fmt.Printf("proxy misconfigured: %v\n", err)
	proxy.WriteError(w, &proxy.Error{Status: http.StatusInternalServerError, Code: proxy.CodeMisconfigured,
		Message: "the proxy's Worker vars are wrong: " + err.Error()})
}

// clocks are the handlers' timeouts from the *_TIMEOUT vars; zero where
// a var is unset.
type clocks struct{ body, header, idle time.Duration }

func timeouts() (clocks, error) {
	var c clocks
	for _, v := range []struct {
		name string
		d    *time.Duration
	}{{"BODY_TIMEOUT", &c.body}, {"HEADER_TIMEOUT", &c.header}, {"IDLE_TIMEOUT", &c.idle}} {
		s := workerenv.Var(v.name)
		if s == "" {
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return clocks{}, fmt.Errorf("%s %q: want a positive duration such as 30s", v.name, s)
		}
		*v.d = d
	}
	return c, nil
}

// serviceDoer is a fetchDoer through the service binding named binding.
func serviceDoer(binding string) (proxy.Doer, error) {
	f, err := workerenv.Fetcher(binding)
	if err != nil {
		return nil, err
	}
	return fetchDoer{fetch.NewClient(fetch.WithBinding(f))}, nil
}

// fetchDoer sends the upstream request with the runtime's fetch, or a
// service binding's, never following a redirect.
type fetchDoer struct{ c *fetch.Client }

func (d fetchDoer) Do(r *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(&fetch.Request{Request: r}, &fetch.RequestInit{Redirect: fetch.RedirectModeManual})
	if err != nil {
		return nil, err
	}
	workerenv.Unfold(resp.Header)
	switch resp.StatusCode {
	case http.StatusNoContent, http.StatusResetContent, http.StatusNotModified:
		// The Fetch API gives these a null body, which the bridge
		// cannot read or close; there is nothing in it anyway.
		resp.Body = http.NoBody
	}
	return resp, nil
}

// logMCPEvent writes one line per relayed request. proxy.MCPEvent holds
// no header value (no session id, no token), URL or body.
func logMCPEvent(e proxy.MCPEvent) {
	fmt.Printf("mcp method=%s server=%q status=%d code=%q duration=%s\n", e.Method, e.Server, e.Status, e.Code, e.Duration)
}

// logEvent writes one line per request to the Worker's log. proxy.Event
// holds no header value, query or body, so neither does the line.
func logEvent(e proxy.Event) {
	fmt.Printf("proxy method=%s path=%q status=%d code=%q upstream=%d bytes=%d duration=%s\n",
		e.Method, e.Path, e.Status, e.Code, e.Upstream, e.Bytes, e.Duration)
}
