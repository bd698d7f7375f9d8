package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// What the proxy and the relay share at the edge: the Host rule, the
// headers every response carries, and the clocks on an upstream.

// DefaultHeaderTimeout is how long the proxy and the relay wait for an
// upstream's response headers when the Config leaves it zero.
const DefaultHeaderTimeout = 60 * time.Second

// DefaultBodyTimeout is how long a request body may take to arrive whole
// when the Config leaves it zero: 4 MiB at about 140 KB/s. A client that
// trickles its body is answered 408 instead of holding the request open.
const DefaultBodyTimeout = 30 * time.Second

// DefaultIdleTimeout is how long a response body may go without a byte,
// from the upstream or into the client, when the Config leaves it zero.
// OpenRouter sends a comment line every few seconds while a model thinks,
// so a stream that is silent this long has stalled.
const DefaultIdleTimeout = 2 * time.Minute

// MaxHeaderValueBytes caps each forwarded request header value. A bearer
// token, a session id and an Accept list are all far shorter; the cap
// keeps a client from parking megabytes in every upstream request.
const MaxHeaderValueBytes = 8 << 10

// apiCSP is the Content-Security-Policy of every response under /api/.
// Nothing there is a page: if a browser is ever made to render one (an
// upstream answering text/html, say), it runs no script, loads nothing and
// sits in an opaque origin, so it can neither read the workbench's storage
// nor call the proxy as the workbench.
const apiCSP = "default-src 'none'; sandbox"

// secureAPIHeaders sets the headers every /api/ response carries,
// whoever wrote it.
func secureAPIHeaders(h http.Header) {
	h.Set("Content-Security-Policy", apiCSP)
	h.Set("X-Content-Type-Options", "nosniff")
}

// answerMethod answers a request whose method is not in allow, the route's
// Allow header ("GET, POST, OPTIONS"), and reports the status it answered
// with. OPTIONS gets 204, Allow and no Access-Control-* header, so that no
// preflight can ever succeed (only a cross-origin request is preflighted,
// and checkSite refuses those first); any other method is refused with
// 405 and Allow, the refusal saying what the route takes.
func answerMethod(w http.ResponseWriter, r *http.Request, allow, takes string, refuse func(*Error)) (status int, answered bool) {
	for m := range strings.SplitSeq(allow, ", ") {
		if m == r.Method && m != http.MethodOptions {
			return 0, false
		}
	}
	w.Header().Set("Allow", allow)
	if r.Method != http.MethodOptions {
		refuse(errorf(http.StatusMethodNotAllowed, CodeMethod, "method %s is not allowed; %s", r.Method, takes))
		return http.StatusMethodNotAllowed, true
	}
	secureAPIHeaders(w.Header())
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent, true
}

// renderable reports whether a passed-back response's Content-Type is one
// the workbench reads as data: JSON or an event stream. Anything else is
// sent as a download (Content-Disposition: attachment) so that a browser
// never displays it on the workbench's origin.
func renderable(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || mt == "text/event-stream"
}

// checkHost refuses a request whose Host is not the workbench's own. A
// DNS-rebinding page (a foreign name resolved to the workbench's address)
// is same-origin with itself, so its GETs carry "Sec-Fetch-Site:
// same-origin" and no Origin; only the Host it names gives it away.
func checkHost(r *http.Request, host string) *Error {
	if !strings.EqualFold(r.Host, host) {
		return errorf(http.StatusMisdirectedRequest, CodeHostForbidden, "Host %s is not the workbench's own %s", clip(r.Host), host)
	}
	return nil
}

// checkHosts is checkHost for a handler that answers under several
// names (the pairing server: 127.0.0.1:PORT and localhost:PORT).
func checkHosts(r *http.Request, hosts []string) *Error {
	for _, h := range hosts {
		if strings.EqualFold(r.Host, h) {
			return nil
		}
	}
	return errorf(http.StatusMisdirectedRequest, CodeHostForbidden, "Host %s is not this server's own %s", clip(r.Host), strings.Join(hosts, " or "))
}

// HostOf returns the Host a browser sends for origin, an origin
// AllowedOrigin accepts: its host and port as written.
func HostOf(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return ""
	}
	return u.Host
}

// errHeaderTimeout and errIdle are why an upstream exchange was given up.
var (
	errHeaderTimeout = errors.New("no response headers in time")
	errIdle          = errors.New("the body stalled")
)

// roundTrip sends req, which must carry a cancelable context whose cancel
// is given, and gives up when no response headers have arrived after
// timeout. It does not rely on the Doer honouring the context (the
// Worker's fetch does not): on timeout it cancels, returns at once, and
// closes whatever response still arrives.
func roundTrip(doer Doer, req *http.Request, cancel context.CancelFunc, timeout time.Duration) (*http.Response, error) {
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := doer.Do(req)
		done <- result{resp, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case res := <-done:
		return res.resp, res.err
	case <-t.C:
		cancel()
		go func() {
			if res := <-done; res.resp != nil {
				res.resp.Body.Close()
			}
		}()
		return nil, errHeaderTimeout
	}
}

// idleBody is an upstream body that is closed, and its exchange canceled,
// once no byte has arrived for idle. A Read blocked at that moment
// returns errIdle, whether the body's runtime reports the close as an
// error or as a clean end.
type idleBody struct {
	body  io.ReadCloser
	idle  time.Duration
	timer *time.Timer

	mu      sync.Mutex
	expired bool
}

func newIdleBody(body io.ReadCloser, idle time.Duration, cancel context.CancelFunc) *idleBody {
	b := &idleBody{body: body, idle: idle}
	b.timer = time.AfterFunc(idle, func() {
		b.mu.Lock()
		b.expired = true
		b.mu.Unlock()
		cancel()
		body.Close()
	})
	return b
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.mu.Lock()
	expired := b.expired
	b.mu.Unlock()
	if expired {
		return 0, errIdle
	}
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	return n, err
}

// Close stops the clock and closes the body.
func (b *idleBody) Close() error {
	b.timer.Stop()
	return b.body.Close()
}

// redactURL returns s, a configured URL that may be malformed, with any
// userinfo and query replaced by "…", for error messages: either may hold
// a credential.
func redactURL(s string) string {
	rest := s
	scheme := ""
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, rest = s[:i+3], s[i+3:]
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
		rest = "…@" + rest[at+1:]
	}
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		rest = rest[:q] + "?…"
	}
	return scheme + rest
}

// timeouts is the clock a handler runs an upstream exchange by.
type timeouts struct {
	body, header, idle time.Duration
}

// checkExchange checks what the proxy's and the relay's configurations
// share — the body cap, the Doer and the clocks — and returns the clocks,
// each left zero at its default.
func checkExchange(maxBody int64, doer Doer, body, header, idle time.Duration) (timeouts, error) {
	if maxBody < 0 {
		return timeouts{}, fmt.Errorf("proxy: MaxBody %d is negative", maxBody)
	}
	if doer == nil {
		return timeouts{}, errors.New("proxy: Doer is nil")
	}
	if body < 0 || header < 0 || idle < 0 {
		return timeouts{}, fmt.Errorf("proxy: BodyTimeout %s, HeaderTimeout %s and IdleTimeout %s must not be negative", body, header, idle)
	}
	c := timeouts{body, header, idle}
	if c.body == 0 {
		c.body = DefaultBodyTimeout
	}
	if c.header == 0 {
		c.header = DefaultHeaderTimeout
	}
	if c.idle == 0 {
		c.idle = DefaultIdleTimeout
	}
	return c, nil
}

// readBody is readBody, the package function, bounded by the body
// timeout. On timeout it stops the read under way, through the native
// server's read deadline or, where there is none (the Worker), by closing
// the body, and answers 408.
func (c timeouts) readBody(w http.ResponseWriter, r *http.Request, maxBody int64) ([]byte, *Error) {
	type result struct {
		b []byte
		e *Error
	}
	done := make(chan result, 1)
	go func() {
		b, e := readBody(r, maxBody)
		done <- result{b, e}
	}()
	t := time.NewTimer(c.body)
	defer t.Stop()
	select {
	case res := <-done:
		return res.b, res.e
	case <-t.C:
	}
	if err := http.NewResponseController(w).SetReadDeadline(time.Now()); err != nil {
		r.Body.Close()
	}
	// Let the read end before the handler returns, so that nothing reads
	// the body afterwards; a runtime that does not end it promptly is
	// not waited for long.
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	return nil, errorf(http.StatusRequestTimeout, CodeBodyTimeout, "the request body did not arrive whole within %s", c.body)
}

// start bounds the writes of a response that has not begun: long enough
// to take the body, wait for the upstream's headers and deliver the
// first bytes. A native
// server's own WriteTimeout is meant for files, not for streams; this
// replaces it. Where the ResponseWriter has no deadlines (the Worker), the
// runtime bounds writes itself.
func (c timeouts) start(w http.ResponseWriter) {
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(c.body + c.header + c.idle))
}

// writing gives the client one idle period to take the next write.
func (c timeouts) writing(w http.ResponseWriter) {
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(c.idle))
}

// exchange sends req (whose context cancel cancels) for the client
// request r and returns the response with its body on the idle clock, or
// the error to answer with. who names the upstream in that error; the
// error never quotes the URL, which may carry a query, nor the runtime's
// message, which may quote the URL.
func (c timeouts) exchange(doer Doer, req *http.Request, cancel context.CancelFunc, r *http.Request, who string) (*http.Response, *Error) {
	resp, err := roundTrip(doer, req, cancel, c.header)
	switch {
	case errors.Is(err, errHeaderTimeout):
		return nil, errorf(http.StatusGatewayTimeout, CodeUpstreamTimeout, "%s sent no response headers within %s", who, c.header)
	case err != nil && r.Context().Err() != nil:
		return nil, &Error{Status: 499, Code: CodeClientGone}
	case err != nil:
		return nil, errorf(http.StatusBadGateway, CodeUpstream, "%s could not be reached", who)
	}
	if resp.Body == nil {
		resp.Body = http.NoBody
	}
	resp.Body = newIdleBody(resp.Body, c.idle, cancel)
	return resp, nil
}

// abortBroken panics with http.ErrAbortHandler when code says the
// upstream's body broke off or stalled. By then the status and part of
// the body are on their way to the client, and the only way left to tell
// it the body is not whole is not to end it: net/http's server, on that
// panic, closes the connection without the chunked encoding's last chunk,
// which every HTTP client reports as an error. Returning normally would
// send that last chunk and make the part look like the whole.
func abortBroken(code string) {
	if code == CodeUpstreamBroken || code == CodeUpstreamIdle {
		panic(http.ErrAbortHandler)
	}
}

// brokenCode is the log code for err, what streaming a response body to
// the client for r ended with: "" for a complete body or a client that
// left.
func brokenCode(err error, r *http.Request) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, errIdle):
		return CodeUpstreamIdle
	case errors.Is(err, os.ErrDeadlineExceeded), r.Context().Err() != nil:
		return CodeClientGone
	}
	return CodeUpstreamBroken
}
