package workbench_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/compare"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/workbench"
)

// unpriced is a model client whose replies do not say what they cost.
type unpriced struct{ m workbench.Model }

func (u unpriced) Chat(ctx context.Context, req openrouter.Request) (*openrouter.Response, error) {
	resp, err := u.m.Chat(ctx, req)
	if resp != nil {
		resp.Usage.Cost = nil
	}
	return resp, err
}

// billedFailure is a model client whose every call fails part way, after
// it was billed.
type billedFailure struct{}

func (billedFailure) Chat(context.Context, openrouter.Request) (*openrouter.Response, error) {
	cost := 0.004
	return nil, &openrouter.APIError{Status: 502, Message: "upstream stopped", Usage: &openrouter.Usage{Cost: &cost}}
}

// stepping is a clock that moves a second every time it is read.
func stepping() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

// TestReplayModel: one replay of a model-bound skill runs with the model
// named, its calls counted and priced; a call that fails is the result's
// *workbench.ModelError with no record, not the flow's error.
func TestReplayModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script openroutertest.Script
		client func(l *compareLab) workbench.Model
		check  func(t *testing.T, l *compareLab, r *workbench.ReplayResult)
	}{
		{
			name:   "the model clicks the link",
			script: clicking("example/a", "Changelog", 1),
			check: func(t *testing.T, l *compareLab, r *workbench.ReplayResult) {
				if r.Err != nil || r.Record == nil || r.Bundle == nil || r.Report == nil {
					t.Fatalf("no complete result: %+v", r)
				}
				rep := r.Record.Report
				if rep.Status != skill.StatusSuccess || r.Verdict() != skill.VerdictPass || rep.ModelUsed != "example/a" {
					t.Errorf("status %s, verdict %s, model_used %s", rep.Status, r.Verdict(), rep.ModelUsed)
				}
				if r.ModelCalls != 1 || !r.CostKnown || r.CostUSD != 0.002 || rep.CostUSD == nil || *rep.CostUSD != r.CostUSD {
					t.Errorf("%d calls costing %v (known %v); the report says %v", r.ModelCalls, r.CostUSD, r.CostKnown, rep.CostUSD)
				}
				if r.Bundle.SkillVersion != l.b.SkillVersion+1 || rep.SkillVersion != l.b.SkillVersion {
					t.Errorf("proved as v%d (replayed v%d)", r.Bundle.SkillVersion, rep.SkillVersion)
				}
			},
		},
		{
			name:   "a refusal is a divergence in the record",
			script: repeated("example/a", openroutertest.Refuse("I will not click links."), 1),
			check: func(t *testing.T, l *compareLab, r *workbench.ReplayResult) {
				if r.Err != nil || r.Record == nil {
					t.Fatalf("err %v", r.Err)
				}
				rep := r.Record.Report
				if rep.Status != skill.StatusHalted || len(rep.SurpriseSignals) != 1 || rep.SurpriseSignals[0].Kind != skill.KindModelRefusal || r.Verdict() != skill.VerdictFail {
					t.Errorf("status %s, surprises %+v, verdict %s", rep.Status, rep.SurpriseSignals, r.Verdict())
				}
			},
		},
		{
			name:   "out of credit",
			script: repeated("example/a", openroutertest.Error(402, "Insufficient credits. Add more using https://example.invalid/credits"), 1),
			check: func(t *testing.T, l *compareLab, r *workbench.ReplayResult) {
				var me *workbench.ModelError
				if !errors.As(r.Err, &me) || !errors.Is(r.Err, openrouter.ErrOutOfCredit) || me.Edge != 1 || me.Model != "example/a" {
					t.Fatalf("the 402 gave err %v", r.Err)
				}
				if r.Record != nil || r.Bundle != nil || r.Report != nil || r.Verdict() != "error" {
					t.Errorf("a record was made for the failed model: %+v", r)
				}
				if msg := r.Err.Error(); !strings.Contains(msg, "model example/a failed at edge 1: openrouter: 402") || strings.Contains(msg, l.or.Key) {
					t.Errorf("error text %q", msg)
				}
			},
		},
		{
			name:   "rate limited",
			script: repeated("example/a", openroutertest.RateLimit(30*time.Second), 1),
			check: func(t *testing.T, l *compareLab, r *workbench.ReplayResult) {
				if d, ok := openrouter.RetryAfter(r.Err); !ok || d != 30*time.Second || r.Record != nil {
					t.Errorf("rate limit: err %v, retry after %v", r.Err, d)
				}
			},
		},
		{
			name:   "replies that do not say their cost",
			script: clicking("example/a", "Changelog", 1),
			client: func(l *compareLab) workbench.Model { return unpriced{l.client} },
			check: func(t *testing.T, l *compareLab, r *workbench.ReplayResult) {
				if r.Err != nil || r.ModelCalls != 1 || r.CostKnown {
					t.Errorf("err %v, %d calls, cost known %v", r.Err, r.ModelCalls, r.CostKnown)
				}
			},
		},
		{
			name:   "a failed call that was billed",
			client: func(*compareLab) workbench.Model { return billedFailure{} },
			check: func(t *testing.T, l *compareLab, r *workbench.ReplayResult) {
				var ae *openrouter.APIError
				if !errors.As(r.Err, &ae) || r.ModelCalls != 1 || r.CostUSD != 0.004 || !r.CostKnown {
					t.Errorf("err %v, %d calls costing %v (known %v)", r.Err, r.ModelCalls, r.CostUSD, r.CostKnown)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var scripts []openroutertest.Script
			if tc.script.Model != "" {
				scripts = append(scripts, tc.script)
			}
			l := newCompareLab(t, compareModelBound, scripts...)
			d := l.deps(t, true)
			if tc.client != nil {
				c := tc.client(l)
				d.Models = func(context.Context) (workbench.Model, error) { return c, nil }
			}
			w := workbench.New(d)
			r, err := w.Replay(context.Background(), workbench.ReplayRequest{Bundle: l.b, Model: "example/a"})
			if err != nil {
				t.Fatal(err)
			}
			if r.Model != "example/a" {
				t.Errorf("model %q", r.Model)
			}
			tc.check(t, l, r)
		})
	}
}

// TestCompareCells: each cell of a comparison is one metered replay of
// its model, sealed as the next version, and compare.Of sets the cells of
// an input set side by side.
func TestCompareCells(t *testing.T) {
	for _, tc := range []struct {
		name    string
		demo    []openroutertest.Step
		scripts []openroutertest.Script
		check   func(t *testing.T, l *compareLab, c *workbench.SetComparison)
	}{
		{
			name:    "two models agree",
			demo:    compareModelBound,
			scripts: []openroutertest.Script{clicking("example/a", "Changelog", 1), clicking("example/b", "Changelog", 1)},
			check: func(t *testing.T, l *compareLab, c *workbench.SetComparison) {
				for _, r := range c.Results {
					rep := r.Record.Report
					if rep.ModelUsed != r.Model || r.ModelCalls != 1 || r.CostUSD != 0.002 || rep.CostUSD == nil || *rep.CostUSD != r.CostUSD {
						t.Errorf("%s: model_used %s, %d calls costing %v, the report says %v", r.Model, rep.ModelUsed, r.ModelCalls, r.CostUSD, rep.CostUSD)
					}
					if r.Latency <= 0 || len(r.Report.Overclaims) > 0 || r.Report.Derived.ReplayResult.Status == skill.ProofReplayNotRun {
						t.Errorf("%s: latency %v, overclaims %v", r.Model, r.Latency, r.Report.Overclaims)
					}
				}
				if !c.ModelsExercised || c.Pairs[0].Outcome != compare.OutcomeAgree {
					t.Errorf("exercised %v, pair %+v", c.ModelsExercised, c.Pairs[0])
				}
			},
		},
		{
			name: "another tool is affordance drift",
			demo: compareModelBound,
			scripts: []openroutertest.Script{clicking("example/a", "Changelog", 1),
				repeated("example/b", openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget/readme"}), 1)},
			check: divergesWith(skill.KindAffordanceDrift),
		},
		{
			name: "an answer without a call is a refusal",
			demo: compareModelBound,
			scripts: []openroutertest.Script{clicking("example/a", "Changelog", 1),
				repeated("example/b", openroutertest.Answer("The changelog is one click away."), 1)},
			check: divergesWith(skill.KindModelRefusal),
		},
		{
			// Both pass, and the other link leads to a page of the
			// recorded shape: only the state shows they parted ways.
			name:    "same verdict, another state",
			demo:    compareModelBound,
			scripts: []openroutertest.Script{clicking("example/a", "Changelog", 1), clicking("example/b", "README", 1)},
			check: func(t *testing.T, l *compareLab, c *workbench.SetComparison) {
				if a, o := c.Results[0].Verdict(), c.Results[1].Verdict(); a != skill.VerdictPass || o != skill.VerdictPass {
					t.Fatalf("verdicts %s and %s, want both pass", a, o)
				}
				want := []compare.Difference{{What: "edge 1 match", A: skill.MatchExact, B: skill.MatchStructural}}
				if p := c.Pairs[0]; p.Outcome != compare.OutcomeDiverge || !slices.Equal(p.Differences, want) {
					t.Errorf("pair %+v, want the differences %+v", p, want)
				}
			},
		},
		{
			// The scenario as written binds its one parameter to the
			// input: no cell asks its model, and the verifier says the
			// scenario's two-model criterion is not met.
			name:    "models not exercised",
			demo:    compareInputBound,
			scripts: []openroutertest.Script{clicking("example/a", "Changelog", 1), clicking("example/b", "Changelog", 1)},
			check: func(t *testing.T, l *compareLab, c *workbench.SetComparison) {
				for _, r := range c.Results {
					if r.ModelCalls != 0 || r.Record.Report.ModelUsed != replay.NoModel || l.or.Remaining(r.Model) != 1 {
						t.Errorf("%s: %d calls, model_used %s", r.Model, r.ModelCalls, r.Record.Report.ModelUsed)
					}
				}
				if c.ModelsExercised || c.Pairs[0].Outcome != compare.OutcomeNotExercised {
					t.Errorf("exercised %v, pair %+v", c.ModelsExercised, c.Pairs[0])
				}
				if got := c.Results[1].Report.Derived.ConformanceCheck.FixturesFailed; len(got) != 1 || got[0] != fixtures.ModelComparison {
					t.Errorf("conformance failed %v", got)
				}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newCompareLab(t, tc.demo, tc.scripts...)
			d := l.deps(t, true)
			d.Now = stepping()
			w := workbench.New(d)
			c, err := w.Compare(context.Background(), workbench.CompareRequest{Bundle: l.b, Models: []string{"example/a", "example/b"}})
			if err != nil {
				t.Fatal(err)
			}
			set := c.BySet[0]
			for _, r := range set.Results {
				if r.Err != nil || r.Record == nil || r.Bundle == nil || r.Report == nil || r.Bundle.SkillVersion != l.b.SkillVersion+1 {
					t.Fatalf("%s: no complete result: %+v", r.Model, r)
				}
			}
			tc.check(t, l, set)
		})
	}
}

// divergesWith checks that example/b halted at edge 1 with one surprise
// of kind, where example/a passed, and that the pair says every way they
// differ.
func divergesWith(kind skill.SurpriseKind) func(t *testing.T, l *compareLab, c *workbench.SetComparison) {
	return func(t *testing.T, l *compareLab, c *workbench.SetComparison) {
		t.Helper()
		a, o := c.Results[0], c.Results[1]
		rep := o.Record.Report
		if a.Verdict() != skill.VerdictPass || rep.Status != skill.StatusHalted || rep.HaltedAtEdge == nil || *rep.HaltedAtEdge != 1 || o.Verdict() != skill.VerdictFail {
			t.Fatalf("example/a %s; example/b %s at %v, %s", a.Verdict(), rep.Status, rep.HaltedAtEdge, o.Verdict())
		}
		if s := rep.SurpriseSignals; len(s) != 1 || s[0].Kind != kind || s[0].EdgeIndex != 1 {
			t.Errorf("surprises %+v, want one %s at edge 1", s, kind)
		}
		want := map[string][2]string{
			"status":                    {skill.StatusSuccess, skill.StatusHalted},
			"halted at edge":            {"none", "1"},
			"fidelity level":            {skill.LevelStructural, skill.LevelFailed},
			"fidelity":                  {"1", "0.5"},
			"edge 1 match":              {skill.MatchExact, skill.MatchMismatch},
			"edge 1 surprises":          {"none", string(kind)},
			"overall verdict":           {skill.VerdictPass, skill.VerdictFail},
			"gate gate.replay_fidelity": {skill.VerdictPass, skill.VerdictFail},
		}
		p := c.Pairs[0]
		got := map[string][2]string{}
		for _, d := range p.Differences {
			got[d.What] = [2]string{d.A, d.B}
		}
		if p.Outcome != compare.OutcomeDiverge || len(got) != len(want) {
			t.Errorf("pair %s, differences %v", p.Outcome, got)
		}
		for what, w := range want {
			if got[what] != w {
				t.Errorf("difference %q: got %v, want %v", what, got[what], w)
			}
		}
	}
}
