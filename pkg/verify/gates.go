package verify

import (
	"fmt"
	"math"
	"strings"
	"time"

	"workbench/pkg/canonjson"
	"workbench/pkg/skill"
)

// isHash reports whether s is a state hash: "sha256:" and 64 lowercase hex
// digits (the schema's pattern ^sha256:[0-9a-f]{64}$, checked by hand
// because the gate checks two per edge).
func isHash(s string) bool {
	if len(s) != len(skill.HashPrefix)+64 || !strings.HasPrefix(s, skill.HashPrefix) {
		return false
	}
	for _, c := range []byte(s[len(skill.HashPrefix):]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// maxReasons caps how many individual problems a gate's reason lists; the
// count of the rest is given so nothing is hidden.
const maxReasons = 3

func joinReasons(problems []string) string {
	if len(problems) <= maxReasons {
		return strings.Join(problems, "; ")
	}
	return strings.Join(problems[:maxReasons], "; ") + fmt.Sprintf("; and %d more", len(problems)-maxReasons)
}

func intp(n int) *int { return &n }

// edgeCapability is the capability an edge used: the workbench's own
// member, else OS-011's provenance.capability.
func edgeCapability(e skill.Edge) string {
	if e.Capability != "" {
		return e.Capability
	}
	return e.Provenance.Capability
}

// traceCompleteness checks gate.trace_completeness and the state-hash
// invariant: at least one typed action, every edge with both state hashes,
// contiguous indices, unique edge ids, ordered timestamps.
func traceCompleteness(b *skill.Bundle) (skill.Gate, skill.InvariantResult) {
	g := skill.Gate{ID: skill.GateTraceCompleteness, EvidenceRef: "trace.trace_id"}
	edges := b.Trace.Edges
	var problems []string
	hashed := 0
	if len(edges) == 0 {
		problems = append(problems, "the trace has no edges")
	}
	seen := map[string]bool{}
	var last time.Time
	start, startErr := time.Parse(time.RFC3339Nano, b.Trace.StartedAt)
	end, endErr := time.Parse(time.RFC3339Nano, b.Trace.EndedAt)
	if startErr == nil && endErr == nil && end.Before(start) {
		problems = append(problems, "the trace ends before it starts")
	}
	for i, e := range edges {
		if e.TypedAction.Type == "" {
			problems = append(problems, fmt.Sprintf("edge %d has no typed action", i))
		}
		if isHash(e.StateBefore) && isHash(e.StateAfter) {
			hashed++
		} else {
			problems = append(problems, fmt.Sprintf("edge %d lacks a sha256 state_before or state_after", i))
		}
		if e.Index != i {
			problems = append(problems, fmt.Sprintf("edge at position %d has index %d", i, e.Index))
		}
		if e.EdgeID == "" || seen[e.EdgeID] {
			problems = append(problems, fmt.Sprintf("edge %d has a missing or repeated edge_id", i))
		}
		seen[e.EdgeID] = true
		ts, err := time.Parse(time.RFC3339Nano, e.Provenance.Timestamp)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("edge %d has no RFC 3339 provenance.timestamp", i))
		case ts.Before(last):
			problems = append(problems, fmt.Sprintf("edge %d happened before edge %d", i, i-1))
		case startErr == nil && ts.Before(start), endErr == nil && ts.After(end):
			problems = append(problems, fmt.Sprintf("edge %d lies outside the trace's started_at..ended_at", i))
		}
		if err == nil {
			last = ts
		}
	}
	inv := skill.InvariantResult{ID: skill.InvStateHashPerEdge, Held: len(edges) > 0 && hashed == len(edges), CheckedN: intp(len(edges))}
	if len(problems) > 0 {
		g.Verdict, g.Reason = skill.VerdictFail, joinReasons(problems)
		return g, inv
	}
	g.Verdict = skill.VerdictPass
	g.Reason = fmt.Sprintf("%d edges, each with state hashes, in order", len(edges))
	return g, inv
}

// authority checks gate.authority: every edge carries a decision from the
// policy the manifest names, and every edge that acted was allowed. A
// denied action, even one that was correctly stopped, means the skill as
// demonstrated needs authority it was not given.
func authority(b *skill.Bundle, replay *skill.ReplayRecord) (skill.Gate, skill.InvariantResult, skill.AuthorityResult) {
	policy := b.Manifest.DelegaticPolicyID
	g := skill.Gate{ID: skill.GateAuthority, EvidenceRef: "authorization.block_id"}
	res := skill.AuthorityResult{PolicyID: policy, Denials: []skill.Denial{}}
	var problems []string
	authorized := 0
	if policy == "" {
		problems = append(problems, "the manifest names no delegatic_policy_id, so no policy is in scope")
	}
	for i, e := range b.Trace.Edges {
		a := e.Authorization
		switch {
		case a == nil:
			problems = append(problems, fmt.Sprintf("edge %d has no authorization block", i))
			continue
		case policy != "" && a.PolicyID != policy:
			problems = append(problems, fmt.Sprintf("edge %d was decided under policy %q, not %q", i, a.PolicyID, policy))
			continue
		}
		switch a.Decision {
		case skill.DecisionAllow:
			authorized++
		case skill.DecisionDeny, skill.DecisionApprovalRequired:
			res.Denials = append(res.Denials, skill.Denial{Capability: edgeCapability(e), Reason: a.Reason, EdgeIndex: intp(i)})
			if e.OutcomeStatus == skill.OutcomeDenied && e.StateAfter == e.StateBefore {
				authorized++ // stopped before acting: authorization did its job
				problems = append(problems, fmt.Sprintf("edge %d was denied: %s", i, a.Reason))
			} else {
				problems = append(problems, fmt.Sprintf("edge %d acted although its decision was %s", i, a.Decision))
			}
		default:
			problems = append(problems, fmt.Sprintf("edge %d has decision %q", i, a.Decision))
		}
	}
	if replay != nil {
		for _, re := range replay.Edges {
			if re.Committed && re.Authorization != nil && re.Authorization.Decision != skill.DecisionAllow {
				problems = append(problems, fmt.Sprintf("replay committed edge %d although re-authorization said %s", re.Index, re.Authorization.Decision))
			}
		}
	}
	n := len(b.Trace.Edges)
	switch {
	case len(res.Denials) == 0:
		res.Decision = skill.DecisionAllow
	case len(res.Denials) == n:
		res.Decision = skill.DecisionDeny
	default:
		res.Decision = "partial"
	}
	inv := skill.InvariantResult{ID: skill.InvEveryActionAuthorized, Held: n > 0 && authorized == n, CheckedN: intp(n)}
	if len(problems) > 0 {
		g.Verdict, g.Reason = skill.VerdictFail, joinReasons(problems)
		return g, inv, res
	}
	g.Verdict = skill.VerdictPass
	g.Reason = fmt.Sprintf("all %d actions allowed by %s", n, policy)
	return g, inv, res
}

// noHiddenCapability checks spec §7.6: every capability used is declared
// in capabilities_required or is ambient.
func noHiddenCapability(b *skill.Bundle) skill.Gate {
	g := skill.Gate{ID: skill.GateNoHiddenCapability, EvidenceRef: "manifest.capabilities_required"}
	declared := map[string]bool{skill.CapabilityAmbient: true}
	for _, c := range b.Manifest.CapabilitiesRequired {
		declared[c] = true
	}
	var problems []string
	for i, e := range b.Trace.Edges {
		c := edgeCapability(e)
		switch {
		case c == "":
			problems = append(problems, fmt.Sprintf("edge %d does not say which capability it used", i))
		case !declared[c]:
			problems = append(problems, fmt.Sprintf("edge %d used %s, which capabilities_required does not declare", i, c))
		}
	}
	if len(problems) > 0 {
		g.Verdict, g.Reason = skill.VerdictFail, joinReasons(problems)
		return g
	}
	g.Verdict = skill.VerdictPass
	g.Reason = "every capability used is declared in the manifest or ambient"
	return g
}

// latestReplay returns the data of the last workbench.v1.ReplayExecuted
// event, the replay the proof cites (DESIGN §12). It decodes the record
// straight from the bundle document rather than from the generic event data.
func latestReplay(b *skill.Bundle, doc *canonjson.Document) (*skill.ReplayRecord, error) {
	for i := len(b.Evidence.Events) - 1; i >= 0; i-- {
		if b.Evidence.Events[i].Type != skill.EventReplayExecuted {
			continue
		}
		ptr := fmt.Sprintf("/evidence/events/%d/data", i)
		var rec skill.ReplayRecord
		if _, err := doc.DecodeAt(ptr, &rec); err != nil {
			return nil, fmt.Errorf("%s is not a replay record: %w", ptr, err)
		}
		return &rec, nil
	}
	return nil, nil
}

var proofStatus = map[string]string{
	skill.StatusSuccess:                skill.StatusSuccess,
	skill.StatusHalted:                 skill.ProofReplayHalted,
	skill.StatusCompletedWithSurprises: skill.StatusCompletedWithSurprises,
}

// replayFidelity re-derives gate.replay_fidelity from the replay record
// against the trace's recorded hashes. No replay, no proof: without a
// record the gate is inconclusive.
func replayFidelity(b *skill.Bundle, rec *skill.ReplayRecord, recErr error) (skill.Gate, skill.ReplayResult) {
	g := skill.Gate{ID: skill.GateReplayFidelity}
	res := skill.ReplayResult{Status: skill.ProofReplayNotRun, FidelityLevel: skill.LevelInconclusive}
	if recErr != nil {
		g.Verdict, g.Level, g.Reason = skill.VerdictFail, skill.LevelFailed, recErr.Error()
		res.FidelityLevel = skill.LevelFailed
		return g, res
	}
	if rec == nil {
		g.Verdict, g.Level = skill.VerdictInconclusive, skill.LevelInconclusive
		g.Reason = "no replay has run; a skill is proven by replay, not by its demonstration"
		return g, res
	}
	r := rec.Report
	g.EvidenceRef = "replay_report." + r.ReplayID
	res.EdgesAttempted, res.EdgesCommitted, res.HaltedAtEdge = r.EdgesAttempted, r.EdgesCommitted, r.HaltedAtEdge
	if s, ok := proofStatus[r.Status]; ok {
		res.Status = s
	}

	edges := b.Trace.Edges
	var problems []string
	if r.SkillID != b.SkillID {
		problems = append(problems, fmt.Sprintf("the replay ran skill %s, not this bundle's %s", r.SkillID, b.SkillID))
	}
	attempted, committed, structural := 0, 0, 0
	haltAt := -1
	for _, re := range rec.Edges {
		if re.Index < 0 || re.Index >= len(edges) {
			problems = append(problems, fmt.Sprintf("replay edge %d is not in the trace", re.Index))
			continue
		}
		if re.Match == skill.MatchNotRun {
			continue
		}
		attempted++
		want := edges[re.Index]
		got := skill.MatchMismatch
		switch {
		case re.ObservedStateAfter != "" && re.ObservedStateAfter == want.StateAfter:
			got = skill.MatchExact
		case re.ObservedShapeAfter != "" && re.ObservedShapeAfter == want.ShapeAfter:
			got = skill.MatchStructural
		}
		if re.Match != got {
			problems = append(problems, fmt.Sprintf("replay edge %d claims %s but its observed hashes give %s", re.Index, re.Match, got))
		}
		switch {
		case re.Committed && got == skill.MatchMismatch:
			problems = append(problems, fmt.Sprintf("replay committed edge %d although its state diverged", re.Index))
		case re.Committed:
			committed++
			if got == skill.MatchStructural {
				structural++
			}
		case haltAt < 0:
			haltAt = re.Index
		}
	}
	if attempted != r.EdgesAttempted || committed != r.EdgesCommitted {
		problems = append(problems, fmt.Sprintf("the report counts %d attempted / %d committed edges, the per-edge record %d / %d",
			r.EdgesAttempted, r.EdgesCommitted, attempted, committed))
	}
	if attempted > 0 && math.Abs(r.Fidelity-float64(committed)/float64(attempted)) > 1e-9 {
		problems = append(problems, fmt.Sprintf("fidelity %v is not edges_committed / edges_attempted = %d/%d", r.Fidelity, committed, attempted))
	}

	// What the evidence supports, whatever the report says.
	level := skill.LevelExact
	status := skill.StatusSuccess
	switch {
	case haltAt >= 0 || committed < len(edges):
		level, status = skill.LevelFailed, skill.StatusHalted
	case structural > 0 && rec.ExpectedLevel == skill.LevelExact:
		level, status = skill.LevelStructural, skill.StatusCompletedWithSurprises
	case structural > 0 || rec.ExpectedLevel == skill.LevelStructural:
		level = skill.LevelStructural
	}
	if r.FidelityLevel == skill.LevelSemantic && level == skill.LevelStructural {
		if b.Evidence.Judge == nil {
			level = skill.LevelInconclusive
			problems = append(problems, "the report claims semantic fidelity but the evidence holds no judge output")
		} else {
			level = skill.LevelSemantic
		}
	}
	if r.Status != status {
		problems = append(problems, fmt.Sprintf("the report's status is %s but the evidence gives %s", r.Status, status))
	}
	if r.FidelityLevel != level && r.FidelityLevel != skill.LevelInconclusive {
		problems = append(problems, fmt.Sprintf("the report's fidelity_level is %s but the evidence gives %s", r.FidelityLevel, level))
	}
	res.FidelityLevel = level
	res.Status = proofStatus[status]
	if status == skill.StatusHalted {
		res.HaltedAtEdge = intp(max(haltAt, committed))
	}
	g.Level = level

	switch {
	case len(problems) > 0:
		g.Verdict, g.Reason = skill.VerdictFail, joinReasons(problems)
		if level != skill.LevelFailed {
			g.Level = skill.LevelFailed
			res.FidelityLevel = skill.LevelFailed
		}
	case r.FidelityLevel == skill.LevelInconclusive || level == skill.LevelInconclusive:
		g.Verdict, g.Level, res.FidelityLevel = skill.VerdictInconclusive, skill.LevelInconclusive, skill.LevelInconclusive
		g.Reason = "the replay could not assign a fidelity level"
	case status == skill.StatusHalted:
		g.Verdict = skill.VerdictFail
		g.Reason = fmt.Sprintf("replay halted at edge %d after committing %d of %d edges", *res.HaltedAtEdge, committed, len(edges))
	case status == skill.StatusCompletedWithSurprises:
		g.Verdict = skill.VerdictPartial
		g.Reason = fmt.Sprintf("all %d edges replayed, %d only structurally where exact was expected", len(edges), structural)
	default:
		g.Verdict = skill.VerdictPass
		g.Reason = fmt.Sprintf("all %d edges replayed at %s fidelity", len(edges), level)
	}
	return g, res
}

// verdictRank orders verdicts from worst to best for the overall verdict
// and for spotting overclaims.
var verdictRank = map[string]int{
	skill.VerdictFail:         0,
	skill.VerdictInconclusive: 1,
	skill.VerdictPartial:      2,
	skill.VerdictPass:         3,
}

// overall combines gate verdicts (DESIGN §6): fail if any gate fails, else
// inconclusive if any is, else partial if any is, else pass; n/a is neutral.
func overall(gates []skill.Gate) string {
	best := skill.VerdictPass
	for _, g := range gates {
		r, ok := verdictRank[g.Verdict]
		if !ok {
			if g.Verdict == skill.VerdictNotApplicable {
				continue
			}
			return skill.VerdictFail // an unknown verdict proves nothing
		}
		if r < verdictRank[best] {
			best = g.Verdict
		}
	}
	return best
}

var levelRank = map[string]int{
	skill.LevelFailed:       0,
	skill.LevelInconclusive: 1,
	skill.LevelStructural:   2,
	skill.LevelSemantic:     3,
	skill.LevelExact:        4,
}
