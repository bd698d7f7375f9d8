package judge_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"workbench/pkg/judge"
	"workbench/pkg/skill"
)

// answer is a Judge that returns a fixed verdict or error; it exercises
// Apply's level rules, which depend only on what a judge answers.
type answer struct {
	v   judge.Verdict
	err error
	n   *int
}

func (a answer) Judge(context.Context, judge.Request) (judge.Verdict, error) {
	*a.n++
	return a.v, a.err
}

func record(level string) skill.ReplayRecord {
	return skill.ReplayRecord{Report: skill.ReplayReport{ReplayID: "r1", FidelityLevel: level, Fidelity: 1,
		EdgesAttempted: 2, EdgesCommitted: 2}}
}

func TestApplyLevels(t *testing.T) {
	yes := judge.Verdict{Judge: "j", Equivalent: true, Score: 0.93, Rationale: "same version named"}
	cases := []struct {
		name      string
		level     string
		v         judge.Verdict
		err       error
		want      string
		calls     int
		judged    bool // a judge block is recorded
		scored    bool
		semantic  bool
		reasonHas string
	}{
		{"confirmed", skill.LevelStructural, yes, nil, skill.LevelSemantic, 1, true, true, true, "fidelity semantic"},
		{"at the threshold", skill.LevelStructural, judge.Verdict{Judge: "j", Equivalent: true, Score: 0.8}, nil, skill.LevelSemantic, 1, true, true, true, "≥ 0.8"},
		{"below the threshold", skill.LevelStructural, judge.Verdict{Judge: "j", Equivalent: true, Score: 0.79}, nil, skill.LevelStructural, 1, true, true, false, "stays structural"},
		{"not equivalent", skill.LevelStructural, judge.Verdict{Judge: "j", Equivalent: false, Score: 0.95}, nil, skill.LevelStructural, 1, true, true, false, "did not confirm"},
		{"judge failed", skill.LevelStructural, judge.Verdict{}, errors.New("prism-eval is not reachable"), skill.LevelInconclusive, 1, true, false, false, "prism-eval is not reachable"},
		{"exact is not judged", skill.LevelExact, yes, nil, skill.LevelExact, 0, false, false, false, "this replay is exact"},
		{"failed is not lifted", skill.LevelFailed, yes, nil, skill.LevelFailed, 0, false, false, false, "this replay is failed"},
		{"inconclusive is not lifted", skill.LevelInconclusive, yes, nil, skill.LevelInconclusive, 0, false, false, false, "this replay is inconclusive"},
	}
	for _, c := range cases {
		n := 0
		out := judge.Apply(context.Background(), answer{c.v, c.err, &n}, record(c.level), judge.Request{}, judge.Options{})
		r := out.Record.Report
		if r.FidelityLevel != c.want || n != c.calls || (out.Judge != nil) != c.judged || (out.Score != nil) != c.scored ||
			out.Semantic != c.semantic || !strings.Contains(out.Reason, c.reasonHas) {
			t.Errorf("%s: level %s, calls %d, judge %v, score %v, semantic %t, reason %q", c.name, r.FidelityLevel, n, out.Judge, out.Score, out.Semantic, out.Reason)
		}
		// What replay measured stays as measured.
		if r.Fidelity != 1 || r.EdgesAttempted != 2 || r.EdgesCommitted != 2 {
			t.Errorf("%s: measured numbers changed: %+v", c.name, r)
		}
	}
}

func TestNoJudge(t *testing.T) {
	out := judge.Apply(context.Background(), nil, record(skill.LevelStructural), judge.Request{}, judge.Options{})
	if out.Record.Report.FidelityLevel != skill.LevelInconclusive || out.Judge["available"] != false || out.Score != nil {
		t.Errorf("%+v", out)
	}
	out = judge.Unavailable(record(skill.LevelStructural), errors.New("prism-eval is not configured"))
	if out.Record.Report.FidelityLevel != skill.LevelInconclusive || out.Judge["reason"] != "prism-eval is not configured" {
		t.Errorf("%+v", out)
	}
}

func TestOriginalOutput(t *testing.T) {
	tr := &skill.Trace{Edges: []skill.Edge{
		{OutcomeStatus: skill.OutcomeOK, ObservedOutcome: "page one"},
		{OutcomeStatus: skill.OutcomeOK, ObservedOutcome: map[string]any{"version": "1.4.0"}},
		{OutcomeStatus: skill.OutcomeDenied, ObservedOutcome: map[string]any{"refused": "no"}},
	}}
	if got, ok := judge.OriginalOutput(tr).(map[string]any); !ok || got["version"] != "1.4.0" {
		t.Errorf("got %v", judge.OriginalOutput(tr))
	}
	if judge.OriginalOutput(&skill.Trace{}) != nil {
		t.Error("output of an empty trace")
	}
}
