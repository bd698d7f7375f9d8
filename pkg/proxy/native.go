package proxy

import (
	"net"
	"net/http"
	"time"
)

// NewHTTPDoer returns the Doer for native hosts (workbench serve): an
// *http.Client that follows no redirect and sends no User-Agent of its own,
// so the upstream sees only the forwarded headers plus what HTTP itself
// needs (Host, Content-Length, Accept-Encoding). It sets no overall timeout,
// since a streamed completion may legitimately run for minutes; connection
// setup is bounded here, the wait for response headers and a stalled body
// by the handler (Config.HeaderTimeout, Config.IdleTimeout), which must
// hold in the Worker too, whose fetch has no such settings.
func NewHTTPDoer() Doer {
	t := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        16,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	c := &http.Client{
		Transport: t,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return DoerFunc(func(r *http.Request) (*http.Response, error) {
		// An empty value makes net/http omit its default User-Agent.
		r.Header["User-Agent"] = []string{""}
		return c.Do(r)
	})
}

// CloseAfterChunked wraps h for a net/http server so that every request
// that came with a Transfer-Encoding is answered with "Connection: close"
// and its connection closed after the answer. RFC 9112 §6.1 asks that of
// a server for a request carrying both Transfer-Encoding and
// Content-Length: whoever in front of it framed the body by the other
// header saw a different request boundary, and what it took for the next
// request must not be served on that connection. net/http frames such a
// body by Transfer-Encoding (as the RFC asks) and removes Content-Length
// before any handler runs, so the handler cannot tell the two apart; the
// rule covers every chunked request instead. A browser's fetch sends no
// chunked body over HTTP/1.1, so the page loses nothing.
func CloseAfterChunked(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}
