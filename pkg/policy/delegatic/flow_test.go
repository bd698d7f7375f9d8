package delegatic_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/replay"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/schemas"
)

// refusing is a contract-server script: it grants every action type
// except those the test has told it to refuse, which it refuses the way
// delegatic-mcp does (isError with a structured reason).
type refusing struct {
	mu     sync.Mutex
	refuse map[string]bool
}

func (r *refusing) set(types ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refuse = map[string]bool{}
	for _, t := range types {
		r.refuse[t] = true
	}
}

func (r *refusing) handle(args map[string]any) servicestest.Reply {
	r.mu.Lock()
	no := r.refuse[args["action_type"].(string)]
	r.mu.Unlock()
	if no {
		return servicestest.Reply{IsError: true, Structured: map[string]any{"status": "error", "error": "denied",
			"reason": args["action_type"].(string) + " is not allowed by " + args["policy_id"].(string)}}
	}
	return grant(args)
}

// A demonstration on the simulator under delegatic-mcp: every edge's block
// names delegatic-mcp, a refused action is recorded and never performed,
// the assembled bundle passes gate.authority on delegatic's grants, and a
// replay that delegatic-mcp now refuses halts at that edge as policy_deny.
func TestSimulatorUnderDelegatic(t *testing.T) {
	ctx := context.Background()
	script := &refusing{}
	srv := authorizeServer(t, script.handle)
	cfg := services.Config{Endpoints: map[string]string{"delegatic": srv.URL}}

	sc, err := fixtures.ScenarioByID(fixtures.ModelComparison)
	if err != nil {
		t.Fatal(err)
	}
	worldName, err := fixtures.WorldFor(sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	world, err := fixtures.World(worldName)
	if err != nil {
		t.Fatal(err)
	}
	open := openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"})
	click := openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})
	or := openroutertest.New(t, openroutertest.WithScript(
		openroutertest.Script{Model: "example/refused", Steps: []openroutertest.Step{open, click, openroutertest.Answer("The click was refused.")}},
		openroutertest.Script{Model: "example/teacher", Steps: []openroutertest.Step{open, click, openroutertest.Answer("The newest version is 1.4.0.")}},
		// The replaying model makes the recorded calls again.
		openroutertest.Script{Model: "example/replayer", Steps: []openroutertest.Step{open, click}},
	))
	// net/http, not the default: under js/wasm the default is the
	// JavaScript fetch, which cannot reach the in-process test server.
	client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}

	choice, err := delegatic.Choose(ctx, "simulator", cfg, policy.Default(), servicestest.ClientOptions(), opts())
	if err != nil {
		t.Fatal(err)
	}
	defer choice.Delegatic.Close(ctx)
	if choice.Name != "delegatic-mcp" {
		t.Fatalf("chose %s", choice.Name)
	}

	demo := func(model string) (demonstrate.Task, *demonstrate.Result) {
		bd, err := sim.New(world)
		if err != nil {
			t.Fatal(err)
		}
		task := demonstrate.Task{ID: skill.NewID(), Description: "Find the newest version of acme/widget.",
			BodyChoice: body.KindSimulator, Inputs: sc.ExampleInput(), ScenarioID: sc.ID}
		res, err := demonstrate.Run(ctx, task, demonstrate.Options{Model: client, ModelID: model, Body: bd,
			Authorizer: choice.Authorizer, Declared: sc.CapabilitiesDeclared, Offered: sc.Offered(), TrustedServer: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stopped != demonstrate.StopAnswer || len(res.Trace.Edges) != 2 {
			t.Fatalf("%s: stopped %s (%v) with %d edges", model, res.Stopped, res.Err, len(res.Trace.Edges))
		}
		for i, e := range res.Trace.Edges {
			if e.Authorization == nil || e.Authorization.Authorizer != "delegatic-mcp" {
				t.Errorf("%s: edge %d block %+v", model, i, e.Authorization)
			}
		}
		return task, res
	}

	// delegatic-mcp refuses the click: the edge is recorded as refused.
	script.set("sim.browser_click")
	_, res := demo("example/refused")
	e0, e1 := res.Trace.Edges[0], res.Trace.Edges[1]
	if e0.Authorization.Decision != skill.DecisionAllow || e0.Authorization.BlockID != "sha256:grant-sim.browser_navigate" || e0.OutcomeStatus != skill.OutcomeOK {
		t.Errorf("edge 0: %+v, %s", e0.Authorization, e0.OutcomeStatus)
	}
	if e1.Authorization.Decision != skill.DecisionDeny || e1.OutcomeStatus != skill.OutcomeDenied || e1.StateAfter != e1.StateBefore ||
		!strings.Contains(e1.Authorization.Reason, "sim.browser_click is not allowed by workbench-default-v1") {
		t.Errorf("edge 1: %+v, %s", e1.Authorization, e1.OutcomeStatus)
	}
	calls := srv.Calls()
	if len(calls) != 2 || calls[0].Args["action_type"] != "sim.browser_navigate" || calls[1].Args["action_type"] != "sim.browser_click" {
		t.Errorf("authorize calls %+v", calls)
	}

	// Granted: the skill is taught and its bundle proves authority on
	// delegatic's grants.
	script.set()
	task, res := demo("example/teacher")
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: skill.NewID(), BodyChoice: body.KindSimulator,
		Outputs: sc.ExpectedOutputsShape, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	sv, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	all, err := fixtures.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	v := verify.New(sv, all, nil)
	b, err := assemble.Bundle(v, assemble.Teaching{Task: task, Result: res, Manifest: m, ModelID: "example/teacher"}, time.Now(), skill.NewID)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range b.Proof.ProofGates {
		if g.ID == skill.GateAuthority && g.Verdict != skill.VerdictPass {
			t.Errorf("gate.authority %s: %s", g.Verdict, g.Reason)
		}
	}

	// Replay under delegatic-mcp, which now refuses the click.
	script.set("sim.browser_click")
	bd, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Run(ctx, b, bd, replay.Options{Deterministic: true, Input: b.Evidence.Scenario.Inputs,
		Chooser: replay.ModelChooser{Model: client, ModelID: "example/replayer"},
		Authorizer: replay.PolicyAuthorizer{Policy: choice.Authorizer, Declared: b.Manifest.CapabilitiesRequired,
			BodyKind: body.KindSimulator, TrustedServer: true}})
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Report
	if r.Status != skill.StatusHalted || r.HaltedAtEdge == nil || *r.HaltedAtEdge != 1 || len(r.SurpriseSignals) != 1 ||
		r.SurpriseSignals[0].Kind != skill.KindPolicyDeny || !strings.Contains(r.SurpriseSignals[0].Detail, "not allowed by workbench-default-v1") {
		t.Errorf("replay: status %s at %v, signals %+v", r.Status, r.HaltedAtEdge, r.SurpriseSignals)
	}
	if a := rec.Edges[1].Authorization; a == nil || a.Authorizer != "delegatic-mcp" || a.Decision != skill.DecisionDeny {
		t.Errorf("replay edge 1 block %+v", a)
	}
	if a := rec.Edges[0].Authorization; a == nil || a.Authorizer != "delegatic-mcp" || a.Decision != skill.DecisionAllow {
		t.Errorf("replay edge 0 block %+v", a)
	}
}
