package verify

import (
	"workbench/pkg/skill"
)

// Overclaims lists every place where claimed is better than derived: a
// gate verdict, an invariant said to hold, the overall verdict, the replay's
// fidelity level, or the authority decision. A claim worse than the evidence
// is modest, not wrong, and is not listed.
func Overclaims(claimed, derived skill.ProofResult) []Overclaim {
	out := []Overclaim{}
	dg := map[string]skill.Gate{}
	for _, g := range derived.ProofGates {
		dg[g.ID] = g
	}
	for _, id := range skill.GateIDs() {
		var cg *skill.Gate
		for i := range claimed.ProofGates {
			if claimed.ProofGates[i].ID == id {
				cg = &claimed.ProofGates[i]
				break
			}
		}
		if cg == nil {
			continue // a missing claim claims nothing
		}
		d := dg[id]
		if verdictBetter(cg.Verdict, d.Verdict) {
			out = append(out, Overclaim{What: id, Claimed: cg.Verdict, Derived: d.Verdict})
		}
		if cg.Level != "" && d.Level != "" && levelRank[cg.Level] > levelRank[d.Level] {
			out = append(out, Overclaim{What: id + ".level", Claimed: cg.Level, Derived: d.Level})
		}
	}
	di := map[string]skill.InvariantResult{}
	for _, r := range derived.InvariantResults {
		di[r.ID] = r
	}
	for _, c := range claimed.InvariantResults {
		d, ok := di[c.ID]
		if ok && c.Held == true && d.Held != true {
			out = append(out, Overclaim{What: c.ID, Claimed: "held", Derived: heldString(d.Held)})
		}
	}
	if verdictBetter(claimed.OverallVerdict, derived.OverallVerdict) {
		out = append(out, Overclaim{What: "overall_verdict", Claimed: claimed.OverallVerdict, Derived: derived.OverallVerdict})
	}
	if cl, dl := claimed.ReplayResult.FidelityLevel, derived.ReplayResult.FidelityLevel; levelRank[cl] > levelRank[dl] {
		out = append(out, Overclaim{What: "replay_result.fidelity_level", Claimed: cl, Derived: dl})
	}
	if claimed.AuthorityResult.Decision == skill.DecisionAllow && derived.AuthorityResult.Decision != skill.DecisionAllow {
		out = append(out, Overclaim{What: "authority_result.decision", Claimed: skill.DecisionAllow, Derived: derived.AuthorityResult.Decision})
	}
	if claimed.RedactionResult.PostRedactionHashMatches && !derived.RedactionResult.PostRedactionHashMatches {
		out = append(out, Overclaim{What: "redaction_result.post_redaction_hash_matches", Claimed: "true", Derived: "false"})
	}
	return out
}

// verdictBetter reports whether claim c says more than derived d. "n/a" is
// neutral against n/a, but claiming pass where the gate does not apply, or
// n/a where the evidence found a problem, overstates.
func verdictBetter(c, d string) bool {
	if c == d {
		return false
	}
	if c == skill.VerdictNotApplicable {
		return d == skill.VerdictFail || d == skill.VerdictInconclusive || d == skill.VerdictPartial
	}
	if d == skill.VerdictNotApplicable {
		return c == skill.VerdictPass || c == skill.VerdictPartial
	}
	cr, ok1 := verdictRank[c]
	dr, ok2 := verdictRank[d]
	return !ok1 || (ok2 && cr > dr)
}

func heldString(h any) string {
	switch h {
	case true:
		return "held"
	case false:
		return "not held"
	}
	if s, ok := h.(string); ok {
		return s
	}
	return "unknown"
}
