package demonstrate_test

import (
	"context"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
)

// BenchmarkDemonstratePerStep is the cost of one demonstration step on the
// simulator — perceive, one chat round trip to the loopback OpenRouter
// stand-in, authorize, act, record — so it includes a local HTTP exchange
// but no model latency.
func BenchmarkDemonstratePerStep(b *testing.B) {
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		b.Fatal(err)
	}
	pages := []string{"https://git.workbench.test/acme/widget", "https://git.workbench.test/acme/gadget"}
	const steps = 50
	script := make([]openroutertest.Step, 0, steps+1)
	for i := range steps {
		script = append(script, openroutertest.ToolCall("browser_navigate", map[string]any{"url": pages[i%2]}))
	}
	script = append(script, openroutertest.Answer("done"))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		or := openroutertest.New(b, openroutertest.WithScript(openroutertest.Script{Model: "bench/model", Steps: script}))
		client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()))
		if err != nil {
			b.Fatal(err)
		}
		s, err := sim.New(world)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := demonstrate.Run(context.Background(), demonstrate.Task{ID: skill.NewID(), Description: "Browse."}, demonstrate.Options{
			Model: client, ModelID: "bench/model", Body: s, Authorizer: policy.Default(),
			Declared: []string{skill.CapabilityBrowser}, TrustedServer: true, MaxSteps: steps + 1,
		})
		if err != nil || len(res.Trace.Edges) != steps {
			b.Fatalf("%v, %d edges", err, len(res.Trace.Edges))
		}
		b.StopTimer()
		or.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*steps), "µs/step")
}
