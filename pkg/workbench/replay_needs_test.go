package workbench_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

func TestNeedsOf(t *testing.T) {
	b := taught(t)
	n := workbench.NeedsOf(b)
	if len(n.ModelChoices) != 0 || b.Trace.ModelBound() {
		t.Errorf("a skill of literal and input parameters needs a model: %+v", n.ModelChoices)
	}
	if len(n.Inputs) != 1 || n.Inputs[0].Name != "repo_url" || n.Body != body.KindSimulator || n.Policy != skill.DefaultPolicyID {
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

// A replay the world surprised says in words what it saw and what
// differed: each replayed step carries its arguments and the body's
// answer, and the edge that halted sets the recorded answer beside the
// observed one, changed lines marked, with the tolerance it exceeded.
func TestEdgeRowsSayWhatDiffered(t *testing.T) {
	b := taught(t)
	s, err := workbench.New(workbench.Deps{}).PrepareReplay(workbench.ReplayRequest{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	// The site's front page is not a project page: another structure.
	const front = "https://git.workbench.test/"
	var seen []skill.ReplayEdge
	w := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(verifier(t)), Bodies: fakeBodies(s.WorldData)})
	r, err := w.Replay(context.Background(), workbench.ReplayRequest{Bundle: b, Input: map[string]any{"repo_url": front},
		Progress: func(e skill.ReplayEdge) { seen = append(seen, e) }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Record.Report.Status != skill.StatusHalted {
		t.Fatalf("status %s: a page of another structure should halt the replay", r.Record.Report.Status)
	}
	rows := workbench.EdgeRows(b, seen, r.Record.Report.SurpriseSignals)
	row := rows[0]
	if row.ReplayedArgs["url"] != front || !strings.Contains(row.Saw, "git.workbench.test") || strings.Contains(row.Saw, "Latest release") {
		t.Errorf("row 0 says it called %v and saw %q", row.ReplayedArgs, row.Saw)
	}
	if !strings.Contains(row.RecordedSaw, "Latest release: v2.4.1") {
		t.Errorf("row 0's recording reads %q", row.RecordedSaw)
	}
	d := row.Difference
	if d == nil {
		t.Fatal("no difference on the edge that halted")
	}
	var removed, added []string
	for _, l := range d.Lines {
		switch l.Op {
		case words.DiffRemoved:
			removed = append(removed, l.Text)
		case words.DiffAdded:
			added = append(added, l.Text)
		}
	}
	if !slices.ContainsFunc(removed, func(l string) bool { return strings.Contains(l, "Latest release: v2.4.1") }) || len(added) == 0 {
		t.Errorf("difference: removed %q, added %q", removed, added)
	}
	if !strings.HasPrefix(d.Tolerance, "Structural:") {
		t.Errorf("tolerance %q: a replay on another input is held to structure", d.Tolerance)
	}
	if rows[1].Difference != nil || rows[1].Saw != "" {
		t.Errorf("row 1, after the halt: %+v", rows[1])
	}
	// What the page shows is not what the bundle keeps: the record's
	// edges carry hashes only.
	data, err := json.Marshal(r.Record)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "Latest release") {
		t.Error("the replay's record carries what the body said")
	}
}

// A simulator world that changed since the recording halts before the
// first action: nothing was called, the recording keeps only the hash of
// where it started, and the row shows what the body showed instead.
func TestEdgeRowsBeforeTheFirstAction(t *testing.T) {
	b := taught(t)
	s, err := workbench.New(workbench.Deps{}).PrepareReplay(workbench.ReplayRequest{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	changed := []byte(strings.Replace(string(s.WorldData), "Latest release: v2.4.1", "Latest release: v3.0.0", 1))
	var seen []skill.ReplayEdge
	w := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(verifier(t)), Bodies: func(ctx context.Context, kind body.Kind, _ []byte) (body.Body, bool, error) {
		return fakeBodies(changed)(ctx, kind, nil)
	}})
	r, err := w.Replay(context.Background(), workbench.ReplayRequest{Bundle: b,
		Progress: func(e skill.ReplayEdge) { seen = append(seen, e) }})
	if err != nil {
		t.Fatal(err)
	}
	d := workbench.EdgeRows(b, seen, r.Record.Report.SurpriseSignals)[0].Difference
	if d == nil || d.Recorded != "" || d.Observed == "" || !strings.HasPrefix(d.Tolerance, "The body must start where the recording started") {
		t.Fatalf("difference %+v", d)
	}
}
