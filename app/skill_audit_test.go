package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/words"
)

func referenceBundle(t *testing.T) *skill.Bundle {
	t.Helper()
	data, err := os.ReadFile("../fixtures/valid-skill-bundle.v0.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A selected step is put into text once: the call and answer as JSON,
// the observations as snapshots, the parameter sources sorted.
func TestViewStep(t *testing.T) {
	b := referenceBundle(t)
	b.Evidence.Events = append(b.Evidence.Events, skill.Event{ID: "x", Type: "x.ByIndex", Data: map[string]any{"edge_index": 1.0, "note": "a & b < c"}})
	d, ok := b.StepDetail(1)
	if !ok {
		t.Fatal("no step 1")
	}
	v := viewStep(d)
	e := b.Trace.Edges[1]
	var req skill.ToolCall
	if err := json.Unmarshal([]byte(v.request), &req); err != nil || req.Name != e.Tool.Name {
		t.Errorf("request %q (%v)", v.request, err)
	}
	if !strings.Contains(v.response, `"title"`) {
		t.Errorf("response %q", v.response)
	}
	if v.before != words.Snapshot(b.Trace.Edges[0].ObservedOutcome) || !strings.Contains(v.beforeFrom, "step 0") {
		t.Errorf("observation before from %q: %q", v.beforeFrom, v.before)
	}
	if !strings.Contains(v.after, "title: ") {
		t.Errorf("observation after %q", v.after)
	}
	if len(v.params) != len(e.ParamSources) {
		t.Errorf("param sources %+v", v.params)
	}
	for i := 1; i < len(v.params); i++ {
		if v.params[i-1].Key > v.params[i].Key {
			t.Errorf("param sources not sorted: %+v", v.params)
		}
	}
	last := v.events[len(v.events)-1]
	if last.Type != "x.ByIndex" || !strings.Contains(last.Full, `"a & b < c"`) {
		t.Errorf("event row %+v escapes & or <", last)
	}
	first, _ := b.StepDetail(0)
	if v := viewStep(first); v.before != "" || !strings.Contains(v.beforeFrom, "not recorded") {
		t.Errorf("step 0's observation before: %q (%q)", v.before, v.beforeFrom)
	}
}

func TestEventRowOf(t *testing.T) {
	long := strings.Repeat("é", summaryLen+10)
	for _, tc := range []struct {
		name        string
		data        any
		summary     string
		fullHas     string
		summaryRune int
	}{
		{"object", map[string]any{"a": "x & y"}, `{"a":"x & y"}`, `"a": "x & y"`, 0},
		{"cut at summaryLen", long, "", long, summaryLen + 1},
		{"not JSON", func() {}, "", "cannot be shown", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := eventRowOf(skill.Event{Type: "t", Time: "now", Data: tc.data})
			if r.Type != "t" || r.Time != "now" || !strings.Contains(r.Full, tc.fullHas) {
				t.Errorf("row %+v", r)
			}
			if tc.summary != "" && r.Summary != tc.summary {
				t.Errorf("summary %q, want %q", r.Summary, tc.summary)
			}
			if tc.summaryRune > 0 && (len([]rune(r.Summary)) != tc.summaryRune || !strings.HasSuffix(r.Summary, "…")) {
				t.Errorf("summary of %d characters: %q", len([]rune(r.Summary)), r.Summary)
			}
		})
	}
}

func TestScopeOf(t *testing.T) {
	b := referenceBundle(t)
	s := scopeOf(b)
	if len(s) != len(b.Evidence.Authorization) || len(s) == 0 {
		t.Fatalf("%d scope members for %d", len(s), len(b.Evidence.Authorization))
	}
	for i := 1; i < len(s); i++ {
		if s[i-1].Key >= s[i].Key {
			t.Errorf("scope not sorted: %+v", s)
		}
	}
	b.Evidence.Authorization = nil
	if s := scopeOf(b); len(s) != 0 {
		t.Errorf("scope of none: %+v", s)
	}
}

func TestPageOf(t *testing.T) {
	for _, tc := range []struct {
		n, size, p int
		want       window
	}{
		{0, 100, 0, window{Start: 0, End: 0, Page: 0, Pages: 1}},
		{5, 100, 0, window{Start: 0, End: 5, Page: 0, Pages: 1}},
		{250, 100, 1, window{Start: 100, End: 200, Page: 1, Pages: 3}},
		{250, 100, 2, window{Start: 200, End: 250, Page: 2, Pages: 3}},
		{250, 100, 9, window{Start: 200, End: 250, Page: 2, Pages: 3}},
		{250, 100, -1, window{Start: 0, End: 100, Page: 0, Pages: 3}},
		{3, 0, 1, window{Start: 1, End: 2, Page: 1, Pages: 3}},
	} {
		if got := pageOf(tc.n, tc.size, tc.p); got != tc.want {
			t.Errorf("pageOf(%d, %d, %d) = %+v, want %+v", tc.n, tc.size, tc.p, got, tc.want)
		}
	}
}
