//go:build bodies

// Tests against real MCP servers, started by mcpbodytest: Playwright MCP
// driving Debian's Chromium, and the reference filesystem server. Run with
//
//	go test -tags bodies ./pkg/body/mcpbody
//
// (make test-bodies installs what they need). They skip when a server or
// Chromium is missing, and fail instead when WORKBENCH_BODIES_REQUIRED is
// set, as make test-bodies sets it.

package mcpbody_test

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
)

// site is a small web site a test serves and can change.
type site struct {
	URL  string
	mu   sync.Mutex
	docs string // which /docs page is served
}

func (s *site) setDocs(v string) {
	s.mu.Lock()
	s.docs = v
	s.mu.Unlock()
}

// Pages of the site. /docs comes in three versions: the original, one
// with other text in the same layout, and one with another layout.
var docsPages = map[string]string{
	"original": `<h1>Getting started</h1><p>Install the tool, then run it.</p><a href="/">Home</a>`,
	"retitled": `<h1>Getting going</h1><p>Fetch the tool, then start it.</p><a href="/">Back</a>`,
	"relaid":   `<ul><li>Getting started</li><li>Install the tool</li></ul><table><tr><td>then run it</td></tr></table>`,
}

func startSite(t *testing.T) *site {
	t.Helper()
	s := &site{docs: "original"}
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body>%s</body></html>", title, body)
	}
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		html(w, "Shop", `<h1>The shop</h1><p>Tools for every job.</p><nav><a href="/docs">Docs</a> <a href="/about">About</a></nav>`+
			`<form><label>Search <input name="q"></label><button type="submit">Go</button></form>`)
	})
	mux.HandleFunc("GET /about", func(w http.ResponseWriter, r *http.Request) {
		html(w, "About", `<h1>About the shop</h1><p>We sell tools.</p><a href="/">Home</a>`)
	})
	mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		v := s.docs
		s.mu.Unlock()
		html(w, "Docs", docsPages[v])
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux}
	go hs.Serve(l)
	t.Cleanup(func() { hs.Close() })
	s.URL = "http://" + l.Addr().String()
	return s
}
