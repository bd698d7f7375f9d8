package replay_test

import (
	"context"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/policy"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
)

// recordRun builds a bundle of n edges by acting on the simulator directly:
// the recorded edges of a skill whose parameters are all literal, so that
// replay needs no model and the benchmark measures the engine alone.
func recordRun(b *testing.B, world []byte, n int) *skill.Bundle {
	b.Helper()
	ctx := context.Background()
	s, err := sim.New(world)
	if err != nil {
		b.Fatal(err)
	}
	tools, _ := s.Tools(ctx)
	capOf := map[string]string{}
	for _, t := range tools {
		capOf[t.Name] = t.Capability
	}
	pages := []string{"https://git.workbench.test/acme/widget", "https://git.workbench.test/acme/gadget"}
	bundle := &skill.Bundle{SkillID: skill.NewID(), Manifest: skill.Manifest{
		CapabilitiesRequired: []string{skill.CapabilityBrowser}, FallbackBehavior: skill.FallbackHalt}}
	for i := range n {
		args := map[string]any{"url": pages[i%len(pages)]}
		before, beforeShape, _ := skill.StateHashes(mustState(b, s))
		if _, err := s.Call(ctx, "browser_navigate", args); err != nil {
			b.Fatal(err)
		}
		after, afterShape, _ := skill.StateHashes(mustState(b, s))
		bundle.Trace.Edges = append(bundle.Trace.Edges, skill.Edge{
			EdgeID: skill.NewID(), Index: i, StateBefore: before, ShapeBefore: beforeShape,
			StateAfter: after, ShapeAfter: afterShape, OutcomeStatus: skill.OutcomeOK,
			TypedAction:  skill.TypedAction{Type: "browser_navigate", Params: args},
			Tool:         skill.ToolCall{Server: "simulator", Name: "browser_navigate", Arguments: args},
			Capability:   capOf["browser_navigate"],
			ParamSources: map[string]string{"url": skill.SourceLiteral},
		})
	}
	return bundle
}

func mustState(b *testing.B, s *sim.Sim) any {
	st, err := s.State(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkReplayPerEdge is the replay engine's own cost per edge on the
// simulator, without model calls: afford, observe, bind, re-authorize,
// act, compare.
func BenchmarkReplayPerEdge(b *testing.B) {
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		b.Fatal(err)
	}
	const n = 200
	bundle := recordRun(b, world, n)
	auth := replay.PolicyAuthorizer{Policy: policy.Default(), Declared: bundle.Manifest.CapabilitiesRequired, TrustedServer: true}
	pristine, err := sim.New(world)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rec, err := replay.Run(context.Background(), bundle, pristine.Clone(), replay.Options{Authorizer: auth, Deterministic: true})
		if err != nil {
			b.Fatal(err)
		}
		if rec.Report.Status != skill.StatusSuccess || rec.Report.EdgesCommitted != n {
			b.Fatalf("replay %s after %d edges: %+v", rec.Report.Status, rec.Report.EdgesCommitted, rec.Report.SurpriseSignals)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "edges/s")
}
