package prism_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/judge"
	"workbench/pkg/judge/prism"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/replay"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/schemas"
)

// A skill taught and replayed on the simulator at structural fidelity,
// then judged: the judge's confirmation is what the verifier accepts as
// semantic, and a judge that cannot be reached leaves the proof
// inconclusive — never pass.
func TestJudgedReplayProof(t *testing.T) {
	ctx := context.Background()
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
	url := sc.Inputs[0].Example.(string)
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "example/teacher", Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": url}),
		openroutertest.Answer("The newest version is 1.4.0."),
	}}))
	// net/http, not the default: under js/wasm the default is the
	// JavaScript fetch, which cannot reach the in-process test server.
	client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	bd, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	task := demonstrate.Task{ID: skill.NewID(), Description: "Open " + url + " and report the newest version.",
		BodyChoice: body.KindSimulator, Inputs: sc.ExampleInput(), ScenarioID: sc.ID}
	res, err := demonstrate.Run(ctx, task, demonstrate.Options{Model: client, ModelID: "example/teacher", Body: bd,
		Authorizer: policy.Default(), Declared: sc.CapabilitiesDeclared, TrustedServer: true})
	if err != nil {
		t.Fatal(err)
	}
	in := sc.Inputs[0]
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: skill.NewID(), BodyChoice: body.KindSimulator,
		Inputs:  []crystallize.Input{{InputSpec: skill.InputSpec{Name: in.Name, Type: in.Type, Required: true}, Value: in.Example}},
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

	// Replay on a body whose determinism replay is not told of: the level
	// it can claim is structural.
	rb, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	tap := judge.NewTap(rb)
	rec, err := replay.Run(ctx, b, tap, replay.Options{Input: b.Evidence.Scenario.Inputs,
		Authorizer: replay.PolicyAuthorizer{Policy: policy.Default(), Declared: b.Manifest.CapabilitiesRequired, BodyKind: body.KindSimulator, TrustedServer: true}})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Report.Status != skill.StatusSuccess || rec.Report.FidelityLevel != skill.LevelStructural {
		t.Fatalf("replay %s at %s", rec.Report.Status, rec.Report.FidelityLevel)
	}
	replayed, ok := tap.Output()
	if !ok {
		t.Fatal("the tap saw no output")
	}
	req := judge.Request{Goal: b.Trace.Goal, Original: judge.OriginalOutput(&b.Trace), Replayed: replayed}

	// proved saves the judged replay as a new version and returns the
	// verifier's gate.replay_fidelity and overall verdict for its bytes.
	proved := func(out judge.Outcome) (skill.Gate, string) {
		data, err := b.Encode()
		if err != nil {
			t.Fatal(err)
		}
		cp, _, err := skill.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		cp.Evidence.Judge, cp.Evidence.Score = out.Judge, out.Score
		nb, err := assemble.WithReplay(v, cp, out.Record, time.Now(), skill.NewID)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := nb.Encode()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := v.Bytes(enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Overclaims) > 0 {
			t.Errorf("overclaims %+v", rep.Overclaims)
		}
		for _, g := range rep.Derived.ProofGates {
			if g.ID == skill.GateReplayFidelity {
				return g, rep.Derived.OverallVerdict
			}
		}
		t.Fatal("no replay gate")
		return skill.Gate{}, ""
	}

	t.Run("confirmed", func(t *testing.T) {
		srv := observeServer(t, servicestest.ObserveSchema, reply(map[string]any{"equivalent": true, "score": 0.9, "rationale": "same page"}))
		j := connect(t, srv.URL)
		out := judge.Apply(ctx, j, rec, req, judge.Options{})
		if !out.Semantic || out.Record.Report.FidelityLevel != skill.LevelSemantic {
			t.Fatalf("outcome %+v", out)
		}
		// What was judged is what the demonstration and the replay
		// observed: the same changelog page, recorded and re-read.
		args := srv.Calls()[0].Args
		if args["goal"] != b.Trace.Goal || args["original_output"] == nil || args["replay_output"] == nil {
			t.Errorf("sent %v", args)
		}
		g, _ := proved(out)
		if g.Verdict != skill.VerdictPass || g.Level != skill.LevelSemantic {
			t.Errorf("gate %+v", g)
		}
	})
	t.Run("not confirmed", func(t *testing.T) {
		srv := observeServer(t, servicestest.ObserveSchema, reply(map[string]any{"equivalent": false, "score": 0.3}))
		out := judge.Apply(ctx, connect(t, srv.URL), rec, req, judge.Options{})
		g, _ := proved(out)
		if out.Semantic || g.Verdict != skill.VerdictPass || g.Level != skill.LevelStructural {
			t.Errorf("outcome %+v, gate %+v", out, g)
		}
	})
	t.Run("judge not configured", func(t *testing.T) {
		_, err := prism.Connect(ctx, services.Config{}, nil)
		out := judge.Unavailable(rec, err)
		g, overall := proved(out)
		if g.Verdict != skill.VerdictInconclusive || g.Level != skill.LevelInconclusive || overall != skill.VerdictInconclusive {
			t.Errorf("gate %+v, overall %s", g, overall)
		}
		if out.Record.Report.Fidelity != rec.Report.Fidelity {
			t.Errorf("fidelity %v, measured %v", out.Record.Report.Fidelity, rec.Report.Fidelity)
		}
	})
}
