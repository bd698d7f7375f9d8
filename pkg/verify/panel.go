package verify

import (
	"strings"

	"workbench/pkg/skill"
)

// Panel is a report laid out as the conformance panel of spec §8.3
// criterion 10: each gate and invariant, claimed beside re-verified.
//
// Verdict is the one overall badge: the re-verified overall verdict, or
// fail when the bundle overclaims (Report.Verdict). Claimed and Derived
// are the two overall verdicts it rests on.
type Panel struct {
	Verdict    string
	Claimed    string
	Derived    string
	Gates      []GateRow
	Invariants []InvariantRow
	// Overclaims lists every place the claim is better than the evidence;
	// the ones about a gate or an invariant are also marked on its row.
	Overclaims []Overclaim
}

// GateRow is one proof gate, claimed beside re-verified.
type GateRow struct {
	ID string
	// Claimed is the bundle's own verdict for the gate, "" when it
	// claims none.
	Claimed      string
	ClaimedLevel string
	// Derived is the verifier's verdict, with its level and reason.
	Derived string
	Level   string
	Reason  string
	// Overclaim: the claimed verdict or level is better than the
	// evidence. The row is shown as a failure whatever Derived says.
	Overclaim bool
}

// InvariantRow is one invariant, claimed beside re-verified. Held values
// are "held", "not held", "n/a" or "" (not claimed).
type InvariantRow struct {
	ID        string
	Claimed   string
	Derived   string
	CheckedN  *int
	Detail    string
	Overclaim bool
}

// Conformance lays r out as the conformance panel. Gates and invariants
// come in the spec's order (skill.GateIDs, skill.InvariantIDs); one the
// verifier did not derive (which it always does) or the bundle claims
// beyond the spec's is listed after them, so nothing either side says is
// dropped.
func (r *Report) Conformance() Panel {
	p := Panel{
		Verdict: r.Verdict, Claimed: r.Claimed.OverallVerdict, Derived: r.Derived.OverallVerdict,
		Overclaims: r.Overclaims,
	}
	over := map[string]bool{}
	for _, o := range r.Overclaims {
		over[strings.TrimSuffix(o.What, ".level")] = true
	}
	claimed := map[string]skill.Gate{}
	for _, g := range r.Claimed.ProofGates {
		claimed[g.ID] = g
	}
	derived := map[string]skill.Gate{}
	for _, g := range r.Derived.ProofGates {
		derived[g.ID] = g
	}
	for _, id := range ordered(skill.GateIDs(), gateIDsOf(r.Derived.ProofGates), gateIDsOf(r.Claimed.ProofGates)) {
		c, d := claimed[id], derived[id]
		p.Gates = append(p.Gates, GateRow{
			ID: id, Claimed: c.Verdict, ClaimedLevel: c.Level,
			Derived: d.Verdict, Level: d.Level, Reason: d.Reason, Overclaim: over[id],
		})
	}
	ci := map[string]skill.InvariantResult{}
	var cids, dids []string
	for _, v := range r.Claimed.InvariantResults {
		ci[v.ID] = v
		cids = append(cids, v.ID)
	}
	di := map[string]skill.InvariantResult{}
	for _, v := range r.Derived.InvariantResults {
		di[v.ID] = v
		dids = append(dids, v.ID)
	}
	for _, id := range ordered(skill.InvariantIDs(), dids, cids) {
		c, cok := ci[id]
		d, dok := di[id]
		row := InvariantRow{ID: id, Overclaim: over[id]}
		if cok {
			row.Claimed = held(c.Held)
		}
		if dok {
			row.Derived, row.CheckedN, row.Detail = held(d.Held), d.CheckedN, d.Detail
		}
		p.Invariants = append(p.Invariants, row)
	}
	return p
}

// held says an invariant's held value in words as the overclaims do
// (heldString), and "" when the proof gives none.
func held(h any) string {
	if h == nil {
		return ""
	}
	return heldString(h)
}

func gateIDsOf(gs []skill.Gate) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.ID
	}
	return out
}

// ordered is first, then every id of the others not yet listed, in order.
func ordered(first []string, others ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range append([][]string{first}, others...) {
		for _, id := range list {
			if id != "" && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}
