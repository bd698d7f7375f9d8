package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// waitLong polls a JavaScript condition for as long as a real browser body
// may take (Chromium starting, a navigation, a model step per action).
func (s *session) waitLong(cond string) {
	s.t.Helper()
	s.do(chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(3*time.Minute)))
}

// present is a JavaScript condition: some element matches sel.
func present(sel string) string { return fmt.Sprintf(`!!document.querySelector(%q)`, sel) }

// storedBundle is what the MCP tests read of a stored bundle: which body
// it was taught on and who authorized each edge.
type storedBundle struct {
	Manifest struct {
		BodyChoice string `json:"body_choice"`
	} `json:"manifest"`
	Trace struct {
		Edges []struct {
			Authorization *struct {
				Authorizer string `json:"authorizer"`
				Decision   string `json:"decision"`
			} `json:"authorization"`
		} `json:"edges"`
	} `json:"interaction_trace"`
}

// storedBundles reads every bundle of the page's library.
func (s *session) storedBundles() []storedBundle {
	s.t.Helper()
	var l struct {
		Bundles []storedBundle `json:"bundles"`
	}
	if err := json.Unmarshal([]byte(eval[string](s, readLibrary)), &l); err != nil {
		s.t.Fatalf("reading the library: %v", err)
	}
	return l.Bundles
}

// probeCounter stands in front of an MCP server and counts the
// server/discover requests (the MCP client's protocol probe) that reach
// it; everything is passed on unchanged.
type probeCounter struct {
	URL    string // where to configure the server instead of its own URL
	probes atomic.Int32
}

func countProbes(t *testing.T, target string) *probeCounter {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	pc := &probeCounter{}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL.Scheme, r.Out.URL.Host, r.Out.Host = u.Scheme, u.Host, ""
	}}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "server/discover" {
			pc.probes.Add(1)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	pc.URL = front.URL + u.Path
	return pc
}
