package runs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Timeline is a consumer's bounded view of one run's events: at most its
// capacity of the newest events, in sequence order, each event id once.
// It is not safe for concurrent use; a UI keeps it on its own goroutine
// and feeds it from Replay and Follow callbacks.
type Timeline struct {
	cap    int
	events []Event // oldest first
	ids    map[EventID]struct{}
	last   int64
	first  int64 // the sequence of the first event added since the timeline was made or reset
	gap    bool
}

// NewTimeline returns an empty timeline holding at most capacity events
// (DefaultRetain when capacity < 1).
func NewTimeline(capacity int) *Timeline {
	if capacity < 1 {
		capacity = DefaultRetain
	}
	return &Timeline{cap: capacity, ids: map[EventID]struct{}{}}
}

// Add appends e and reports whether it was new. An event whose id was
// seen, or whose sequence is not after the last one added, is a duplicate
// and is dropped; a stream_reset is a signal, never a timeline entry.
// When the timeline is full the oldest event leaves it.
func (t *Timeline) Add(e Event) bool {
	if e.Type == EventStreamReset {
		return false
	}
	if _, seen := t.ids[e.ID]; seen || e.Sequence <= t.last {
		return false
	}
	if len(t.events) == t.cap {
		delete(t.ids, t.events[0].ID)
		copy(t.events, t.events[1:])
		t.events = t.events[:len(t.events)-1]
	}
	t.events = append(t.events, e)
	t.ids[e.ID] = struct{}{}
	t.last = e.Sequence
	if t.first == 0 {
		t.first = e.Sequence
	}
	return true
}

// Last is the sequence of the newest event added: the cursor to resume
// after.
func (t *Timeline) Last() int64 { return t.last }

// Events returns the held events, oldest first. The slice is a copy.
func (t *Timeline) Events() []Event { return append([]Event(nil), t.events...) }

// Len is the number of events held.
func (t *Timeline) Len() int { return len(t.events) }

// Gap reports that the source no longer held events the timeline asked
// for: what it shows starts after a hole.
func (t *Timeline) Gap() bool { return t.gap }

// Reset empties the timeline, for replaying the retained window after a
// stream_reset.
func (t *Timeline) Reset() {
	t.events, t.last, t.first, t.gap = nil, 0, 0, false
	clear(t.ids)
}

// Missing says which events the source no longer held when the timeline
// was filled: with seen the last sequence the user had seen before (0 for
// none; the timeline's Last before a Reset after a stream_reset), the
// events from+1 … to are lost when the first event added since then has
// a later sequence than seen+1. ok is false when nothing is missing (or
// nothing was added).
func (t *Timeline) Missing(seen int64) (from, to int64, ok bool) {
	if t.first == 0 || t.first <= seen+1 {
		return 0, 0, false
	}
	return seen + 1, t.first - 1, true
}

// Replay pages through run's retained events after the timeline's last
// sequence and adds them, calling on for each new one, until the source
// says there is no more (or sends an empty page). It returns the run's
// state as of the last page: the page's own, or else the state the
// events put the run in (StateAfterEvent), so a finished run reads as
// finished even from a backend whose pages carry no state. A page that
// says more follows but brings nothing new is an error, not a loop.
func Replay(ctx context.Context, src Source, run RunID, t *Timeline, pageSize int, on func(Event)) (State, error) {
	var seen State
	for {
		after := t.Last()
		p, err := src.Events(ctx, run, after, pageSize)
		if err != nil {
			return "", fmt.Errorf("runs: replay %s after %d: %w", run, after, err)
		}
		if p.Gap {
			t.gap = true
		}
		for _, e := range p.Events {
			if st, ok := StateAfterEvent(e); ok {
				seen = st
			}
			if t.Add(e) && on != nil {
				on(e)
			}
		}
		if !p.More || len(p.Events) == 0 {
			if p.State != "" {
				return p.State, nil
			}
			return seen, nil
		}
		if t.Last() == after {
			return seen, fmt.Errorf("runs: replay %s: the source says more events follow sequence %d but sent none after it", run, after)
		}
	}
}

// Outcome is how a follow ended.
type Outcome string

// Outcomes of Follow.
const (
	// OutcomeEnded: a terminal event arrived; the run is over.
	OutcomeEnded Outcome = "ended"
	// OutcomeReset: the source sent stream_reset. Events were lost; the
	// user is asked to replay the retained window (Timeline.Reset, then
	// Replay).
	OutcomeReset Outcome = "reset"
)

// FollowResult says how a follow ended.
type FollowResult struct {
	Outcome Outcome
	// Reason is the stream_reset's reason, when it gave one.
	Reason string
	// Resumed counts the times a dropped connection was resumed after
	// the last sequence.
	Resumed int
}

// MaxResumes bounds how many times in a row Follow resumes a dropped
// connection that brought no new event.
const MaxResumes = 5

// Follow follows run live from the timeline's last sequence, adding each
// new event and calling on for it, until a terminal event (OutcomeEnded)
// or a stream_reset (OutcomeReset). A dropped connection (ErrDropped, or
// a stream that ends before a terminal event) is resumed after the last
// sequence, at most MaxResumes times in a row without progress; any other
// error — a run that is not found, a refused request — ends the follow
// without retrying. on runs on the caller's goroutine: a UI dispatches
// from it to its own.
func Follow(ctx context.Context, src Source, run RunID, t *Timeline, on func(Event)) (FollowResult, error) {
	var res FollowResult
	if n := len(t.events); n > 0 && TerminalEvent(t.events[n-1]) {
		res.Outcome = OutcomeEnded
		return res, nil
	}
	idle := 0
	for {
		st, err := src.Follow(ctx, run, t.Last())
		if err != nil {
			if !errors.Is(err, ErrDropped) {
				return res, fmt.Errorf("runs: follow %s after %d: %w", run, t.Last(), err)
			}
		} else {
			progressed, done, err := drain(ctx, st, t, on, &res)
			st.Close()
			if done {
				return res, nil
			}
			if err != nil && !errors.Is(err, ErrDropped) && !errors.Is(err, io.EOF) {
				return res, fmt.Errorf("runs: follow %s after %d: %w", run, t.Last(), err)
			}
			if progressed {
				idle = 0
			}
		}
		idle++
		if idle > MaxResumes {
			return res, fmt.Errorf("runs: follow %s: the connection dropped %d times in a row after sequence %d: %w",
				run, idle, t.Last(), ErrDropped)
		}
		res.Resumed++
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(time.Duration(idle) * 50 * time.Millisecond):
		}
	}
}

// drain reads one stream until it ends. done means the follow is over.
func drain(ctx context.Context, st Stream, t *Timeline, on func(Event), res *FollowResult) (progressed, done bool, err error) {
	for {
		e, err := st.Next(ctx)
		if err != nil {
			return progressed, false, err
		}
		if e.Type == EventStreamReset {
			res.Outcome = OutcomeReset
			res.Reason = reason(e)
			return progressed, true, nil
		}
		if t.Add(e) {
			progressed = true
			if on != nil {
				on(e)
			}
		}
		if TerminalEvent(e) {
			res.Outcome = OutcomeEnded
			return progressed, true, nil
		}
	}
}

// reason is a stream_reset's reason wherever a backend writes it: a
// reason, message, detail or code member of its data, or of the data's
// own data or payload (a whole event sent as the data), or the data
// itself when it is a string.
func reason(e Event) string {
	return reasonIn(e.Data, 2)
}

func reasonIn(raw json.RawMessage, depth int) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var d struct {
		Reason  string          `json:"reason"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
		Code    string          `json:"code"`
		Data    json.RawMessage `json:"data"`
		Payload json.RawMessage `json:"payload"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil {
		return ""
	}
	if r := cmp.Or(d.Reason, d.Message, d.Detail, d.Code); r != "" || depth == 0 {
		return r
	}
	return cmp.Or(reasonIn(d.Data, depth-1), reasonIn(d.Payload, depth-1))
}
