package runs

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/sortfunc"
)

// The document names a run's lifecycle states (running, completed,
// failed, cancelled, waiting for input) and says that a follow closes on
// a terminal event, but fixes no spelling. Backends written from it spell
// them in their own ways; the functions here read the common spellings,
// so that the consumer side (Timeline, Replay, Follow, the runs surface)
// recognises the end of a run however the backend writes it.

// stateWords maps the spellings of a lifecycle state, after norm, to the
// state.
var stateWords = map[string]State{
	"running": StateRunning, "started": StateRunning, "in_progress": StateRunning, "active": StateRunning,
	"executing": StateRunning, "queued": StateRunning, "accepted": StateRunning, "dispatched": StateRunning,

	"completed": StateCompleted, "complete": StateCompleted, "succeeded": StateCompleted, "success": StateCompleted,
	"successful": StateCompleted, "done": StateCompleted, "finished": StateCompleted, "ended": StateCompleted, "end": StateCompleted, "ok": StateCompleted,

	"failed": StateFailed, "failure": StateFailed, "error": StateFailed, "errored": StateFailed,

	"cancelled": StateCancelled, "canceled": StateCancelled, "aborted": StateCancelled, "killed": StateCancelled,

	"waiting_for_input": StateWaitingForInput, "waiting": StateWaitingForInput, "awaiting_input": StateWaitingForInput,
	"awaiting_approval": StateWaitingForInput, "approval_required": StateWaitingForInput,
	"pending_approval": StateWaitingForInput, "input_required": StateWaitingForInput, "paused": StateWaitingForInput,
}

// eventWords are the state words that mean a state also as a bare event
// type (not prefixed run_): the unambiguous ones. A bare "error" or "done"
// event may be about something else than the run.
var eventWords = map[string]bool{
	"started": true, "completed": true, "succeeded": true, "failed": true,
	"cancelled": true, "canceled": true, "waiting_for_input": true,
}

// lifecycleTypes are event types, after norm and without a run_ prefix,
// whose data states the run's new state.
var lifecycleTypes = map[string]bool{
	"status": true, "state": true, "lifecycle": true, "updated": true, "update": true,
	"status_changed": true, "state_changed": true, "ended": true, "finished": true, "end": true,
}

func norm(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.NewReplacer(".", "_", "-", "_", " ", "_", "/", "_").Replace(s)
}

// ParseState reads a lifecycle state as a backend writes it: the
// package's own names, and common others ("succeeded", "in_progress",
// "canceled", "error", "awaiting_approval" …), in any case, with ".", "-"
// or " " for "_". ok is false for a word it does not know.
func ParseState(s string) (State, bool) {
	st, ok := stateWords[norm(s)]
	return st, ok
}

// StateAfterEvent is the state a run is in after e, by the document's
// rule: an event that names a lifecycle state — by its type (run_completed,
// run.succeeded, run_canceled, completed …) or, for a lifecycle event
// (run_status, run_updated, status …), by a state or status member of its
// data — puts the run in that state. A tool_call or tool_result means the
// run is running (a tool result's own status is the tool's, not the
// run's). ok is false for an event that says nothing about the state.
func StateAfterEvent(e Event) (State, bool) {
	t := norm(e.Type)
	switch t {
	case EventToolCall, EventToolResult:
		return StateRunning, true
	case EventStreamReset, EventDecision, EventProgress:
		return "", false
	}
	bare, prefixed := strings.CutPrefix(t, "run_")
	if prefixed || lifecycleTypes[bare] {
		var d struct {
			State  string `json:"state"`
			Status string `json:"status"`
		}
		if len(e.Data) > 0 && json.Unmarshal(e.Data, &d) == nil {
			for _, w := range []string{d.State, d.Status} {
				if st, ok := ParseState(w); ok {
					return st, true
				}
			}
		}
	}
	if prefixed || eventWords[bare] {
		if st, ok := ParseState(bare); ok {
			return st, true
		}
	}
	return "", false
}

// TerminalEvent reports whether e ends its run: the state it puts the run
// in (StateAfterEvent) is completed, failed or cancelled.
func TerminalEvent(e Event) bool {
	st, ok := StateAfterEvent(e)
	return ok && st.Terminal()
}

// ParseTime reads a run's or an event's time as backends write it: RFC
// 3339 (with or without fractional seconds), or a number of seconds or
// milliseconds since the Unix epoch (in a string). ok is false otherwise.
func ParseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		if f > 1e11 { // milliseconds: seconds this large are past the year 5000
			return time.UnixMilli(int64(f)).UTC(), true
		}
		return time.Unix(int64(f), int64((f-float64(int64(f)))*1e9)).UTC(), true
	}
	return time.Time{}, false
}

// SortNewestFirst orders runs newest first by their start time, whatever
// order the backend listed them in. Runs whose start time cannot be read
// keep their relative order after the others.
func SortNewestFirst(list []Run) {
	sortfunc.Stable(list, func(a, b Run) int {
		ta, okA := ParseTime(a.StartedAt)
		tb, okB := ParseTime(b.StartedAt)
		switch {
		case okA && okB:
			return tb.Compare(ta)
		case okA:
			return -1
		case okB:
			return 1
		}
		return 0
	})
}
