package compare_test

import (
	"context"
	"fmt"

	"workbench/pkg/compare"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
)

// Replay one taught skill against two models on fresh simulator bodies,
// with the same input and the same policy, and read the results side by
// side.
func ExampleOf() {
	or := openroutertest.Start(openroutertest.WithScript(
		openroutertest.Script{Model: teacher, Steps: modelBoundDemo},
		clicks("example/a", "Changelog"),
		script("example/b", openroutertest.Refuse("I will not click links."))))
	defer or.Close()
	l, err := newLabOn(or)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := l.teach() // demonstrate, crystallize, assemble
	if err != nil {
		fmt.Println(err)
		return
	}

	opt := compare.Options{
		Model:         l.client,
		Deterministic: true, // the simulator
		Authorizer: replay.PolicyAuthorizer{Policy: policy.Default(), Declared: b.Manifest.CapabilitiesRequired,
			BodyKind: skill.BodySimulator, TrustedServer: true},
	}
	var results []compare.Result
	for _, model := range []string{"example/a", "example/b"} {
		bd, err := l.newBody() // a fresh body for every model
		if err != nil {
			fmt.Println(err)
			return
		}
		r, err := compare.Replay(context.Background(), l.verifier, b, bd, model, opt)
		if err != nil {
			fmt.Println(err)
			return
		}
		results = append(results, r)
	}
	c := compare.Of(b, b.Evidence.Scenario.Inputs, results)
	for _, r := range c.Results {
		rep := r.Record.Report
		fmt.Printf("%s: %s, fidelity %v (%s), verdict %s, proved as v%d\n",
			r.Model, rep.Status, rep.Fidelity, rep.FidelityLevel, r.Verdict(), r.Bundle.SkillVersion)
	}
	for _, line := range c.Summary() {
		fmt.Println(line)
	}
	// Output:
	// example/a: success, fidelity 1 (structural), verdict pass, proved as v2
	// example/b: halted_at_edge_N, fidelity 0.5 (failed), verdict fail, proved as v2
	// example/a and example/b diverge: status success vs halted_at_edge_N; halted at edge none vs 1; fidelity level structural vs failed; fidelity 1 vs 0.5; edge 1 match exact vs mismatch; edge 1 surprises none vs model_refusal; overall verdict pass vs fail; gate gate.replay_fidelity pass vs fail.
}
