// Package contracttest is a conformance server for the capability
// workbench's HTTP contract (package capability/httpapi), for tests only.
//
// It is not a fake: it serves a real capability.Backend — in the tests, a
// capability.Local over the Governor, the simulator and the workbench's
// own actions — so a capability invoked through it is authorized by the
// policy engine and dispatched for real, and its run events are the
// Governor's. On top it has switches that inject the failures a client
// must survive: any route answering 401, 404 or 5xx, a stream_reset after
// n events of a follow, every event sent twice, and a follow connection
// aborted mid-stream. It records every request so that tests can check
// what the client sent (no identity, same inputs on resume).
package contracttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/runs"
	"workbench/pkg/sse"
)

// Route names a route of the contract, for fault injection.
type Route string

// Routes.
const (
	RouteCatalog    Route = "catalog"
	RouteDescribe   Route = "describe"
	RoutePreflight  Route = "preflight"
	RouteInvoke     Route = "invoke"
	RouteRuns       Route = "runs"
	RouteEvents     Route = "events" // a page of events
	RouteFollow     Route = "follow" // the SSE mode of the events route
	RouteApprovals  Route = "approvals"
	RouteApprovalOp Route = "approval_op" // grant and deny
)

// Request is one request the server received.
type Request struct {
	Route  Route
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server serves the contract over a Backend until the test ends.
type Server struct {
	URL     string
	Backend capability.Backend

	mu        sync.Mutex
	fail      map[Route]int
	resetNext int // stream_reset after this many events of the next follow; -1 off
	dropNext  int // abort the next follow after this many events; -1 off
	endNext   int // end the next follow cleanly after this many events; -1 off
	endHalf   bool
	duplicate bool
	follows   int
	seen      []Request
}

// Start serves b on 127.0.0.1.
func Start(t testing.TB, b capability.Backend) *Server {
	t.Helper()
	s := &Server{Backend: b, fail: map[Route]int{}, resetNext: -1, dropNext: -1, endNext: -1}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/capabilities", s.route(RouteCatalog, s.catalog))
	mux.HandleFunc("GET /api/capabilities/{id}", s.route(RouteDescribe, s.describe))
	mux.HandleFunc("POST /api/capabilities/{id}/preflight", s.route(RoutePreflight, s.preflight))
	mux.HandleFunc("POST /api/capabilities/{id}/invoke", s.route(RouteInvoke, s.invoke))
	mux.HandleFunc("GET /api/runs", s.route(RouteRuns, s.runs))
	mux.HandleFunc("GET /api/runs/{id}/events", s.events)
	mux.HandleFunc("GET /api/approvals", s.route(RouteApprovals, s.approvals))
	mux.HandleFunc("POST /api/approvals/{id}/{op}", s.route(RouteApprovalOp, s.approvalOp))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// Fail makes route answer status (401, 404, 500, 503 …) until Heal.
func (s *Server) Fail(r Route, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail[r] = status
}

// Heal makes route answer normally again.
func (s *Server) Heal(r Route) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.fail, r)
}

// ResetNextFollow makes the next follow send a stream_reset after n
// events and end.
func (s *Server) ResetNextFollow(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resetNext = n
}

// DropNextFollow makes the next follow abort its connection after n
// events, as a network failure would: no terminal event, no clean end.
func (s *Server) DropNextFollow(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropNext = n
}

// EndNextFollow makes the next follow end cleanly after n events, with
// no terminal event: as a host in between that cannot break a stream off
// passes on one broken off behind it (workerd ends it as if whole). With
// half, the stream ends inside the next event, half of it written.
func (s *Server) EndNextFollow(n int, half bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endNext, s.endHalf = n, half
}

// Duplicate makes every event be sent twice, in pages and in follows.
func (s *Server) Duplicate(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.duplicate = on
}

// Follows counts the follow connections opened.
func (s *Server) Follows() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.follows
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.seen...)
}

// route records the request and applies an injected failure.
func (s *Server) route(r Route, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(io.LimitReader(req.Body, httpapi.MaxBodyBytes))
		if err != nil {
			fail(w, http.StatusBadRequest, "bad_request", "cannot read the body: "+err.Error())
			return
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.seen = append(s.seen, Request{Route: r, Method: req.Method, Path: req.URL.RequestURI(), Header: req.Header.Clone(), Body: body})
		status := s.fail[r]
		s.mu.Unlock()
		if status != 0 {
			fail(w, status, "injected", fmt.Sprintf("injected failure of %s", r))
			return
		}
		h(w, req)
	}
}

func fail(w http.ResponseWriter, status int, code, msg string, problems ...string) {
	reply(w, status, httpapi.ErrorBody{Error: httpapi.ErrorDetail{Code: code, Message: msg, Problems: problems}})
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// backendError answers an error of the backend with its status.
func backendError(w http.ResponseWriter, err error) {
	var (
		nf  *capability.NotFoundError
		rnf *runs.NotFoundError
		re  *capability.RefusedError
	)
	switch {
	case errors.As(err, &nf), errors.As(err, &rnf):
		fail(w, http.StatusNotFound, "not_found", err.Error())
	case errors.As(err, &re):
		status := http.StatusConflict
		switch re.Code {
		case capability.RefusedDenied:
			status = http.StatusForbidden
		case capability.RefusedInvalid:
			status = http.StatusUnprocessableEntity
		}
		fail(w, status, re.Code, re.Reason, re.Problems...)
	default:
		fail(w, http.StatusInternalServerError, "internal", err.Error())
	}
}

func (s *Server) catalog(w http.ResponseWriter, r *http.Request) {
	l, err := s.Backend.Catalog(r.Context())
	if err != nil {
		backendError(w, err)
		return
	}
	b := httpapi.CatalogBody{Capabilities: l.Capabilities, Failures: []httpapi.SourceFailure{},
		Invoke: httpapi.InvokeContract{Method: http.MethodPost, Route: httpapi.InvokeRoute},
		Approvals: &httpapi.ApprovalsContract{List: "GET " + httpapi.PathApprovals,
			Grant: "POST " + httpapi.PathApprovals + "/{approval_id}/grant", Deny: "POST " + httpapi.PathApprovals + "/{approval_id}/deny"}}
	if b.Capabilities == nil {
		b.Capabilities = []capability.Capability{}
	}
	for _, f := range l.Failures {
		b.Failures = append(b.Failures, httpapi.SourceFailure{Source: f.Source, Error: f.Err.Error()})
	}
	reply(w, http.StatusOK, b)
}

func (s *Server) describe(w http.ResponseWriter, r *http.Request) {
	c, err := s.Backend.Describe(r.Context(), r.PathValue("id"))
	if err != nil {
		backendError(w, err)
		return
	}
	reply(w, http.StatusOK, c)
}

// strict decodes a request body, refusing members the contract does not
// have — an actor identity among them.
func strict(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	var req httpapi.PreflightRequest
	if err := strict(r, &req); err != nil {
		fail(w, http.StatusBadRequest, "bad_request", "preflight takes only action, inputs and target: "+err.Error())
		return
	}
	pv, err := s.Backend.Preflight(r.Context(), capability.Proposal{CapabilityID: r.PathValue("id"), Action: req.Action,
		Input: req.Inputs, Target: req.Target})
	if err != nil {
		backendError(w, err)
		return
	}
	reply(w, http.StatusOK, pv)
}

func (s *Server) invoke(w http.ResponseWriter, r *http.Request) {
	var req httpapi.InvokeRequest
	if err := strict(r, &req); err != nil {
		fail(w, http.StatusBadRequest, "bad_request", "invoke takes action, inputs, target and a resume's ids: "+err.Error())
		return
	}
	// The document makes confirmation the client's step before it
	// submits, and names no member for it: a submission is a confirmed
	// one.
	rc, err := s.Backend.Invoke(r.Context(), capability.Proposal{CapabilityID: r.PathValue("id"), Action: req.Action,
		Input: req.Inputs, Target: req.Target, Confirmed: true, ApprovalID: req.ApprovalID, RunID: req.RunID, SessionID: req.SessionID})
	if err != nil {
		backendError(w, err)
		return
	}
	reply(w, http.StatusAccepted, rc)
}

func (s *Server) runs(w http.ResponseWriter, r *http.Request) {
	list, err := s.Backend.Runs(r.Context(), runs.SessionID(r.URL.Query().Get("session_id")))
	if err != nil {
		backendError(w, err)
		return
	}
	if list == nil {
		list = []runs.Run{}
	}
	reply(w, http.StatusOK, httpapi.RunsBody{Runs: list})
}

func (s *Server) approvals(w http.ResponseWriter, r *http.Request) {
	list, err := s.Backend.Approvals(r.Context())
	if err != nil {
		backendError(w, err)
		return
	}
	if list == nil {
		list = []capability.Approval{}
	}
	reply(w, http.StatusOK, httpapi.ApprovalsBody{Approvals: list})
}

func (s *Server) approvalOp(w http.ResponseWriter, r *http.Request) {
	var (
		a   capability.Approval
		err error
	)
	switch r.PathValue("op") {
	case "grant":
		a, err = s.Backend.Grant(r.Context(), r.PathValue("id"))
	case "deny":
		a, err = s.Backend.Deny(r.Context(), r.PathValue("id"))
	default:
		fail(w, http.StatusNotFound, "not_found", "no such approval operation")
		return
	}
	if err != nil {
		fail(w, http.StatusConflict, "approval", err.Error())
		return
	}
	reply(w, http.StatusOK, a)
}

func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		s.route(RouteFollow, s.follow)(w, r)
		return
	}
	s.route(RouteEvents, s.page)(w, r)
}

func cursor(r *http.Request) (after int64, limit int, err error) {
	q := r.URL.Query()
	if v := q.Get("after"); v != "" {
		if after, err = strconv.ParseInt(v, 10, 64); err != nil || after < 0 {
			return 0, 0, fmt.Errorf("after=%q is not a sequence number", v)
		}
	}
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 {
			return 0, 0, fmt.Errorf("limit=%q is not a positive number", v)
		}
	}
	return after, limit, nil
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	after, limit, err := cursor(r)
	if err != nil {
		fail(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	p, err := s.Backend.Events(r.Context(), runs.RunID(r.PathValue("id")), after, limit)
	if err != nil {
		backendError(w, err)
		return
	}
	s.mu.Lock()
	dup := s.duplicate
	s.mu.Unlock()
	if dup {
		var twice []runs.Event
		for _, e := range p.Events {
			twice = append(twice, e, e)
		}
		p.Events = twice
	}
	if p.Events == nil {
		p.Events = []runs.Event{}
	}
	reply(w, http.StatusOK, p)
}

func (s *Server) follow(w http.ResponseWriter, r *http.Request) {
	after, _, err := cursor(r)
	if err != nil {
		fail(w, http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	st, err := s.Backend.Follow(r.Context(), runs.RunID(r.PathValue("id")), after)
	if err != nil {
		backendError(w, err)
		return
	}
	defer st.Close()
	s.mu.Lock()
	s.follows++
	reset, drop, dup, end, half := s.resetNext, s.dropNext, s.duplicate, s.endNext, s.endHalf
	s.resetNext, s.dropNext, s.endNext = -1, -1, -1
	s.mu.Unlock()

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	for n := 0; ; n++ {
		if n == reset {
			sse.Encode(w, sse.Event{ID: "reset-" + strconv.Itoa(n), Type: runs.EventStreamReset,
				Data: `{"reason":"injected: the retained window moved past this follower"}`})
			flush()
			return
		}
		if n == drop {
			flush()
			// Abort the connection: the client sees the stream end in
			// the middle, with no terminal event.
			panic(http.ErrAbortHandler)
		}
		e, err := st.Next(r.Context())
		if err != nil {
			return
		}
		data, _ := json.Marshal(e)
		if n == end {
			if half {
				io.WriteString(w, "id: "+string(e.ID)+"\ndata: "+string(data[:len(data)/2]))
			}
			return
		}
		times := 1
		if dup {
			times = 2
		}
		for range times {
			sse.Encode(w, sse.Event{ID: string(e.ID), Type: e.Type, Data: string(data)})
		}
		flush()
		if runs.Terminal(e.Type) || e.Type == runs.EventStreamReset {
			return
		}
	}
}
