// Package httpapi is the capability palette's client of the HTTP
// contract in the capability workbench document: a backend that serves
// the catalog, descriptors, preflight, the governed invoke and the run
// events over HTTP. Client implements capability.Backend, so the UI talks
// to such a backend exactly as it talks to the in-process Governor.
//
// The routes (all relative to the backend's origin):
//
//	GET  /api/capabilities                         catalog
//	GET  /api/capabilities/{capability_id}         descriptor
//	POST /api/capabilities/{capability_id}/preflight  {action, inputs, target}
//	POST /api/capabilities/{capability_id}/invoke     {action, inputs, target[, approval_id, run_id, session_id]}
//	                                               202 running | 202 approval_required | 200 {status, result}
//	GET  /api/runs[?session_id=]                   runs (sorted newest first by the client)
//	GET  /api/runs/{run_id}/events?after=&limit=   a page of events
//	GET  /api/runs/{run_id}/events?after=          with Accept: text/event-stream, live follow
//
// and, only when the catalog or a descriptor declares them
// (DecodeApprovalRoutes), the routes of the backend's approvals surface.
//
// Answers are read as schemas/capability-*.schema.json publish them and
// in the reasonable variants another author writes from the document
// (wire.go): each catalog entry on its own, several actions per
// capability, availability as a word or an object, synchronous {status,
// result} envelopes, runs and events with other member names. An
// approval is resumed with the document alone, by re-submitting the exact
// proposal with its approval id.
//
// Guarantees:
//   - The client never sends an identity: no Authorization, no actor or
//     agent field. In the browser every request goes through fetch
//     (package fetch's default Doer) with credentials "same-origin", so
//     the page's cookies reach the backend of the page's own origin (and
//     no other), which is how the backend authenticates the user.
//   - 401 and 404 are *UnavailableError, an explicit state the UI shows;
//     the client never retries them, under another identity or at all, and
//     never substitutes one run id for another.
//   - Executions go only to the invoke route; descriptor routes are read.
//     Requests carry only the members the document names: preflight the
//     action (its name), the inputs and the target; invoke those and, to
//     resume, the approval, run and session ids. No route the document
//     does not name is called unless the backend declared it.
//   - A follow whose connection ends before a terminal or stream_reset
//     event fails with an error wrapping runs.ErrDropped, so runs.Follow
//     resumes after the last sequence; a stream_reset is passed on as an
//     event and ends the stream.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"workbench/pkg/capability"
	"workbench/pkg/fetch"
	"workbench/pkg/runs"
	"workbench/pkg/sse"
)

// Routes.
const (
	PathCapabilities = "/api/capabilities"
	PathRuns         = "/api/runs"
	PathApprovals    = "/api/approvals"
)

// InvokeRoute is the governed invoke route, the only one executions go
// to, whatever a catalog declares.
const InvokeRoute = PathCapabilities + "/{capability_id}/invoke"

// MaxBodyBytes bounds one JSON answer; MaxStreamBytes one follow stream.
const (
	MaxBodyBytes   = 16 << 20
	MaxStreamBytes = 64 << 20
)

// CatalogBody is the answer of GET /api/capabilities as the conformance
// server writes it; the client reads it, and its variants, with
// DecodeCatalog.
type CatalogBody struct {
	Capabilities []capability.Capability `json:"capabilities"`
	Failures     []SourceFailure         `json:"failures"`
	// Invoke is the normative governed-invoke contract: the only route
	// executions go to.
	Invoke InvokeContract `json:"invoke"`
	// Approvals declares the backend's approvals surface, which the
	// document does not name; without it the client lists no approvals.
	Approvals *ApprovalsContract `json:"approvals,omitempty"`
}

// ApprovalsContract declares the routes of an approvals surface: the
// list, and granting and denying one ({approval_id} in the route).
type ApprovalsContract struct {
	List  string `json:"list"`
	Grant string `json:"grant,omitempty"`
	Deny  string `json:"deny,omitempty"`
}

// SourceFailure is a source that could not list its capabilities.
type SourceFailure struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

// InvokeContract names the governed invoke route.
type InvokeContract struct {
	Method string `json:"method"`
	Route  string `json:"route"`
}

// PreflightRequest is the body of POST …/preflight: only the action (its
// name), its inputs and the selected target. There is no identity in it.
type PreflightRequest struct {
	Action string          `json:"action"`
	Inputs json.RawMessage `json:"inputs"`
	Target string          `json:"target,omitempty"`
}

// InvokeRequest is the body of POST …/invoke: the members of a preflight
// and, set only when resuming an approved action, the approval, run and
// session ids. The user's confirmation is the client's to ask for before
// it sends: the document names no member for it.
type InvokeRequest struct {
	Action     string          `json:"action"`
	Inputs     json.RawMessage `json:"inputs"`
	Target     string          `json:"target,omitempty"`
	ApprovalID string          `json:"approval_id,omitempty"`
	RunID      runs.RunID      `json:"run_id,omitempty"`
	SessionID  runs.SessionID  `json:"session_id,omitempty"`
}

// ErrorBody is the body of every non-2xx answer.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong; Code is a capability.Refused* code
// for a refused invocation.
type ErrorDetail struct {
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	Problems []string `json:"problems,omitempty"`
	// ApprovalID is set on a refusal that concerns an approval.
	ApprovalID string `json:"approval_id,omitempty"`
}

// RunsBody is the answer of GET /api/runs.
type RunsBody struct {
	Runs []runs.Run `json:"runs"`
}

// ApprovalsBody is the answer of GET /api/approvals.
type ApprovalsBody struct {
	Approvals []capability.Approval `json:"approvals"`
}

// UnavailableError is a 401 or 404: the backend does not let this user
// see the thing, or does not have it. It is shown as an explicit
// unavailable state and never retried.
type UnavailableError struct {
	Op      string
	Status  int
	Message string
}

func (e *UnavailableError) Error() string {
	what := "not found"
	if e.Status == http.StatusUnauthorized {
		what = "not authorized (sign in to the backend)"
	}
	if e.Message != "" {
		return fmt.Sprintf("%s: %s: %s", e.Op, what, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Op, what)
}

// Unauthorized reports whether the backend answered 401.
func (e *UnavailableError) Unauthorized() bool { return e.Status == http.StatusUnauthorized }

// StatusError is any other answer that is not a success.
type StatusError struct {
	Op     string
	Status int
	Detail ErrorDetail
}

func (e *StatusError) Error() string {
	if e.Detail.Message != "" {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Op, e.Status, e.Detail.Message)
	}
	return fmt.Sprintf("%s: HTTP %d", e.Op, e.Status)
}

// Client speaks the contract to one backend. It is safe for concurrent
// use.
type Client struct {
	base string
	hc   fetch.Doer

	mu        sync.Mutex
	descs     map[string]capability.Capability // the descriptors last read: action names, and side effects for previews that name none
	approvals ApprovalRoutes                   // the approvals surface the backend declared, if any
}

var _ capability.Backend = (*Client)(nil)

// New returns a client of the backend at origin (scheme and host, e.g.
// the page's own origin). hc sends the requests, an *http.Client or any
// fetch.Doer; nil means fetch.Default().
func New(origin string, hc fetch.Doer) (*Client, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("httpapi: backend origin %q is not an http(s) origin", origin)
	}
	if hc == nil {
		hc = fetch.Default()
	}
	return &Client{base: strings.TrimRight(origin, "/"), hc: hc, descs: map[string]capability.Capability{}}, nil
}

func capPath(id string, rest ...string) string {
	p := PathCapabilities + "/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

func runPath(id runs.RunID) string {
	return PathRuns + "/" + url.PathEscape(string(id)) + "/events"
}

// do sends one request and decodes a JSON answer into out.
func (c *Client) do(ctx context.Context, op, method, path string, body, out any, ok ...int) error {
	data, _, err := c.raw(ctx, op, method, path, body, ok...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: the answer is not the contract's JSON: %w", op, err)
	}
	return nil
}

// raw sends one request and returns a successful answer's body and
// status.
func (c *Client) raw(ctx context.Context, op, method, path string, body any, ok ...int) ([]byte, int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", op, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	if len(ok) == 0 {
		ok = []int{http.StatusOK}
	}
	good := false
	for _, s := range ok {
		good = good || resp.StatusCode == s
	}
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxBodyBytes+1))
	if !good {
		return nil, resp.StatusCode, statusError(op, resp.StatusCode, data)
	}
	if rerr != nil {
		return nil, resp.StatusCode, fmt.Errorf("%s: read the answer: %w", op, rerr)
	}
	if len(data) > MaxBodyBytes {
		return nil, resp.StatusCode, fmt.Errorf("%s: the answer is over %d bytes", op, MaxBodyBytes)
	}
	return data, resp.StatusCode, nil
}

func statusError(op string, status int, data []byte) error {
	d := DecodeError(data)
	if status == http.StatusUnauthorized || status == http.StatusNotFound {
		return &UnavailableError{Op: op, Status: status, Message: d.Message}
	}
	return &StatusError{Op: op, Status: status, Detail: d}
}

// Catalog reads GET /api/capabilities. Each entry is decoded on its own
// (DecodeCatalog): one the client cannot use is in Listing.Unusable with
// the reason, and hides nothing else. An approvals surface the catalog
// declares is remembered.
func (c *Client) Catalog(ctx context.Context) (capability.Listing, error) {
	data, _, err := c.raw(ctx, "catalog", http.MethodGet, PathCapabilities, nil)
	if err != nil {
		return capability.Listing{}, err
	}
	l, err := DecodeCatalog(data, nil)
	if err != nil {
		return capability.Listing{}, fmt.Errorf("catalog: %w", err)
	}
	c.remember(l.Capabilities...)
	c.declared(data)
	return l, nil
}

// declared remembers the approvals surface an answer declares.
func (c *Client) declared(data []byte) {
	if r, ok := DecodeApprovalRoutes(data); ok {
		c.mu.Lock()
		c.approvals = r
		c.mu.Unlock()
	}
}

func (c *Client) remember(caps ...capability.Capability) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cp := range caps {
		c.descs[cp.ID] = cp
	}
}

func (c *Client) known(id string) capability.Capability {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.descs[id]
}

// Describe reads GET /api/capabilities/{id}. A descriptor the client
// cannot use is an error saying why.
func (c *Client) Describe(ctx context.Context, id string) (capability.Capability, error) {
	op := "descriptor of " + id
	data, _, err := c.raw(ctx, op, http.MethodGet, capPath(id), nil)
	if err != nil {
		return capability.Capability{}, err
	}
	raw := json.RawMessage(data)
	// A descriptor may come wrapped, as {capability: {…}}.
	if o, ok := asObj(data); ok {
		if inner, ok := o["capability"]; ok && o["capability_id"] == nil && o["id"] == nil {
			raw = inner
		}
	}
	cp, err := DecodeCapability(raw, nil, "descriptor")
	if err != nil {
		return capability.Capability{}, fmt.Errorf("%s: unusable: %w", op, err)
	}
	if cp.ID != id {
		return capability.Capability{}, fmt.Errorf("%s: the backend answered the descriptor of %q", op, cp.ID)
	}
	c.remember(cp)
	c.declared(raw)
	return cp, nil
}

// action is the capability as seen through the proposal's action, and
// that action's name, which the requests send as action. A capability
// the client has not read yet is described first: the client does not
// guess an action's name.
func (c *Client) action(ctx context.Context, p capability.Proposal) (capability.Capability, error) {
	cp := c.known(p.CapabilityID)
	if cp.ID == "" {
		var err error
		if cp, err = c.Describe(ctx, p.CapabilityID); err != nil {
			return cp, err
		}
	}
	return cp.Act(p.Action)
}

// Preflight posts the action, its inputs and the target to
// POST …/preflight. The answer's decision decides (DecodePreview).
func (c *Client) Preflight(ctx context.Context, p capability.Proposal) (capability.Preview, error) {
	op := "preflight of " + p.CapabilityID
	cp, err := c.action(ctx, p)
	if err != nil {
		return capability.Preview{}, fmt.Errorf("%s: %w", op, err)
	}
	body := PreflightRequest{Action: cp.Name, Inputs: inputs(p.Input), Target: p.Target}
	data, _, err := c.raw(ctx, op, http.MethodPost, capPath(p.CapabilityID, "preflight"), body)
	if err != nil {
		return capability.Preview{}, err
	}
	pv, err := DecodePreview(data, cp, nil)
	if err != nil {
		return capability.Preview{}, fmt.Errorf("%s: %w", op, err)
	}
	return pv, nil
}

func inputs(in json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(in)) == 0 {
		return json.RawMessage("{}")
	}
	return in
}

// Invoke posts the proposal to the governed POST …/invoke. A 202 is a
// receipt (running or approval_required); a 200 or 201 may also be a
// synchronous answer, which is a success carrying its result (see
// DecodeReceipt), never a failure. A refusal (400, 403, 409, 422) is a
// *capability.RefusedError with the backend's code and reason — except a
// refusal coded approval_required that names its approval, which is the
// pending approval it describes.
func (c *Client) Invoke(ctx context.Context, p capability.Proposal) (capability.Receipt, error) {
	op := "invoke " + p.CapabilityID
	cp, err := c.action(ctx, p)
	if err != nil {
		return capability.Receipt{}, fmt.Errorf("%s: %w", op, err)
	}
	body := InvokeRequest{Action: cp.Name, Inputs: inputs(p.Input), Target: p.Target,
		ApprovalID: p.ApprovalID, RunID: p.RunID, SessionID: p.SessionID}
	data, status, err := c.raw(ctx, op, http.MethodPost, capPath(p.CapabilityID, "invoke"), body,
		http.StatusOK, http.StatusCreated, http.StatusAccepted)
	var se *StatusError
	if errors.As(err, &se) {
		return refusal(p, se)
	}
	if err != nil {
		return capability.Receipt{}, err
	}
	rc, err := DecodeReceipt(status, data, nil)
	if err != nil {
		return rc, fmt.Errorf("%s: %w", op, err)
	}
	return rc, nil
}

// refusal turns a refused invocation into a *capability.RefusedError, or
// into the pending approval it describes; anything else stays a
// *StatusError.
func refusal(p capability.Proposal, se *StatusError) (capability.Receipt, error) {
	switch se.Status {
	case http.StatusBadRequest, http.StatusForbidden, http.StatusConflict, http.StatusUnprocessableEntity:
	default:
		return capability.Receipt{}, se
	}
	code := se.Detail.Code
	switch {
	case code != "":
	case se.Status == http.StatusForbidden:
		code = capability.RefusedDenied
	case se.Status == http.StatusUnprocessableEntity, se.Status == http.StatusBadRequest:
		code = capability.RefusedInvalid
	default:
		return capability.Receipt{}, se
	}
	if approvalWords[word(code)] && se.Detail.ApprovalID != "" {
		return capability.Receipt{Status: capability.StatusApprovalRequired, ApprovalID: se.Detail.ApprovalID,
			RunID: p.RunID, SessionID: p.SessionID}, nil
	}
	return capability.Receipt{}, &capability.RefusedError{Code: code, CapabilityID: p.CapabilityID, Reason: se.Detail.Message, Problems: se.Detail.Problems}
}

// ErrNoApprovalsList is the answer of Approvals, Grant and Deny when the
// backend declared no such route (in its catalog or a descriptor): the
// document names none, and the client does not guess one. Pending
// approvals are then resumed by re-submission alone.
var ErrNoApprovalsList = errors.New("the backend declares no approvals list: a pending action is resumed from its form, and the backend's answer says whether it was granted")

// Approvals reads the approvals list the backend declared; without one it
// calls nothing and returns ErrNoApprovalsList.
func (c *Client) Approvals(ctx context.Context) ([]capability.Approval, error) {
	c.mu.Lock()
	path := c.approvals.List
	c.mu.Unlock()
	if path == "" {
		return nil, ErrNoApprovalsList
	}
	data, _, err := c.raw(ctx, "approvals", http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	list, err := DecodeApprovals(data, nil)
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	return list, nil
}

// NoApprovalsList reports whether err says the backend offers no
// approvals list: it declared none (ErrNoApprovalsList), or the declared
// route answers 404. Pending approvals are then resumed by re-submitting
// the exact proposal, and the backend's answer says whether it was
// granted.
func NoApprovalsList(err error) bool {
	var ue *UnavailableError
	return errors.Is(err, ErrNoApprovalsList) || errors.As(err, &ue) && ue.Status == http.StatusNotFound
}

// Grant posts to the grant route the backend declared.
func (c *Client) Grant(ctx context.Context, id string) (capability.Approval, error) {
	c.mu.Lock()
	tmpl := c.approvals.Grant
	c.mu.Unlock()
	return c.decide(ctx, "grant "+id, tmpl, id)
}

// Deny posts to the deny route the backend declared.
func (c *Client) Deny(ctx context.Context, id string) (capability.Approval, error) {
	c.mu.Lock()
	tmpl := c.approvals.Deny
	c.mu.Unlock()
	return c.decide(ctx, "deny "+id, tmpl, id)
}

func (c *Client) decide(ctx context.Context, op, tmpl, id string) (capability.Approval, error) {
	if tmpl == "" {
		return capability.Approval{}, fmt.Errorf("%s: %w", op, ErrNoApprovalsList)
	}
	var a capability.Approval
	err := c.do(ctx, op, http.MethodPost, strings.ReplaceAll(tmpl, "{approval_id}", url.PathEscape(id)), struct{}{}, &a)
	return a, err
}

// Runs reads GET /api/runs; a session filters the list.
func (c *Client) Runs(ctx context.Context, session runs.SessionID) ([]runs.Run, error) {
	path := PathRuns
	if session != "" {
		path += "?session_id=" + url.QueryEscape(string(session))
	}
	data, _, err := c.raw(ctx, "runs", http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	list, err := DecodeRuns(data, nil)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	return list, nil
}

// Events reads one page of GET /api/runs/{id}/events.
func (c *Client) Events(ctx context.Context, run runs.RunID, after int64, limit int) (runs.Page, error) {
	q := url.Values{"after": {strconv.FormatInt(after, 10)}}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	op := "events of run " + string(run)
	data, _, err := c.raw(ctx, op, http.MethodGet, runPath(run)+"?"+q.Encode(), nil)
	if err != nil {
		return runs.Page{}, err
	}
	p, err := DecodePage(data, run, nil)
	if err != nil {
		return runs.Page{}, fmt.Errorf("%s: %w", op, err)
	}
	return p, nil
}

// Follow opens the SSE mode of GET /api/runs/{id}/events after a cursor.
func (c *Client) Follow(ctx context.Context, run runs.RunID, after int64) (runs.Stream, error) {
	op := "follow run " + string(run)
	ctx, cancel := context.WithCancel(ctx)
	u := c.base + runPath(run) + "?after=" + strconv.FormatInt(after, 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		return nil, fmt.Errorf("%s: %w: %w", op, runs.ErrDropped, err)
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		cancel()
		return nil, statusError(op, resp.StatusCode, data)
	}
	if mt := strings.TrimSpace(strings.Split(resp.Header.Get("Content-Type"), ";")[0]); mt != "text/event-stream" {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("%s: answered %q, not text/event-stream", op, mt)
	}
	return &stream{op: op, run: run, body: resp.Body, cancel: cancel,
		r: sse.NewReader(io.LimitReader(resp.Body, MaxStreamBytes))}, nil
}

// stream is one SSE follow.
type stream struct {
	op     string
	run    runs.RunID
	body   io.ReadCloser
	cancel context.CancelFunc
	r      *sse.Reader
	ended  bool // a terminal or stream_reset event was read
}

// Next returns the next event. Named events of unknown types are passed
// on as they are; an event whose data is not a run event of this run is
// a protocol error.
func (s *stream) Next(ctx context.Context) (runs.Event, error) {
	if err := ctx.Err(); err != nil {
		return runs.Event{}, err
	}
	ev, err := s.r.Next()
	if err != nil {
		if s.ended {
			return runs.Event{}, io.EOF
		}
		if ctx.Err() != nil {
			return runs.Event{}, ctx.Err()
		}
		return runs.Event{}, fmt.Errorf("%s: the stream ended before a terminal event (%v): %w", s.op, err, runs.ErrDropped)
	}
	typ := ev.Type
	if typ == "" {
		typ = "message"
	}
	if typ == runs.EventStreamReset || dataType(ev.Data) == runs.EventStreamReset {
		s.ended = true
		return runs.Event{ID: runs.EventID(ev.ID), RunID: s.run, Type: runs.EventStreamReset, Data: json.RawMessage(orNull(ev.Data))}, nil
	}
	e, err := DecodeEvent(json.RawMessage(ev.Data), s.run, ev.ID, nil, "event")
	if err != nil {
		// An event that is not a run event is passed on with its name;
		// having no sequence, a Timeline does not keep it.
		return runs.Event{ID: runs.EventID(ev.ID), RunID: s.run, Type: typ, Data: json.RawMessage(orNull(ev.Data))}, nil
	}
	if e.RunID != s.run {
		return runs.Event{}, fmt.Errorf("%s: the stream carries an event of run %s", s.op, e.RunID)
	}
	if e.Type == "" || e.Type == "message" {
		e.Type = typ
	}
	if runs.TerminalEvent(e) {
		s.ended = true
	}
	return e, nil
}

// dataType is the type member of an SSE event's data, for a stream_reset
// sent as an unnamed event.
func dataType(data string) string {
	if o, ok := asObj(json.RawMessage(data)); ok {
		return o.str(nil, "", "type", "event")
	}
	return ""
}

func orNull(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

func (s *stream) Close() error {
	s.cancel()
	return s.body.Close()
}
