package skill_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"workbench/pkg/skill"
)

func referenceDecoded(t testing.TB) *skill.Bundle {
	t.Helper()
	b, _, err := skill.Decode(referenceBundle(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSteps(t *testing.T) {
	b := referenceDecoded(t)
	steps := b.Steps()
	if len(steps) != len(b.Trace.Edges) {
		t.Fatalf("%d steps for %d edges", len(steps), len(b.Trace.Edges))
	}
	for i, s := range steps {
		e := b.Trace.Edges[i]
		if s.Index != e.Index || s.Tool != e.Tool.Name || s.Outcome != e.OutcomeStatus || s.Decision != e.Authorization.Decision || s.Time != e.Provenance.Timestamp {
			t.Errorf("step %d: %+v", i, s)
		}
		if s.Changed != (e.StateAfter != e.StateBefore) {
			t.Errorf("step %d: changed %t", i, s.Changed)
		}
		if s.Surprise {
			t.Errorf("step %d: a surprise in a bundle whose replays raised none", i)
		}
	}
	// A surprise a replay raised marks its step, in the list and in the
	// step's detail.
	rec := b.ReplayRecords()[0]
	rec.Report.SurpriseSignals = []skill.SurpriseSignal{{EdgeIndex: 1, Kind: skill.KindStateHashMismatch}}
	for i, ev := range b.Evidence.Events {
		if ev.Type == skill.EventReplayExecuted {
			b.Evidence.Events[i].Data = rec
		}
	}
	steps = b.Steps()
	if steps[0].Surprise || !steps[1].Surprise {
		t.Errorf("surprise on steps 0, 1: %t, %t", steps[0].Surprise, steps[1].Surprise)
	}
	if d, _ := b.StepDetail(1); !d.Surprise || len(d.Replays) == 0 || len(d.Replays[0].Surprises) != 1 {
		t.Errorf("detail of the surprised step: %t, %+v", d.Surprise, d.Replays)
	}
}

func TestStepDetail(t *testing.T) {
	b := referenceDecoded(t)
	d, ok := b.StepDetail(1)
	if !ok {
		t.Fatal("no step 1")
	}
	e := &b.Trace.Edges[1]
	if d.Edge != e || d.Before != &b.Trace.Edges[0] || d.Index != e.Index {
		t.Errorf("edge %p before %p, want %p and %p", d.Edge, d.Before, e, &b.Trace.Edges[0])
	}
	if len(d.ToolCalls) != 1 || d.ToolCalls[0].Tool != e.Tool.Name {
		t.Errorf("tool calls %+v", d.ToolCalls)
	}
	if d.SpanMS < 0 {
		t.Errorf("span %v ms: the fixture times every tool call", d.SpanMS)
	}
	if n := len(b.ReplayRecords()); len(d.Replays) != n || n == 0 {
		t.Errorf("%d replays of the step, %d replays in the bundle", len(d.Replays), n)
	}
	for _, ev := range d.Events {
		if ev.Type == skill.EventReplayExecuted {
			t.Errorf("a replay's event among the step's events: %s", ev.ID)
		}
	}
	if first, _ := b.StepDetail(0); first.Before != nil {
		t.Errorf("step 0 has a step before it: %+v", first.Before)
	}
	for _, i := range []int{-1, len(b.Trace.Edges)} {
		if _, ok := b.StepDetail(i); ok {
			t.Errorf("StepDetail(%d) found a step", i)
		}
	}
	// Without tool-call spans the duration is unknown, not zero.
	b.Evidence.Trace.Spans = nil
	if d, _ := b.StepDetail(1); d.SpanMS != -1 {
		t.Errorf("span %v ms with no spans recorded", d.SpanMS)
	}
}

// Events name a step by its tool call's span or by edge index or id.
func TestStepDetailEvents(t *testing.T) {
	b := referenceDecoded(t)
	e := b.Trace.Edges[1]
	b.Evidence.Events = append(b.Evidence.Events,
		skill.Event{ID: "a", Type: "x.ByIndex", Data: map[string]any{"edge_index": 1.0}},
		skill.Event{ID: "b", Type: "x.ByID", Data: map[string]any{"edge_id": e.EdgeID}},
		skill.Event{ID: "c", Type: "x.Other", Data: map[string]any{"edge_index": 0.0}},
		skill.Event{ID: "d", Type: "x.Scalar", Data: "edge 1"},
		skill.Event{ID: "e", Type: "x.EmptyID", Data: map[string]any{"edge_id": ""}},
	)
	d, _ := b.StepDetail(1)
	var ids []string
	for _, ev := range d.Events {
		if strings.HasPrefix(ev.Type, "x.") {
			ids = append(ids, ev.ID)
		}
	}
	if !slices.Equal(ids, []string{"a", "b"}) {
		t.Errorf("events of step 1: %v, want a, b", ids)
	}
}

func TestAuthorizations(t *testing.T) {
	b := referenceDecoded(t)
	got := b.Authorizations()
	recs := b.ReplayRecords()
	want := len(b.Trace.Edges)
	for _, r := range recs {
		for _, e := range r.Edges {
			if e.Authorization != nil {
				want++
			}
		}
	}
	if len(recs) == 0 || len(got) != want {
		t.Fatalf("%d replay records, %d authorization rows, want %d", len(recs), len(got), want)
	}
	for i, a := range got[:len(b.Trace.Edges)] {
		if a.Replay != "" || a.Edge != b.Trace.Edges[i].Index || a.BlockID != b.Trace.Edges[i].Authorization.BlockID {
			t.Errorf("row %d: %+v", i, a)
		}
	}
	for _, a := range got[len(b.Trace.Edges):] {
		if a.Replay != recs[0].Report.ReplayID {
			t.Errorf("a replay's row names replay %q", a.Replay)
		}
	}
}

// largeBundle is the reference bundle grown to about size bytes of trace:
// edges that each answer with a page of text, as a long browser session
// would record.
func largeBundle(tb testing.TB, size int) *skill.Bundle {
	tb.Helper()
	b := referenceDecoded(tb)
	page := strings.Repeat("- link \"Release notes for the widget\" [ref=e12]\n", 200) // ~10 KB
	proto := b.Trace.Edges[0]
	var edges []skill.Edge
	for i := 0; len(edges)*len(page) < size; i++ {
		e := proto
		e.Index, e.EdgeID = i, fmt.Sprintf("edge-%d", i)
		e.ObservedOutcome = page
		edges = append(edges, e)
		idx := i
		b.Evidence.ToolCalls = append(b.Evidence.ToolCalls, skill.ToolCallHash{SpanID: fmt.Sprintf("%016x", i), Tool: e.Tool.Name, EdgeIndex: &idx})
		b.Evidence.Events = append(b.Evidence.Events, skill.Event{ID: fmt.Sprint(i), Type: "x.Step", Data: map[string]any{"edge_index": float64(i)}})
	}
	b.Trace.Edges = edges
	return b
}

// What the skill page's Audit tab computes on a 20 MB trace: the step
// list when the tab opens, and the selected step's detail when a step is
// picked.
func BenchmarkSteps20MB(b *testing.B) {
	bundle := largeBundle(b, 20<<20)
	b.ReportMetric(float64(len(bundle.Trace.Edges)), "edges")
	for b.Loop() {
		if len(bundle.Steps()) != len(bundle.Trace.Edges) {
			b.Fatal("steps missing")
		}
	}
}

func BenchmarkStepDetail20MB(b *testing.B) {
	bundle := largeBundle(b, 20<<20)
	mid := len(bundle.Trace.Edges) / 2
	for b.Loop() {
		if _, ok := bundle.StepDetail(mid); !ok {
			b.Fatal("no step")
		}
	}
}
