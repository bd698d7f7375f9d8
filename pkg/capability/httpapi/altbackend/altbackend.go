// Package altbackend is a second capability backend for tests, written
// from the capability workbench document alone and not from this
// client's wire format: its own member names and answer shapes, where the
// document leaves them open. It stands for a backend another author
// wrote, so the client (package capability/httpapi) and the palette are
// tested against two independent readings of the document.
//
// What it does differently from the conformance server (contracttest):
//
//   - The catalog is {items, invoke_contract: "POST …/:id/invoke",
//     errors: {source: message}}; entries use id, label, summary,
//     provider, schema, effect ("read_only", "mutating", "destructive"),
//     availability as a word or as {state, reasons}, render {hint}. Two
//     entries are unusable (an input schema that is prose; no id) and one
//     is a display-only legacy REST twin.
//   - Preflight answers {decision, reason, eligible} only: allow, deny,
//     invalid, or queued for an action that needs approval.
//   - notes.search answers synchronously: 200 {status: "ok", result,
//     run_id}. notes.create answers 202 {status: "accepted", runId} and
//     its run emits events over time. notes.purge answers 202
//     {status: "pending_approval", approval: {id}, run: {id}}; the
//     catalog declares no approvals list: the approval is granted
//     elsewhere (Grant, or POST /admin/approvals/{id}/grant) and
//     discovered by re-submitting the exact proposal with its approval
//     id.
//   - An entry declares no actions: it is its own action, and the action
//     a request names is the capability's id.
//   - Refusals are {error: "message", code}.
//   - GET /api/runs is {data: [{id, status, created_at, …}]}, oldest
//     first. Event pages are {items: [{id, seq, event, ts, payload}],
//     has_more, next_cursor}, three at a time. A run ends with a
//     run.succeeded event. In the stream, the SSE id is the sequence, the
//     SSE event name the type, and the data {event, payload}.
//   - Forget drops a run's oldest events: a follow or page from before
//     the window gets stream_reset {message, oldest_sequence}.
package altbackend

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

// PageSize is how many events a page holds.
const PageSize = 3

// Catalog is the catalog the backend serves, as it writes it.
const Catalog = `{
  "items": [
    {"id": "notes.search", "label": "Search notes", "summary": "Find notes by text.", "provider": "notes",
     "schema": {"type": "object", "required": ["query"], "properties": {
        "query": {"type": "string", "title": "Query"},
        "attachments": {"type": "array", "items": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}}}}},
     "effect": "read_only", "availability": "available", "render": {"hint": "table"}},
    {"id": "notes.create", "label": "Create note", "provider": "notes",
     "schema": {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}, "body": {"type": "string"}}},
     "effect": "mutating", "availability": {"state": "ok"}},
    {"id": "notes.purge", "label": "Purge notes", "provider": "notes",
     "schema": {"type": "object", "required": ["folder"], "properties": {"folder": {"type": "string"}}},
     "effect": "destructive", "availability": {"state": "ok"}},
    {"id": "notes.export", "label": "Export notes", "provider": "notes", "schema": {"type": "object"},
     "effect": "read_only", "availability": {"state": "degraded", "reasons": ["the archive store is slow"]}},
    {"id": "crm.sync", "label": "Sync CRM", "provider": "crm", "schema": {"type": "object"},
     "effect": "mutating", "availability": {"state": "disabled", "reasons": ["no CRM token configured"]}},
    {"id": "broken.prose", "label": "Prose schema", "schema": "a string with the query", "effect": "read_only"},
    {"label": "Nameless", "schema": {"type": "object"}},
    {"id": "legacy.notes_get", "label": "GET /notes (legacy)", "display_only": true, "schema": {"type": "object"}, "effect": "read_only"}
  ],
  "invoke_contract": "POST /api/capabilities/:id/invoke",
  "errors": {"calendar": "upstream timed out"}
}`

// Request is one request the backend received.
type Request struct {
	Method, Path string
	Body         []byte
}

type event struct {
	Seq     int64           `json:"seq"`
	ID      string          `json:"id"`
	Event   string          `json:"event"`
	TS      string          `json:"ts"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

type run struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	CreatedAt string `json:"created_at"`
	Name      string `json:"name"`
	Action    string `json:"action"`
	events    []event
	forgotten int64 // events up to this sequence are gone
	next      int64
}

type approval struct {
	id, action, target, run string
	inputs                  json.RawMessage
	granted, used           bool
}

// Server is the backend, serving until the test ends.
type Server struct {
	URL string
	// Handler serves the backend's routes, for mounting on another
	// server (an end-to-end site).
	Handler http.Handler

	mu        sync.Mutex
	runs      []*run // oldest first
	approvals map[string]*approval
	changed   chan struct{} // closed and replaced when any run changes
	n         int
	seen      []Request
	step      time.Duration
	clock     time.Time
}

// New returns the backend's handler without starting a server. step is
// the pause between a running action's events (0: 20 ms).
func New(step time.Duration) *Server {
	if step <= 0 {
		step = 20 * time.Millisecond
	}
	s := &Server{approvals: map[string]*approval{}, changed: make(chan struct{}), step: step,
		clock: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/capabilities", s.catalog)
	mux.HandleFunc("GET /api/capabilities/{id}", s.describe)
	mux.HandleFunc("POST /api/capabilities/{id}/preflight", s.preflight)
	mux.HandleFunc("POST /api/capabilities/{id}/invoke", s.invoke)
	mux.HandleFunc("GET /api/runs", s.list)
	mux.HandleFunc("GET /api/runs/{id}/events", s.events)
	mux.HandleFunc("POST /admin/approvals/{id}/grant", func(w http.ResponseWriter, r *http.Request) {
		if !s.Grant(r.PathValue("id")) {
			http.Error(w, "no such approval", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
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

// Grant grants an approval, as the backend's own authorized surface
// would; it reports whether the approval exists.
func (s *Server) Grant(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.approvals[id]
	if ok {
		a.granted = true
	}
	return ok
}

// Forget drops a run's events up to sequence upTo from the retained
// window, those not emitted yet included: a follower whose cursor is
// before upTo gets stream_reset.
func (s *Server) Forget(runID string, upTo int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.ID == runID {
			r.forgotten = max(r.forgotten, upTo)
			r.events = slices.DeleteFunc(r.events, func(e event) bool { return e.Seq <= upTo })
		}
	}
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func refuse(w http.ResponseWriter, status int, code, msg string) {
	answer(w, status, map[string]string{"error": msg, "code": code})
}

func (s *Server) catalog(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, Catalog)
}

func entries() []json.RawMessage {
	var c struct {
		Items []json.RawMessage `json:"items"`
	}
	json.Unmarshal([]byte(Catalog), &c)
	return c.Items
}

func (s *Server) entry(id string) (map[string]any, bool) {
	for _, raw := range entries() {
		var m map[string]any
		json.Unmarshal(raw, &m)
		if m["id"] == id {
			return m, true
		}
	}
	return nil, false
}

func (s *Server) describe(w http.ResponseWriter, r *http.Request) {
	m, ok := s.entry(r.PathValue("id"))
	if !ok {
		refuse(w, http.StatusNotFound, "not_found", "no capability "+r.PathValue("id"))
		return
	}
	// The descriptor comes wrapped, as this backend writes single items.
	answer(w, http.StatusOK, map[string]any{"capability": m})
}

type proposal struct {
	Action     string          `json:"action"`
	Inputs     json.RawMessage `json:"inputs"`
	Target     string          `json:"target"`
	ApprovalID string          `json:"approval_id"`
	RunID      string          `json:"run_id"`
	SessionID  string          `json:"session_id"`
}

// judge is the backend's policy: it says what the preflight and the
// invoke of p decide, and why.
func (s *Server) judge(id string, p proposal) (decision, reason string) {
	m, ok := s.entry(id)
	if !ok {
		return "invalid", "no capability " + id
	}
	if av, ok := m["availability"].(map[string]any); ok && av["state"] == "disabled" {
		return "unavailable", "no CRM token configured"
	}
	if m["display_only"] == true {
		return "unavailable", "a legacy route, shown for reference"
	}
	var in map[string]any
	if err := json.Unmarshal(p.Inputs, &in); err != nil || in == nil {
		return "invalid", "inputs must be a JSON object"
	}
	switch id {
	case "notes.search":
		q, _ := in["query"].(string)
		if q == "" {
			return "invalid", "query is required"
		}
		if strings.Contains(q, "forbidden") {
			return "deny", "the notes policy refuses searches for forbidden material"
		}
	case "notes.create":
		if t, _ := in["title"].(string); t == "" {
			return "invalid", "title is required"
		}
	case "notes.purge":
		return "queued", "purging is destructive: an administrator approves it"
	}
	return "allow", "the notes policy allows it"
}

func (s *Server) preflight(w http.ResponseWriter, r *http.Request) {
	var p proposal
	if err := json.NewDecoder(r.Body).Decode(&p); err != nil || p.Action != r.PathValue("id") {
		refuse(w, http.StatusBadRequest, "bad_request", "the body must be {action, inputs, target} for this route")
		return
	}
	d, why := s.judge(p.Action, p)
	answer(w, http.StatusOK, map[string]any{"decision": d, "reason": why, "eligible": d == "allow" || d == "queued"})
}

func (s *Server) invoke(w http.ResponseWriter, r *http.Request) {
	var p proposal
	if err := json.NewDecoder(r.Body).Decode(&p); err != nil || p.Action != r.PathValue("id") {
		refuse(w, http.StatusBadRequest, "bad_request", "the body must be {action, inputs, target, …} for this route")
		return
	}
	d, why := s.judge(p.Action, p)
	switch d {
	case "deny":
		refuse(w, http.StatusForbidden, "denied", why)
		return
	case "invalid":
		refuse(w, http.StatusUnprocessableEntity, "invalid", why)
		return
	case "unavailable":
		refuse(w, http.StatusConflict, "unavailable", why)
		return
	}
	switch p.Action {
	case "notes.search":
		rn := s.start(p.Action, "Search notes")
		var in struct {
			Query string `json:"query"`
		}
		json.Unmarshal(p.Inputs, &in)
		result := map[string]any{"rows": []map[string]any{{"title": "Groceries", "match": in.Query}, {"title": "Standup", "match": in.Query}}}
		s.emit(rn, "run_started", nil)
		s.emit(rn, "tool_result", map[string]any{"status": "ok", "result": result, "render_hint": "table"})
		s.emit(rn, "run.succeeded", nil)
		answer(w, http.StatusOK, map[string]any{"status": "ok", "result": result, "run_id": rn})
	case "notes.create":
		rn := s.start(p.Action, "Create note")
		go s.play(rn, p.Inputs)
		answer(w, http.StatusAccepted, map[string]any{"status": "accepted", "runId": rn})
	case "notes.purge":
		s.purge(w, p)
	default:
		refuse(w, http.StatusConflict, "unavailable", "not runnable here")
	}
}

// purge asks for approval, and runs once re-submitted with a granted
// approval of exactly the same proposal.
func (s *Server) purge(w http.ResponseWriter, p proposal) {
	if p.ApprovalID == "" {
		rn := s.start(p.Action, "Purge notes")
		s.mu.Lock()
		s.n++
		id := fmt.Sprintf("ap-%d", s.n)
		s.approvals[id] = &approval{id: id, action: p.Action, target: p.Target, run: rn, inputs: canon(p.Inputs)}
		s.mu.Unlock()
		s.emit(rn, "run.awaiting_approval", map[string]any{"approval": id})
		answer(w, http.StatusAccepted, map[string]any{"status": "pending_approval", "approval": map[string]string{"id": id}, "run": map[string]string{"id": rn}})
		return
	}
	s.mu.Lock()
	a, ok := s.approvals[p.ApprovalID]
	switch {
	case !ok:
		s.mu.Unlock()
		refuse(w, http.StatusConflict, "approval_unknown", "no approval "+p.ApprovalID)
		return
	case a.action != p.Action || a.target != p.Target || !bytes.Equal(a.inputs, canon(p.Inputs)) || (p.RunID != "" && p.RunID != a.run):
		s.mu.Unlock()
		refuse(w, http.StatusConflict, "approval_mismatch", "the proposal differs from the one approval "+a.id+" binds")
		return
	case a.used:
		s.mu.Unlock()
		refuse(w, http.StatusConflict, "approval_used", "approval "+a.id+" was already used")
		return
	case !a.granted:
		s.mu.Unlock()
		// Still waiting: the same answer as the first time.
		answer(w, http.StatusAccepted, map[string]any{"status": "pending_approval", "approval": map[string]string{"id": a.id}, "run": map[string]string{"id": a.run}})
		return
	}
	a.used = true
	s.mu.Unlock()
	go s.play(a.run, p.Inputs)
	answer(w, http.StatusAccepted, map[string]any{"status": "accepted", "runId": a.run})
}

func canon(in json.RawMessage) []byte {
	var v any
	if json.Unmarshal(in, &v) != nil {
		return in
	}
	b, _ := json.Marshal(v) // maps marshal with sorted keys
	return b
}

func (s *Server) now() string {
	s.clock = s.clock.Add(time.Second)
	return s.clock.Format(time.RFC3339)
}

func (s *Server) start(action, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	r := &run{ID: fmt.Sprintf("run-%d", s.n), Status: "in_progress", CreatedAt: s.now(), Name: name, Action: action}
	s.runs = append(s.runs, r)
	return r.ID
}

// emit appends an event to a run and wakes its followers.
func (s *Server) emit(runID, typ string, payload any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.ID != runID {
			continue
		}
		r.next++
		var raw json.RawMessage
		if payload != nil {
			raw, _ = json.Marshal(payload)
		}
		r.events = append(r.events, event{Seq: r.next, ID: fmt.Sprintf("%s/%d", runID, r.next), Event: typ, TS: s.now(), Payload: raw})
		switch typ {
		case "run.succeeded":
			r.Status = "succeeded"
		case "run.awaiting_approval":
			r.Status = "awaiting_approval"
		default:
			r.Status = "in_progress"
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// play runs a dispatched action: its events arrive over time.
func (s *Server) play(runID string, inputs json.RawMessage) {
	s.emit(runID, "run_started", nil)
	for i := 1; i <= 3; i++ {
		time.Sleep(s.step)
		s.emit(runID, "progress", map[string]any{"step": i, "of": 3})
	}
	time.Sleep(s.step)
	s.emit(runID, "tool_result", map[string]any{"status": "ok", "result": map[string]any{"saved": json.RawMessage(inputs)}, "render_hint": "json"})
	s.emit(runID, "run.succeeded", nil)
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	data := make([]run, 0, len(s.runs))
	for _, x := range s.runs {
		data = append(data, *x)
	}
	s.mu.Unlock()
	answer(w, http.StatusOK, map[string]any{"data": data})
}

func (s *Server) find(id string) *run {
	for _, r := range s.runs {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	after, _ := strconv.ParseInt(r.URL.Query().Get("after"), 10, 64)
	s.mu.Lock()
	rn := s.find(r.PathValue("id"))
	s.mu.Unlock()
	if rn == nil {
		refuse(w, http.StatusNotFound, "not_found", "no run "+r.PathValue("id"))
		return
	}
	if strings.Contains(strings.Join(r.Header.Values("Accept"), ","), "text/event-stream") {
		s.stream(w, r, rn, after)
		return
	}
	s.mu.Lock()
	var items []event
	more := false
	for _, e := range rn.events {
		if e.Seq > after && e.Seq > rn.forgotten {
			if len(items) == PageSize {
				more = true
				break
			}
			items = append(items, e)
		}
	}
	next := after
	if len(items) > 0 {
		next = items[len(items)-1].Seq
	}
	s.mu.Unlock()
	if items == nil {
		items = []event{}
	}
	answer(w, http.StatusOK, map[string]any{"items": items, "has_more": more, "next_cursor": next})
}

// stream is the SSE mode: the SSE id is the sequence, the event name the
// type, the data {event, payload}. A cursor before the retained window
// gets stream_reset and the stream ends; so does the end of the run.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, rn *run, after int64) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(id, name, data string) {
		fmt.Fprintf(w, "id: %s\nevent: %s\ndata: %s\n\n", id, name, data)
		if fl != nil {
			fl.Flush()
		}
	}
	for {
		s.mu.Lock()
		if after < rn.forgotten {
			oldest := rn.forgotten + 1
			s.mu.Unlock()
			data, _ := json.Marshal(map[string]any{"message": fmt.Sprintf("events up to %d were pruned from the retained window", rn.forgotten), "oldest_sequence": oldest})
			send("reset", "stream_reset", string(data))
			return
		}
		var batch []event
		for _, e := range rn.events {
			if e.Seq > after && e.Seq > rn.forgotten {
				batch = append(batch, e)
			}
		}
		wait := s.changed
		s.mu.Unlock()
		for _, e := range batch {
			data, _ := json.Marshal(map[string]any{"event": e.Event, "payload": e.Payload, "ts": e.TS})
			send(strconv.FormatInt(e.Seq, 10), e.Event, string(data))
			after = e.Seq
			if e.Event == "run.succeeded" {
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
