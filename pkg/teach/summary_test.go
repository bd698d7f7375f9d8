package teach_test

import (
	"context"
	"math"
	"net/http"
	"slices"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
)

// TestSummarize runs demonstrations with the OpenRouter stand-in and
// checks the summary shown before Save: the denials and errors by edge,
// the cost, and the verdict the verifier gives the draft's bundle — the
// same verdict Seal's report then gives.
func TestSummarize(t *testing.T) {
	const docs = "https://docs.workbench.test/getting-started"
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		scenario  string
		steps     []openroutertest.Step
		cost      float64
		denied    []int
		errors    []int
		verdict   string
		failing   []string
		headline  string
		costKnown bool
	}{
		{
			name:     "clean",
			scenario: fixtures.BasicPromptToManifest,
			steps:    []openroutertest.Step{openroutertest.ToolCall("browser_navigate", map[string]any{"url": docs}), openroutertest.Answer("Getting started")},
			cost:     0.001, costKnown: true,
			verdict:  skill.VerdictInconclusive,
			headline: "1 action, none denied, no errors — every gate passes except gate.replay_fidelity, which a replay decides",
		},
		{
			name:     "denied",
			scenario: fixtures.AuthorityDenied,
			steps: []openroutertest.Step{
				openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://status.workbench.test/"}),
				openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/a.txt", "content": "a"}),
				openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/b.txt", "content": "b"}),
				openroutertest.Answer("refused"),
			},
			cost: 0.002, costKnown: true,
			denied:   []int{1, 2},
			verdict:  skill.VerdictFail,
			failing:  []string{skill.GateAuthority, skill.GateNoHiddenCapability},
			headline: "2 actions denied — this skill will fail gate.authority and gate.no_hidden_capability",
		},
		{
			name:     "denied and an error",
			scenario: fixtures.AuthorityDenied,
			steps: []openroutertest.Step{
				openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://status.workbench.test/no-such-page"}),
				openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/a.txt", "content": "a"}),
				openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/b.txt", "content": "b"}),
				openroutertest.Answer("refused"),
			},
			cost: 0, costKnown: true,
			denied:   []int{1, 2},
			errors:   []int{0},
			verdict:  skill.VerdictFail,
			failing:  []string{skill.GateAuthority, skill.GateNoHiddenCapability},
			headline: "2 actions denied, 1 error — this skill will fail gate.authority and gate.no_hidden_capability",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "example/teacher", CostPerCall: tc.cost / float64(len(tc.steps)), Steps: tc.steps}))
			cl, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.URL), openrouter.WithHTTPClient(http.DefaultClient))
			if err != nil {
				t.Fatal(err)
			}
			p, err := teach.FromScenario(tc.scenario, nil)
			if err != nil {
				t.Fatal(err)
			}
			bd, err := sim.New(p.World)
			if err != nil {
				t.Fatal(err)
			}
			res, err := teach.Demonstrate(ctx, p, teach.Options{Model: cl, ModelID: "example/teacher", Body: bd, Authorizer: policy.Default(), TrustedServer: true})
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
			m, err := teach.Draft(p, res, now)
			if err != nil {
				t.Fatal(err)
			}
			events := len(res.Recorder.Events())
			s, err := teach.Summarize(v, p, res, m, "example/teacher", now)
			if err != nil {
				t.Fatal(err)
			}
			if s.Edges != len(res.Trace.Edges) || !slices.Equal(s.Denied, tc.denied) || !slices.Equal(s.Errors, tc.errors) {
				t.Errorf("edges %d, denied %v, errors %v; want %d, %v, %v", s.Edges, s.Denied, s.Errors, len(res.Trace.Edges), tc.denied, tc.errors)
			}
			if math.Abs(s.CostUSD-tc.cost) > 1e-9 || s.CostKnown != tc.costKnown {
				t.Errorf("cost %v (known %v), want %v (known %v)", s.CostUSD, s.CostKnown, tc.cost, tc.costKnown)
			}
			var failing []string
			for _, g := range s.Failing {
				failing = append(failing, g.ID)
			}
			if s.Verdict != tc.verdict || !slices.Equal(failing, tc.failing) {
				t.Errorf("verdict %s failing %v, want %s failing %v", s.Verdict, failing, tc.verdict, tc.failing)
			}
			if got := s.Headline(); got != tc.headline {
				t.Errorf("headline\n got %q\nwant %q", got, tc.headline)
			}
			// The preview left the run's record alone: sealing afterwards
			// gives the verdict the summary announced.
			if n := len(res.Recorder.Events()); n != events {
				t.Errorf("the summary recorded %d events in the run's recorder", n-events)
			}
			_, rep, err := teach.Seal(v, p, res, m, "example/teacher", now)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != s.Verdict {
				t.Errorf("sealed verdict %s, summary said %s", rep.Verdict, s.Verdict)
			}
		})
	}
}
