package verify_test

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

func TestConformanceOfAPassingBundle(t *testing.T) {
	v, files := setup(t)
	r, err := v.Bytes(files[fixtures.ValidBundleFile])
	if err != nil {
		t.Fatal(err)
	}
	p := r.Conformance()
	if p.Verdict != r.Verdict || p.Derived != r.Derived.OverallVerdict || p.Claimed != r.Claimed.OverallVerdict {
		t.Errorf("overall %q claimed %q derived %q; report says %q, %q, %q", p.Verdict, p.Claimed, p.Derived, r.Verdict, r.Claimed.OverallVerdict, r.Derived.OverallVerdict)
	}
	var gates []string
	for _, g := range p.Gates {
		gates = append(gates, g.ID)
		if g.Derived == "" || g.Claimed == "" {
			t.Errorf("gate %s: claimed %q derived %q", g.ID, g.Claimed, g.Derived)
		}
		if g.Overclaim {
			t.Errorf("gate %s marked as overclaimed in a bundle without overclaims", g.ID)
		}
	}
	if !slices.Equal(gates, skill.GateIDs()) {
		t.Errorf("gates %v, want the spec's six in order", gates)
	}
	var invs []string
	for _, i := range p.Invariants {
		invs = append(invs, i.ID)
		if i.Derived == "" {
			t.Errorf("invariant %s has no re-verified value", i.ID)
		}
	}
	if !slices.Equal(invs, skill.InvariantIDs()) {
		t.Errorf("invariants %v, want the spec's four in order", invs)
	}
}

// A claim better than the evidence marks its row and fails the panel.
func TestConformanceMarksOverclaims(t *testing.T) {
	v, files := setup(t)
	b := decode(t, files[fixtures.ValidBundleFile])
	// Claim a replay gate of exact and an invariant that the evidence
	// cannot support: drop the replay events so the gate is inconclusive.
	var kept []skill.Event
	for _, e := range b.Evidence.Events {
		if e.Type != skill.EventReplayExecuted {
			kept = append(kept, e)
		}
	}
	b.Evidence.Events = kept
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Bytes(data)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Conformance()
	if p.Verdict != skill.VerdictFail {
		t.Errorf("verdict %q, want fail for an overclaiming bundle", p.Verdict)
	}
	if len(p.Overclaims) == 0 {
		t.Fatal("no overclaims listed")
	}
	var marked bool
	for _, g := range p.Gates {
		if g.ID == skill.GateReplayFidelity {
			marked = g.Overclaim
			if g.Claimed != skill.VerdictPass || g.Derived != skill.VerdictInconclusive {
				t.Errorf("replay gate claimed %q derived %q", g.Claimed, g.Derived)
			}
		}
	}
	if !marked {
		t.Error("the replay gate's overclaim is not marked on its row")
	}
}

// Gates and invariants beyond the spec's, on either side, follow the
// spec's in the order given; held values are put into words.
func TestConformanceOrderAndHeld(t *testing.T) {
	n := 3
	r := &verify.Report{
		Claimed: skill.ProofResult{
			ProofGates:       []skill.Gate{{ID: "gate.extra_claimed", Verdict: skill.VerdictPass}},
			InvariantResults: []skill.InvariantResult{{ID: skill.InvStateHashPerEdge, Held: true}, {ID: "inv.other", Held: "n/a"}},
		},
		Derived: skill.ProofResult{
			ProofGates:       []skill.Gate{{ID: "gate.extra_derived", Verdict: skill.VerdictFail}, {ID: skill.GateAuthority, Verdict: skill.VerdictPass}},
			InvariantResults: []skill.InvariantResult{{ID: skill.InvStateHashPerEdge, Held: false, CheckedN: &n}, {ID: "inv.odd", Held: 7.0}},
		},
	}
	p := r.Conformance()
	var gates []string
	for _, g := range p.Gates {
		gates = append(gates, g.ID)
	}
	if want := append(skill.GateIDs(), "gate.extra_derived", "gate.extra_claimed"); !slices.Equal(gates, want) {
		t.Errorf("gates %v, want %v", gates, want)
	}
	got := map[string]string{}
	for _, i := range p.Invariants {
		got[i.ID] = i.Claimed + "/" + i.Derived
	}
	for id, want := range map[string]string{
		skill.InvStateHashPerEdge:      "held/not held",
		skill.InvEveryActionAuthorized: "/",
		"inv.other":                    "n/a/",
		"inv.odd":                      "/unknown",
	} {
		if got[id] != want {
			t.Errorf("%s: claimed/derived %q, want %q", id, got[id], want)
		}
	}
	if len(p.Invariants) != len(skill.InvariantIDs())+2 {
		t.Errorf("%d invariant rows", len(p.Invariants))
	}
}

// The conformance panel of a bundle: verify it, then lay the report out
// gate by gate, claimed beside re-verified.
func ExampleReport_Conformance() {
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
	p := report.Conformance()
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
