package runs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestStateAfterEventByTheDocumentsRule(t *testing.T) {
	tests := []struct {
		typ, data string
		want      State
		ok        bool
	}{
		{EventRunCompleted, "", StateCompleted, true},
		{EventRunFailed, "", StateFailed, true},
		{EventRunCancelled, "", StateCancelled, true},
		{"run_succeeded", "", StateCompleted, true},
		{"run.finished", "", StateCompleted, true},
		{"run_canceled", "", StateCancelled, true},
		{"run-errored", "", StateFailed, true},
		{"Run_Completed", "", StateCompleted, true},
		{"completed", "", StateCompleted, true},
		{"failed", "", StateFailed, true},
		{"run_status", `{"status":"succeeded"}`, StateCompleted, true},
		{"run_updated", `{"state":"canceled"}`, StateCancelled, true},
		{"status", `{"status":"failed"}`, StateFailed, true},
		{"run_ended", `{"status":"failed"}`, StateFailed, true}, // the data says how it ended
		{"run_status", `{"status":"in_progress"}`, StateRunning, true},
		{"run_started", "", StateRunning, true},
		{"run.awaiting_approval", "", StateWaitingForInput, true},
		{EventWaitingForInput, "", StateWaitingForInput, true},
		// A tool result's status is the tool's, never the run's.
		{EventToolResult, `{"status":"error"}`, StateRunning, true},
		{EventToolCall, "", StateRunning, true},
		// Bare ambiguous words and unknown events say nothing.
		{"error", "", "", false},
		{"done", "", "", false},
		{"progress", `{"status":"failed"}`, "", false},
		{"log", `{"state":"completed"}`, "", false},
		{EventStreamReset, `{"reason":"x"}`, "", false},
		{"run_status", `{"status":"weird"}`, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.typ+tt.data, func(t *testing.T) {
			e := Event{Type: tt.typ}
			if tt.data != "" {
				e.Data = json.RawMessage(tt.data)
			}
			got, ok := StateAfterEvent(e)
			if got != tt.want || ok != tt.ok {
				t.Errorf("StateAfterEvent(%s %s) = %q, %v; want %q, %v", tt.typ, tt.data, got, ok, tt.want, tt.ok)
			}
			if term := TerminalEvent(e); term != (tt.ok && tt.want.Terminal()) {
				t.Errorf("TerminalEvent = %v", term)
			}
		})
	}
}

func TestParseStateAndTime(t *testing.T) {
	for in, want := range map[string]State{
		"running": StateRunning, "IN_PROGRESS": StateRunning, "in-progress": StateRunning, "queued": StateRunning,
		"success": StateCompleted, "Succeeded": StateCompleted, "error": StateFailed, "canceled": StateCancelled,
		"awaiting approval": StateWaitingForInput, "waiting_for_input": StateWaitingForInput,
	} {
		if got, ok := ParseState(in); !ok || got != want {
			t.Errorf("ParseState(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if _, ok := ParseState("sideways"); ok {
		t.Error("ParseState accepted an unknown word")
	}
	for _, tt := range []struct {
		in   string
		unix int64
		ok   bool
	}{
		{"2026-01-02T03:04:05Z", 1767323045, true},
		{"2026-01-02T03:04:05.250+01:00", 1767319445, true},
		{"1767323045", 1767323045, true},
		{"1767323045123", 1767323045, true}, // milliseconds
		{"yesterday", 0, false},
		{"", 0, false},
	} {
		got, ok := ParseTime(tt.in)
		if ok != tt.ok || ok && got.Unix() != tt.unix {
			t.Errorf("ParseTime(%q) = %v (%d), %v", tt.in, got, got.Unix(), ok)
		}
	}
}

func TestSortNewestFirst(t *testing.T) {
	list := []Run{
		{ID: "b", StartedAt: "2026-01-02T00:00:00Z"},
		{ID: "x", StartedAt: "unknown"},
		{ID: "d", StartedAt: "1767398400"}, // 2026-01-03, in seconds
		{ID: "a", StartedAt: "2026-01-01T00:00:00.000Z"},
		{ID: "y"},
		{ID: "c", StartedAt: "2026-01-02T12:00:00+00:00"},
	}
	SortNewestFirst(list)
	var got []string
	for _, r := range list {
		got = append(got, string(r.ID))
	}
	if strings.Join(got, "") != "dcbaxy" {
		t.Errorf("order %v, want d c b a and then x y as listed", got)
	}
}

// pages is a Source of fixed pages, as a backend that states no run
// state and says no more with an empty page.
type pages struct {
	events []Event
	size   int
	stuck  bool // always say more, and send the first page again
}

func (p *pages) Runs(context.Context, SessionID) ([]Run, error) { return nil, nil }
func (p *pages) Follow(context.Context, RunID, int64) (Stream, error) {
	return nil, &NotFoundError{}
}
func (p *pages) Events(_ context.Context, _ RunID, after int64, limit int) (Page, error) {
	if p.stuck {
		return Page{Events: p.events[:1], More: true}, nil
	}
	var out []Event
	for _, e := range p.events {
		if e.Sequence > after && len(out) < p.size {
			out = append(out, e)
		}
	}
	return Page{Events: out, More: len(out) > 0}, nil
}

func TestReplayStateFromEventsAndMissing(t *testing.T) {
	var evs []Event
	for i := int64(5); i <= 9; i++ {
		evs = append(evs, Event{ID: EventID("e" + string(rune('0'+i))), Sequence: i, Type: "progress"})
	}
	evs = append(evs, Event{ID: "end", Sequence: 10, Type: "run.succeeded"})
	src := &pages{events: evs, size: 2}
	tl := NewTimeline(0)
	st, err := Replay(context.Background(), src, "r", tl, 2, nil)
	if err != nil || st != StateCompleted || tl.Len() != 6 {
		t.Fatalf("replay: state %q, %d events, %v", st, tl.Len(), err)
	}
	tests := []struct {
		seen     int64
		from, to int64
		ok       bool
	}{
		{0, 1, 4, true},  // a fresh replay: events 1–4 are gone
		{2, 3, 4, true},  // seen up to 2 before a reset: 3–4 are gone
		{4, 0, 0, false}, // the window starts right after what was seen
		{7, 0, 0, false},
	}
	for _, tt := range tests {
		from, to, ok := tl.Missing(tt.seen)
		if from != tt.from || to != tt.to || ok != tt.ok {
			t.Errorf("Missing(%d) = %d, %d, %v; want %d, %d, %v", tt.seen, from, to, ok, tt.from, tt.to, tt.ok)
		}
	}
	tl.Reset()
	if _, _, ok := tl.Missing(0); ok {
		t.Error("an empty timeline reports missing events")
	}

	if _, err := Replay(context.Background(), &pages{events: evs, stuck: true}, "r", NewTimeline(0), 2, nil); err == nil ||
		!strings.Contains(err.Error(), "sent none after it") {
		t.Errorf("a source that says more forever: %v", err)
	}
}

func TestResetReasonSpellings(t *testing.T) {
	for data, want := range map[string]string{
		`{"reason":"window moved"}`:            "window moved",
		`{"message":"window moved"}`:           "window moved",
		`{"detail":"window moved"}`:            "window moved",
		`"window moved"`:                       "window moved",
		`{}`:                                   "",
		`{"code":"retention_window_exceeded"}`: "retention_window_exceeded",
		// A whole event sent as the data, without a sequence.
		`{"type":"stream_reset","data":{"reason":"retention_window_exceeded"}}`: "retention_window_exceeded",
		`{"event":"stream_reset","payload":{"message":"pruned"}}`:               "pruned",
		`{"type":"stream_reset","data":"too far behind"}`:                       "too far behind",
		`{"type":"stream_reset","data":{"data":{"data":{"reason":"deep"}}}}`:    "",
	} {
		if got := reason(Event{Type: EventStreamReset, Data: json.RawMessage(data)}); got != want {
			t.Errorf("reason(%s) = %q, want %q", data, got, want)
		}
	}
}
