// Package mcp is a small client for the Model Context Protocol over the
// streamable HTTP transport. It is what the workbench uses to reach MCP
// servers, natively and in the browser (under js/wasm, requests go through
// the browser's fetch, package fetch), so it depends on the standard
// library and package fetch only.
//
// Dial starts with the 2025-11-25 handshake (initialize, then
// notifications/initialized), which every server in use speaks; a server
// that refuses it (an HTTP error status, a JSON-RPC error, a malformed
// result) is asked for the sessionless revision 2026-07-28
// (server/discover) instead. A first dial therefore sends no request a
// common server refuses (in the browser each refusal is a console
// error). Options.ProtocolVersion pins one of the two; Options.Revisions
// lets later dials of a sessionless-only server discover it at once (see
// Revisions). The Client then lists and
// calls tools. Under 2025-11-25 the client guarantees, per the transport
// specification:
//
//   - every POST carries Accept: application/json, text/event-stream, and
//     after the handshake the session's Mcp-Session-Id and the negotiated
//     MCP-Protocol-Version;
//   - a response may be one JSON message or an SSE stream; a stream is read
//     with a real SSE parser (package sse), may carry progress
//     notifications and server-to-client requests before the response, and
//     when it ends or breaks off early after event IDs were sent it is
//     resumed with GET and Last-Event-ID; one that cannot be resumed is an
//     error wrapping ErrStreamEnded, never a result;
//   - server-to-client requests are answered: ping with an empty result,
//     anything else with JSON-RPC error -32601 (the client declares no
//     capabilities);
//   - a 404 to a request carrying a session re-initializes once and retries;
//     a second 404 is a SessionExpiredError;
//   - when a call's context ends, the server gets notifications/cancelled
//     with the request ID and a reason;
//   - the answer to one request is read up to Options.MaxResponseBytes
//     (DefaultMaxResponseBytes, 16 MiB): more is a TooLargeError;
//   - Close ends the session with DELETE.
//
// Under 2026-07-28 there is no session: every request carries the
// protocol version, client info and capabilities in its _meta and the
// MCP-Protocol-Version, Mcp-Method and Mcp-Name headers; a result asking
// for more input (resultType "input_required") is ErrInputRequired; a
// cancelled call closes its HTTP request, which is that revision's
// cancellation signal. Tools whose input schema asks for arguments mirrored
// into Mcp-Param-* headers (x-mcp-header) are not supported.
//
// Under either revision no redirect is followed: a 3xx redirect is an
// error naming its status and target, since following it would resend
// Options.Header to wherever the server points.
//
// The client does not open the optional standalone GET stream, so it does
// not receive messages the server sends outside a request.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"workbench/pkg/fetch"
	"workbench/pkg/sse"
)

// Protocol revisions the client speaks.
const (
	// ProtocolVersion is the revision asked for in initialize.
	ProtocolVersion = "2025-11-25"
	// StatelessProtocolVersion is the sessionless revision, tried when a
	// server refuses the session handshake.
	StatelessProtocolVersion = "2026-07-28"
)

// DefaultMaxResponseBytes caps the answer to one request when
// Options.MaxResponseBytes is zero.
const DefaultMaxResponseBytes = 16 << 20

// supportedVersion reports whether the client can speak a version a server
// answers initialize with: the tools part of these revisions is the same.
func supportedVersion(v string) bool {
	switch v {
	case "2025-11-25", "2025-06-18", "2025-03-26":
		return true
	}
	return false
}

// Header names of the transport.
const (
	headerSession     = "Mcp-Session-Id"
	headerVersion     = "MCP-Protocol-Version"
	headerLastEventID = "Last-Event-ID"
	headerMethod      = "Mcp-Method"
	headerName        = "Mcp-Name"
)

// maxResumes bounds how often one request's SSE stream is resumed.
const maxResumes = 5

// cancelTimeout bounds sending notifications/cancelled after the caller's
// context has ended.
const cancelTimeout = 5 * time.Second

// Options configure a Client. The zero value is usable.
type Options struct {
	// HTTPClient sends the requests: an *http.Client or any fetch.Doer;
	// nil means fetch.Default(). An *http.Client's Timeout, if any, also
	// bounds how long an SSE response may stream. Dial wraps it with
	// fetch.NoRedirects: no redirect is followed, since one would resend
	// Header (a relay's authorization, say) to wherever the server points;
	// a redirect is an error naming its status and target.
	HTTPClient fetch.Doer
	// Header is added to every request, for example the authorization a
	// relay wants. The transport's own headers (Accept, Content-Type,
	// Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID) are dropped
	// from it.
	Header http.Header
	// ClientInfo names this client in initialize; empty means "workbench".
	ClientInfo Implementation
	// Timeout bounds each request (a call, one page of a listing, the
	// handshake) unless a call says otherwise with WithTimeout. Zero means
	// only the context bounds it.
	Timeout time.Duration
	// MaxResponseBytes caps the answer to one request; zero means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// ProtocolVersion pins the revision: ProtocolVersion (2025-11-25, no
	// server/discover after a refused handshake) or
	// StatelessProtocolVersion (2026-07-28, no handshake). Empty starts
	// with 2025-11-25 and falls back to 2026-07-28.
	ProtocolVersion string
	// Revisions, if not nil, remembers per endpoint the revision Dial
	// negotiated; a later Dial of the endpoint with the same Revisions
	// starts with that revision (see Revisions). nil negotiates afresh
	// every time. Ignored when ProtocolVersion is set.
	Revisions *Revisions
}

// Implementation names a client or server, as in initialize.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ServerInfo is what the server said about itself in the handshake.
type ServerInfo struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      Implementation  `json:"serverInfo"`
	Instructions    string          `json:"instructions,omitempty"`
}

// Client is a connection to one MCP server endpoint. It is safe for
// concurrent use. Its session is re-established transparently when the
// server forgets it.
type Client struct {
	url      string
	hc       fetch.Doer
	header   http.Header
	info     Implementation
	timeout  time.Duration
	maxBytes int64
	nextID   atomic.Int64

	initMu sync.Mutex // serializes re-initialization

	mu        sync.Mutex
	session   string // Mcp-Session-Id; empty for a server without sessions
	version   string // negotiated protocol version; empty before the handshake
	stateless bool   // the version is 2026-07-28: no session, _meta on every request
	server    ServerInfo
	closed    bool
}

// Dial connects to the MCP server at endpoint (an http or https URL) and
// performs the handshake. opts may be nil. With Options.Revisions, a
// server remembered as speaking only the sessionless revision is
// discovered without the handshake it refused.
func Dial(ctx context.Context, endpoint string, opts *Options) (*Client, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mcp: server URL %q is not an http(s) URL with a host", endpoint)
	}
	if opts == nil {
		opts = &Options{}
	}
	c := &Client{
		url:      endpoint,
		hc:       opts.HTTPClient,
		header:   opts.Header.Clone(),
		info:     opts.ClientInfo,
		timeout:  opts.Timeout,
		maxBytes: opts.MaxResponseBytes,
	}
	for _, h := range []string{headerSession, headerVersion, headerLastEventID, "Accept", "Content-Type"} {
		c.header.Del(h)
	}
	if c.hc == nil {
		c.hc = fetch.Default()
	}
	c.hc = fetch.NoRedirects(c.hc)
	if c.info.Name == "" {
		c.info = Implementation{Name: "workbench", Version: "0.1"}
	}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxResponseBytes
	}
	switch opts.ProtocolVersion {
	case "", ProtocolVersion, StatelessProtocolVersion:
	default:
		return nil, fmt.Errorf("mcp: protocol version %q is neither %s nor %s", opts.ProtocolVersion, ProtocolVersion, StatelessProtocolVersion)
	}
	ctx, cancel := c.bound(ctx, 0)
	defer cancel()
	memo := opts.Revisions
	if opts.ProtocolVersion != "" {
		memo = nil // a pinned revision says nothing about the server's choice
	}
	remembered := memo.Revision(endpoint)
	if opts.ProtocolVersion == StatelessProtocolVersion || remembered == StatelessProtocolVersion {
		// Pinned to, or remembered as speaking, the sessionless
		// revision: its description is its handshake.
		ok, err := c.discover(ctx)
		switch {
		case ok:
			memo.remember(endpoint, StatelessProtocolVersion)
			return c, nil
		case opts.ProtocolVersion == StatelessProtocolVersion && err != nil:
			return nil, err
		case opts.ProtocolVersion == StatelessProtocolVersion:
			return nil, &ProtocolError{Op: "server/discover", Where: "server/discover result",
				Err: fmt.Errorf("server does not list %s among its supported versions", StatelessProtocolVersion)}
		case err != nil && !legacyServer(err):
			return nil, err
		}
		memo.forget(endpoint, remembered) // the server no longer speaks it
	}
	// The session revision's handshake first: every server in use today
	// speaks it, so a first dial makes no request a server refuses (in
	// the browser each refusal is a console error).
	err = c.initialize(ctx)
	if err == nil {
		memo.remember(endpoint, c.version)
		return c, nil
	}
	if opts.ProtocolVersion == ProtocolVersion || remembered == StatelessProtocolVersion || !legacyServer(err) {
		return nil, err
	}
	// The server refused the handshake: one that speaks only the
	// sessionless revision does.
	memo.forget(endpoint, remembered)
	c.mu.Lock()
	c.session, c.version, c.stateless, c.server = "", "", false, ServerInfo{}
	c.mu.Unlock()
	if ok, derr := c.discover(ctx); ok && derr == nil {
		memo.remember(endpoint, StatelessProtocolVersion)
		return c, nil
	}
	// Neither revision: the handshake's refusal says what went wrong.
	return nil, err
}

// discover asks for the server's description with the stateless revision's
// server/discover and reports whether the server speaks that revision.
func (c *Client) discover(ctx context.Context) (bool, error) {
	c.mu.Lock()
	c.stateless, c.version = true, StatelessProtocolVersion
	c.mu.Unlock()
	raw, err := c.call(ctx, "server/discover", "server/discover", nil, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stateless, c.version = false, ""
	if err != nil {
		return false, err
	}
	var res struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Instructions      string          `json:"instructions"`
		Meta              struct {
			ServerInfo Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return false, &ProtocolError{Op: "server/discover", Where: "server/discover result", Err: err}
	}
	if !slices.Contains(res.SupportedVersions, StatelessProtocolVersion) {
		return false, nil
	}
	c.stateless, c.version = true, StatelessProtocolVersion
	c.server = ServerInfo{ProtocolVersion: StatelessProtocolVersion, Capabilities: res.Capabilities,
		ServerInfo: res.Meta.ServerInfo, Instructions: res.Instructions}
	return true, nil
}

// legacyServer reports whether err from server/discover may mean that
// the server does not speak the stateless revision, so initialize should
// be tried: any HTTP status (a 2025 server usually answers 400 to a
// request without a session), a JSON-RPC error (unknown method,
// unsupported version) or an answer that is not a discover result. If the
// server is broken instead, initialize reports how.
func legacyServer(err error) bool {
	var (
		he *HTTPError
		re *RPCError
		pe *ProtocolError
	)
	return errors.As(err, &he) || errors.As(err, &re) || errors.As(err, &pe)
}

// ServerInfo returns what the server said in the most recent handshake.
func (c *Client) ServerInfo() ServerInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.server
}

// SessionID returns the current Mcp-Session-Id, empty if the server keeps
// no sessions.
func (c *Client) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// Close ends the session with DELETE. A server that does not allow it
// (405) or has already forgotten the session (404) is not an error.
func (c *Client) Close(ctx context.Context) error {
	c.mu.Lock()
	session, version, closed := c.session, c.version, c.closed
	c.closed = true
	c.mu.Unlock()
	if closed || session == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return fmt.Errorf("mcp: close: %w", err)
	}
	c.setHeaders(req, wire{session: session, version: version})
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("mcp: close: %w", ctx.Err())
		}
		return unreachable(c.url, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode/100 == 2, resp.StatusCode == http.StatusNotFound, resp.StatusCode == http.StatusMethodNotAllowed:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil
	}
	return httpError("close session", resp)
}

// bound applies the per-request timeout: d if positive, else the client's.
func (c *Client) bound(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		d = c.timeout
	}
	if d <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, d)
}

// initialize performs the handshake on a fresh session.
func (c *Client) initialize(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    struct{}{},
		"clientInfo":      c.info,
	}
	raw, err := c.call(ctx, "initialize", "initialize", params, nil)
	if err != nil {
		return err
	}
	var res ServerInfo
	if err := json.Unmarshal(raw, &res); err != nil {
		return &ProtocolError{Op: "initialize", Where: "initialize result", Err: err}
	}
	if !supportedVersion(res.ProtocolVersion) {
		return &ProtocolError{Op: "initialize", Where: "initialize result",
			Err: fmt.Errorf("server chose protocol version %q, which this client does not speak", res.ProtocolVersion)}
	}
	c.mu.Lock()
	c.version = res.ProtocolVersion
	c.stateless = false
	c.server = res
	c.mu.Unlock()
	return c.notify(ctx, "notifications/initialized", nil)
}

// reinitialize replaces the session stale with a new one, unless another
// call already has.
func (c *Client) reinitialize(ctx context.Context, stale string) error {
	c.initMu.Lock()
	defer c.initMu.Unlock()
	c.mu.Lock()
	current := c.session
	c.mu.Unlock()
	if current != stale {
		return nil
	}
	return c.initialize(ctx)
}

// callConfig is what one request may add to the transport's behavior.
type callConfig struct {
	timeout  time.Duration
	progress func(Progress)
}

// A CallOption changes how one request is made.
type CallOption func(*callConfig)

// WithTimeout bounds this request instead of Options.Timeout.
func WithTimeout(d time.Duration) CallOption {
	return func(cc *callConfig) { cc.timeout = d }
}

// WithProgress asks the server for progress notifications (a progressToken
// in the request's _meta) and passes each one to f, in order, on the
// goroutine making the call.
func WithProgress(f func(Progress)) CallOption {
	return func(cc *callConfig) { cc.progress = f }
}

// Progress is one notifications/progress for a call.
type Progress struct {
	Progress float64
	Total    float64 // zero when the server does not know
	Message  string
}

// wireMessage is any JSON-RPC 2.0 message.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// outgoing is a request or notification the client sends.
type outgoing struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// outgoingResponse answers a server-to-client request.
type outgoingResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

// parseMessage decodes one JSON-RPC message and checks its envelope.
func parseMessage(data []byte) (*wireMessage, error) {
	var m wireMessage
	if err := json.Unmarshal(data, &m); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			if se.Offset == int64(len(data)) && strings.Contains(se.Error(), "unexpected end") {
				// A beginning of JSON, not JSON gone wrong: the body was
				// cut (a host that cannot break a body off ends it).
				return nil, fmt.Errorf("the JSON ends after %d bytes, before its end: the body was cut: %w", len(data), err)
			}
			return nil, fmt.Errorf("invalid JSON at byte %d: %w", se.Offset, err)
		}
		return nil, err
	}
	if m.JSONRPC != "2.0" {
		return nil, fmt.Errorf(`"jsonrpc" is %q, want "2.0"`, m.JSONRPC)
	}
	return &m, nil
}

func (m *wireMessage) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }
func (m *wireMessage) isRequest() bool {
	return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null"
}

// call sends one request and returns its result. op names it in errors.
// A 404 on a session re-initializes once and retries.
func (c *Client) call(ctx context.Context, op, method string, params any, cc *callConfig) (json.RawMessage, error) {
	c.mu.Lock()
	closed, stateless := c.closed, c.stateless
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if cc == nil {
		cc = &callConfig{}
	}
	id := c.nextID.Add(1)
	var m meta
	if cc.progress != nil {
		m.ProgressToken = &id
	}
	if stateless {
		m.ProtocolVersion, m.ClientInfo, m.ClientCapabilities = StatelessProtocolVersion, &c.info, &struct{}{}
	}
	params = withMeta(params, m)
	body, err := json.Marshal(outgoing{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: encoding the request: %w", op, err)
	}
	for attempt := 0; ; attempt++ {
		var w wire
		if method != "initialize" {
			c.mu.Lock()
			w = wire{session: c.session, version: c.version}
			c.mu.Unlock()
		}
		if stateless {
			w = wire{version: StatelessProtocolVersion, method: method}
			if cp, ok := params.(callParams); ok {
				w.name = cp.Name
			}
		}
		resp, err := c.post(ctx, body, w)
		if err != nil {
			return nil, c.failed(ctx, op, method, id, stateless, err)
		}
		if method == "initialize" && resp.StatusCode == http.StatusOK {
			c.mu.Lock()
			c.session = resp.Header.Get(headerSession)
			c.mu.Unlock()
		}
		if resp.StatusCode == http.StatusNotFound && w.session != "" {
			drain(resp)
			if attempt > 0 {
				return nil, &SessionExpiredError{Op: op}
			}
			if err := c.reinitialize(ctx, w.session); err != nil {
				return nil, fmt.Errorf("mcp: %s: session expired (HTTP 404), re-initializing failed: %w", op, err)
			}
			continue
		}
		res, err := c.readResponse(ctx, op, id, resp, cc, w)
		if err != nil {
			return nil, c.failed(ctx, op, method, id, stateless, err)
		}
		if stateless {
			var rt struct {
				ResultType string `json:"resultType"`
			}
			json.Unmarshal(res, &rt)
			if rt.ResultType != "" && rt.ResultType != "complete" {
				return nil, fmt.Errorf("mcp: %s: resultType %q: %w", op, rt.ResultType, ErrInputRequired)
			}
		}
		return res, nil
	}
}

// wire is what a request's transport headers say.
type wire struct {
	session string // Mcp-Session-Id
	version string // MCP-Protocol-Version
	method  string // Mcp-Method (2026-07-28)
	name    string // Mcp-Name (2026-07-28 tools/call)
}

// meta is the _meta of a request the client sends.
type meta struct {
	ProgressToken      *int64          `json:"progressToken,omitempty"`
	ProtocolVersion    string          `json:"io.modelcontextprotocol/protocolVersion,omitempty"`
	ClientInfo         *Implementation `json:"io.modelcontextprotocol/clientInfo,omitempty"`
	ClientCapabilities *struct{}       `json:"io.modelcontextprotocol/clientCapabilities,omitempty"`
}

// withMeta adds m, unless it is empty, as the _meta of params: tools/call
// params, a map the client built, or nil.
func withMeta(params any, m meta) any {
	if m == (meta{}) {
		return params
	}
	if cp, ok := params.(callParams); ok {
		cp.Meta = &m
		return cp
	}
	p, _ := params.(map[string]any)
	q := make(map[string]any, len(p)+1)
	for k, v := range p {
		q[k] = v
	}
	q["_meta"] = m
	return q
}

// failed turns an error of a request into what the caller sees. When the
// context ended, the aborted HTTP request has closed the response stream,
// which is all a 2026-07-28 server needs; a 2025-11-25 server is also sent
// notifications/cancelled (never for initialize, which may not be
// cancelled).
func (c *Client) failed(ctx context.Context, op, method string, id int64, stateless bool, err error) error {
	cerr := ctx.Err()
	if cerr == nil {
		return err
	}
	what, reason := "cancelled", "the client cancelled the request"
	if errors.Is(cerr, context.DeadlineExceeded) {
		what, reason = "timed out", "the request timed out"
	}
	if method != "initialize" && !stateless {
		nctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelTimeout)
		if c.notify(nctx, "notifications/cancelled", map[string]any{"requestId": id, "reason": reason}) == nil {
			what += ", server notified"
		}
		cancel()
	}
	return fmt.Errorf("mcp: %s: %s: %w", op, what, cerr)
}

// notify sends a notification and expects 202 Accepted (any 2xx is taken).
func (c *Client) notify(ctx context.Context, method string, params any) error {
	body, err := json.Marshal(outgoing{JSONRPC: "2.0", Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("mcp: %s: encoding: %w", method, err)
	}
	return c.postAccepted(ctx, method, body)
}

// postAccepted POSTs a notification or response in the current session.
func (c *Client) postAccepted(ctx context.Context, op string, body []byte) error {
	c.mu.Lock()
	w := wire{session: c.session, version: c.version}
	c.mu.Unlock()
	resp, err := c.post(ctx, body, w)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("mcp: %s: %w", op, ctx.Err())
		}
		return err
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return httpError(op, resp)
	}
	drain(resp)
	return nil
}

// post sends one JSON-RPC message.
func (c *Client) post(ctx context.Context, body []byte, w wire) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("mcp: %w", err)
	}
	c.setHeaders(req, w)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, unreachable(c.url, err)
	}
	return resp, nil
}

func (c *Client) setHeaders(req *http.Request, w wire) {
	for k, vs := range c.header {
		req.Header[k] = append([]string(nil), vs...)
	}
	if w.session != "" {
		req.Header.Set(headerSession, w.session)
	}
	if w.version != "" {
		req.Header.Set(headerVersion, w.version)
	}
	if w.method != "" {
		req.Header.Set(headerMethod, w.method)
	}
	if w.name != "" {
		req.Header.Set(headerName, w.name)
	}
}

// unreachable is the error for a request that got no response: an
// *UnreachableError, or for a redirect the client refused to follow, that
// refusal.
func unreachable(u string, err error) error {
	var re *fetch.RedirectError
	if errors.As(err, &re) {
		return fmt.Errorf("mcp: %w", err)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &UnreachableError{URL: u, Err: err}
}

// httpError reads the start of resp's body into an HTTPError.
func httpError(op string, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &HTTPError{Op: op, StatusCode: resp.StatusCode, Body: excerpt(b)}
}

// statusError is the error for a request answered with an HTTP error
// status: the JSON-RPC error when the body is one (servers send them with
// 4xx statuses), otherwise an HTTPError.
func statusError(op string, id int64, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if mediaType(resp.Header.Get("Content-Type")) == "application/json" {
		if m, err := parseMessage(b); err == nil && m.isResponse() && m.Error != nil &&
			(sameID(m.ID, id) || string(m.ID) == "null") {
			return &RPCError{Op: op, Code: m.Error.Code, Message: m.Error.Message, Data: m.Error.Data}
		}
	}
	return &HTTPError{Op: op, StatusCode: resp.StatusCode, Body: excerpt(b)}
}

// drain reads a little of a body that is not needed, so the connection
// can be reused, and closes it.
func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
}

// errTooLarge is the budget reader's error; call sites turn it into a
// TooLargeError naming the operation.
var errTooLarge = errors.New("response too large")

// budget is how many bytes the answer to one request may still take.
type budget struct{ left int64 }

// limited reads from r while the budget lasts.
type limited struct {
	r io.Reader
	b *budget
}

func (l *limited) Read(p []byte) (int, error) {
	if l.b.left < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.b.left+1 {
		p = p[:l.b.left+1]
	}
	n, err := l.r.Read(p)
	l.b.left -= int64(n)
	if l.b.left < 0 {
		return n, errTooLarge
	}
	return n, err
}

// readResponse reads the answer to request id from resp and closes it.
func (c *Client) readResponse(ctx context.Context, op string, id int64, resp *http.Response, cc *callConfig, w wire) (json.RawMessage, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		if resp.StatusCode == http.StatusAccepted {
			return nil, &ProtocolError{Op: op, Where: "HTTP status", Err: errors.New("202 Accepted to a request, which needs an answer")}
		}
		return nil, statusError(op, id, resp)
	}
	b := &budget{left: c.maxBytes}
	body := &limited{r: resp.Body, b: b}
	ct := resp.Header.Get("Content-Type")
	mt := mediaType(ct)
	var (
		res json.RawMessage
		err error
	)
	switch mt {
	case "application/json":
		res, err = c.readJSON(op, id, body)
	case "text/event-stream":
		res, err = c.readStream(ctx, op, id, body, b, cc, w)
	default:
		return nil, &ProtocolError{Op: op, Where: "Content-Type", Err: fmt.Errorf("%q is neither application/json nor text/event-stream", ct)}
	}
	if errors.Is(err, errTooLarge) {
		return nil, &TooLargeError{Op: op, Limit: c.maxBytes}
	}
	return res, err
}

// mediaType is the lower-case media type of a Content-Type value, without
// parameters.
func mediaType(ct string) string {
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// readJSON reads a response that is one JSON-RPC message.
func (c *Client) readJSON(op string, id int64, body io.Reader) (json.RawMessage, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return nil, err
		}
		return nil, &ProtocolError{Op: op, Where: fmt.Sprintf("response body, broken off after %d bytes", len(data)), Err: err}
	}
	m, err := parseMessage(data)
	if err != nil {
		return nil, &ProtocolError{Op: op, Where: "response body", Err: err}
	}
	if !m.isResponse() {
		return nil, &ProtocolError{Op: op, Where: "response body", Err: errors.New("the JSON body is not a JSON-RPC response")}
	}
	return c.result(op, id, m, "response body")
}

// result returns the result of response m to request id.
func (c *Client) result(op string, id int64, m *wireMessage, where string) (json.RawMessage, error) {
	if m.Error != nil {
		if !sameID(m.ID, id) && string(m.ID) != "null" {
			return nil, &ProtocolError{Op: op, Where: where, Err: fmt.Errorf("error response for id %s, want %d", m.ID, id)}
		}
		return nil, &RPCError{Op: op, Code: m.Error.Code, Message: m.Error.Message, Data: m.Error.Data}
	}
	if !sameID(m.ID, id) {
		return nil, &ProtocolError{Op: op, Where: where, Err: fmt.Errorf("response for id %s, want %d", m.ID, id)}
	}
	if len(m.Result) == 0 {
		return nil, &ProtocolError{Op: op, Where: where, Err: errors.New(`response has neither "result" nor "error"`)}
	}
	return m.Result, nil
}

func sameID(raw json.RawMessage, id int64) bool {
	return string(bytes.TrimSpace(raw)) == strconv.FormatInt(id, 10)
}

// readStream reads an SSE response until the response to id, handling
// notifications and server requests on the way, and resumes the stream
// with GET when it ends early after event IDs.
func (c *Client) readStream(ctx context.Context, op string, id int64, body io.Reader, b *budget, cc *callConfig, w wire) (json.RawMessage, error) {
	var (
		lastID  string
		retry   time.Duration
		events  int
		resumes int
	)
	sr := sse.NewReader(body)
	for {
		ev, err := sr.Next()
		if err != nil {
			if errors.Is(err, errTooLarge) || ctx.Err() != nil {
				return nil, err
			}
			lastID, retry = sr.LastEventID(), max(retry, sr.Retry())
			where := fmt.Sprintf("SSE stream after %d events", events)
			// A stream that breaks off (a read error: a reset, a
			// connection closed inside the chunked encoding, the
			// browser's "network error") has ended as surely as one that
			// ends: both are resumed, and both end in ErrStreamEnded,
			// saying which.
			ended := ErrStreamEnded
			switch {
			case err == io.ErrUnexpectedEOF:
				where += ", inside an unfinished event"
			case err != io.EOF:
				where += ", broken off"
				ended = fmt.Errorf("%w (%v)", ErrStreamEnded, err)
			}
			if lastID == "" || resumes == maxResumes {
				return nil, &ProtocolError{Op: op, Where: where, Err: ended}
			}
			resumes++
			next, rerr := c.resume(ctx, lastID, retry, w)
			if rerr != nil {
				if errors.Is(rerr, context.Canceled) || errors.Is(rerr, context.DeadlineExceeded) {
					return nil, rerr
				}
				return nil, &ProtocolError{Op: op, Where: where, Err: fmt.Errorf("%w; resuming from event %q failed: %v", ErrStreamEnded, lastID, rerr)}
			}
			defer next.Close()
			sr = sse.NewReader(&limited{r: next, b: b})
			continue
		}
		events++
		if ev.Data == "" || (ev.Type != "" && ev.Type != "message") {
			continue // a priming event, or not a JSON-RPC message
		}
		where := fmt.Sprintf("SSE event %d", events)
		if ev.ID != "" {
			where += fmt.Sprintf(" (id %q)", ev.ID)
		}
		m, err := parseMessage([]byte(ev.Data))
		if err != nil {
			return nil, &ProtocolError{Op: op, Where: where, Err: err}
		}
		switch {
		case m.isResponse():
			if !sameID(m.ID, id) && !(m.Error != nil && string(m.ID) == "null") {
				continue // not ours; only ours belongs on this stream
			}
			return c.result(op, id, m, where)
		case m.isRequest():
			c.answer(ctx, m)
		case m.Method == "notifications/progress" && cc.progress != nil:
			var p struct {
				Token    json.RawMessage `json:"progressToken"`
				Progress float64         `json:"progress"`
				Total    float64         `json:"total"`
				Message  string          `json:"message"`
			}
			if json.Unmarshal(m.Params, &p) == nil && sameID(p.Token, id) {
				cc.progress(Progress{Progress: p.Progress, Total: p.Total, Message: p.Message})
			}
		}
	}
}

// resume reopens a request's SSE stream after lastID (spec: resumability
// and redelivery), waiting retry first.
func (c *Client) resume(ctx context.Context, lastID string, retry time.Duration, w wire) (io.ReadCloser, error) {
	if retry > 0 {
		t := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	c.setHeaders(req, wire{session: w.session, version: w.version})
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerLastEventID, lastID)
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, unreachable(c.url, err)
	}
	if resp.StatusCode != http.StatusOK || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		msg := fmt.Sprintf("GET answered HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
		if resp.StatusCode == http.StatusOK {
			msg += fmt.Sprintf(" with Content-Type %q", resp.Header.Get("Content-Type"))
		}
		if e := excerpt(b); e != "" {
			msg += ": " + e
		}
		return nil, errors.New(msg)
	}
	return resp.Body, nil
}

// answer responds to a server-to-client request that arrived in a stream:
// ping gets an empty result, everything else -32601, since the client
// declared no capabilities. A response that cannot be delivered only
// leaves the server's request unanswered; the call in progress goes on.
func (c *Client) answer(ctx context.Context, m *wireMessage) {
	r := outgoingResponse{JSONRPC: "2.0", ID: m.ID}
	if m.Method == "ping" {
		r.Result = struct{}{}
	} else {
		r.Error = &wireError{Code: CodeMethodNotFound, Message: fmt.Sprintf("method %q is not supported by this client", m.Method)}
	}
	body, err := json.Marshal(r)
	if err != nil {
		return
	}
	c.postAccepted(ctx, "response to "+m.Method, body)
}
