package skillpage_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/skillpage"
)

func TestStepsOf(t *testing.T) {
	b := decode(t, fixture(t, "valid-skill-bundle.v0.json"))
	steps := skillpage.StepsOf(b)
	if len(steps) != len(b.Trace.Edges) {
		t.Fatalf("%d steps for %d edges", len(steps), len(b.Trace.Edges))
	}
	for i, s := range steps {
		e := b.Trace.Edges[i]
		if s.Index != e.Index || s.Tool != e.Tool.Name || s.Outcome != e.OutcomeStatus || s.Decision != e.Authorization.Decision {
			t.Errorf("step %d: %+v", i, s)
		}
		if s.Changed != (e.StateAfter != e.StateBefore) {
			t.Errorf("step %d: changed %t", i, s.Changed)
		}
	}
}

func TestDetailOf(t *testing.T) {
	b := decode(t, fixture(t, "valid-skill-bundle.v0.json"))
	d, ok := skillpage.DetailOf(b, 1)
	if !ok {
		t.Fatal("no step 1")
	}
	e := b.Trace.Edges[1]
	var req skill.ToolCall
	if err := json.Unmarshal([]byte(d.Request), &req); err != nil || req.Name != e.Tool.Name {
		t.Errorf("request %q (%v)", d.Request, err)
	}
	if !strings.Contains(d.Response, `"title"`) {
		t.Errorf("response %q", d.Response)
	}
	if d.ObservationBefore != skillpage.Snapshot(b.Trace.Edges[0].ObservedOutcome) || !strings.Contains(d.BeforeFrom, "step 0") {
		t.Errorf("observation before from %q: %q", d.BeforeFrom, d.ObservationBefore)
	}
	if !strings.Contains(d.ObservationAfter, "title: ") {
		t.Errorf("observation after %q", d.ObservationAfter)
	}
	if d.StateBefore != e.StateBefore || d.StateAfter != e.StateAfter || d.Changed != (e.StateAfter != e.StateBefore) {
		t.Errorf("states %s → %s changed %t", d.StateBefore, d.StateAfter, d.Changed)
	}
	if d.Authorization == nil || d.Authorization.BlockID != e.Authorization.BlockID || d.Policy != b.Manifest.DelegaticPolicyID {
		t.Errorf("authorization %+v policy %q", d.Authorization, d.Policy)
	}
	if len(d.ToolCalls) != 1 || d.ToolCalls[0].Tool != e.Tool.Name {
		t.Errorf("tool calls %+v", d.ToolCalls)
	}
	if n := len(b.ReplayRecords()); len(d.Replays) != n || n == 0 {
		t.Errorf("%d replays of the step, %d replays in the bundle", len(d.Replays), n)
	}
	if len(d.ParamSources) != len(e.ParamSources) {
		t.Errorf("param sources %+v", d.ParamSources)
	}
	first, _ := skillpage.DetailOf(b, 0)
	if first.ObservationBefore != "" || !strings.Contains(first.BeforeFrom, "not recorded") {
		t.Errorf("step 0's observation before: %q (%q)", first.ObservationBefore, first.BeforeFrom)
	}
	for _, i := range []int{-1, len(b.Trace.Edges)} {
		if _, ok := skillpage.DetailOf(b, i); ok {
			t.Errorf("DetailOf(%d) found a step", i)
		}
	}
}

// Events name a step by its tool call's span or by edge index or id.
func TestDetailEvents(t *testing.T) {
	b := decode(t, fixture(t, "valid-skill-bundle.v0.json"))
	e := b.Trace.Edges[1]
	b.Evidence.Events = append(b.Evidence.Events,
		skill.Event{ID: "a", Type: "x.ByIndex", Data: map[string]any{"edge_index": 1.0, "note": "a & b < c"}},
		skill.Event{ID: "b", Type: "x.ByID", Data: map[string]any{"edge_id": e.EdgeID}},
		skill.Event{ID: "c", Type: "x.Other", Data: map[string]any{"edge_index": 0.0}},
		skill.Event{ID: "d", Type: "x.Scalar", Data: "edge 1"},
	)
	d, _ := skillpage.DetailOf(b, 1)
	var types []string
	for _, ev := range d.Events {
		types = append(types, ev.Type)
	}
	if got := strings.Join(types, ","); got != "x.ByIndex,x.ByID" {
		t.Errorf("events of step 1: %s", got)
	}
	if len(d.Events) > 0 && !strings.Contains(d.Events[0].Full, `"a & b < c"`) {
		t.Errorf("event data %q escapes & or <", d.Events[0].Full)
	}
}

func TestSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string
	}{
		{"text", `"- heading \"Docs\" [ref=e1]"`, `- heading "Docs" [ref=e1]`},
		{"object", `{"url":"https://a.test/?q=1&r=2","title":"A <b>"}`, "title: A <b>\nurl: https://a.test/?q=1&r=2"},
		{"nested", `{"links":[{"name":"README","href":"/r"}],"forms":[]}`, "forms: (none)\nlinks:\n  - href: /r\n    name: README"},
		{"scalars", `[1,true,null,"x"]`, "- 1\n- true\n- null\n- x"},
		{"empty object", `{}`, "{}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
				t.Fatal(err)
			}
			if got := skillpage.Snapshot(v); got != tc.want {
				t.Errorf("Snapshot(%s) =\n%s\nwant\n%s", tc.in, got, tc.want)
			}
		})
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("abcdefghij", 50) // 500 characters, one line
	lines := "1\n2\n3\n4\n5"
	for _, tc := range []struct {
		name        string
		in          string
		lines, max  int
		want        string
		wantClipped bool
	}{
		{"short", "hello", 10, 100, "hello", false},
		{"exactly the lines", lines, 5, 100, lines, false},
		{"too many lines", lines, 3, 100, "1\n2\n3", true},
		{"too many characters", long, 10, 25, long[:25], true},
		{"cut at a line end", "aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc", 10, 25, "aaaaaaaaaa\nbbbbbbbbbb", true},
		{"multibyte", "ééééé", 10, 3, "ééé", true},
		{"trailing newline", "a\n", 10, 100, "a", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, clipped := skillpage.Clip(tc.in, tc.lines, tc.max)
			if got != tc.want || clipped != tc.wantClipped {
				t.Errorf("Clip = %q, %t; want %q, %t", got, clipped, tc.want, tc.wantClipped)
			}
		})
	}
}

func TestPageOf(t *testing.T) {
	for _, tc := range []struct {
		n, size, p int
		want       skillpage.Window
	}{
		{0, 100, 0, skillpage.Window{Start: 0, End: 0, Page: 0, Pages: 1}},
		{5, 100, 0, skillpage.Window{Start: 0, End: 5, Page: 0, Pages: 1}},
		{250, 100, 1, skillpage.Window{Start: 100, End: 200, Page: 1, Pages: 3}},
		{250, 100, 2, skillpage.Window{Start: 200, End: 250, Page: 2, Pages: 3}},
		{250, 100, 9, skillpage.Window{Start: 200, End: 250, Page: 2, Pages: 3}},
		{250, 100, -1, skillpage.Window{Start: 0, End: 100, Page: 0, Pages: 3}},
		{3, 0, 1, skillpage.Window{Start: 1, End: 2, Page: 1, Pages: 3}},
	} {
		if got := skillpage.PageOf(tc.n, tc.size, tc.p); got != tc.want {
			t.Errorf("PageOf(%d, %d, %d) = %+v, want %+v", tc.n, tc.size, tc.p, got, tc.want)
		}
	}
}

// largeBundle is the valid fixture grown to about size bytes of trace:
// edges that each answer with a page of text, as a long browser session
// would record.
func largeBundle(tb testing.TB, size int) *skill.Bundle {
	tb.Helper()
	b, _, err := skill.Decode(fixture(tb, "valid-skill-bundle.v0.json"))
	if err != nil {
		tb.Fatal(err)
	}
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

// The Audit tab's model on a 20 MB trace: the step list (AuditOf) and the
// selected step's detail (DetailOf) are what the page computes when the
// tab opens and when a step is picked.
func BenchmarkAuditOf20MB(b *testing.B) {
	bundle := largeBundle(b, 20<<20)
	b.ReportMetric(float64(len(bundle.Trace.Edges)), "edges")
	for b.Loop() {
		a := skillpage.AuditOf(bundle)
		if len(a.Steps) != len(bundle.Trace.Edges) {
			b.Fatal("steps missing")
		}
	}
}

func BenchmarkDetailOf20MB(b *testing.B) {
	bundle := largeBundle(b, 20<<20)
	mid := len(bundle.Trace.Edges) / 2
	for b.Loop() {
		if _, ok := skillpage.DetailOf(bundle, mid); !ok {
			b.Fatal("no step")
		}
	}
}
