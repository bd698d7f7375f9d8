package workbench_test

import (
	"slices"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/workbench"
)

func TestNeedsOf(t *testing.T) {
	b := taught(t)
	n := workbench.NeedsOf(b)
	if len(n.ModelChoices) != 0 || b.Trace.ModelBound() {
		t.Errorf("a skill of literal and input parameters needs a model: %+v", n.ModelChoices)
	}
	if len(n.Inputs) != 1 || n.Inputs[0].Name != "repo_url" || n.Body != skill.BodySimulator || n.Policy != skill.DefaultPolicyID {
		t.Errorf("needs %+v", n)
	}
	// Make the click the model's choice, and add two on edge 0.
	b.Trace.Edges[1].ParamSources = map[string]string{"name": skill.SourceLLM}
	b.Trace.Edges[0].ParamSources = map[string]string{"url": "input:repo_url", "wait": skill.SourceLLM, "a": skill.SourceLLM}
	n = workbench.NeedsOf(b)
	want := []workbench.ModelChoice{{Edge: 0, Tool: "browser_navigate", Param: "a"}, {Edge: 0, Tool: "browser_navigate", Param: "wait"}, {Edge: 1, Tool: "browser_click", Param: "name"}}
	if !slices.Equal(n.ModelChoices, want) {
		t.Errorf("model choices %+v, want %+v", n.ModelChoices, want)
	}
	if !b.Trace.ModelBound() {
		t.Error("NeedsOf lists model choices for a trace that is not model-bound")
	}
}

func TestInputRows(t *testing.T) {
	b := taught(t)
	recorded := "https://git.workbench.test/acme/widget"
	for _, tc := range []struct {
		name    string
		given   map[string]string
		new     string
		changed bool
	}{
		{"nothing typed", nil, recorded, false},
		{"same value", map[string]string{"repo_url": recorded}, recorded, false},
		{"same with spaces", map[string]string{"repo_url": " " + recorded + " "}, " " + recorded + " ", false},
		{"another", map[string]string{"repo_url": "https://git.workbench.test/acme/gadget"}, "https://git.workbench.test/acme/gadget", true},
		{"emptied", map[string]string{"repo_url": ""}, "", true},
		{"unknown name ignored", map[string]string{"city": "Paris"}, recorded, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := workbench.InputRows(b, tc.given)
			if len(rows) != 1 {
				t.Fatalf("%d rows", len(rows))
			}
			r := rows[0]
			if r.Name != "repo_url" || r.Type != "url" || r.Recorded != recorded || r.New != tc.new || r.Changed != tc.changed {
				t.Errorf("row %+v, want new %q changed %t", r, tc.new, tc.changed)
			}
		})
	}
	// A json input's recorded value is shown as JSON text; an input the
	// recording has no value for, as "".
	b.Manifest.Inputs = append(b.Manifest.Inputs, skill.InputSpec{Name: "opts", Type: "json"}, skill.InputSpec{Name: "later", Type: "string"})
	b.Evidence.Scenario.Inputs["opts"] = map[string]any{"depth": 2.0}
	rows := workbench.InputRows(b, nil)
	if rows[1].Recorded != `{"depth":2}` || rows[2].Recorded != "" || rows[2].Changed {
		t.Errorf("rows %+v", rows[1:])
	}
}

func TestEdgeRows(t *testing.T) {
	b := taught(t)
	rec := b.ReplayRecords()[0]
	// Half way through: only the first edge replayed.
	rows := workbench.EdgeRows(b, rec.Edges[:1], nil)
	if len(rows) != len(b.Trace.Edges) {
		t.Fatalf("%d rows for %d edges", len(rows), len(b.Trace.Edges))
	}
	if !rows[0].Replayed || rows[0].Match == "" || rows[0].Decision == "" || rows[0].RecordedAfter != b.Trace.Edges[0].StateAfter {
		t.Errorf("row 0: %+v", rows[0])
	}
	if rows[1].Replayed || rows[1].Match != "" {
		t.Errorf("row 1 replayed before the replay reached it: %+v", rows[1])
	}
	s := skill.SurpriseSignal{EdgeIndex: 1, Kind: skill.KindStateHashMismatch, PredictedStateHash: "sha256:aa", ActualStateHash: "sha256:bb"}
	rows = workbench.EdgeRows(b, rec.Edges, []skill.SurpriseSignal{s})
	if len(rows[1].Surprises) != 1 || len(rows[0].Surprises) != 0 {
		t.Errorf("surprises: %+v / %+v", rows[0].Surprises, rows[1].Surprises)
	}
}
