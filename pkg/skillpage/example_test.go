package skillpage_test

import (
	"fmt"
	"os"

	"workbench/pkg/skillpage"
	"workbench/pkg/verify"
)

// The conformance panel of a bundle: verify it, then lay the report out
// gate by gate, claimed beside re-verified.
func ExampleConformance() {
	v, err := verify.Standard()
	if err != nil {
		panic(err)
	}
	data, err := os.ReadFile("../../fixtures/valid-skill-bundle.v0.json")
	if err != nil {
		panic(err)
	}
	report, err := v.Bytes(data)
	if err != nil {
		panic(err) // not a well-formed bundle: *verify.InvalidError
	}
	p := skillpage.Conformance(report)
	fmt.Println("overall:", p.Verdict)
	for _, g := range p.Gates {
		level := ""
		if g.Level != "" {
			level = " (" + g.Level + ")"
		}
		fmt.Printf("%-26s claimed %-4s re-verified %s%s\n", g.ID, g.Claimed, g.Derived, level)
	}
	for _, inv := range p.Invariants {
		fmt.Printf("%-34s %s\n", inv.ID, inv.Derived)
	}
	// Output:
	// overall: pass
	// gate.authority             claimed pass re-verified pass
	// gate.trace_completeness    claimed pass re-verified pass
	// gate.replay_fidelity       claimed pass re-verified pass (exact)
	// gate.redaction_verify      claimed n/a  re-verified n/a
	// gate.content_hash          claimed pass re-verified pass
	// gate.no_hidden_capability  claimed pass re-verified pass
	// inv.every_action_authorized        held
	// inv.state_hash_per_edge            held
	// inv.bundle_hash_reproducible       held
	// inv.redacted_bundle_still_verifies n/a
}
