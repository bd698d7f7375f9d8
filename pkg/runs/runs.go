// Package runs is the workbench's record of executions — demonstrations,
// replays and capability invocations — and of the events each one emits,
// as the capability palette's runs surface shows them
// (spec/capability-workbench.txt, "Results and runs"; DESIGN §8).
//
// A Run is one execution with a lifecycle State. An Event belongs to one
// run and carries a per-run sequence number that starts at 1 and grows by
// one; its ID is unique, so a consumer that sees the same event twice (a
// resumed stream, a duplicate delivery) keeps it once.
//
// The package has both sides of the contract:
//
//   - Log records runs and their events in memory and serves them: a run
//     list newest first, a page of events after a sequence cursor, and a
//     live follow from a cursor. Each run keeps a bounded window of its
//     most recent events (DefaultRetain); a follower whose cursor falls
//     behind that window, or that cannot keep up, gets a stream_reset
//     event and its stream ends, so that no lost event is skipped
//     silently.
//   - Timeline, Replay and Follow are the consumer: a bounded, deduplicated
//     timeline filled by paging through a Source and then following it
//     live, resuming after the last sequence when a connection drops,
//     ending on a terminal event and stopping on stream_reset.
//
// Both a Log and the HTTP contract client (package capability/httpapi)
// are Sources, so the runs surface does not know which backend it reads.
//
// RunID and SessionID are distinct types: a session is the conversation a
// run belongs to and is only ever a filter or a label; a run is one
// execution. Nothing here derives one from the other.
package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// RunID identifies one execution.
type RunID string

// SessionID identifies the conversation (teach session, palette session)
// a run belongs to. It is never a run id.
type SessionID string

// EventID identifies one event, across every run.
type EventID string

// State is a run's lifecycle state.
type State string

// Lifecycle states.
const (
	StateRunning         State = "running"
	StateCompleted       State = "completed"
	StateFailed          State = "failed"
	StateCancelled       State = "cancelled"
	StateWaitingForInput State = "waiting_for_input"
)

// Terminal reports whether s is a final state.
func (s State) Terminal() bool {
	return s == StateCompleted || s == StateFailed || s == StateCancelled
}

// Kind is what a run executes.
type Kind string

// Kinds of run.
const (
	KindDemonstration Kind = "demonstration"
	KindReplay        Kind = "replay"
	KindInvocation    Kind = "invocation"
)

// Event types. Consumers must accept types they do not know; these are the
// ones the workbench emits and interprets.
const (
	EventRunStarted      = "run_started"
	EventDecision        = "policy_decision"
	EventToolCall        = "tool_call"
	EventToolResult      = "tool_result"
	EventProgress        = "progress"
	EventWaitingForInput = "waiting_for_input"
	EventRunCompleted    = "run_completed"
	EventRunFailed       = "run_failed"
	EventRunCancelled    = "run_cancelled"
	// EventStreamReset tells a follower that events it has not seen are
	// gone from the retained window: it must stop following and replay
	// what is retained.
	EventStreamReset = "stream_reset"
)

// Terminal reports whether an event of type t, one of the types this
// package emits, ends its run. A consumer reading another backend's
// events uses TerminalEvent, which knows their spellings.
func Terminal(t string) bool {
	return t == EventRunCompleted || t == EventRunFailed || t == EventRunCancelled
}

// stateAfter is the state a run is in after an event of type t, and
// whether t changes it.
func stateAfter(t string) (State, bool) {
	switch t {
	case EventRunCompleted:
		return StateCompleted, true
	case EventRunFailed:
		return StateFailed, true
	case EventRunCancelled:
		return StateCancelled, true
	case EventWaitingForInput:
		return StateWaitingForInput, true
	case EventRunStarted, EventToolCall, EventToolResult:
		return StateRunning, true
	}
	return "", false
}

// Run is a lifecycle summary of one execution.
type Run struct {
	ID        RunID     `json:"run_id"`
	SessionID SessionID `json:"session_id,omitempty"`
	Kind      Kind      `json:"kind"`
	// Title says what runs, for the list: "verify skill …", "tool echo".
	Title string `json:"title"`
	// Capability is the capability id an invocation runs; empty for
	// other kinds.
	Capability string `json:"capability_id,omitempty"`
	State      State  `json:"state"`
	StartedAt  string `json:"started_at"`
	EndedAt    string `json:"ended_at,omitempty"`
	// LastSequence is the sequence of the run's newest event.
	LastSequence int64 `json:"last_sequence"`
	// Error is why a failed run failed.
	Error string `json:"error,omitempty"`
}

// Event is one thing that happened in a run.
type Event struct {
	ID        EventID   `json:"event_id"`
	RunID     RunID     `json:"run_id"`
	SessionID SessionID `json:"session_id,omitempty"`
	// Sequence orders a run's events: 1, 2, 3, …
	Sequence int64  `json:"sequence"`
	Type     string `json:"type"`
	Time     string `json:"time"`
	// Data is the event's payload, a JSON value; its shape depends on
	// Type.
	Data json.RawMessage `json:"data,omitempty"`
}

// Page is a slice of a run's events after a cursor.
type Page struct {
	Events []Event `json:"events"`
	// Next is the cursor for the next page: the sequence of the last
	// event returned, or the cursor asked for when there was none.
	Next int64 `json:"next"`
	// More says whether retained events follow Next.
	More bool `json:"more"`
	// Gap says that events after the cursor asked for are no longer
	// retained: the page starts later than the cursor + 1.
	Gap bool `json:"gap,omitempty"`
	// State is the run's state when the page was read.
	State State `json:"state"`
}

// Stream is a live follow of one run's events. Next blocks until the next
// event; it returns io.EOF when the source ended the stream after a
// terminal or stream_reset event, an error wrapping ErrDropped when the
// connection ended early (the caller may resume after its last sequence),
// and any other error as a failure of the follow.
type Stream interface {
	Next(ctx context.Context) (Event, error)
	Close() error
}

// Source serves runs: the in-memory Log, or a backend over HTTP.
type Source interface {
	// Runs lists runs newest first. A non-empty session filters by it.
	Runs(ctx context.Context, session SessionID) ([]Run, error)
	// Events returns up to limit events of run with a sequence greater
	// than after.
	Events(ctx context.Context, run RunID, after int64, limit int) (Page, error)
	// Follow streams run's events with a sequence greater than after,
	// first those retained and then live ones, until a terminal event.
	Follow(ctx context.Context, run RunID, after int64) (Stream, error)
}

// ErrDropped marks a follow whose connection ended before a terminal
// event. Resuming after the last sequence seen is safe.
var ErrDropped = errors.New("runs: follow connection dropped")

// NotFoundError is a run the source does not know.
type NotFoundError struct{ Run RunID }

func (e *NotFoundError) Error() string { return fmt.Sprintf("runs: no run %q", e.Run) }

// timestamp formats t as the package's timestamps: RFC 3339 UTC with
// milliseconds.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }
