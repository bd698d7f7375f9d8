package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"workbench/pkg/skill"
)

// DefaultRetain is how many of a run's most recent events a Log keeps,
// and how many a Timeline holds.
const DefaultRetain = 500

// DefaultPage is the page size Events uses when asked for 0 events;
// MaxPage is the largest page it returns.
const (
	DefaultPage = 100
	MaxPage     = 500
)

// Log records runs and their events in memory and serves them as a
// Source. It is safe for concurrent use. Its methods never block on a
// follower: a follower that falls a whole window behind is reset instead.
type Log struct {
	retain int
	now    func() time.Time
	newID  func() string

	mu    sync.Mutex
	runs  map[RunID]*record
	order []RunID // in start order
}

// record is one run in a Log.
type record struct {
	run  Run
	ring []Event // the retained events, oldest first, at most retain
	subs map[*stream]struct{}
}

// LogOption configures a Log.
type LogOption func(*Log)

// WithRetain sets how many events per run are kept (default
// DefaultRetain; values below 1 are ignored).
func WithRetain(n int) LogOption {
	return func(l *Log) {
		if n > 0 {
			l.retain = n
		}
	}
}

// WithLogClock sets where event times come from (default time.Now).
func WithLogClock(now func() time.Time) LogOption { return func(l *Log) { l.now = now } }

// WithLogIDs sets where run and event ids come from (default skill.NewID,
// a UUIDv7).
func WithLogIDs(newID func() string) LogOption { return func(l *Log) { l.newID = newID } }

// NewLog returns an empty Log.
func NewLog(opts ...LogOption) *Log {
	l := &Log{retain: DefaultRetain, now: time.Now, newID: skill.NewID, runs: map[RunID]*record{}}
	for _, o := range opts {
		o(l)
	}
	return l
}

// Start describes a run to start.
type Start struct {
	Session    SessionID
	Kind       Kind
	Title      string
	Capability string
	// Data is extra payload for the run_started event (marshalled as
	// JSON); the event always carries kind, title and capability_id.
	Data map[string]any
}

// Start records a new running run and its run_started event.
func (l *Log) Start(s Start) (Run, error) {
	if s.Kind == "" {
		return Run{}, fmt.Errorf("runs: start: no kind")
	}
	data := map[string]any{"kind": s.Kind, "title": s.Title}
	if s.Capability != "" {
		data["capability_id"] = s.Capability
	}
	for k, v := range s.Data {
		if _, taken := data[k]; !taken {
			data[k] = v
		}
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return Run{}, fmt.Errorf("runs: start: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	id := RunID(l.newID())
	if _, dup := l.runs[id]; dup {
		return Run{}, fmt.Errorf("runs: start: run id %q already used", id)
	}
	rec := &record{run: Run{
		ID: id, SessionID: s.Session, Kind: s.Kind, Title: s.Title, Capability: s.Capability,
		State: StateRunning, StartedAt: timestamp(l.now()),
	}, subs: map[*stream]struct{}{}}
	l.runs[id] = rec
	l.order = append(l.order, id)
	l.emitLocked(rec, EventRunStarted, raw)
	return rec.run, nil
}

// Emit records an event of type typ with data (marshalled as JSON; nil
// for none) in run, and delivers it to the run's followers. An event
// after a terminal one is refused: a run that ended stays ended.
func (l *Log) Emit(run RunID, typ string, data any) (Event, error) {
	if typ == "" {
		return Event{}, fmt.Errorf("runs: emit in %s: no event type", run)
	}
	var raw json.RawMessage
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return Event{}, fmt.Errorf("runs: emit %s in %s: %w", typ, run, err)
		}
		raw = b
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, ok := l.runs[run]
	if !ok {
		return Event{}, &NotFoundError{Run: run}
	}
	if rec.run.State.Terminal() {
		return Event{}, fmt.Errorf("runs: emit %s in %s: the run has ended (%s)", typ, run, rec.run.State)
	}
	if typ == EventStreamReset {
		return Event{}, fmt.Errorf("runs: emit in %s: %s is a stream signal, not a run event", run, typ)
	}
	return l.emitLocked(rec, typ, raw), nil
}

// Fail ends run as failed with the error's message.
func (l *Log) Fail(run RunID, err error) (Event, error) {
	msg := "failed"
	if err != nil {
		msg = err.Error()
	}
	return l.Emit(run, EventRunFailed, map[string]any{"error": msg})
}

func (l *Log) emitLocked(rec *record, typ string, data json.RawMessage) Event {
	rec.run.LastSequence++
	e := Event{
		ID: EventID(l.newID()), RunID: rec.run.ID, SessionID: rec.run.SessionID,
		Sequence: rec.run.LastSequence, Type: typ, Time: timestamp(l.now()), Data: data,
	}
	if len(rec.ring) == l.retain {
		copy(rec.ring, rec.ring[1:])
		rec.ring = rec.ring[:len(rec.ring)-1]
	}
	rec.ring = append(rec.ring, e)
	if st, ok := stateAfter(typ); ok {
		rec.run.State = st
	}
	if Terminal(typ) {
		rec.run.EndedAt = e.Time
		if typ == EventRunFailed {
			var d struct {
				Error string `json:"error"`
			}
			if json.Unmarshal(data, &d) == nil {
				rec.run.Error = d.Error
			}
		}
	}
	for s := range rec.subs {
		s.push(e, l.retain)
		if Terminal(typ) {
			delete(rec.subs, s)
		}
	}
	return e
}

// Run returns one run's summary.
func (l *Log) Run(id RunID) (Run, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, ok := l.runs[id]
	if !ok {
		return Run{}, &NotFoundError{Run: id}
	}
	return rec.run, nil
}

// Runs lists the runs newest first; a non-empty session keeps only its
// runs.
func (l *Log) Runs(ctx context.Context, session SessionID) ([]Run, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Run, 0, len(l.order))
	for i := len(l.order) - 1; i >= 0; i-- {
		r := l.runs[l.order[i]].run
		if session == "" || r.SessionID == session {
			out = append(out, r)
		}
	}
	return out, nil
}

// Events returns up to limit retained events of run after the cursor.
func (l *Log) Events(ctx context.Context, run RunID, after int64, limit int) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	if after < 0 {
		return Page{}, fmt.Errorf("runs: events of %s: cursor %d is negative", run, after)
	}
	switch {
	case limit <= 0:
		limit = DefaultPage
	case limit > MaxPage:
		limit = MaxPage
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, ok := l.runs[run]
	if !ok {
		return Page{}, &NotFoundError{Run: run}
	}
	rest := after_(rec.ring, after)
	p := Page{Next: after, State: rec.run.State}
	if len(rec.ring) > 0 && rec.ring[0].Sequence > after+1 {
		p.Gap = true
	}
	if len(rest) > limit {
		rest, p.More = rest[:limit], true
	}
	p.Events = append([]Event(nil), rest...)
	if len(p.Events) > 0 {
		p.Next = p.Events[len(p.Events)-1].Sequence
	}
	return p, nil
}

// after_ returns the events of ring with a sequence greater than seq.
func after_(ring []Event, seq int64) []Event {
	for i, e := range ring {
		if e.Sequence > seq {
			return ring[i:]
		}
	}
	return nil
}

// Follow streams run's events after the cursor: the retained ones, then
// live ones, ending after a terminal event. When events after the cursor
// are no longer retained the stream's only event is a stream_reset.
func (l *Log) Follow(ctx context.Context, run RunID, after int64) (Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, ok := l.runs[run]
	if !ok {
		return nil, &NotFoundError{Run: run}
	}
	s := &stream{log: l, run: run, wake: make(chan struct{}, 1)}
	if len(rec.ring) > 0 && rec.ring[0].Sequence > after+1 {
		s.reset = fmt.Sprintf("events %d to %d of run %s are no longer retained", after+1, rec.ring[0].Sequence-1, run)
		s.done = true
		return s, nil
	}
	s.queue = append(s.queue, after_(rec.ring, after)...)
	if rec.run.State.Terminal() {
		s.done = true
		return s, nil
	}
	rec.subs[s] = struct{}{}
	return s, nil
}

// stream is a follower of a Log run.
type stream struct {
	log  *Log
	run  RunID
	wake chan struct{}

	mu     sync.Mutex
	queue  []Event
	done   bool   // nothing will be added to queue
	reset  string // why the follower was reset; delivered after queue drains
	sent   bool   // the reset event was delivered
	closed bool
}

// push adds a live event; a follower that already holds a whole window of
// undelivered events is reset rather than allowed to grow.
func (s *stream) push(e Event, limit int) {
	s.mu.Lock()
	switch {
	case s.done:
	case len(s.queue) >= limit:
		s.queue = nil
		s.done = true
		s.reset = fmt.Sprintf("the follower of run %s fell %d events behind", s.run, limit)
	default:
		s.queue = append(s.queue, e)
		if Terminal(e.Type) {
			s.done = true
		}
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *stream) Next(ctx context.Context) (Event, error) {
	for {
		s.mu.Lock()
		switch {
		case s.closed:
			s.mu.Unlock()
			return Event{}, io.EOF
		case len(s.queue) > 0:
			e := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return e, nil
		case s.reset != "" && !s.sent:
			s.sent = true
			data, _ := json.Marshal(map[string]string{"reason": s.reset})
			s.mu.Unlock()
			return Event{ID: EventID(s.log.newID()), RunID: s.run, Type: EventStreamReset,
				Time: timestamp(s.log.now()), Data: data}, nil
		case s.done:
			s.mu.Unlock()
			return Event{}, io.EOF
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return Event{}, ctx.Err()
		case <-s.wake:
		}
	}
}

func (s *stream) Close() error {
	s.log.mu.Lock()
	if rec, ok := s.log.runs[s.run]; ok {
		delete(rec.subs, s)
	}
	s.log.mu.Unlock()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}
