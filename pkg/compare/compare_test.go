package compare_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"workbench/pkg/compare"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// The results below are built by hand: Of compares what the compare flow
// made (pkg/workbench runs and seals the replays, and its tests compare
// real ones), so these tests say what each field of a result does to the
// comparison.

const (
	stateA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	stateB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// passed is a model's two-edge replay that succeeded exactly, after calls
// model calls, and verified as pass.
func passed(model string, calls int) compare.Result {
	return compare.Result{
		Model: model,
		Record: &skill.ReplayRecord{
			Report: skill.ReplayReport{Status: skill.StatusSuccess, Fidelity: 1, FidelityLevel: skill.LevelStructural, ModelUsed: model},
			Edges: []skill.ReplayEdge{
				{Index: 0, Match: skill.MatchExact, ObservedStateAfter: stateA},
				{Index: 1, Match: skill.MatchExact, ObservedStateAfter: stateB},
			},
		},
		Bundle: &skill.Bundle{SkillVersion: 2},
		Report: &verify.Report{Verdict: skill.VerdictPass, Derived: skill.ProofResult{ProofGates: []skill.Gate{
			{ID: skill.GateReplayFidelity, Verdict: skill.VerdictPass},
		}}},
		ModelCalls: calls, CostKnown: true,
	}
}

// halted is passed, but the model's choice at edge 1 was refused: the
// replay halted there and failed.
func halted(model string, kind skill.SurpriseKind) compare.Result {
	r := passed(model, 1)
	one := 1
	rec := *r.Record
	rec.Report.Status, rec.Report.HaltedAtEdge = skill.StatusHalted, &one
	rec.Report.Fidelity, rec.Report.FidelityLevel = 0.5, skill.LevelFailed
	rec.Report.SurpriseSignals = []skill.SurpriseSignal{{EdgeIndex: 1, Kind: kind}}
	rec.Edges = []skill.ReplayEdge{rec.Edges[0], {Index: 1, Match: skill.MatchMismatch}}
	r.Record = &rec
	r.Report = &verify.Report{Verdict: skill.VerdictFail, Derived: skill.ProofResult{ProofGates: []skill.Gate{
		{ID: skill.GateReplayFidelity, Verdict: skill.VerdictFail},
	}}}
	return r
}

// otherState is passed, reaching another state of the same shape at
// edge 1.
func otherState(model string) compare.Result {
	r := passed(model, 1)
	rec := *r.Record
	rec.Edges = []skill.ReplayEdge{rec.Edges[0], {Index: 1, Match: skill.MatchStructural, ObservedStateAfter: stateA}}
	r.Record = &rec
	return r
}

// failed is a model whose call failed: no record, no version.
func failed(model string) compare.Result {
	return compare.Result{Model: model, Err: errors.New("model " + model + " failed at edge 1: openrouter: 402 Payment Required")}
}

// bundle is the version compared; modelBound makes its second edge's
// parameter the model's choice.
func bundle(modelBound bool) *skill.Bundle {
	b := &skill.Bundle{SkillID: "skill-1", SkillVersion: 1}
	b.Trace.Edges = []skill.Edge{{Index: 0}, {Index: 1}}
	if modelBound {
		b.Trace.Edges[1].ParamSources = map[string]string{"name": skill.SourceLLM}
	}
	return b
}

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name       string
		modelBound bool
		results    []compare.Result
		outcomes   []string // every pair, in order
		exercised  bool
		// differences of the first pair, What → {A, B}
		differences map[string][2]string
		summary     []string // substrings of the summary, in order
		not         []string // not in the summary
	}{
		{
			name: "two models agree", modelBound: true,
			results:  []compare.Result{passed("example/a", 1), passed("example/b", 1)},
			outcomes: []string{compare.OutcomeAgree}, exercised: true,
			summary: []string{"example/a and example/b agree: same status, fidelity, surprises, state after every edge, verdict and gates."},
			not:     []string{"not exercised"},
		},
		{
			name: "a refusal diverges", modelBound: true,
			results:  []compare.Result{passed("example/a", 1), halted("example/b", skill.KindModelRefusal)},
			outcomes: []string{compare.OutcomeDiverge}, exercised: true,
			differences: map[string][2]string{
				"status":                    {skill.StatusSuccess, skill.StatusHalted},
				"halted at edge":            {"none", "1"},
				"fidelity level":            {skill.LevelStructural, skill.LevelFailed},
				"fidelity":                  {"1", "0.5"},
				"edge 1 match":              {skill.MatchExact, skill.MatchMismatch},
				"edge 1 surprises":          {"none", string(skill.KindModelRefusal)},
				"overall verdict":           {skill.VerdictPass, skill.VerdictFail},
				"gate gate.replay_fidelity": {skill.VerdictPass, skill.VerdictFail},
			},
			summary: []string{"example/a and example/b diverge: status success vs halted_at_edge_N; halted at edge none vs 1"},
		},
		{
			// Both pass, and still part ways: the state reached is
			// compared where the verdicts alone would agree. A state hash
			// is shortened in the sentence.
			name: "same verdict, another state", modelBound: true,
			results:  []compare.Result{passed("example/a", 1), otherState("example/b")},
			outcomes: []string{compare.OutcomeDiverge}, exercised: true,
			differences: map[string][2]string{"edge 1 match": {skill.MatchExact, skill.MatchStructural}},
			summary:     []string{"diverge: edge 1 match exact vs structural."},
		},
		{
			name: "same match, another state after", modelBound: true,
			results: []compare.Result{passed("example/a", 1), func() compare.Result {
				r := passed("example/b", 1)
				rec := *r.Record
				rec.Edges = []skill.ReplayEdge{rec.Edges[0], {Index: 1, Match: skill.MatchExact, ObservedStateAfter: stateA}}
				r.Record = &rec
				return r
			}()},
			outcomes: []string{compare.OutcomeDiverge}, exercised: true,
			differences: map[string][2]string{"edge 1 state after": {stateB, stateA}},
			summary:     []string{"edge 1 state after sha256:bbbbbbbbbbbb… vs sha256:aaaaaaaaaaaa…"},
		},
		{
			name: "a model with no result is compared with no one", modelBound: true,
			results:  []compare.Result{passed("example/a", 1), failed("example/broke"), passed("example/c", 1)},
			outcomes: []string{compare.OutcomeIncomparable, compare.OutcomeAgree, compare.OutcomeIncomparable}, exercised: true,
			summary: []string{
				"example/broke has no result: model example/broke failed at edge 1: openrouter: 402 Payment Required",
				"example/a and example/broke: not compared, example/broke has no result.",
				"example/a and example/c agree",
				"example/broke and example/c: not compared, example/broke has no result.",
			},
		},
		{
			name:     "neither has a result",
			results:  []compare.Result{failed("example/a"), failed("example/b")},
			outcomes: []string{compare.OutcomeIncomparable},
			summary:  []string{"example/a and example/b: not compared, neither model has a result."},
			not:      []string{"not exercised"},
		},
		{
			name:     "the first has no result",
			results:  []compare.Result{failed("example/a"), passed("example/b", 1)},
			outcomes: []string{compare.OutcomeIncomparable}, exercised: true,
			summary: []string{"example/a and example/b: not compared, example/a has no result."},
		},
		{
			// A skill bound to its input asks no model: equal results say
			// nothing about the models, and are not agreement.
			name:     "not exercised: every parameter is bound",
			results:  []compare.Result{passed("example/a", 0), passed("example/b", 0)},
			outcomes: []string{compare.OutcomeNotExercised},
			summary: []string{
				"The models were not exercised: every parameter of this skill is literal or bound to an input, so replay made no model call. The 2 replays ran the same recorded calls",
				"example/a and example/b: not compared, neither replay made a model call; their results are identical because no model took part.",
			},
			not: []string{"agree"},
		},
		{
			name: "not exercised: halted before the model's edge", modelBound: true,
			results:     []compare.Result{passed("example/a", 0), otherState("example/b")},
			outcomes:    []string{compare.OutcomeNotExercised},
			differences: map[string][2]string{"edge 1 match": {skill.MatchExact, skill.MatchStructural}},
			summary: []string{
				"every replay stopped before the first edge whose parameters a model chooses",
				"their results differ all the same, so the body did not behave the same: edge 1 match exact vs structural.",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// otherState made a call; the not-exercised cases make none.
			if tc.outcomes[0] == compare.OutcomeNotExercised {
				for i := range tc.results {
					tc.results[i].ModelCalls = 0
				}
			}
			b := bundle(tc.modelBound)
			input := map[string]any{"repo_url": "https://git.workbench.test/acme/widget"}
			c := compare.Of(b, input, tc.results)
			if c.SkillID != b.SkillID || c.SkillVersion != b.SkillVersion || c.Input["repo_url"] != input["repo_url"] || len(c.Results) != len(tc.results) {
				t.Errorf("comparison of %s v%d with %v, %d results", c.SkillID, c.SkillVersion, c.Input, len(c.Results))
			}
			if c.ModelsExercised != tc.exercised || c.ModelBound != tc.modelBound {
				t.Errorf("exercised %v, model-bound %v; want %v, %v", c.ModelsExercised, c.ModelBound, tc.exercised, tc.modelBound)
			}
			var outcomes []string
			for _, p := range c.Pairs {
				outcomes = append(outcomes, p.Outcome)
			}
			if !slices.Equal(outcomes, tc.outcomes) {
				t.Fatalf("outcomes %v, want %v", outcomes, tc.outcomes)
			}
			if tc.differences != nil {
				got := map[string][2]string{}
				for _, d := range c.Pairs[0].Differences {
					got[d.What] = [2]string{d.A, d.B}
				}
				if len(got) != len(tc.differences) {
					t.Errorf("differences %v, want %v", got, tc.differences)
				}
				for what, w := range tc.differences {
					if got[what] != w {
						t.Errorf("difference %q: got %v, want %v", what, got[what], w)
					}
				}
			}
			sum := strings.Join(c.Summary(), "\n")
			at := 0
			for _, s := range tc.summary {
				i := strings.Index(sum[at:], s)
				if i < 0 {
					t.Errorf("the summary lacks, in order, %q:\n%s", s, sum)
					continue
				}
				at += i + len(s)
			}
			for _, s := range tc.not {
				if strings.Contains(sum, s) {
					t.Errorf("the summary says %q:\n%s", s, sum)
				}
			}
		})
	}
}

func TestResultVerdict(t *testing.T) {
	if r := passed("example/a", 1); r.Verdict() != skill.VerdictPass {
		t.Errorf("verdict %s", r.Verdict())
	}
	if r := failed("example/a"); r.Verdict() != "error" {
		t.Errorf("a result with no report has the verdict %s", r.Verdict())
	}
}

func TestPairSentence(t *testing.T) {
	p := compare.Pair{A: "example/a", B: "example/b", Outcome: "unheard_of"}
	if got := p.Sentence(); got != "example/a and example/b: unheard_of" {
		t.Errorf("an outcome the package does not name: %q", got)
	}
}
