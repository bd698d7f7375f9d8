// Package proxy is the workbench's edge proxy: an http.Handler that
// forwards the browser's OpenRouter calls and holds every rule of spec §7.3
// and the CSRF row of §7.5, and MCPRelay, its sibling that relays MCP
// streamable-HTTP traffic to a fixed allowlist of named servers (see
// NewMCPRelay). Both share the origin rule, the error shape and Doer.
//
// A request to MountPath + "<rest>" is forwarded to Upstream + "/<rest>"
// (https://openrouter.ai/api/v1/<rest> in production) only when all of
// these hold, checked in this order; otherwise the handler answers with a
// JSON error {"error":{"code":…,"message":…}} and the upstream is never
// contacted:
//
//   - Host: the request names the configured origin's host and port, so a
//     page on another name that DNS rebinding points at the proxy's
//     address is refused (421) although its requests are same-origin to it.
//     With no origin configured (SameOrigin), the Host must instead be an
//     IP address, localhost, or a name under workers.dev or pages.dev,
//     and the workbench origin is the request's own scheme and Host.
//   - Origin: the request carries an Origin header equal to the
//     workbench origin. "null", a foreign origin or several Origin headers
//     are refused. A browser sends no Origin on a same-origin GET, so a GET
//     without Origin is accepted only when it carries
//     "Sec-Fetch-Site: same-origin", a header no page can forge.
//   - Method: GET or POST. OPTIONS is answered here (204, Allow) and never
//     forwarded; no Access-Control-* header is ever sent, because a
//     same-origin fetch never preflights.
//   - Path: <rest> is one or more non-empty segments of unreserved
//     characters (A–Z a–z 0–9 - . _ ~), none of them "." or "..", with no
//     percent-encoding at all, within MaxPathBytes. Traversal in any
//     encoding therefore cannot be expressed, and the target URL is built
//     from the configured base and these bytes alone.
//   - Headers: only Authorization, Content-Type and HTTP-Referer are
//     forwarded, byte for byte; each may appear once, at most
//     MaxHeaderValueBytes long, and must be printable ASCII without a
//     comma (a comma is how a duplicate looks once a runtime has folded
//     repeated header lines into one); Authorization must be
//     "Bearer <token>". Every other request header is dropped.
//   - Body: a GET has none; a POST is application/json of at most
//     Config.MaxBody bytes, read whole within Config.BodyTimeout before
//     the upstream is contacted, so an oversized or trickled body never
//     reaches it.
//
// The upstream's status and body are passed through, the body streamed
// unbuffered (flushed per read, so server-sent events keep their timing).
// A body the upstream breaks off (fewer bytes than its Content-Length, a
// chunked body without its last chunk, a reset connection) or lets stall
// for Config.IdleTimeout is broken off for the client too: the handler
// panics with http.ErrAbortHandler, so the server ends the response
// without its end and the client sees a failed read, never a short body
// ended cleanly. A host without net/http's server must recover that panic
// and abort its response the same way (the Worker does).
// Only an allowlist of response headers is passed back; Set-Cookie and
// Access-Control-* never are. A redirect from the upstream is not followed
// and becomes a 502. An upstream that sends no response headers within
// Config.HeaderTimeout gets a 504; a body that stalls for
// Config.IdleTimeout, or a client that stops reading for as long, is cut.
//
// Every response, the upstream's or the handler's own, carries
// "Content-Security-Policy: default-src 'none'; sandbox" and
// "X-Content-Type-Options: nosniff", and one whose Content-Type is not
// JSON or an event stream also "Content-Disposition: attachment": nothing
// under /api/ can run as a page on the workbench's origin.
//
// The handler logs nothing by itself. Config.Log receives one Event per
// request, a type with no field that could carry a header value, a query or
// a body.
package proxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MountPath is where the handler is mounted on the workbench origin. The
// part of the request path after it is appended to Config.Upstream.
const MountPath = "/api/llm/openrouter/"

// OpenRouterAPI is the production upstream; the only non-loopback upstream
// New accepts.
const OpenRouterAPI = "https://openrouter.ai/api/v1"

// DefaultMaxBody is the request body cap when Config.MaxBody is zero. A chat
// completion prompt carrying a long trace stays well below it.
const DefaultMaxBody = 4 << 20

// MaxPathBytes caps the part of the path after MountPath plus the query.
const MaxPathBytes = 2048

// forwardedRequestHeaders are the only request headers that reach the
// upstream (spec §7.3).
var forwardedRequestHeaders = [...]string{"Authorization", "Content-Type", "Http-Referer"}

// passedResponseHeaders are the only upstream response headers the client
// sees: what it needs to read the body and to back off.
var passedResponseHeaders = [...]string{
	"Content-Type",
	"Cache-Control",
	"Retry-After",
	"X-Ratelimit-Limit",
	"X-Ratelimit-Remaining",
	"X-Ratelimit-Reset",
}

// Doer performs one upstream round trip. It must not follow redirects (the
// handler refuses any 3xx it sees, so a Doer that follows one could send
// the key elsewhere unnoticed) and must return the response body
// unbuffered. *http.Client with CheckRedirect returning
// http.ErrUseLastResponse satisfies it natively; see NewHTTPDoer.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// DoerFunc adapts a function to Doer.
type DoerFunc func(*http.Request) (*http.Response, error)

// Do calls f(r).
func (f DoerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

// Config is everything a Handler depends on. The handler keeps no other
// state, so one Config may serve concurrent requests and a fresh Handler
// per request (as in a Worker) behaves identically.
type Config struct {
	// AllowedOrigin is the workbench's own origin as a browser serializes
	// it: scheme "://" host [":" port], lower case, no path, e.g.
	// "https://workbench.example.org". SameOrigin (empty) is the
	// same-origin default: each request's own scheme and Host, when the
	// Host is one no DNS-rebinding page can name (see SameOrigin).
	AllowedOrigin string

	// Upstream is the base URL requests are forwarded under. It must be
	// OpenRouterAPI, or an http(s) URL on a loopback host whose path is
	// "/api/v1" (for tests). Empty means OpenRouterAPI.
	Upstream string

	// MaxBody caps the request body in bytes; zero means DefaultMaxBody.
	MaxBody int64

	// Doer performs the upstream round trip. Required.
	Doer Doer

	// BodyTimeout bounds how long a POST body may take to arrive whole;
	// zero means DefaultBodyTimeout.
	BodyTimeout time.Duration

	// HeaderTimeout bounds the wait for the upstream's response headers;
	// zero means DefaultHeaderTimeout.
	HeaderTimeout time.Duration

	// IdleTimeout bounds how long the response body may go without a
	// byte arriving from the upstream or being taken by the client; zero
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration

	// Log, when non-nil, is called once per request after the response
	// has been written.
	Log func(Event)
}

// Event describes one handled request for logging. By construction it holds
// nothing secret: no header value, no query, no body.
type Event struct {
	Method   string        // request method
	Path     string        // validated path after MountPath; "" when refused before it was validated
	Status   int           // status sent to the client
	Code     string        // error code when the handler refused or failed; "" when the upstream answered
	Upstream int           // upstream status; 0 when the upstream was not contacted
	Bytes    int64         // response body bytes streamed from the upstream
	Duration time.Duration // from the start of handling to the end of the response
}

// Handler enforces the proxy rules; see the package documentation. Create
// it with New.
type Handler struct {
	origin  string
	base    *url.URL
	maxBody int64
	doer    Doer
	clock   timeouts
	log     func(Event)
}

// New checks cfg and returns a Handler for it.
func New(cfg Config) (*Handler, error) {
	if err := checkAllowedOrigin(cfg.AllowedOrigin); err != nil {
		return nil, fmt.Errorf("proxy: AllowedOrigin %q: %w", cfg.AllowedOrigin, err)
	}
	up := cfg.Upstream
	if up == "" {
		up = OpenRouterAPI
	}
	base, err := checkUpstream(up)
	if err != nil {
		return nil, fmt.Errorf("proxy: Upstream %q: %w", up, err)
	}
	clock, err := checkExchange(cfg.MaxBody, cfg.Doer, cfg.BodyTimeout, cfg.HeaderTimeout, cfg.IdleTimeout)
	if err != nil {
		return nil, err
	}
	h := &Handler{origin: cfg.AllowedOrigin, base: base, maxBody: cfg.MaxBody,
		doer: cfg.Doer, clock: clock, log: cfg.Log}
	if h.maxBody == 0 {
		h.maxBody = DefaultMaxBody
	}
	return h, nil
}

// checkOrigin accepts exactly the ASCII serialization of a tuple origin.
func checkOrigin(o string) error {
	u, err := url.Parse(o)
	if err != nil {
		return err
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("scheme must be http or https")
	case u.Host == "" || u.User != nil:
		return errors.New("want scheme://host[:port]")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.HasSuffix(o, "#"):
		return errors.New("an origin has no path, query or fragment")
	case o != strings.ToLower(o):
		return errors.New("browsers serialize origins in lower case")
	}
	return nil
}

// checkUpstream accepts OpenRouterAPI, or a loopback base for tests, so a
// misconfigured var cannot turn the proxy into a relay to anywhere.
func checkUpstream(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if s == OpenRouterAPI {
		return u, nil
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errors.New("scheme must be http or https")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.RawPath != "" || u.Path != "/api/v1" {
		return nil, errors.New("want " + OpenRouterAPI + " or a loopback http(s)://host:port/api/v1")
	}
	if !isLoopback(u.Hostname()) {
		return nil, errors.New("only " + OpenRouterAPI + " or a loopback host is allowed")
	}
	return u, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// ServeHTTP applies the rules to r and forwards it or refuses it. When
// the upstream's body breaks off or stalls after the status has been
// passed on, it logs the event and then panics with http.ErrAbortHandler
// (see abortBroken).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ev := Event{Method: r.Method}
	h.serve(w, r, &ev)
	if h.log != nil {
		ev.Duration = time.Since(start)
		h.log(ev)
	}
	abortBroken(ev.Code)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request, ev *Event) {
	refuse := func(e *Error) {
		ev.Status, ev.Code = e.Status, e.Code
		WriteError(w, e)
	}
	h.clock.start(w)
	if e := checkSite(r, h.origin); e != nil {
		refuse(e)
		return
	}
	if status, answered := answerMethod(w, r, allowed, "use GET or POST", refuse); answered {
		ev.Status = status
		return
	}
	rest, e := checkPath(r.URL)
	if e != nil {
		refuse(e)
		return
	}
	ev.Path = rest
	hdr, e := forwardHeaders(r.Header)
	if e != nil {
		refuse(e)
		return
	}
	body, e := h.clock.readBody(w, r, h.maxBody)
	if e != nil {
		refuse(e)
		return
	}

	target := *h.base
	target.Path = h.base.Path + "/" + rest
	target.RawQuery = r.URL.RawQuery
	var br io.Reader
	if r.Method == http.MethodPost {
		br = bytes.NewReader(body)
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	up, err := http.NewRequestWithContext(ctx, r.Method, target.String(), br)
	if err != nil {
		refuse(errorf(http.StatusBadRequest, CodePath, "cannot build the upstream request"))
		return
	}
	up.Header = hdr
	resp, e := h.clock.exchange(h.doer, up, cancel, r, "the upstream")
	if e != nil {
		if e.Code == CodeClientGone {
			// The client went away; nobody reads this answer.
			ev.Status, ev.Code = e.Status, e.Code
			return
		}
		refuse(e)
		return
	}
	defer resp.Body.Close()
	ev.Upstream = resp.StatusCode
	if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.StatusCode != http.StatusNotModified {
		refuse(errorf(http.StatusBadGateway, CodeRedirect, "the upstream answered %d (a redirect); the proxy does not follow redirects", resp.StatusCode))
		return
	}
	ev.Status = resp.StatusCode
	ev.Bytes, err = passBack(w, resp, passedResponseHeaders[:], h.clock)
	// Status and headers are gone; all that is left is to say so in the
	// log and, for an upstream that broke off, break off too.
	ev.Code = brokenCode(err, r)
}

const allowed = "GET, POST, OPTIONS"

// checkRequestOrigin is the CSRF rule shared by the proxy and the MCP
// relay: the request must come from a page on origin.
func checkRequestOrigin(r *http.Request, origin string) *Error {
	origins := r.Header.Values("Origin")
	switch {
	case len(origins) == 0:
		// Fetch sends no Origin on a same-origin GET or HEAD; it does
		// send Sec-Fetch-Site, a forbidden header name that page script
		// cannot set.
		if r.Method == http.MethodGet {
			if s := r.Header.Values("Sec-Fetch-Site"); len(s) == 1 && s[0] == "same-origin" {
				return nil
			}
		}
		return errorf(http.StatusForbidden, CodeOriginMissing, "missing Origin header; only the workbench at %s may use this proxy", origin)
	case len(origins) > 1:
		return errorf(http.StatusForbidden, CodeOriginForbidden, "%d Origin headers; want exactly one", len(origins))
	case origins[0] == "null":
		return errorf(http.StatusForbidden, CodeOriginForbidden, "Origin \"null\" is refused; only the workbench at %s may use this proxy", origin)
	case origins[0] != origin:
		return errorf(http.StatusForbidden, CodeOriginForbidden, "Origin %s is refused; only the workbench at %s may use this proxy", clip(origins[0]), origin)
	}
	return nil
}

// checkPath returns the validated path after MountPath. It checks both the
// decoded and the escaped form so that no encoding, single or double, of a
// separator or a dot segment gets through.
func checkPath(u *url.URL) (string, *Error) {
	if u.Opaque != "" {
		return "", errorf(http.StatusBadRequest, CodePath, "opaque request target is not allowed")
	}
	p := u.Path
	if !strings.HasPrefix(p, MountPath) {
		return "", errorf(http.StatusNotFound, CodeNotFound, "not under %s", MountPath)
	}
	if len(p)-len(MountPath)+len(u.RawQuery) > MaxPathBytes {
		return "", errorf(http.StatusRequestURITooLong, CodeTooLong, "path and query exceed %d bytes", MaxPathBytes)
	}
	if ep := u.EscapedPath(); ep != p || strings.ContainsRune(u.RawPath, '%') {
		return "", errorf(http.StatusBadRequest, CodePath, "percent-encoding is not allowed in the path")
	}
	rest := p[len(MountPath):]
	if rest == "" {
		return "", errorf(http.StatusNotFound, CodeNotFound, "no endpoint after %s", MountPath)
	}
	for i, seg := range strings.Split(rest, "/") {
		switch seg {
		case "":
			return "", errorf(http.StatusBadRequest, CodePath, "path segment %d is empty", i+1)
		case ".", "..":
			return "", errorf(http.StatusBadRequest, CodePath, "path segment %d is %q", i+1, seg)
		}
		for j := 0; j < len(seg); j++ {
			if !unreserved(seg[j]) {
				return "", errorf(http.StatusBadRequest, CodePath, "path segment %d has byte %q at offset %d; only A-Z a-z 0-9 - . _ ~ are allowed", i+1, seg[j], j)
			}
		}
	}
	if e := checkQuery(u.RawQuery); e != nil {
		return "", e
	}
	return rest, nil
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// checkQuery accepts RFC 3986 query characters with well-formed
// percent-encoding; the query cannot change the target's host or path.
func checkQuery(q string) *Error {
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case unreserved(c) || strings.IndexByte("!$&'()*+,;=:@/?", c) >= 0:
		case c == '%' && i+2 < len(q) && ishex(q[i+1]) && ishex(q[i+2]):
			i += 2
		default:
			return errorf(http.StatusBadRequest, CodeQuery, "query has byte %q at offset %d", c, i)
		}
	}
	return nil
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// forwardHeaders returns the only headers the upstream will see.
func forwardHeaders(in http.Header) (http.Header, *Error) {
	out := make(http.Header, len(forwardedRequestHeaders))
	for _, k := range forwardedRequestHeaders {
		v, ok, e := headerValue(in, k, false)
		if e != nil {
			return nil, e
		}
		if ok {
			out[k] = []string{v}
		}
	}
	return out, nil
}

// headerValue returns the single value of header k, reporting whether it
// is present. The value must be printable ASCII, and Authorization must be
// "Bearer <token>". Unless list is set, a comma is refused too: a runtime
// that folds repeated header lines into one (the Fetch API does) makes a
// duplicate look like a comma-separated list.
func headerValue(in http.Header, k string, list bool) (string, bool, *Error) {
	v := in.Values(k)
	if len(v) == 0 {
		return "", false, nil
	}
	if len(v) > 1 {
		return "", false, errorf(http.StatusBadRequest, CodeHeader, "%d %s headers; want at most one", len(v), k)
	}
	if len(v[0]) > MaxHeaderValueBytes {
		return "", false, errorf(http.StatusRequestHeaderFieldsTooLarge, CodeHeaderTooLarge, "%s header of %d bytes exceeds the %d-byte cap", k, len(v[0]), MaxHeaderValueBytes)
	}
	for i := 0; i < len(v[0]); i++ {
		c := v[0][i]
		if (c < 0x20 && c != '\t') || c > 0x7e {
			return "", false, errorf(http.StatusBadRequest, CodeHeader, "%s header has byte 0x%02x at offset %d; only printable ASCII is forwarded", k, c, i)
		}
	}
	if k == "Authorization" && !bearer(v[0]) {
		return "", false, errorf(http.StatusBadRequest, CodeHeader, "Authorization header is not \"Bearer <token>\" (RFC 6750 b64token)")
	}
	if !list && strings.IndexByte(v[0], ',') >= 0 {
		return "", false, errorf(http.StatusBadRequest, CodeHeader, "%s header holds a comma: a list, or repeated headers folded into one; only single values are forwarded", k)
	}
	return v[0], true, nil
}

// bearer reports whether v is RFC 6750 credentials: "Bearer" 1*SP
// b64token. The shape leaves no room for a folded or smuggled header.
func bearer(v string) bool {
	if len(v) < 7 || !strings.EqualFold(v[:6], "Bearer") || v[6] != ' ' {
		return false
	}
	tok := strings.TrimLeft(v[6:], " ")
	body := strings.TrimRight(tok, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		if c := body[i]; !unreserved(c) && c != '+' && c != '/' {
			return false
		}
	}
	return true
}

// readBody returns a POST's application/json body of at most maxBody
// bytes, read whole, and checks that any other request has none.
func readBody(r *http.Request, maxBody int64) ([]byte, *Error) {
	if r.Method != http.MethodPost {
		var one [1]byte
		if n, _ := io.ReadFull(r.Body, one[:]); n > 0 || r.ContentLength > 0 {
			return nil, errorf(http.StatusBadRequest, CodeBody, "a %s request has no body", r.Method)
		}
		return nil, nil
	}
	ct := r.Header.Get("Content-Type")
	mt, _, _ := strings.Cut(ct, ";")
	if !strings.EqualFold(strings.TrimSpace(mt), "application/json") {
		return nil, errorf(http.StatusUnsupportedMediaType, CodeMediaType, "Content-Type %s; want application/json", clip(ct))
	}
	if r.ContentLength > maxBody {
		return nil, errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "body of %d bytes exceeds the %d-byte cap", r.ContentLength, maxBody)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, errorf(http.StatusBadRequest, CodeBody, "reading the request body: %v", err)
	}
	if int64(len(b)) > maxBody {
		return nil, errorf(http.StatusRequestEntityTooLarge, CodeTooLarge, "body exceeds the %d-byte cap", maxBody)
	}
	return b, nil
}

// passBack writes resp's status, those of its headers named in passed,
// the headers every /api/ response carries, and its body, streamed, to w.
// A status that has no body (204, 205, 304) is passed without reading
// one: a runtime may hand over such a response with no readable body at
// all (the Fetch API's null body).
func passBack(w http.ResponseWriter, resp *http.Response, passed []string, clock timeouts) (int64, error) {
	dst := w.Header()
	for _, k := range passed {
		if v := resp.Header.Values(k); len(v) > 0 {
			dst[k] = append([]string(nil), v...)
		}
	}
	secureAPIHeaders(dst)
	if !renderable(resp.Header.Get("Content-Type")) {
		dst.Set("Content-Disposition", "attachment")
	}
	if n, ok := declaredLength(resp); ok {
		dst.Set("Content-Length", strconv.FormatInt(n, 10))
	}
	w.WriteHeader(resp.StatusCode)
	switch resp.StatusCode {
	case http.StatusNoContent, http.StatusResetContent, http.StatusNotModified:
		return 0, nil
	}
	return stream(w, resp.Body, clock)
}

// declaredLength is the length of resp's body as its server declared it,
// when that is the length of the bytes passed on: a Content-Length on a
// body without a content coding (a client that decodes a coded body
// passes on more bytes than were declared). Passing it on lets the client
// see a body that breaks off for what it is where the host cannot break
// off a chunked one (workerd ends an errored chunked body as if whole;
// see the Worker).
//
// It reads the header rather than resp.ContentLength, which a Doer may
// leave at zero for "not known" (the Worker's bridge does).
func declaredLength(resp *http.Response) (int64, bool) {
	cl := resp.Header.Values("Content-Length")
	if len(cl) != 1 || resp.Uncompressed || len(resp.TransferEncoding) > 0 || resp.Header.Get("Content-Encoding") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(cl[0], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// stream copies src to w, flushing after every read so that each upstream
// chunk reaches the client as soon as it arrives. Each write must be
// taken by the client within the idle timeout.
func stream(w http.ResponseWriter, src io.Reader, clock timeouts) (int64, error) {
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	var n int64
	for {
		m, rerr := src.Read(buf)
		if m > 0 {
			clock.writing(w)
			k, werr := w.Write(buf[:m])
			n += int64(k)
			if werr != nil {
				return n, werr
			}
			if f != nil {
				f.Flush()
			}
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

// clip shortens attacker-supplied text echoed in an error message.
func clip(s string) string {
	const max = 64
	if len(s) > max {
		s = s[:max] + "…"
	}
	return fmt.Sprintf("%q", s)
}
