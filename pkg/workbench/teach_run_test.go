package workbench_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/skill"
	"workbench/pkg/store/mem"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// teacher is a scripted model answering as steps say.
func teacher(t *testing.T, steps ...openroutertest.Step) *openrouter.Client {
	t.Helper()
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "example/teacher", Steps: steps, CostPerCall: 0.001}))
	cl, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// TestTeach: a demonstration becomes a draft, the draft a summary and a
// saved skill; what cannot be drafted is an error that keeps what was
// recorded.
func TestTeach(t *testing.T) {
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	open := openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"})
	click := openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})
	answer := openroutertest.Answer("The newest version is 1.4.0.")
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		steps    []openroutertest.Step
		maxSteps int
		err      error                 // from Teach
		limited  bool                  // the model ran out of turns
		edges    int                   // recorded
		stored   bool                  // StoreTaught stored it
		saveErr  string                // from SealTaught or StoreTaught
		after    func(*workbench.Deps) // the dependencies the draft is saved with
	}{
		{name: "answered", steps: []openroutertest.Step{open, click, answer}, edges: 2, stored: true},
		{name: "out of turns", steps: []openroutertest.Step{open, click, answer}, maxSteps: 1, limited: true, edges: 1, stored: true},
		{name: "answered without acting", steps: []openroutertest.Step{answer}, err: teach.ErrNothingDemonstrated},
		{name: "no library", steps: []openroutertest.Step{open, answer}, edges: 1, saveErr: "no library is open",
			after: func(d *workbench.Deps) { d.Store = nil }},
		{name: "library full", steps: []openroutertest.Step{open, answer}, edges: 1, saveErr: "storage quota exceeded",
			after: func(d *workbench.Deps) { d.Store = workbench.UseStore(fullStore{mem.New()}) }},
		{name: "no verifier", steps: []openroutertest.Step{open, answer}, edges: 1, saveErr: "no verifier",
			after: func(d *workbench.Deps) { d.Verifier = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			plan, err := workbench.PlanTeach(ctx, workbench.TeachRequest{Scenario: fixtures.ModelComparison, Model: "example/teacher"})
			if err != nil {
				t.Fatal(err)
			}
			st := mem.New()
			deps := workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(st), Now: func() time.Time { return at }}
			wb := workbench.New(deps)
			var steps, started, views int
			taught, err := wb.Teach(ctx, plan, workbench.TeachOptions{Model: teacher(t, tc.steps...), ModelID: "example/teacher",
				MaxSteps: tc.maxSteps, Observe: true,
				Started: func(s workbench.TeachStart) {
					if started++; s.View == nil || s.ViewErr != nil || s.Authority == "" {
						t.Errorf("started: %+v", s)
					}
				},
				Progress: func(st workbench.TeachStep) {
					steps++
					if st.View != nil {
						views++
					}
				}})
			if started != 1 || views == 0 {
				t.Errorf("started %d times, %d views of the body", started, views)
			}
			if tc.err != nil {
				if !errors.Is(err, tc.err) || taught == nil || taught.Result == nil {
					t.Fatalf("Teach = %v, %v; want %v with the result", taught, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(taught.Result.Trace.Edges) != tc.edges || taught.StepLimited() != tc.limited || steps == 0 {
				t.Errorf("%d edges, step-limited %v, %d progress reports", len(taught.Result.Trace.Edges), taught.StepLimited(), steps)
			}
			if taught.Draft.Name == "" || taught.Draft.Slug == "" || taught.Draft.CreatedAt != skill.Timestamp(at) {
				t.Errorf("draft: name %q slug %q created %s", taught.Draft.Name, taught.Draft.Slug, taught.Draft.CreatedAt)
			}
			if tc.after != nil {
				tc.after(&deps)
				wb = workbench.New(deps)
			}
			if deps.Verifier != nil {
				sum, err := wb.SummarizeTaught(ctx, taught, taught.Draft)
				if err != nil || sum.Edges != tc.edges || sum.Verdict == "" {
					t.Errorf("summary %+v, %v", sum, err)
				}
			} else if _, err := wb.SummarizeTaught(ctx, taught, taught.Draft); err == nil {
				t.Error("a summary without a verifier")
			}
			m := taught.Draft
			m.Name = "Read the changelog"
			saved, err := wb.SealTaught(ctx, taught, m)
			if err == nil {
				err = wb.StoreTaught(ctx, saved)
			}
			if tc.saveErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.saveErr) {
					t.Fatalf("SaveTaught = %v; want an error saying %q", err, tc.saveErr)
				}
				if sks, _ := st.Skills(ctx); len(sks) != 0 {
					t.Errorf("a failed save stored %d skills", len(sks))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if saved.Bundle.Manifest.Name != m.Name || saved.Report == nil || saved.Report.Verdict == "" {
				t.Errorf("saved %q, report %v", saved.Bundle.Manifest.Name, saved.Report)
			}
			if !tc.limited && !saved.Ready {
				t.Errorf("not ready before its replay: %v", saved.Report.Overclaims)
			}
			sks, _ := st.Skills(ctx)
			if tc.stored != (saved.Skill.ID != "") || tc.stored != (len(sks) == 1) {
				t.Errorf("stored: record %q, %d skills in the library; want stored %v", saved.Skill.ID, len(sks), tc.stored)
			}
			// Sealing changes nothing it is given: a second save gives a
			// bundle of the same manifest.
			if again, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).SealTaught(ctx, taught, m); err != nil || again.Bundle.Manifest.Name != m.Name {
				t.Errorf("save again: %v", err)
			}
		})
	}
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"no plan", func() error {
			_, err := workbench.New(workbench.Deps{}).Teach(context.Background(), nil, workbench.TeachOptions{})
			return err
		}, "no plan"},
		{"no demonstration", func() error {
			_, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).SealTaught(context.Background(), &workbench.Taught{}, skill.Manifest{})
			return err
		}, "no demonstration"},
		{"store without a library", func() error {
			return workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).StoreTaught(context.Background(), &workbench.SavedSkill{})
		}, "no library is open"},
	} {
		if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestOpenTeach: a demonstration's body and authorizer are chosen by the
// replay's rule (spec OQ-2): the local engine for the simulator when
// delegatic-mcp is not configured, delegatic-mcp when it is, and on an MCP
// body without it an *AuthorizerUnavailableError until the user accepts
// the local engine.
func TestOpenTeach(t *testing.T) {
	ctx := context.Background()
	onSim, err := workbench.PlanTeach(ctx, workbench.TeachRequest{Scenario: fixtures.ModelComparison, Model: "example/teacher"})
	if err != nil {
		t.Fatal(err)
	}
	onBrowser, err := workbench.PlanTeach(ctx, workbench.TeachRequest{Task: "Read the changelog", Body: body.KindBrowser, Model: "example/teacher"})
	if err != nil {
		t.Fatal(err)
	}
	badWorld := *onSim
	badWorld.World = []byte("{")
	refused := errors.New("refused")
	localName := "local:" + skill.DefaultPolicyID
	for _, tc := range []struct {
		name        string
		w           *workbench.Flows
		plan        *teach.Plan
		acceptLocal bool
		authority   string // the authority chosen; "" when an error is wanted
		fallback    bool
		trusted     bool
		err         any // an error to match with errors.Is, or a pointer for errors.As
	}{
		{name: "simulator, local engine", plan: onSim, authority: localName, trusted: true},
		{name: "simulator under delegatic-mcp", w: workbench.New(workbench.Deps{Authorizers: local}), plan: onSim, authority: delegatic.Name, trusted: true},
		{name: "MCP body under delegatic-mcp", w: workbench.New(workbench.Deps{Bodies: fakeBodies(onSim.World), Authorizers: local}), plan: onBrowser,
			authority: delegatic.Name, trusted: true},
		{name: "MCP body without delegatic-mcp", w: workbench.New(workbench.Deps{Bodies: fakeBodies(onSim.World)}), plan: onBrowser,
			err: new(*workbench.AuthorizerUnavailableError)},
		{name: "MCP body, local engine accepted", w: workbench.New(workbench.Deps{Bodies: fakeBodies(onSim.World)}), plan: onBrowser, acceptLocal: true,
			authority: localName, fallback: true, trusted: true},
		{name: "MCP body, the tab's standing yes", w: workbench.New(workbench.Deps{Bodies: fakeBodies(onSim.World), AcceptsLocalPolicy: yes}), plan: onBrowser,
			authority: localName, fallback: true, trusted: true},
		{name: "MCP body, the tab's standing no", w: workbench.New(workbench.Deps{Bodies: fakeBodies(onSim.World), AcceptsLocalPolicy: no}), plan: onBrowser,
			err: new(*workbench.AuthorizerUnavailableError)},
		{name: "simulator under delegatic-mcp, the tab's yes changes nothing", w: workbench.New(workbench.Deps{Authorizers: local, AcceptsLocalPolicy: yes}), plan: onSim,
			authority: delegatic.Name, trusted: true},
		{name: "MCP body, no way to open one", plan: onBrowser, acceptLocal: true, err: new(*workbench.BodyUnavailableError)},
		{name: "body refused", w: workbench.New(workbench.Deps{Bodies: func(context.Context, body.Kind, []byte) (body.Body, bool, error) { return nil, false, refused }}),
			plan: onBrowser, err: refused},
		{name: "simulator world broken", plan: &badWorld, err: "the simulator world"},
		{name: "no fallback offered", w: workbench.New(workbench.Deps{Authorizers: func(context.Context, body.Kind, string) (delegatic.Choice, error) {
			return delegatic.Choice{}, refused
		}}), plan: onSim, acceptLocal: true, err: refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flows := tc.w
			if flows == nil {
				flows = workbench.New(workbench.Deps{})
			}
			rig, err := flows.OpenTeachForTest(ctx, tc.plan, tc.acceptLocal)
			switch want := tc.err.(type) {
			case nil:
				if err != nil {
					t.Fatal(err)
				}
				if rig == nil || rig.Trusted != tc.trusted || rig.Authority != tc.authority || rig.Fallback != tc.fallback {
					t.Errorf("opened %+v; want %s (fallback %v, trusted %v)", rig, tc.authority, tc.fallback, tc.trusted)
				}
				if tc.fallback && rig.Unavailable == nil {
					t.Error("a fallback without the reason delegatic-mcp could not decide")
				}
			case error:
				if !errors.Is(err, want) || rig != nil {
					t.Errorf("OpenTeach = %v, %v; want %v", rig, err, want)
				}
			case string:
				if err == nil || !strings.Contains(err.Error(), want) || rig != nil {
					t.Errorf("OpenTeach = %v, %v; want an error saying %q", rig, err, want)
				}
			default:
				if !errors.As(err, want) || rig != nil {
					t.Errorf("OpenTeach = %v, %v; want %T", rig, err, want)
				}
			}
		})
	}
	// The error names the body and the local engine the user is offered.
	_, err = workbench.New(workbench.Deps{Bodies: fakeBodies(onSim.World)}).OpenTeachForTest(ctx, onBrowser, false)
	var ae *workbench.AuthorizerUnavailableError
	if !errors.As(err, &ae) || ae.Kind != body.KindBrowser || ae.Local != localName {
		t.Errorf("OpenTeach = %v; want delegatic-mcp unavailable on the browser body, offering %s", err, localName)
	}
}
