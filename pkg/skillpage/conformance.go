package skillpage

import (
	"strings"

	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Panel is the conformance panel of one bundle (spec §8.3 criterion 10).
//
// Verdict is the one overall badge: the re-verified overall verdict, or
// fail when the bundle overclaims (verify.Report.Verdict). Claimed and
// Derived are the two overall verdicts it rests on.
type Panel struct {
	Verdict    string
	Claimed    string
	Derived    string
	Gates      []GateRow
	Invariants []InvariantRow
	// Overclaims lists every place the claim is better than the evidence;
	// the ones about a gate or an invariant are also marked on its row.
	Overclaims []verify.Overclaim
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

// GateIDs are the six gates of spec §5.4, in the spec's order.
func GateIDs() []string {
	return []string{skill.GateAuthority, skill.GateTraceCompleteness, skill.GateReplayFidelity,
		skill.GateRedactionVerify, skill.GateContentHash, skill.GateNoHiddenCapability}
}

// InvariantIDs are the four invariants of spec §5.4, in the spec's order.
func InvariantIDs() []string {
	return []string{skill.InvEveryActionAuthorized, skill.InvStateHashPerEdge,
		skill.InvBundleHashReproducible, skill.InvRedactedBundleStillVerify}
}

// Conformance builds the panel of a verification report. Gates and
// invariants come in the spec's order; one the verifier did not derive
// (which it always does) or the bundle claims beyond the spec's is listed
// after them, so nothing either side says is dropped.
func Conformance(r *verify.Report) Panel {
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
	for _, id := range ordered(GateIDs(), ids(r.Derived.ProofGates), ids(r.Claimed.ProofGates)) {
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
	for _, id := range ordered(InvariantIDs(), dids, cids) {
		c, cok := ci[id]
		d, dok := di[id]
		row := InvariantRow{ID: id, Overclaim: over[id]}
		if cok {
			row.Claimed = Held(c.Held)
		}
		if dok {
			row.Derived, row.CheckedN, row.Detail = Held(d.Held), d.CheckedN, d.Detail
		}
		p.Invariants = append(p.Invariants, row)
	}
	return p
}

// Held says an invariant's held value in words: "held", "not held", "n/a",
// or the value as given when it is none of these.
func Held(h any) string {
	switch h {
	case true:
		return "held"
	case false:
		return "not held"
	case nil:
		return ""
	}
	if s, ok := h.(string); ok {
		return s
	}
	return "unknown"
}

func ids(gs []skill.Gate) []string {
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
