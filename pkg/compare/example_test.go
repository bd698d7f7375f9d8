package compare_test

import (
	"fmt"

	"workbench/pkg/compare"
	"workbench/pkg/skill"
)

// Two models' results for one input, as the compare flow made them (here
// built by hand: one model clicked the link the demonstration clicked,
// the other refused), set side by side and summed up in sentences.
func ExampleOf() {
	results := []compare.Result{passed("example/a", 1), halted("example/b", skill.KindModelRefusal)}
	c := compare.Of(bundle(true), map[string]any{}, results)
	for _, r := range c.Results {
		rep := r.Record.Report
		fmt.Printf("%s: %s, fidelity %v (%s), verdict %s\n", r.Model, rep.Status, rep.Fidelity, rep.FidelityLevel, r.Verdict())
	}
	for _, line := range c.Summary() {
		fmt.Println(line)
	}
	// Output:
	// example/a: success, fidelity 1 (structural), verdict pass
	// example/b: halted_at_edge_N, fidelity 0.5 (failed), verdict fail
	// example/a and example/b diverge: status success vs halted_at_edge_N; halted at edge none vs 1; fidelity level structural vs failed; fidelity 1 vs 0.5; edge 1 match exact vs mismatch; edge 1 surprises none vs model_refusal; overall verdict pass vs fail; gate gate.replay_fidelity pass vs fail.
}
