// Package openrouter is the workbench's client for OpenRouter's chat
// completions API: tool calling in OpenAI's tools/tool_calls format,
// streamed or not, the cost of each call, and the key check of GET /key.
//
// It is pure Go and builds for js/wasm, where requests go through the
// browser's fetch (package fetch) unless the caller passes another Doer. In
// the browser the client talks to the same-origin proxy
// (DefaultBaseURL, package proxy) and never to openrouter.ai directly;
// natively the caller passes an absolute base URL, such as OpenRouterAPI or
// a local `workbench serve` followed by DefaultBaseURL.
//
// Guarantees:
//
//   - Requests carry only Authorization ("Bearer <key>"), Content-Type
//     (application/json, on POST) and HTTP-Referer (when set): the headers
//     the proxy forwards and OpenRouter's CORS policy allows. Natively the
//     transport adds what HTTP itself needs (Host, Content-Length,
//     Accept-Encoding) and no User-Agent.
//   - The key appears in no error text and in no formatting of the Client.
//   - No redirect is followed, so the key goes nowhere but the base URL: a
//     redirect is an error naming its status and target (wrapping a
//     *fetch.RedirectError).
//   - Failures are typed: *APIError (matching ErrBadKey, ErrOutOfCredit,
//     ErrRateLimited, ErrUpstream with errors.Is, with RetryAfter for 429),
//     *MalformedError for replies that are not the documented shape (with
//     where), *CutError for a reply that ended before its end (a body that
//     broke off or stops part way, a stream without [DONE] or without a
//     final finish_reason), *RequestError for a request the client
//     refuses to send. No part of a cut reply is returned as a result.
//   - A Response returned without error has a choice, and each of its tool
//     calls has an id, a name and arguments that are a JSON object.
//   - Cost is usage.cost, reported in every response (in the last event of
//     a stream); OpenRouter sends no cost header.
//
// Retrying is off by default (a retried completion may be billed twice);
// WithRetry turns on a policy bounded in attempts and total wait that
// honours Retry-After and the context. WithTimeout bounds each request
// from start to last byte (a *TimeoutError past it). A caller that asks
// again after a *MalformedError stops after UnreadableRetries of them in a
// row with an *UnreadableError.
package openrouter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"

	"workbench/pkg/fetch"
)

// DefaultBaseURL is the workbench's same-origin proxy mount (package
// proxy): a relative URL that the browser's fetch resolves against the
// page. Outside a browser it cannot be resolved; pass an absolute URL with
// WithBaseURL.
const DefaultBaseURL = "/api/llm/openrouter"

// OpenRouterAPI is OpenRouter's own base URL, for native callers.
const OpenRouterAPI = "https://openrouter.ai/api/v1"

// Limits on what the client reads, so a broken or hostile server cannot
// exhaust memory.
const (
	// MaxResponseBytes caps a non-streamed reply body.
	MaxResponseBytes = 16 << 20
	// MaxEventBytes caps one server-sent event of a stream.
	MaxEventBytes = 4 << 20
	// maxErrorBytes caps an error body.
	maxErrorBytes = 64 << 10
)

// Client calls OpenRouter with one API key. It holds no mutable state, so
// one Client may be used from several goroutines. Create it with New.
type Client struct {
	base    string // without a trailing slash
	hc      fetch.Doer
	referer string
	key     scrubber
	retry   RetryPolicy
	timeout time.Duration // per request; 0: only the context

	// Hooks for tests; set by New to the real clock.
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
}

// Option configures a Client.
type Option func(*Client)

// WithBaseURL sets the API base; requests go to base + "/chat/completions"
// and base + "/key". The default is DefaultBaseURL.
func WithBaseURL(base string) Option { return func(c *Client) { c.base = base } }

// WithHTTPClient sets what sends the requests, an *http.Client or any
// fetch.Doer; the default is fetch.Default() (the browser's fetch in a
// browser, http.DefaultClient natively). New wraps it with
// fetch.NoRedirects, which makes an *http.Client and the browser's fetch
// stop at a redirect; any other Doer must not follow redirects itself.
func WithHTTPClient(hc fetch.Doer) Option { return func(c *Client) { c.hc = hc } }

// WithReferer sets the HTTP-Referer OpenRouter attributes requests to,
// normally the workbench's own URL.
func WithReferer(referer string) Option { return func(c *Client) { c.referer = referer } }

// WithTimeout bounds each request, from sending it to the last byte of
// the reply (for ChatStream, the whole stream); a retry is a new request
// with a limit of its own. A request over the limit fails with an error
// wrapping a *TimeoutError, which matches context.DeadlineExceeded. Zero,
// the default, leaves only the context to bound requests. A connect or
// header timeout belongs to what sends the requests (an *http.Client's
// Transport).
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithRetry turns on retrying; see RetryPolicy.
func WithRetry(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// New returns a Client for key. It checks that the key and the referer can
// travel as header values and that the base URL can be used here: a
// relative base only in a browser (GOOS=js).
func New(key string, opts ...Option) (*Client, error) {
	c := &Client{base: DefaultBaseURL, key: scrubber(key), sleep: sleepCtx, now: time.Now}
	for _, o := range opts {
		o(c)
	}
	if key == "" {
		return nil, ErrNoKey
	}
	if i := badHeaderByte(key); i >= 0 {
		// The position, never the key.
		return nil, fmt.Errorf("openrouter: the API key has a character that cannot be sent in a header at byte %d", i)
	}
	if i := badHeaderByte(c.referer); i >= 0 {
		return nil, fmt.Errorf("openrouter: referer %q has a character that cannot be sent in a header at byte %d", c.referer, i)
	}
	if c.hc == nil {
		c.hc = fetch.Default()
	}
	// A redirect would resend the key; net/http resends it even to
	// another port of the same host.
	c.hc = fetch.NoRedirects(c.hc)
	c.base = strings.TrimRight(c.base, "/")
	u, err := url.Parse(c.base)
	if err != nil {
		return nil, fmt.Errorf("openrouter: base URL %q: %w", c.base, err)
	}
	switch {
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return nil, fmt.Errorf("openrouter: base URL %q: want scheme://host/path or /path, without query, fragment or user", c.base)
	case u.Scheme == "" && u.Host == "":
		if !strings.HasPrefix(c.base, "/") {
			return nil, fmt.Errorf("openrouter: base URL %q: a relative base must start with /", c.base)
		}
		if runtime.GOOS != "js" {
			return nil, fmt.Errorf("openrouter: base URL %q is relative, which only a browser can resolve; pass an absolute URL such as %s", c.base, OpenRouterAPI)
		}
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("openrouter: base URL %q: scheme must be http or https", c.base)
	}
	if c.timeout < 0 {
		return nil, fmt.Errorf("openrouter: timeout %s is negative", c.timeout)
	}
	if c.retry.MaxAttempts < 0 || c.retry.MaxWait < 0 || c.retry.Backoff < 0 {
		return nil, fmt.Errorf("openrouter: retry policy %+v has a negative bound", c.retry)
	}
	return c, nil
}

// badHeaderByte returns the index of the first byte that cannot appear in
// a header value the proxy forwards (printable ASCII without a comma), or
// -1.
func badHeaderByte(s string) int {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b > 0x7e || b == ',' {
			return i
		}
	}
	return -1
}

// BaseURL returns the base requests go under.
func (c *Client) BaseURL() string { return c.base }

// String describes the client without its key. It and the formatting
// methods have value receivers so that printing a Client value, not only a
// pointer, goes through them: fmt would otherwise print the unexported key
// field by reflection.
func (c Client) String() string {
	return fmt.Sprintf("openrouter.Client{base: %q, referer: %q, key: %s}", c.base, c.referer, redacted)
}

// GoString is String, so %#v cannot print the key either.
func (c Client) GoString() string { return c.String() }

// Format prints String for every verb.
func (c Client) Format(f fmt.State, _ rune) { io.WriteString(f, c.String()) }

// bound applies the per-request limit of WithTimeout to ctx. When the
// limit is what ends the request, context.Cause of the returned context
// is a *TimeoutError.
func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, c.timeout, &TimeoutError{Limit: c.timeout})
}

// ctxError is why a request's context ended: the caller's context, or the
// client's per-request limit (a *TimeoutError).
func ctxError(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}

// newRequest builds a request carrying exactly the allowed headers.
func (c *Client) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, c.key.transport(method+" "+path, err)
	}
	req.Header = http.Header{"Authorization": {"Bearer " + string(c.key)}}
	if body != nil {
		req.Header["Content-Type"] = []string{"application/json"}
	}
	if c.referer != "" {
		req.Header["Http-Referer"] = []string{c.referer}
	}
	platformHeaders(req.Header)
	return req, nil
}

// send performs one round trip and turns a non-2xx answer into an
// *APIError. On success the caller owns resp.Body.
func (c *Client) send(req *http.Request, op string) (*http.Response, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctxErr := ctxError(req.Context()); ctxErr != nil {
			return nil, c.key.transport(op, ctxErr)
		}
		return nil, c.key.transport(op, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
	e := &APIError{Status: resp.StatusCode, RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"), c.now())}
	if obj, ok := decodeErrorObject(body); ok {
		e.Code, e.Message, e.Metadata = obj.code(), obj.Message, obj.Metadata
	} else {
		e.Message = snippet(bytes.TrimSpace(body))
	}
	return nil, c.key.apiError(e)
}

// errorObject is OpenRouter's {"code","message","metadata"}.
type errorObject struct {
	Code     json.RawMessage `json:"code"`
	Message  string          `json:"message"`
	Metadata json.RawMessage `json:"metadata"`
}

// code renders a numeric or string code as text.
func (o *errorObject) code() string {
	var s string
	if json.Unmarshal(o.Code, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(o.Code, &n) == nil {
		return n.String()
	}
	return ""
}

// decodeErrorObject reads a body of the form {"error":{…}}.
func decodeErrorObject(body []byte) (*errorObject, bool) {
	var w struct {
		Error *errorObject `json:"error"`
	}
	if json.Unmarshal(body, &w) != nil || w.Error == nil {
		return nil, false
	}
	if string(w.Error.Metadata) == "null" {
		w.Error.Metadata = nil
	}
	return w.Error, true
}

// Key returns what OpenRouter says about the client's key (GET /key):
// whether it is accepted (an error matching ErrBadKey if not), its label,
// limit and usage.
func (c *Client) Key(ctx context.Context) (*KeyInfo, error) {
	var info *KeyInfo
	err := c.retrying(ctx, func() error {
		var err error
		info, err = c.key1(ctx)
		return err
	})
	return info, err
}

func (c *Client) key1(ctx context.Context) (*KeyInfo, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, "/key", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(req, "GET /key")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readCapped(resp.Body, MaxResponseBytes)
	if err != nil {
		return nil, c.readError(req, "GET /key", len(body), err)
	}
	var w struct {
		Data *struct {
			KeyInfo
			Label *string  `json:"label"`
			Usage *float64 `json:"usage"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		if endsEarly(body, err) {
			return nil, c.cutJSON("GET /key", body)
		}
		return nil, c.key.malformed(&MalformedError{Where: jsonWhere(err), Reason: "GET /key reply is not the documented JSON: " + err.Error(), Snippet: snippet(body), Err: err})
	}
	switch {
	case w.Data == nil:
		return nil, c.key.malformed(&MalformedError{Where: "/data", Reason: "missing", Snippet: snippet(body)})
	case w.Data.Label == nil:
		return nil, c.key.malformed(&MalformedError{Where: "/data/label", Reason: "missing", Snippet: snippet(body)})
	case w.Data.Usage == nil:
		return nil, c.key.malformed(&MalformedError{Where: "/data/usage", Reason: "missing", Snippet: snippet(body)})
	}
	info := w.Data.KeyInfo
	info.Label, info.Usage = *w.Data.Label, *w.Data.Usage
	return &info, nil
}

// readError classifies a failed body read after n bytes: the context
// ending, a body over the cap, or a connection breaking off (a cut).
func (c *Client) readError(req *http.Request, op string, n int, err error) error {
	if ctxErr := ctxError(req.Context()); ctxErr != nil {
		return c.key.transport(op+": reading the reply", ctxErr)
	}
	var tooBig *tooLargeError
	if errors.As(err, &tooBig) {
		return c.key.malformed(&MalformedError{Reason: err.Error()})
	}
	return c.key.cut(&CutError{Op: op, Bytes: int64(n), Reason: "the connection broke off before the body's end", Err: err})
}

// endsEarly reports whether err, from decoding raw as JSON, says the
// document stops before its end: raw is a beginning of JSON, not JSON
// gone wrong. An empty body or one of white space only (OpenRouter's
// keep-alive before a non-streamed reply) is such a beginning too.
func endsEarly(raw []byte, err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) && se.Offset == int64(len(raw)) && strings.Contains(se.Error(), "unexpected end")
}

// cutJSON is the error for a JSON reply to op that ends early.
func (c *Client) cutJSON(op string, raw []byte) error {
	return c.key.cut(&CutError{Op: op, Bytes: int64(len(raw)), Reason: "the JSON ends before its end; the body ended too soon"})
}

// tooLargeError is a body over the client's cap.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("reply larger than %d bytes", e.limit)
}

// readCapped reads r whole, up to limit bytes; on error it returns what
// it read before it.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > limit {
		return nil, &tooLargeError{limit}
	}
	return b, nil
}

// jsonWhere turns a decoding error into a JSON pointer when it names a
// field.
func jsonWhere(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return "/" + strings.ReplaceAll(te.Field, ".", "/")
	}
	return ""
}
