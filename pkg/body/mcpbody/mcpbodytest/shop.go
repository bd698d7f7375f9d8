package mcpbodytest

import (
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// Shop is a web site for a skill taught on the browser body: a home page
// whose Docs link leads to /docs, which reads "Getting started". Retitle
// gives /docs another heading in the same layout, which a replay reads
// and passes structurally; Move gives /docs another layout, as a site
// changing under a taught skill does, so that a replay halts at the click.
type Shop struct {
	// URL is the site's base URL, without the trailing slash.
	URL     string
	moved   atomic.Bool
	heading atomic.Pointer[string]
}

// StartShop serves a Shop on loopback until t ends.
func StartShop(t testing.TB) *Shop {
	s := &Shop{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<!doctype html><title>Shop</title><h1>The shop</h1><a href="/docs">Docs</a>`)
	})
	mux.HandleFunc("GET /docs", func(w http.ResponseWriter, r *http.Request) {
		if s.moved.Load() {
			io.WriteString(w, `<!doctype html><title>Docs</title><ul><li>moved</li></ul>`)
			return
		}
		heading := "Getting started"
		if h := s.heading.Load(); h != nil {
			heading = *h
		}
		io.WriteString(w, `<!doctype html><title>Docs</title><h1>`+html.EscapeString(heading)+`</h1>`)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// Retitle gives /docs the heading h from now on, in the same layout.
func (s *Shop) Retitle(h string) { s.heading.Store(&h) }

// Move gives /docs its other layout from now on.
func (s *Shop) Move() { s.moved.Store(true) }

// DocsLink finds the reference of the Docs link in what the body last
// showed a model: the last tool result while teaching, or else the last
// user message, which holds the state on replay. It reads both forms the
// link takes there: Playwright's snapshot (link "Docs" [ref=e2]) and the
// state's JSON ("link":"Docs","ref":"e2"). A scripted model passes its
// request's LastToolResult and LastUser.
func DocsLink[M interface{ Text() string }](lastToolResult, lastUser func() (M, bool)) (ref string, ok bool) {
	seen := ""
	if m, ok := lastToolResult(); ok {
		seen = m.Text()
	} else if m, ok := lastUser(); ok {
		seen = m.Text()
	}
	for _, marker := range []string{`link "Docs" [ref=`, `"link":"Docs","ref":"`} {
		if _, rest, found := strings.Cut(seen, marker); found {
			if end := strings.IndexAny(rest, `]"`); end > 0 {
				return rest[:end], true
			}
		}
	}
	return "", false
}

// ClickDocs is the step of a scripted model that clicks the Docs link by
// the reference DocsLink finds, or answers that it sees none. toolCall and
// answer are the script's own step constructors (openroutertest.ToolCall
// and openroutertest.Answer), passed in because this package is not a
// test and so may not import openroutertest.
func ClickDocs[M interface{ Text() string }, S any](lastToolResult, lastUser func() (M, bool),
	toolCall func(name string, args any) S, answer func(text string) S) S {
	if ref, ok := DocsLink(lastToolResult, lastUser); ok {
		return toolCall("browser_click", map[string]any{"element": "Docs link", "target": ref})
	}
	return answer("I see no Docs link")
}
