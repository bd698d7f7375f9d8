// Package opsbackend is a third capability backend for tests: an
// operations console (logs, incidents, deploys, metrics) written from the
// capability workbench document alone, by its own reading of it, and not
// from this project's client or its other two backends. It imports
// nothing of the project.
//
// Where the document leaves a shape open, this backend chose:
//
//   - The catalog is {governed_invoke: {method, path_template}, catalog:
//     [...]}: the invoke contract described in its own words, the entries
//     under "catalog", no failures member.
//   - Each entry lists its actions — one capability, several actions —
//     each {action, input_schema, side_effect, render_hint}, members in
//     another order than the other backends' (actions first, the id last),
//     and optional members left out: no description, no source, an action
//     without a render hint, an entry without availability, an action
//     that declares no side effect.
//   - Preflight and invoke take exactly the members the document names —
//     preflight {action, inputs, target}; invoke those and, to resume,
//     {approval_id, run_id, session_id} — and refuse any other member
//     with 400; an action the capability does not have is 422
//     unknown_action.
//   - Preflight answers {eligible, decision, side_effect, reasons}; a
//     destructive action is "queued" (eligible: it may be submitted to
//     request approval). Invoke answers 202 {status: running} or 202
//     {status: approval_required, approval_id}; resuming before the grant
//     is 409 approval_pending.
//   - Runs carry started_at as Unix milliseconds; events {id, sequence,
//     type, run_id, session_id, created_at, data}; a log search's
//     tool_result is a {columns, rows: [[…]]} table.
//   - logs.tail writes its lines as a burst of log_line events at once: a
//     follower is then behind the retained window.
//   - The SSE follow sends each event under its type with the event JSON
//     as data. A follower behind the retained window gets a stream_reset
//     as an unnamed SSE event without a sequence, its reason inside the
//     data: {"type": "stream_reset", "data": {"reason":
//     "retention_window_exceeded"}}.
//   - There is no approvals list: approvals are granted on the console's
//     own surface (Grant here), and discovered by resubmission.
package opsbackend

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Catalog is the catalog as the backend writes it.
const Catalog = `{
  "governed_invoke": {"method": "POST", "path_template": "/api/capabilities/{capability_id}/invoke"},
  "catalog": [
    {
      "actions": [
        {"action": "search", "render_hint": "table", "side_effect": "read",
         "input_schema": {"type": "object", "required": ["query"], "properties": {
           "query": {"type": "string", "minLength": 1}, "level": {"enum": ["debug", "info", "warn", "error"]}}}},
        {"action": "tail", "side_effect": "read",
         "input_schema": {"type": "object", "properties": {"lines": {"type": "integer", "minimum": 1, "maximum": 100}}}}
      ],
      "availability": {"status": "available"},
      "title": "Logs",
      "capability_id": "logs"
    },
    {
      "actions": [
        {"action": "open", "side_effect": "mutating",
         "input_schema": {"type": "object", "required": ["summary"], "properties": {"summary": {"type": "string"}, "severity": {"enum": ["sev1", "sev2", "sev3"]}}}},
        {"action": "resolve", "side_effect": "mutating",
         "input_schema": {"type": "object", "required": ["incident"], "properties": {"incident": {"type": "string"}}}},
        {"action": "purge", "side_effect": "destructive",
         "input_schema": {"type": "object", "required": ["older_than_days"], "properties": {"older_than_days": {"type": "integer", "minimum": 1}}}}
      ],
      "availability": {"status": "available"},
      "title": "Incidents",
      "capability_id": "incidents"
    },
    {
      "actions": [
        {"action": "rollback", "input_schema": {"type": "object", "properties": {"service": {"type": "string"}}}}
      ],
      "availability": {"status": "degraded", "reasons": ["the deploy history is an hour behind"], "missing_preconditions": ["deploy webhook"]},
      "title": "Deploys",
      "capability_id": "deploys"
    },
    {
      "actions": [
        {"action": "query", "side_effect": "read", "render_hint": "json",
         "input_schema": {"type": "object", "properties": {"metric": {"type": "string"}}}}
      ],
      "title": "Metrics",
      "capability_id": "metrics"
    }
  ]
}`

// Retained is how many events of a run the backend keeps.
const Retained = 4

// Request is one request the backend received.
type Request struct {
	Method, Path string
	Body         []byte
}

type event struct {
	ID        string          `json:"id"`
	Sequence  int64           `json:"sequence"`
	Type      string          `json:"type"`
	RunID     string          `json:"run_id"`
	SessionID string          `json:"session_id"`
	CreatedAt string          `json:"created_at"`
	Data      json.RawMessage `json:"data,omitempty"`
}

type run struct {
	RunID      string `json:"run_id"`
	SessionID  string `json:"session_id"`
	Capability string `json:"capability_id"`
	Action     string `json:"action"`
	Status     string `json:"status"`
	StartedAt  int64  `json:"started_at"`
	events     []event
	next       int64
}

type approval struct {
	id, capability, action, target, run, session string
	inputs                                       []byte
	granted, used                                bool
}

// Server is the backend.
type Server struct {
	URL     string
	Handler http.Handler

	mu        sync.Mutex
	runs      []*run
	approvals map[string]*approval
	changed   chan struct{}
	n         int
	seen      []Request
	step      time.Duration
	clock     time.Time
}

// New returns the backend without a server; step is the pause between a
// running action's events (0: 20 ms).
func New(step time.Duration) *Server {
	if step <= 0 {
		step = 20 * time.Millisecond
	}
	s := &Server{approvals: map[string]*approval{}, changed: make(chan struct{}), step: step,
		clock: time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/capabilities", s.catalog)
	mux.HandleFunc("GET /api/capabilities/{id}", s.describe)
	mux.HandleFunc("POST /api/capabilities/{id}/preflight", s.preflight)
	mux.HandleFunc("POST /api/capabilities/{id}/invoke", s.invoke)
	mux.HandleFunc("GET /api/runs", s.list)
	mux.HandleFunc("GET /api/runs/{id}/events", s.events)
	s.Handler = s.record(mux)
	return s
}

// Start serves the backend on 127.0.0.1 until t ends.
func Start(t interface {
	Cleanup(func())
	Helper()
}, step time.Duration) *Server {
	t.Helper()
	s := New(step)
	ts := httptest.NewServer(s.Handler)
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

func (s *Server) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.seen = append(s.seen, Request{Method: r.Method, Path: r.URL.RequestURI(), Body: body})
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.seen)
}

// Grant grants an approval on the console's own surface; it reports
// whether the approval exists.
func (s *Server) Grant(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.approvals[id]
	if ok {
		a.granted = true
	}
	return ok
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func problem(w http.ResponseWriter, status int, code, msg string) {
	reply(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func (s *Server) catalog(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, Catalog)
}

type action struct {
	Action     string `json:"action"`
	SideEffect string `json:"side_effect"`
}

type entry struct {
	Actions []action `json:"actions"`
	ID      string   `json:"capability_id"`
}

func (s *Server) entry(id string) (entry, json.RawMessage, bool) {
	var c struct {
		Catalog []json.RawMessage `json:"catalog"`
	}
	json.Unmarshal([]byte(Catalog), &c)
	for _, raw := range c.Catalog {
		var e entry
		json.Unmarshal(raw, &e)
		if e.ID == id {
			return e, raw, true
		}
	}
	return entry{}, nil, false
}

func (s *Server) describe(w http.ResponseWriter, r *http.Request) {
	_, raw, ok := s.entry(r.PathValue("id"))
	if !ok {
		problem(w, http.StatusNotFound, "not_found", "no capability "+r.PathValue("id"))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(raw)
}

type submission struct {
	Action     string          `json:"action"`
	Inputs     json.RawMessage `json:"inputs"`
	Target     string          `json:"target"`
	ApprovalID string          `json:"approval_id"`
	RunID      string          `json:"run_id"`
	SessionID  string          `json:"session_id"`
}

// read decodes a body with exactly the members the document names for
// the route: anything else is refused.
func read(w http.ResponseWriter, r *http.Request, allowed ...string) (submission, bool) {
	var members map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&members); err != nil {
		problem(w, http.StatusBadRequest, "bad_request", "the body is not a JSON object: "+err.Error())
		return submission{}, false
	}
	for k := range members {
		if !slices.Contains(allowed, k) {
			problem(w, http.StatusBadRequest, "unexpected_member", fmt.Sprintf("%q is not a member of this request (allowed: %s)", k, strings.Join(allowed, ", ")))
			return submission{}, false
		}
	}
	b, _ := json.Marshal(members)
	var sub submission
	json.Unmarshal(b, &sub)
	if sub.Action == "" {
		problem(w, http.StatusBadRequest, "bad_request", "action is required")
		return submission{}, false
	}
	return sub, true
}

// judge is the console's policy for a submission: a decision, its
// reasons, and the action's side effect ("" when undeclared).
func (s *Server) judge(w http.ResponseWriter, id string, sub submission) (decision string, reasons []string, effect string, ok bool) {
	e, _, found := s.entry(id)
	if !found {
		problem(w, http.StatusNotFound, "not_found", "no capability "+id)
		return "", nil, "", false
	}
	i := slices.IndexFunc(e.Actions, func(a action) bool { return a.Action == sub.Action })
	if i < 0 {
		problem(w, http.StatusUnprocessableEntity, "unknown_action", fmt.Sprintf("unknown action '%s'", sub.Action))
		return "", nil, "", false
	}
	effect = e.Actions[i].SideEffect
	var in map[string]any
	if json.Unmarshal(sub.Inputs, &in) != nil || in == nil {
		return "invalid", []string{"inputs must be an object"}, effect, true
	}
	switch id + "." + sub.Action {
	case "logs.search":
		if q, _ := in["query"].(string); q == "" {
			return "invalid", []string{"query is required"}, effect, true
		} else if strings.Contains(q, "password") {
			return "deny", []string{"searching for credentials is not allowed from the console"}, effect, true
		}
	case "incidents.open":
		if s, _ := in["summary"].(string); s == "" {
			return "invalid", []string{"summary is required"}, effect, true
		}
	case "incidents.purge":
		return "queued", []string{"purging incidents needs an on-call lead's approval"}, effect, true
	}
	return "allow", []string{"allowed by the console policy"}, effect, true
}

func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	sub, ok := read(w, r, "action", "inputs", "target")
	if !ok {
		return
	}
	d, reasons, effect, ok := s.judge(w, r.PathValue("id"), sub)
	if !ok {
		return
	}
	out := map[string]any{"eligible": d == "allow" || d == "queued", "decision": d, "reasons": reasons}
	if effect != "" {
		out["side_effect"] = effect
	}
	reply(w, http.StatusOK, out)
}

func (s *Server) invoke(w http.ResponseWriter, r *http.Request) {
	sub, ok := read(w, r, "action", "inputs", "target", "approval_id", "run_id", "session_id")
	if !ok {
		return
	}
	id := r.PathValue("id")
	d, reasons, _, ok := s.judge(w, id, sub)
	if !ok {
		return
	}
	switch d {
	case "deny":
		problem(w, http.StatusForbidden, "denied", strings.Join(reasons, "; "))
		return
	case "invalid":
		problem(w, http.StatusUnprocessableEntity, "invalid", strings.Join(reasons, "; "))
		return
	case "queued":
		s.approval(w, id, sub)
		return
	}
	rn := s.start(id, sub.Action, "")
	go s.play(rn, id, sub)
	reply(w, http.StatusAccepted, map[string]string{"status": "running", "run_id": rn.RunID, "session_id": rn.SessionID})
}

// approval asks for approval the first time, and runs the exact proposal
// once resubmitted with its granted approval and the bound ids.
func (s *Server) approval(w http.ResponseWriter, id string, sub submission) {
	if sub.ApprovalID == "" {
		rn := s.start(id, sub.Action, "waiting_for_approval")
		s.mu.Lock()
		s.n++
		a := &approval{id: fmt.Sprintf("apr_%d", s.n), capability: id, action: sub.Action, target: sub.Target,
			run: rn.RunID, session: rn.SessionID, inputs: canonical(sub.Inputs)}
		s.approvals[a.id] = a
		s.mu.Unlock()
		s.emit(rn.RunID, "approval_requested", map[string]string{"approval_id": a.id})
		reply(w, http.StatusAccepted, map[string]string{"status": "approval_required", "approval_id": a.id,
			"run_id": rn.RunID, "session_id": rn.SessionID})
		return
	}
	s.mu.Lock()
	a, ok := s.approvals[sub.ApprovalID]
	switch {
	case !ok:
		s.mu.Unlock()
		problem(w, http.StatusConflict, "approval_unknown", "no approval "+sub.ApprovalID)
		return
	case a.capability != id || a.action != sub.Action || a.target != sub.Target || !bytes.Equal(a.inputs, canonical(sub.Inputs)) ||
		a.run != sub.RunID || a.session != sub.SessionID:
		s.mu.Unlock()
		problem(w, http.StatusConflict, "approval_mismatch", "the resubmission is not the proposal approval "+a.id+" was requested for")
		return
	case a.used:
		s.mu.Unlock()
		problem(w, http.StatusConflict, "approval_used", "approval "+a.id+" was used already")
		return
	case !a.granted:
		s.mu.Unlock()
		problem(w, http.StatusConflict, "approval_pending", "approval "+a.id+" is waiting for an on-call lead")
		return
	}
	a.used = true
	rn := s.find(a.run)
	s.mu.Unlock()
	go s.play(rn, id, sub)
	reply(w, http.StatusAccepted, map[string]string{"status": "running", "run_id": a.run, "session_id": a.session})
}

func canonical(in json.RawMessage) []byte {
	var v any
	if json.Unmarshal(in, &v) != nil {
		return in
	}
	b, _ := json.Marshal(v)
	return b
}

func (s *Server) start(id, action, status string) *run {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	s.clock = s.clock.Add(time.Minute)
	r := &run{RunID: fmt.Sprintf("run_%d", s.n), SessionID: fmt.Sprintf("ses_%d", s.n), Capability: id, Action: action,
		Status: "running", StartedAt: s.clock.UnixMilli()}
	if status != "" {
		r.Status = status
	}
	s.runs = append(s.runs, r)
	return r
}

// emit appends an event, drops those beyond the retained window, and
// wakes the followers.
func (s *Server) emit(runID, typ string, data any) { s.burst(runID, typ, data) }

// burst appends events of one type at once (one per datum), and wakes the
// followers once, after the last.
func (s *Server) burst(runID, typ string, data ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.find(runID)
	for _, d := range data {
		r.next++
		s.clock = s.clock.Add(time.Second)
		var raw json.RawMessage
		if d != nil {
			raw, _ = json.Marshal(d)
		}
		r.events = append(r.events, event{ID: fmt.Sprintf("evt_%s_%d", runID, r.next), Sequence: r.next, Type: typ,
			RunID: runID, SessionID: r.SessionID, CreatedAt: s.clock.Format(time.RFC3339), Data: raw})
	}
	if len(r.events) > Retained {
		r.events = slices.Clone(r.events[len(r.events)-Retained:])
	}
	switch typ {
	case "run_completed":
		r.Status = "completed"
	case "run_failed":
		r.Status = "failed"
	case "approval_requested":
		r.Status = "waiting_for_approval"
	default:
		r.Status = "running"
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *Server) find(id string) *run {
	for _, r := range s.runs {
		if r.RunID == id {
			return r
		}
	}
	return nil
}

// play runs an accepted action: its events arrive over time.
func (s *Server) play(r *run, id string, sub submission) {
	s.emit(r.RunID, "run_started", map[string]string{"action": sub.Action, "target": sub.Target})
	time.Sleep(s.step)
	var result any
	switch id + "." + sub.Action {
	case "logs.search":
		var in struct {
			Query string `json:"query"`
		}
		json.Unmarshal(sub.Inputs, &in)
		for _, shard := range []string{"eu-1", "us-1"} {
			s.emit(r.RunID, "progress", map[string]string{"scanned": shard})
			time.Sleep(s.step)
		}
		result = map[string]any{"columns": []string{"time", "level", "message"}, "rows": [][]any{
			{"08:01:02", "warn", "disk 91% full: " + in.Query},
			{"08:03:10", "error", "request timed out: " + in.Query},
		}}
		s.emit(r.RunID, "tool_result", map[string]any{"status": "ok", "result": result, "render_hint": "table"})
	case "logs.tail":
		in := struct {
			Lines int `json:"lines"`
		}{Lines: 5}
		json.Unmarshal(sub.Inputs, &in)
		lines, rows := make([]any, in.Lines), make([][]any, in.Lines)
		for i := range lines {
			text := fmt.Sprintf("08:%02d:00 info heartbeat %d", i, i+1)
			lines[i], rows[i] = map[string]string{"line": text}, []any{text}
		}
		s.burst(r.RunID, "log_line", lines...)
		time.Sleep(s.step)
		s.emit(r.RunID, "tool_result", map[string]any{"status": "ok", "result": map[string]any{"columns": []string{"line"}, "rows": rows}})
	default:
		for i := 1; i <= 3; i++ {
			s.emit(r.RunID, "progress", map[string]int{"step": i, "of": 3})
			time.Sleep(s.step)
		}
		s.emit(r.RunID, "tool_result", map[string]any{"status": "ok", "result": map[string]any{"action": sub.Action, "inputs": sub.Inputs}})
	}
	time.Sleep(s.step)
	s.emit(r.RunID, "run_completed", nil)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	out := []run{}
	for _, x := range s.runs {
		if q := r.URL.Query().Get("session_id"); q == "" || q == x.SessionID {
			out = append(out, *x)
		}
	}
	s.mu.Unlock()
	reply(w, http.StatusOK, map[string]any{"runs": out})
}

func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	s.mu.Lock()
	rn := s.find(r.PathValue("id"))
	s.mu.Unlock()
	if rn == nil {
		problem(w, http.StatusNotFound, "not_found", "no run "+r.PathValue("id"))
		return
	}
	if strings.Contains(strings.Join(r.Header.Values("Accept"), ","), "text/event-stream") {
		s.stream(w, r, rn, after)
		return
	}
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 {
		limit = 50
	}
	s.mu.Lock()
	page := []event{}
	more := false
	for _, e := range rn.events {
		if e.Sequence <= after {
			continue
		}
		if len(page) == limit {
			more = true
			break
		}
		page = append(page, e)
	}
	status := rn.Status
	s.mu.Unlock()
	next := after
	if len(page) > 0 {
		next = page[len(page)-1].Sequence
	}
	reply(w, http.StatusOK, map[string]any{"events": page, "next": next, "more": more, "state": status})
}

// stream follows a run over SSE until its end. A cursor before the
// retained window gets the reset, unnamed and without a sequence.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, rn *run, after int64) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	for {
		s.mu.Lock()
		if len(rn.events) > 0 && rn.events[0].Sequence > after+1 {
			s.mu.Unlock()
			fmt.Fprintf(w, "data: %s\n\n", `{"type":"stream_reset","data":{"reason":"retention_window_exceeded"}}`)
			flush()
			return
		}
		var batch []event
		for _, e := range rn.events {
			if e.Sequence > after {
				batch = append(batch, e)
			}
		}
		wait := s.changed
		s.mu.Unlock()
		for _, e := range batch {
			data, _ := json.Marshal(e)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.Type, data)
			flush()
			after = e.Sequence
			if e.Type == "run_completed" || e.Type == "run_failed" {
				return
			}
		}
		select {
		case <-wait:
		case <-r.Context().Done():
			return
		}
	}
}
