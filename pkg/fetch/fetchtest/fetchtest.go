// Package fetchtest holds the two servers the redirect tests of package
// fetch and of its clients (mcp, openrouter) share: one that redirects
// every request, and one on another port that records the Authorization
// of every request reaching it. A client that follows the redirect leaks
// its credentials to the second, and the test sees them there.
//
// It exists for tests only.
package fetchtest

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Capture is a server on its own port that records the Authorization
// header of every request it gets.
type Capture struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

// NewCapture starts a Capture, closed when t's test ends. It answers
// with h after recording, or with 200 and "{}" when h is nil; a test can
// make a followed redirect look like success, so that only the record
// catches it.
func NewCapture(t testing.TB, h http.Handler) *Capture {
	t.Helper()
	c := &Capture{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.auth = append(c.auth, r.Header.Get("Authorization"))
		c.mu.Unlock()
		if h == nil {
			w.Write([]byte(`{}`))
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(c.Close)
	return c
}

// Seen returns the Authorization headers of the requests so far, one per
// request ("" for a request without one).
func (c *Capture) Seen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.auth...)
}

// NewRedirector starts a server that answers every request with status
// and Location target, closed when t's test ends.
func NewRedirector(t testing.TB, status int, target string) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, status)
	}))
	t.Cleanup(s.Close)
	return s
}
