package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

func seqIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("id-%04d", n)
	}
}

func newLog(t *testing.T, opts ...LogOption) *Log {
	t.Helper()
	return NewLog(append([]LogOption{WithLogIDs(seqIDs())}, opts...)...)
}

func start(t *testing.T, l *Log, title string) Run {
	t.Helper()
	r, err := l.Start(Start{Kind: KindInvocation, Title: title, Session: "s-1"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func emit(t *testing.T, l *Log, r RunID, typ string, n int) {
	t.Helper()
	for i := range n {
		if _, err := l.Emit(r, typ, map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRunsNewestFirstAndStates(t *testing.T) {
	l := newLog(t)
	a := start(t, l, "a")
	b := start(t, l, "b")
	c, err := l.Start(Start{Kind: KindReplay, Title: "c", Session: "s-2"})
	if err != nil {
		t.Fatal(err)
	}
	emit(t, l, a.ID, EventRunCompleted, 1)
	if _, err := l.Fail(b.ID, errors.New("tool exploded")); err != nil {
		t.Fatal(err)
	}
	emit(t, l, c.ID, EventWaitingForInput, 1)

	list, err := l.Runs(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id    RunID
		state State
	}{{c.ID, StateWaitingForInput}, {b.ID, StateFailed}, {a.ID, StateCompleted}}
	if len(list) != len(want) {
		t.Fatalf("got %d runs, want %d", len(list), len(want))
	}
	for i, w := range want {
		if list[i].ID != w.id || list[i].State != w.state {
			t.Errorf("run %d = %s %s, want %s %s", i, list[i].ID, list[i].State, w.id, w.state)
		}
	}
	if list[1].Error != "tool exploded" {
		t.Errorf("failed run's error = %q", list[1].Error)
	}
	only, _ := l.Runs(context.Background(), "s-2")
	if len(only) != 1 || only[0].ID != c.ID || only[0].SessionID != "s-2" {
		t.Errorf("session filter: %+v", only)
	}
	if _, err := l.Emit(a.ID, EventToolCall, nil); err == nil {
		t.Error("an event after run_completed was accepted")
	}
	if _, err := l.Emit(c.ID, EventStreamReset, nil); err == nil {
		t.Error("stream_reset was accepted as a run event")
	}
}

func TestEventsCursor(t *testing.T) {
	l := newLog(t, WithRetain(10))
	r := start(t, l, "r")               // seq 1
	emit(t, l, r.ID, EventProgress, 14) // seq 2..15; retained 6..15
	tests := []struct {
		after, limit int
		first, n     int64
		more, gap    bool
	}{
		{after: 0, limit: 3, first: 6, n: 3, more: true, gap: true},
		{after: 5, limit: 3, first: 6, n: 3, more: true},
		{after: 8, limit: 100, first: 9, n: 7},
		{after: 15, limit: 5, first: 0, n: 0},
		{after: 12, limit: 0, first: 13, n: 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("after=%d,limit=%d", tt.after, tt.limit), func(t *testing.T) {
			p, err := l.Events(context.Background(), r.ID, int64(tt.after), tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(p.Events)) != tt.n || p.More != tt.more || p.Gap != tt.gap {
				t.Fatalf("got %d events more=%v gap=%v, want %d more=%v gap=%v", len(p.Events), p.More, p.Gap, tt.n, tt.more, tt.gap)
			}
			if tt.n > 0 && p.Events[0].Sequence != tt.first {
				t.Errorf("first sequence %d, want %d", p.Events[0].Sequence, tt.first)
			}
			for i := 1; i < len(p.Events); i++ {
				if p.Events[i].Sequence != p.Events[i-1].Sequence+1 {
					t.Errorf("sequences not consecutive at %d", i)
				}
			}
			if tt.n == 0 && p.Next != int64(tt.after) {
				t.Errorf("empty page next = %d, want the cursor %d", p.Next, tt.after)
			}
		})
	}
	if _, err := l.Events(context.Background(), "nope", 0, 1); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("unknown run: %v", err)
	}
	if _, err := l.Events(context.Background(), r.ID, -1, 1); err == nil {
		t.Error("a negative cursor was accepted")
	}
}

func TestTimelineDedupeAndBound(t *testing.T) {
	tl := NewTimeline(3)
	ev := func(id string, seq int64) Event { return Event{ID: EventID(id), Sequence: seq, Type: EventProgress} }
	steps := []struct {
		e    Event
		want bool
	}{
		{ev("a", 1), true},
		{ev("a", 1), false}, // same id
		{ev("b", 2), true},
		{ev("x", 2), false}, // sequence not after the last
		{ev("c", 3), true},
		{ev("d", 4), true},  // evicts a
		{ev("b", 2), false}, // evicted ids stay behind the cursor
		{Event{ID: "r", Type: EventStreamReset}, false},
	}
	for i, s := range steps {
		if got := tl.Add(s.e); got != s.want {
			t.Errorf("step %d: Add(%s,%d) = %v, want %v", i, s.e.ID, s.e.Sequence, got, s.want)
		}
	}
	got := tl.Events()
	if len(got) != 3 || got[0].ID != "b" || got[2].ID != "d" || tl.Last() != 4 {
		t.Errorf("timeline = %+v last %d", got, tl.Last())
	}
	tl.Reset()
	if tl.Len() != 0 || tl.Last() != 0 || !tl.Add(ev("a", 1)) {
		t.Error("Reset did not empty the timeline")
	}
}

func TestReplayPaginatesIntoBoundedTimeline(t *testing.T) {
	l := newLog(t)
	r := start(t, l, "r")
	emit(t, l, r.ID, EventProgress, 40)
	emit(t, l, r.ID, EventRunCompleted, 1) // 42 events in all
	tl := NewTimeline(25)
	var seen int
	st, err := Replay(context.Background(), l, r.ID, tl, 7, func(Event) { seen++ })
	if err != nil {
		t.Fatal(err)
	}
	if st != StateCompleted || seen != 42 || tl.Len() != 25 || tl.Last() != 42 {
		t.Errorf("state %s, seen %d, held %d, last %d", st, seen, tl.Len(), tl.Last())
	}
	// Replaying again adds nothing: it resumes after the last sequence.
	seen = 0
	if _, err := Replay(context.Background(), l, r.ID, tl, 7, func(Event) { seen++ }); err != nil || seen != 0 {
		t.Errorf("second replay: %d new, %v", seen, err)
	}
}

func TestFollowLiveUntilTerminal(t *testing.T) {
	l := newLog(t)
	r := start(t, l, "r")
	emit(t, l, r.ID, EventToolCall, 1)
	tl := NewTimeline(0)
	if _, err := Replay(context.Background(), l, r.ID, tl, 0, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan FollowResult, 1)
	var got []string
	go func() {
		res, err := Follow(context.Background(), l, r.ID, tl, func(e Event) { got = append(got, e.Type) })
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	time.Sleep(10 * time.Millisecond)
	emit(t, l, r.ID, EventToolResult, 1)
	emit(t, l, r.ID, EventRunCompleted, 1)
	select {
	case res := <-done:
		if res.Outcome != OutcomeEnded {
			t.Errorf("outcome %s", res.Outcome)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follow did not close on the terminal event")
	}
	if fmt.Sprint(got) != "[tool_result run_completed]" || tl.Last() != 4 {
		t.Errorf("followed %v, last %d", got, tl.Last())
	}
	// Following an ended run whose end is held returns at once.
	if res, err := Follow(context.Background(), l, r.ID, tl, nil); err != nil || res.Outcome != OutcomeEnded {
		t.Errorf("follow of an ended run: %+v %v", res, err)
	}
}

func TestFollowBehindWindowResets(t *testing.T) {
	l := newLog(t, WithRetain(5))
	r := start(t, l, "r")
	emit(t, l, r.ID, EventProgress, 10) // seq 1..11, retained 7..11
	tl := NewTimeline(0)
	tl.Add(Event{ID: "first", Sequence: 1, Type: EventRunStarted})
	res, err := Follow(context.Background(), l, r.ID, tl, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != OutcomeReset || res.Reason == "" {
		t.Fatalf("got %+v, want a reset with a reason", res)
	}
	// The operator replays the retained window.
	tl.Reset()
	if _, err := Replay(context.Background(), l, r.ID, tl, 0, nil); err != nil {
		t.Fatal(err)
	}
	if !tl.Gap() || tl.Len() != 5 || tl.Events()[0].Sequence != 7 {
		t.Errorf("retained window: gap %v, %d events from %d", tl.Gap(), tl.Len(), tl.Events()[0].Sequence)
	}
}

func TestSlowFollowerIsReset(t *testing.T) {
	l := newLog(t, WithRetain(4))
	r := start(t, l, "r")
	st, err := l.Follow(context.Background(), r.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	emit(t, l, r.ID, EventProgress, 6) // the follower reads none of them
	e, err := st.Next(context.Background())
	if err != nil || e.Type != EventStreamReset {
		t.Fatalf("got %s %v, want stream_reset", e.Type, err)
	}
	if _, err := st.Next(context.Background()); err != io.EOF {
		t.Errorf("after the reset: %v, want io.EOF", err)
	}
}

// dropping is a Source whose follow connections drop after every n
// events, the way a network connection ends mid-follow.
type dropping struct {
	*Log
	n       int
	follows int
}

func (d *dropping) Follow(ctx context.Context, run RunID, after int64) (Stream, error) {
	d.follows++
	st, err := d.Log.Follow(ctx, run, after)
	if err != nil {
		return nil, err
	}
	return &cut{Stream: st, left: d.n}, nil
}

type cut struct {
	Stream
	left int
}

func (c *cut) Next(ctx context.Context) (Event, error) {
	if c.left == 0 {
		return Event{}, fmt.Errorf("read: connection reset: %w", ErrDropped)
	}
	c.left--
	return c.Stream.Next(ctx)
}

func TestFollowResumesAfterDrop(t *testing.T) {
	l := newLog(t)
	r := start(t, l, "r")
	emit(t, l, r.ID, EventProgress, 9)
	emit(t, l, r.ID, EventRunCompleted, 1) // 11 events
	src := &dropping{Log: l, n: 3}
	tl := NewTimeline(0)
	var n int
	res, err := Follow(context.Background(), src, r.ID, tl, func(Event) { n++ })
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != OutcomeEnded || n != 11 || tl.Last() != 11 || res.Resumed != 3 {
		t.Errorf("outcome %s, %d events, last %d, resumed %d", res.Outcome, n, tl.Last(), res.Resumed)
	}
}

func TestFollowGivesUpOnDeadConnection(t *testing.T) {
	l := newLog(t)
	r := start(t, l, "r")
	src := &dropping{Log: l, n: 0}
	tl := NewTimeline(0)
	_, err := Follow(context.Background(), src, r.ID, tl, nil)
	if !errors.Is(err, ErrDropped) || src.follows != MaxResumes+1 {
		t.Errorf("err %v after %d follows", err, src.follows)
	}
}

func TestFollowUnknownRunIsNotRetried(t *testing.T) {
	l := newLog(t)
	_, err := Follow(context.Background(), l, "missing", NewTimeline(0), nil)
	if !errors.As(err, new(*NotFoundError)) {
		t.Errorf("got %v", err)
	}
}
