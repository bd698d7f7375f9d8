package workbench_test

import (
	"context"
	"errors"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/judge"
	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/teach"
	"workbench/pkg/workbench"
)

// equivalence is a judge with a fixed answer.
type equivalence struct {
	v   judge.Verdict
	err error
}

func (j equivalence) Judge(context.Context, judge.Request) (judge.Verdict, error) { return j.v, j.err }

func judges(j judge.Judge, err error) workbench.JudgeFactory {
	return func(context.Context) (judge.Judge, func(), error) { return j, func() {}, err }
}

// local is a chooser that finds delegatic-mcp configured and answering
// with the local engine's decisions, named as delegatic-mcp names them.
func local(context.Context, body.Kind, string) (delegatic.Choice, error) {
	return delegatic.Choice{Authorizer: policy.Default(), Name: delegatic.Name, Why: "test"}, nil
}

func TestReplay(t *testing.T) {
	b := taught(t)
	world, err := workbench.New(workbench.Deps{}).PrepareReplay(workbench.ReplayRequest{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	onBrowser := *b
	onBrowser.Manifest.BodyChoice = body.KindBrowser
	v := verifier(t)
	mcp := fakeBodies(world.WorldData)
	for _, tc := range []struct {
		name      string
		w         *workbench.Flows
		req       workbench.ReplayRequest
		authority string
		fallback  bool
		level     string
		judged    bool
	}{
		{"simulator, local engine", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), workbench.ReplayRequest{Bundle: b},
			"local:" + skill.DefaultPolicyID, false, skill.LevelExact, false},
		{"simulator under delegatic-mcp", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Authorizers: local}), workbench.ReplayRequest{Bundle: b},
			delegatic.Name, false, skill.LevelExact, false},
		{"simulator, judged: an exact replay is not judged", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), workbench.ReplayRequest{Bundle: b, Judge: true},
			"local:" + skill.DefaultPolicyID, false, skill.LevelExact, true},
		{"MCP body, local engine accepted", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Bodies: mcp}), workbench.ReplayRequest{Bundle: &onBrowser, AcceptLocalPolicy: true},
			"local:" + skill.DefaultPolicyID, true, skill.LevelStructural, false},
		{"MCP body, judged equivalent", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Bodies: mcp, Authorizers: local,
			Judges: judges(equivalence{v: judge.Verdict{Judge: "test", Equivalent: true, Score: 0.9}}, nil)}),
			workbench.ReplayRequest{Bundle: &onBrowser, Judge: true}, delegatic.Name, false, skill.LevelSemantic, true},
		{"MCP body, judged not equivalent", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Bodies: mcp, Authorizers: local,
			Judges: judges(equivalence{v: judge.Verdict{Judge: "test", Equivalent: false, Score: 0.2}}, nil)}),
			workbench.ReplayRequest{Bundle: &onBrowser, Judge: true}, delegatic.Name, false, skill.LevelStructural, true},
		{"MCP body, judge unreachable", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Bodies: mcp, Authorizers: local,
			Judges: judges(nil, errors.New("prism-eval is not configured"))}),
			workbench.ReplayRequest{Bundle: &onBrowser, Judge: true}, delegatic.Name, false, skill.LevelInconclusive, true},
		{"MCP body, no judge", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Bodies: mcp, Authorizers: local}),
			workbench.ReplayRequest{Bundle: &onBrowser, Judge: true}, delegatic.Name, false, skill.LevelInconclusive, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var edges int
			tc.req.Progress = func(skill.ReplayEdge) { edges++ }
			flows := tc.w
			if flows == nil {
				flows = workbench.New(workbench.Deps{})
			}
			r, err := flows.Replay(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if r.Err != nil || r.Record == nil || r.Bundle == nil || r.Report == nil {
				t.Fatalf("result %+v", r)
			}
			verdict := skill.VerdictPass
			if tc.level == skill.LevelInconclusive {
				verdict = skill.VerdictInconclusive // the proof cannot say more than the judge
			}
			if r.Bundle.SkillVersion != tc.req.Bundle.SkillVersion+1 || r.Report.Verdict != verdict {
				t.Errorf("v%d, verdict %s", r.Bundle.SkillVersion, r.Report.Verdict)
			}
			if r.Authority != tc.authority || r.Fallback != tc.fallback {
				t.Errorf("authorized by %q (fallback %v), want %q (%v)", r.Authority, r.Fallback, tc.authority, tc.fallback)
			}
			if got := r.Record.Report.FidelityLevel; got != tc.level {
				t.Errorf("fidelity %s, want %s (judge: %s)", got, tc.level, r.JudgeNote)
			}
			if r.Judged != tc.judged || (tc.judged && r.JudgeNote == "") {
				t.Errorf("judged %v, note %q", r.Judged, r.JudgeNote)
			}
			if judgedAt := tc.judged && tc.level != skill.LevelExact; judgedAt != (r.Bundle.Evidence.Judge != nil) {
				t.Errorf("evidence.judge %v; want one: %v", r.Bundle.Evidence.Judge, judgedAt)
			}
			if edges != len(r.Record.Edges) || edges == 0 {
				t.Errorf("%d progress calls for %d edges", edges, len(r.Record.Edges))
			}
		})
	}
}

func TestReplayRefuses(t *testing.T) {
	b := taught(t)
	bound := *b
	bound.Trace.Edges = append([]skill.Edge(nil), b.Trace.Edges...)
	bound.Trace.Edges[0].ParamSources = map[string]string{"url": skill.SourceLLM}
	noModel := bound
	noModel.Evidence.System.Model = ""
	onBrowser := *b
	onBrowser.Manifest.BodyChoice = body.KindBrowser
	v := verifier(t)
	world, err := workbench.New(workbench.Deps{}).PrepareReplay(workbench.ReplayRequest{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	for _, tc := range []struct {
		name string
		w    *workbench.Flows
		req  workbench.ReplayRequest
		want any
	}{
		{"no verifier", workbench.New(workbench.Deps{}), workbench.ReplayRequest{Bundle: b}, nil},
		{"bad input", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), workbench.ReplayRequest{Bundle: b, Input: map[string]any{"repo_url": "nope"}}, new(*teach.InputError)},
		{"no model", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), workbench.ReplayRequest{Bundle: &noModel}, new(*workbench.MissingModelError)},
		{"no model client", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), workbench.ReplayRequest{Bundle: &bound}, new(*workbench.MissingKeyError)},
		{"no key", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Models: func(context.Context) (workbench.Model, error) { return nil, nil }}),
			workbench.ReplayRequest{Bundle: &bound, Model: "example/other"}, new(*workbench.MissingKeyError)},
		{"key refused", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Models: func(context.Context) (workbench.Model, error) { return nil, refused }}),
			workbench.ReplayRequest{Bundle: &bound}, refused},
		{"MCP body without delegatic-mcp", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Bodies: fakeBodies(world.WorldData)}),
			workbench.ReplayRequest{Bundle: &onBrowser}, new(*workbench.AuthorizerUnavailableError)},
		{"MCP body, the tab said no", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Bodies: fakeBodies(world.WorldData), AcceptsLocalPolicy: no}),
			workbench.ReplayRequest{Bundle: &onBrowser}, new(*workbench.AuthorizerUnavailableError)},
		{"no fallback offered, whatever the tab said", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), AcceptsLocalPolicy: yes, Authorizers: func(context.Context, body.Kind, string) (delegatic.Choice, error) {
			return delegatic.Choice{}, refused
		}}), workbench.ReplayRequest{Bundle: b}, refused},
		{"no fallback offered", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Authorizers: func(context.Context, body.Kind, string) (delegatic.Choice, error) {
			return delegatic.Choice{}, refused
		}}), workbench.ReplayRequest{Bundle: b, AcceptLocalPolicy: true}, refused},
		{"no authorizer chosen", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Authorizers: func(context.Context, body.Kind, string) (delegatic.Choice, error) {
			return delegatic.Choice{}, nil
		}}), workbench.ReplayRequest{Bundle: b}, nil},
		{"body fails", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Bodies: func(context.Context, body.Kind, []byte) (body.Body, bool, error) { return nil, false, refused }}),
			workbench.ReplayRequest{Bundle: b}, refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flows := tc.w
			if flows == nil {
				flows = workbench.New(workbench.Deps{})
			}
			r, err := flows.Replay(context.Background(), tc.req)
			if err == nil {
				t.Fatalf("no error; result %+v", r)
			}
			switch want := tc.want.(type) {
			case error:
				if !errors.Is(err, want) {
					t.Errorf("err = %v, want %v", err, want)
				}
			case nil:
			default:
				if !errors.As(err, want) {
					t.Errorf("err = %v (%T), want a %T", err, err, want)
				}
			}
		})
	}
}

// yes and no are a tab's standing answers to spec OQ-2.
func yes() bool { return true }
func no() bool  { return false }

// A tab that accepted the local engine replays a browser skill under it
// without being asked again, and the bundle names the engine that decided.
func TestReplayUnderTheStandingAnswer(t *testing.T) {
	b := taught(t)
	world, err := workbench.New(workbench.Deps{}).PrepareReplay(workbench.ReplayRequest{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	b.Manifest.BodyChoice = body.KindBrowser
	w := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(verifier(t)), Bodies: fakeBodies(world.WorldData), AcceptsLocalPolicy: yes})
	r, err := w.Replay(context.Background(), workbench.ReplayRequest{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Fallback || r.Authority != "local:"+skill.DefaultPolicyID || r.Unavailable == nil {
		t.Errorf("authority %q (fallback %v, unavailable %v); want the local engine, with why delegatic-mcp did not decide", r.Authority, r.Fallback, r.Unavailable)
	}
	authorized := 0
	for _, e := range r.Record.Edges {
		if e.Authorization != nil {
			authorized++
			if e.Authorization.Authorizer != r.Authority {
				t.Errorf("edge %d authorized by %q, want %q", e.Index, e.Authorization.Authorizer, r.Authority)
			}
		}
	}
	if authorized == 0 {
		t.Error("no replayed edge carries an authorization block")
	}
}

func TestAuthorizerUnavailableNamesTheLocalEngine(t *testing.T) {
	b := taught(t)
	b.Manifest.BodyChoice = body.KindHost
	w := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(verifier(t)), Bodies: fakeBodies(nil)})
	_, err := w.Replay(context.Background(), workbench.ReplayRequest{Bundle: b})
	var ae *workbench.AuthorizerUnavailableError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v", err)
	}
	if ae.Kind != body.KindHost || ae.Local != "local:"+skill.DefaultPolicyID || ae.Unwrap() == nil || ae.Error() == "" {
		t.Errorf("%+v", ae)
	}
}

func TestSaveReplay(t *testing.T) {
	ctx := context.Background()
	b := taught(t)
	st := mem.New()
	f, err := store.EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBundle(ctx, f); err != nil {
		t.Fatal(err)
	}
	w := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(verifier(t)), Store: workbench.UseStore(st)})
	r, err := w.Replay(ctx, workbench.ReplayRequest{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	sk, err := w.SaveReplay(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if sk.Version != r.Bundle.SkillVersion {
		t.Errorf("stored skill %+v, want version %d", sk, r.Bundle.SkillVersion)
	}
	if _, err := w.SaveReplay(ctx, &workbench.ReplayResult{}); err == nil {
		t.Error("a result with no record was saved")
	}
	if _, err := workbench.New(workbench.Deps{}).SaveReplay(ctx, r); err == nil {
		t.Error("saved with no library")
	}
}
