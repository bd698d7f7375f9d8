package compare_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/compare"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/schemas"
)

const teacher = "example/teacher"

// The model-comparison scenario's skill, taught so that the click on the
// changelog link is the model's choice: "Changelog" is not in the task
// text, so every replay asks the model for it again.
var (
	openRepo       = openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"})
	clickChangelog = openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})
	modelBoundDemo = []openroutertest.Step{openRepo, clickChangelog, openroutertest.Answer("The newest version is 1.4.0.")}
	// The scenario as written: the one URL the skill opens is its input,
	// so replay needs no model.
	inputBoundDemo = []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget/changelog"}),
		openroutertest.Answer("The newest version is 1.4.0."),
	}
)

// lab is a simulator world, the OpenRouter stand-in, its client and a
// verifier.
type lab struct {
	scenario fixtures.Scenario
	world    []byte
	or       *openroutertest.Server
	client   *openrouter.Client
	verifier *verify.Verifier
}

func newLabOn(or *openroutertest.Server) (*lab, error) {
	sc, err := fixtures.ScenarioByID(fixtures.ModelComparison)
	if err != nil {
		return nil, err
	}
	name, err := fixtures.WorldFor(sc.ID)
	if err != nil {
		return nil, err
	}
	world, err := fixtures.World(name)
	if err != nil {
		return nil, err
	}
	// net/http, not the default: under js/wasm the default is the
	// JavaScript fetch, which cannot reach the in-process test server.
	client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		return nil, err
	}
	sv, err := schemas.New()
	if err != nil {
		return nil, err
	}
	all, err := fixtures.Scenarios()
	if err != nil {
		return nil, err
	}
	return &lab{scenario: sc, world: world, or: or, client: client, verifier: verify.New(sv, all, nil)}, nil
}

func (l *lab) newBody() (body.Body, error) { return sim.New(l.world) }

// teach demonstrates the scenario with the teacher model and assembles
// the sealed bundle.
func (l *lab) teach() (*skill.Bundle, error) {
	ctx := context.Background()
	prompt := l.scenario.TaskPrompt
	for _, in := range l.scenario.Inputs {
		prompt = strings.ReplaceAll(prompt, "{"+in.Name+"}", in.Example.(string))
	}
	bd, err := l.newBody()
	if err != nil {
		return nil, err
	}
	task := demonstrate.Task{ID: skill.NewID(), Description: prompt, BodyChoice: skill.BodySimulator,
		Inputs: l.scenario.ExampleInput(), ScenarioID: l.scenario.ID}
	res, err := demonstrate.Run(ctx, task, demonstrate.Options{
		Model: l.client, ModelID: teacher, Body: bd, Authorizer: policy.Default(),
		Declared: l.scenario.CapabilitiesDeclared, TrustedServer: true,
	})
	if err != nil {
		return nil, err
	}
	var inputs []crystallize.Input
	for _, in := range l.scenario.Inputs {
		inputs = append(inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: in.Name, Type: in.Type, Required: true}, Value: in.Example})
	}
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: skill.NewID(), BodyChoice: skill.BodySimulator,
		Inputs: inputs, Outputs: l.scenario.ExpectedOutputsShape, Now: time.Now()})
	if err != nil {
		return nil, err
	}
	return assemble.Bundle(l.verifier, assemble.Teaching{Task: task, Result: res, Manifest: m, ModelID: teacher}, time.Now(), skill.NewID)
}

func (l *lab) options(b *skill.Bundle) compare.Options {
	return compare.Options{
		Model: l.client, Deterministic: true,
		Authorizer: replay.PolicyAuthorizer{Policy: policy.Default(), Declared: b.Manifest.CapabilitiesRequired,
			BodyKind: skill.BodySimulator, TrustedServer: true},
	}
}

// compare replays b once per model, each on a fresh body, and sets the
// results side by side: what the compare flow does for one input.
func (l *lab) compare(t *testing.T, b *skill.Bundle, models ...string) *compare.Comparison {
	t.Helper()
	rs := make([]compare.Result, len(models))
	for i, m := range models {
		bd, err := l.newBody()
		if err != nil {
			t.Fatal(err)
		}
		if rs[i], err = compare.Replay(context.Background(), l.verifier, b, bd, m, l.options(b)); err != nil {
			t.Fatal(err)
		}
	}
	return compare.Of(b, b.Evidence.Scenario.Inputs, rs)
}

// setup starts a lab for t with the teacher's demonstration and the
// compared models' scripts, and teaches the skill.
func setup(t *testing.T, demo []openroutertest.Step, models ...openroutertest.Script) (*lab, *skill.Bundle) {
	t.Helper()
	scripts := append([]openroutertest.Script{{Model: teacher, CostPerCall: 0.001, Steps: demo}}, models...)
	l, err := newLabOn(openroutertest.New(t, openroutertest.WithScript(scripts...)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := l.teach()
	if err != nil {
		t.Fatal(err)
	}
	return l, b
}

// clicks is a compared model that reads the recorded step and the page it
// is shown and clicks the link named name.
func clicks(model, name string) openroutertest.Script {
	return openroutertest.Script{Model: model, CostPerCall: 0.002, Steps: []openroutertest.Step{
		openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
			u, _ := r.LastUser()
			if !strings.Contains(u.Text(), "browser_click") || !strings.Contains(u.Text(), "acme/widget") {
				return openroutertest.Answer("I was not shown the recorded click on the project page.")
			}
			return openroutertest.ToolCall("browser_click", map[string]any{"name": name})
		}),
	}}
}

func script(model string, steps ...openroutertest.Step) openroutertest.Script {
	return openroutertest.Script{Model: model, CostPerCall: 0.002, Steps: steps}
}

// complete checks that a result has a replay, a saved version and a
// complete proof: the replay ran, so the verdict is not inconclusive, and
// the verifier finds no overclaim in the saved bytes.
func complete(t *testing.T, r compare.Result) {
	t.Helper()
	if r.Err != nil || r.Record == nil || r.Bundle == nil || r.Report == nil {
		t.Fatalf("%s: no complete result: err %v", r.Model, r.Err)
	}
	if s := r.Report.Derived.ReplayResult.Status; s == skill.ProofReplayNotRun {
		t.Errorf("%s: the proof says the replay did not run", r.Model)
	}
	if r.Report.Verdict == skill.VerdictInconclusive || len(r.Report.Overclaims) > 0 {
		t.Errorf("%s: verdict %s, overclaims %v", r.Model, r.Report.Verdict, r.Report.Overclaims)
	}
}

func TestTwoModelsAgree(t *testing.T) {
	l, b := setup(t, modelBoundDemo, clicks("example/a", "Changelog"), clicks("example/b", "Changelog"))
	if got := b.Trace.Edges[1].ParamSources["name"]; got != skill.SourceLLM {
		t.Fatalf("the click's name has source %q, want llm", got)
	}
	c := l.compare(t, b, "example/a", "example/b")
	for _, r := range c.Results {
		complete(t, r)
		rep := r.Record.Report
		if rep.Status != skill.StatusSuccess || r.Report.Verdict != skill.VerdictPass {
			t.Errorf("%s: status %s verdict %s; surprises %+v", r.Model, rep.Status, r.Report.Verdict, rep.SurpriseSignals)
		}
		if rep.ModelUsed != r.Model || r.ModelCalls != 1 || !r.CostKnown || r.CostUSD != 0.002 {
			t.Errorf("%s: model_used %s, %d calls costing %v (known %v)", r.Model, rep.ModelUsed, r.ModelCalls, r.CostUSD, r.CostKnown)
		}
		if rep.CostUSD == nil || *rep.CostUSD != r.CostUSD {
			t.Errorf("%s: report cost %v, metered %v", r.Model, rep.CostUSD, r.CostUSD)
		}
		if r.Bundle.SkillVersion != b.SkillVersion+1 || rep.SkillVersion != b.SkillVersion {
			t.Errorf("%s: proved as v%d (replayed v%d), want v%d of v%d", r.Model, r.Bundle.SkillVersion, rep.SkillVersion, b.SkillVersion+1, b.SkillVersion)
		}
		if n := l.or.Remaining(r.Model); n != 0 {
			t.Errorf("%s was not asked", r.Model)
		}
	}
	if !c.ModelsExercised || len(c.Pairs) != 1 || c.Pairs[0].Outcome != compare.OutcomeAgree || len(c.Pairs[0].Differences) != 0 {
		t.Fatalf("exercised %v, pairs %+v", c.ModelsExercised, c.Pairs)
	}
	sum := strings.Join(c.Summary(), "\n")
	if !strings.Contains(sum, "example/a and example/b agree") || strings.Contains(sum, "not exercised") {
		t.Errorf("summary:\n%s", sum)
	}
}

func TestTwoModelsDiverge(t *testing.T) {
	for _, tc := range []struct {
		name  string
		other openroutertest.Script
		kind  skill.SurpriseKind
	}{
		{"other tool", script("example/b", openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget/readme"})), skill.KindAffordanceDrift},
		{"refusal", script("example/b", openroutertest.Refuse("I will not click links.")), skill.KindModelRefusal},
		{"answer without a call", script("example/b", openroutertest.Answer("The changelog is one click away.")), skill.KindModelRefusal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, b := setup(t, modelBoundDemo, clicks("example/a", "Changelog"), tc.other)
			c := l.compare(t, b, "example/a", "example/b")
			a, o := c.Results[0], c.Results[1]
			complete(t, a)
			complete(t, o)
			if a.Report.Verdict != skill.VerdictPass {
				t.Errorf("example/a: verdict %s", a.Report.Verdict)
			}
			rep := o.Record.Report
			if rep.Status != skill.StatusHalted || rep.HaltedAtEdge == nil || *rep.HaltedAtEdge != 1 || o.Report.Verdict != skill.VerdictFail {
				t.Fatalf("example/b: status %s halted at %v verdict %s", rep.Status, rep.HaltedAtEdge, o.Report.Verdict)
			}
			if s := rep.SurpriseSignals; len(s) != 1 || s[0].Kind != tc.kind || s[0].EdgeIndex != 1 {
				t.Errorf("example/b: surprises %+v, want one %s at edge 1", s, tc.kind)
			}
			p := c.Pairs[0]
			if p.Outcome != compare.OutcomeDiverge {
				t.Fatalf("pair %+v", p)
			}
			want := map[string][2]string{
				"status":                    {skill.StatusSuccess, skill.StatusHalted},
				"halted at edge":            {"none", "1"},
				"fidelity level":            {skill.LevelStructural, skill.LevelFailed},
				"fidelity":                  {"1", "0.5"},
				"edge 1 match":              {skill.MatchExact, skill.MatchMismatch},
				"edge 1 surprises":          {"none", string(tc.kind)},
				"overall verdict":           {skill.VerdictPass, skill.VerdictFail},
				"gate gate.replay_fidelity": {skill.VerdictPass, skill.VerdictFail},
			}
			got := map[string][2]string{}
			for _, d := range p.Differences {
				got[d.What] = [2]string{d.A, d.B}
			}
			for what, w := range want {
				if got[what] != w {
					t.Errorf("difference %q: got %v, want %v", what, got[what], w)
				}
			}
			for what := range got {
				if _, ok := want[what]; !ok {
					t.Errorf("unexpected difference %q: %v", what, got[what])
				}
			}
			if sum := strings.Join(c.Summary(), "\n"); !strings.Contains(sum, "diverge: status success vs halted_at_edge_N") {
				t.Errorf("summary:\n%s", sum)
			}
		})
	}
}

// A model that fails is that model's failure: no record is made up for it,
// and the others run and are compared.
func TestModelOutOfCredit(t *testing.T) {
	l, b := setup(t, modelBoundDemo,
		clicks("example/a", "Changelog"),
		script("example/broke", openroutertest.Error(402, "Insufficient credits. Add more using https://example.invalid/credits")),
		clicks("example/c", "Changelog"))
	c := l.compare(t, b, "example/a", "example/broke", "example/c")
	complete(t, c.Results[0])
	complete(t, c.Results[2])
	broke := c.Results[1]
	var me *compare.ModelError
	if !errors.As(broke.Err, &me) || !errors.Is(broke.Err, openrouter.ErrOutOfCredit) || me.Edge != 1 || me.Model != "example/broke" {
		t.Fatalf("the 402 gave err %v", broke.Err)
	}
	if broke.Record != nil || broke.Bundle != nil || broke.Report != nil || broke.Verdict() != "error" {
		t.Errorf("a record was made for the failed model: %+v", broke)
	}
	if !strings.Contains(broke.Err.Error(), "402") || strings.Contains(broke.Err.Error(), l.or.Key) {
		t.Errorf("error text %q", broke.Err)
	}
	outcomes := map[[2]string]string{}
	for _, p := range c.Pairs {
		outcomes[[2]string{p.A, p.B}] = p.Outcome
	}
	if outcomes[[2]string{"example/a", "example/broke"}] != compare.OutcomeIncomparable ||
		outcomes[[2]string{"example/broke", "example/c"}] != compare.OutcomeIncomparable ||
		outcomes[[2]string{"example/a", "example/c"}] != compare.OutcomeAgree {
		t.Errorf("outcomes %v", outcomes)
	}
	sum := strings.Join(c.Summary(), "\n")
	if !strings.Contains(sum, "example/broke has no result: model example/broke failed at edge 1: openrouter: 402 Payment Required") {
		t.Errorf("summary:\n%s", sum)
	}
}

// The scenario as written binds its one parameter to the input, so replay
// asks no model: the comparison must say the models were not exercised,
// not that they agree.
func TestModelsNotExercised(t *testing.T) {
	l, b := setup(t, inputBoundDemo, clicks("example/a", "Changelog"), clicks("example/b", "Changelog"))
	c := l.compare(t, b, "example/a", "example/b")
	for _, r := range c.Results {
		complete(t, r)
		if r.ModelCalls != 0 || r.Record.Report.ModelUsed != replay.NoModel || l.or.Remaining(r.Model) != 1 {
			t.Errorf("%s: %d calls, model_used %s", r.Model, r.ModelCalls, r.Record.Report.ModelUsed)
		}
	}
	if c.ModelsExercised || c.ModelBound || c.Pairs[0].Outcome != compare.OutcomeNotExercised {
		t.Fatalf("exercised %v, bound %v, pair %+v", c.ModelsExercised, c.ModelBound, c.Pairs[0])
	}
	sum := c.Summary()
	if !strings.HasPrefix(sum[0], "The models were not exercised: every parameter of this skill is literal or bound to an input") {
		t.Errorf("summary:\n%s", strings.Join(sum, "\n"))
	}
	if strings.Contains(strings.Join(sum, "\n"), "agree") {
		t.Errorf("the summary calls unexercised models agreeing:\n%s", strings.Join(sum, "\n"))
	}
	// Two replays without a model are one model_used, "none": the
	// scenario's two-model criterion is not met, and the verifier says so.
	if got := c.Results[1].Report.Derived.ConformanceCheck.FixturesFailed; len(got) != 1 || got[0] != fixtures.ModelComparison {
		t.Errorf("final conformance failed %v", got)
	}
}

// Replay is one model's share of a comparison, and a replay on its own.
func TestReplayOne(t *testing.T) {
	l, b := setup(t, modelBoundDemo, clicks("example/a", "Changelog"), script("example/limited", openroutertest.RateLimit(30*time.Second)))
	bd, _ := l.newBody()
	r, err := compare.Replay(context.Background(), l.verifier, b, bd, "example/a", l.options(b))
	if err != nil {
		t.Fatal(err)
	}
	complete(t, r)
	if r.Bundle.SkillVersion != b.SkillVersion+1 {
		t.Errorf("saved as v%d", r.Bundle.SkillVersion)
	}
	bd, _ = l.newBody()
	r, err = compare.Replay(context.Background(), l.verifier, b, bd, "example/limited", l.options(b))
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := openrouter.RetryAfter(r.Err); !ok || d != 30*time.Second || r.Record != nil {
		t.Errorf("rate limit: err %v, retry after %v", r.Err, d)
	}
	bd, _ = l.newBody()
	if _, err := compare.Replay(context.Background(), l.verifier, b, bd, "", l.options(b)); err == nil || !strings.Contains(err.Error(), "name a model") {
		t.Errorf("a model-bound skill replayed without a model: %v", err)
	}
}

// Two models that both pass can still part ways: one clicks another link,
// the page it reaches has the recorded shape, and the comparison shows the
// different state where a verdict alone would not.
func TestSameVerdictDifferentState(t *testing.T) {
	l, b := setup(t, modelBoundDemo, clicks("example/a", "Changelog"), clicks("example/b", "README"))
	c := l.compare(t, b, "example/a", "example/b")
	for _, r := range c.Results {
		complete(t, r)
	}
	if a, o := c.Results[0].Report.Verdict, c.Results[1].Report.Verdict; a != skill.VerdictPass || o != skill.VerdictPass {
		t.Fatalf("verdicts %s and %s, want both pass", a, o)
	}
	p := c.Pairs[0]
	want := []compare.Difference{{What: "edge 1 match", A: skill.MatchExact, B: skill.MatchStructural}}
	if p.Outcome != compare.OutcomeDiverge || !slices.Equal(p.Differences, want) {
		t.Fatalf("pair %+v, want the differences %+v", p, want)
	}
}
