//go:build js && wasm

// Command proxy is the workbench's Cloudflare Worker. Workers static assets
// serve the site; requests under /api/ run here, and those under
// proxy.MountPath go through package proxy's handler to OpenRouter.
//
// Settings come from Worker vars, read per request (every request runs in
// a fresh Go instance, so nothing is kept between requests):
//
//	ALLOWED_ORIGIN       the workbench's origin, e.g. https://workbench.example.org
//	OPENROUTER_UPSTREAM  optional; defaults to https://openrouter.ai/api/v1
//
// A missing or malformed setting makes every proxied request fail with 500
// proxy_misconfigured: the Worker fails closed.
//
// The upstream round trip uses cloudflare/fetch's client directly. An
// *http.Client would pull TLS and HTTP/2 into the binary (twice the size)
// and its default transport fails inside workerd.
package main

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
	"github.com/syumai/workers/cloudflare/fetch"

	"workbench/pkg/proxy"
)

func main() {
	workers.Serve(http.HandlerFunc(serve))
}

func serve(w http.ResponseWriter, r *http.Request) {
	unfold(r.Header)
	if !strings.HasPrefix(r.URL.Path, proxy.MountPath) {
		proxy.WriteError(w, &proxy.Error{Status: http.StatusNotFound, Code: proxy.CodeNotFound,
			Message: "no API route here; the OpenRouter proxy is under " + proxy.MountPath})
		return
	}
	h, err := proxy.New(proxy.Config{
		AllowedOrigin: getenv("ALLOWED_ORIGIN"),
		Upstream:      getenv("OPENROUTER_UPSTREAM"),
		Doer:          fetchDoer{fetch.NewClient()},
		Log:           logEvent,
	})
	if err != nil {
		fmt.Printf("proxy misconfigured: %v\n", err)
		proxy.WriteError(w, &proxy.Error{Status: http.StatusInternalServerError, Code: proxy.CodeMisconfigured,
			Message: "the proxy's Worker vars are wrong: " + err.Error()})
		return
	}
	h.ServeHTTP(w, r)
}

// getenv returns a Worker var, or "" when it is not set.
func getenv(name string) string {
	v := cloudflare.GetBinding(name)
	if v.IsUndefined() || v.IsNull() {
		return ""
	}
	return v.String()
}

// unfold undoes syumai/workers' splitting of header values on ",": the
// Fetch API hands over one string per header name (repeated lines already
// folded with ", "), and the bridge splits it. Joining with "," restores
// exactly the string the runtime had, so a value is forwarded byte for byte
// and a folded duplicate is seen as what it is.
func unfold(h http.Header) {
	for k, v := range h {
		if len(v) > 1 {
			h[k] = []string{strings.Join(v, ",")}
		}
	}
}

// fetchDoer sends the upstream request with the runtime's fetch, never
// following a redirect.
type fetchDoer struct{ c *fetch.Client }

func (d fetchDoer) Do(r *http.Request) (*http.Response, error) {
	resp, err := d.c.Do(&fetch.Request{Request: r}, &fetch.RequestInit{Redirect: fetch.RedirectModeManual})
	if err != nil {
		return nil, err
	}
	unfold(resp.Header)
	return resp, nil
}

// logEvent writes one line per request to the Worker's log. proxy.Event
// holds no header value, query or body, so neither does the line.
func logEvent(e proxy.Event) {
	fmt.Printf("proxy method=%s path=%q status=%d code=%q upstream=%d bytes=%d duration=%s\n",
		e.Method, e.Path, e.Status, e.Code, e.Upstream, e.Bytes, e.Duration)
}
