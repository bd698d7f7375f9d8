package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"workbench/pkg/canonjson"
	"workbench/pkg/redact"
	"workbench/pkg/skill"
)

// Foreign is a bundle in the shape the other implementation of the spec
// writes, read without taking it for a conforming one: what its proof
// claims, gate by gate, beside what its own contents support under spec
// v0.1 and why. Such a bundle fails the bundle schema (its edges are not
// OS-011 edges), so it is never stored; this reading is only shown.
//
// That implementation writes edges of the form {index, ts, kind,
// capability?, tool_call?, observation?, state_hash?}: one state_hash per
// edge, the hash of the edge's recorded observation, and no
// state_before/state_after, typed action or authorization decision. Its
// verifier passes the replay gate by re-hashing those observations, with
// no replay record; it records the redaction profile in
// proof.redaction_result rather than evidence.redaction_profile; and its
// evidence re-projects the trace and a first proof (scenario_ref, system
// {name, version}). Its gates carry Invariant Arithmetic laws.
type Foreign struct {
	// Marks say what gave the shape away; at least two of the three are
	// needed (readForeign).
	Marks []string `json:"marks"`
	// Claimed is the proof's overall_verdict as written.
	Claimed string `json:"claimed_verdict"`
	// Verdict is what the bundle's contents support under spec v0.1,
	// combined from Gates as a proof's overall verdict is.
	Verdict string `json:"verdict"`
	// Gates are the six gates of spec §5.4 in the spec's order.
	Gates []ForeignGate `json:"gates"`
	// Overclaims are the gates, levels and overall verdict claimed better
	// than the contents support.
	Overclaims []Overclaim `json:"overclaims"`
}

// ForeignGate is one gate of a Foreign bundle.
type ForeignGate struct {
	ID string `json:"id"`
	// Claimed, ClaimedLevel and ClaimedReason are the gate as its proof
	// writes it; Claimed is "" when the proof has no such gate.
	Claimed       string `json:"claimed"`
	ClaimedLevel  string `json:"claimed_level,omitempty"`
	ClaimedReason string `json:"claimed_reason,omitempty"`
	// Verdict and Level are what the contents support under spec v0.1,
	// and Why says why, in a sentence.
	Verdict string `json:"verdict"`
	Level   string `json:"level,omitempty"`
	Why     string `json:"why"`
}

// Headline is the one line to read first about a Foreign bundle.
func (f *Foreign) Headline(hash *HashCheck) string {
	h := fmt.Sprintf("a bundle in the other implementation's shape, not spec v0.1's, read only: it claims %s; under spec v0.1 its contents give %s",
		strings.ToUpper(f.Claimed), strings.ToUpper(f.Verdict))
	if n := len(f.Overclaims); n > 0 {
		h += " (" + count(n, "overclaim") + ")"
	}
	switch {
	case hash == nil:
		h += "; no content hash"
	case hash.Intact:
		h += "; content hash intact"
	default:
		h += "; content hash STALE"
	}
	return h
}

// Marks of the other implementation's shape.
const (
	markEdges    = "its edges carry `kind` and `ts` and no `state_before`/`state_after`"
	markIA       = "its proof carries Invariant Arithmetic `law`s or `ia_substrate`"
	markEvidence = "its evidence re-projects the trace (`scenario_ref`, `system.name`)"
)

// Kinds of edge that act, as the other implementation names them; its
// other kinds (user_message, assistant_message, perception, observe) are
// records of a conversation or an observation.
var foreignActKinds = []string{"act", "mcp_call", "tool_call"}

// foreignEdge is what the reading needs of one edge.
type foreignEdge struct {
	m             object
	capability    string
	acts          bool // it names a tool call, a non-ambient capability or an acting kind
	stateHash     bool // it carries one state_hash
	observationOK bool // that state_hash is the hash of its observation
}

// readForeign reads doc, a bundle document that failed the bundle schema,
// as the other implementation's bundle; nil when it is not in that shape.
// hash is doc's content hash recomputed (checkHash), nil when it claims
// none.
func readForeign(doc *canonjson.Document, hash *HashCheck) *Foreign {
	if doc == nil || !doc.IsObject() || !looksLikeBundle(doc) {
		return nil
	}
	// The two marks that cost nothing come first: a document with neither
	// (a hostile one with millions of edges, say) is not read further.
	var marks []string
	if _, ok := doc.At("/proof/ia_substrate"); ok || foreignGateHasLaw(doc) {
		marks = append(marks, markIA)
	}
	if _, ok := doc.At("/evidence/scenario_ref"); ok {
		marks = append(marks, markEvidence)
	}
	if len(marks) == 0 {
		return nil
	}
	edges := foreignEdges(doc)
	shaped := len(edges) > 0
	for _, e := range edges {
		if e.m.text("kind") == "" || e.m.has("state_before") || e.m.has("state_after") {
			shaped = false
		}
	}
	if shaped {
		marks = append([]string{markEdges}, marks...)
	}
	if len(marks) < 2 {
		return nil
	}
	f := &Foreign{Marks: marks, Claimed: textAt(doc, "/proof/overall_verdict")}

	found := map[string]ForeignGate{
		skill.GateContentHash:        foreignContentHash(hash),
		skill.GateTraceCompleteness:  foreignTrace(edges),
		skill.GateReplayFidelity:     foreignReplay(doc, edges),
		skill.GateAuthority:          foreignAuthority(doc, edges),
		skill.GateRedactionVerify:    foreignRedaction(doc, edges),
		skill.GateNoHiddenCapability: foreignCapabilities(doc, edges),
	}
	claimed := foreignClaims(doc)
	var gates []skill.Gate
	for _, id := range skill.GateIDs() {
		g := found[id]
		g.ID = id
		if c, ok := claimed[id]; ok {
			g.Claimed, g.ClaimedLevel, g.ClaimedReason = c.Verdict, c.Level, c.Reason
			if verdictBetter(c.Verdict, g.Verdict) {
				f.Overclaims = append(f.Overclaims, Overclaim{What: id, Claimed: c.Verdict, Derived: g.Verdict})
			}
			if c.Level != "" && g.Level != "" && levelRank[c.Level] > levelRank[g.Level] {
				f.Overclaims = append(f.Overclaims, Overclaim{What: id + ".level", Claimed: c.Level, Derived: g.Level})
			}
		}
		f.Gates = append(f.Gates, g)
		gates = append(gates, skill.Gate{ID: id, Verdict: g.Verdict})
	}
	f.Verdict = overall(gates)
	if verdictBetter(f.Claimed, f.Verdict) {
		f.Overclaims = append(f.Overclaims, Overclaim{What: "overall_verdict", Claimed: f.Claimed, Derived: f.Verdict})
	}
	return f
}

// textAt is the string at ptr in doc, "" when there is none.
func textAt(doc *canonjson.Document, ptr string) string {
	if v, ok := doc.At(ptr); ok && v.Type() == canonjson.String {
		return v.Text()
	}
	return ""
}

// object is an object's members by name; empty for another kind of value.
type object map[string]canonjson.Value

func members(v canonjson.Value) object {
	m := object{}
	if v.Type() == canonjson.Object {
		for name, mv := range v.Members() {
			m[name] = mv
		}
	}
	return m
}

func (o object) has(name string) bool {
	_, ok := o[name]
	return ok
}

// text is member name's string, "" when it is absent or not a string.
func (o object) text(name string) string {
	if v, ok := o[name]; ok && v.Type() == canonjson.String {
		return v.Text()
	}
	return ""
}

// object is member name's members, empty when it is absent or not an
// object.
func (o object) object(name string) object {
	if v, ok := o[name]; ok {
		return members(v)
	}
	return object{}
}

func foreignGateHasLaw(doc *canonjson.Document) bool {
	gates, ok := doc.At("/proof/proof_gates")
	if !ok || gates.Type() != canonjson.Array {
		return false
	}
	for _, g := range gates.Elements() {
		if m := members(g); m.has("law") || m.has("invariant_family") {
			return true
		}
	}
	return false
}

// foreignClaims are the proof's gates by id, as written.
func foreignClaims(doc *canonjson.Document) map[string]skill.Gate {
	out := map[string]skill.Gate{}
	gates, ok := doc.At("/proof/proof_gates")
	if !ok || gates.Type() != canonjson.Array {
		return out
	}
	for _, g := range gates.Elements() {
		m := members(g)
		if id := m.text("id"); id != "" {
			if _, dup := out[id]; !dup {
				out[id] = skill.Gate{ID: id, Verdict: m.text("verdict"), Level: m.text("level"), Reason: m.text("reason")}
			}
		}
	}
	return out
}

func foreignEdges(doc *canonjson.Document) []foreignEdge {
	arr, ok := doc.At("/interaction_trace/edges")
	if !ok || arr.Type() != canonjson.Array {
		return nil
	}
	edges := make([]foreignEdge, 0, arr.Len())
	for _, v := range arr.Elements() {
		e := foreignEdge{m: members(v)}
		e.capability = e.m.text("capability")
		e.acts = e.m.has("tool_call") || slices.Contains(foreignActKinds, e.m.text("kind")) ||
			e.capability != "" && e.capability != skill.CapabilityAmbient
		if sh, ok := e.m["state_hash"]; ok && sh.Type() == canonjson.String {
			e.stateHash = true
			if obs, ok := e.m["observation"]; ok {
				if form, err := canonjson.Transform(obs.Raw()); err == nil {
					sum := sha256.Sum256(form)
					e.observationOK = sh.Text() == skill.HashPrefix+hex.EncodeToString(sum[:])
				}
			}
		}
		edges = append(edges, e)
	}
	return edges
}

func foreignContentHash(hash *HashCheck) ForeignGate {
	switch {
	case hash == nil:
		return ForeignGate{Verdict: skill.VerdictFail, Why: "it has no content_hash string"}
	case !hash.Intact:
		return ForeignGate{Verdict: skill.VerdictFail, Why: fmt.Sprintf("the content hashes to %s, not to its content_hash: it changed after it was sealed", hash.Computed)}
	}
	return ForeignGate{Verdict: skill.VerdictPass, Why: "the content hashes to its content_hash as both implementations compute it (RFC 8785, without content_hash and signature): the file is as its producer sealed it, which says nothing of what it proves"}
}

// foreignTrace: spec §3 step 1 asks every action for state_hash_before
// and state_hash_after, which OS-011 §4 names state_before/state_after.
func foreignTrace(edges []foreignEdge) ForeignGate {
	n, typed, single, sealed, bad := len(edges), 0, 0, 0, 0
	for i, e := range edges {
		if e.m.has("typed_action") && isHash(e.m.text("state_before")) && isHash(e.m.text("state_after")) {
			typed++
		}
		if e.stateHash {
			single++
		}
		if e.observationOK {
			sealed++
		}
		if idx, ok := e.m["index"]; !ok || idx.Type() != canonjson.Number || string(idx.Raw()) != strconv.Itoa(i) {
			bad++
		}
	}
	if n == 0 {
		return ForeignGate{Verdict: skill.VerdictFail, Why: "the trace has no edges"}
	}
	if typed == n && bad == 0 {
		return ForeignGate{Verdict: skill.VerdictPass, Why: fmt.Sprintf("%s, each a typed action with state_before and state_after", count(n, "edge"))}
	}
	why := fmt.Sprintf("%d of its %s %s an OS-011 typed action with `state_before` and `state_after` (spec §3 step 1 asks both hashes of every action)",
		n-typed, count(n, "edge"), isOrAre(n-typed, "is not", "are not"))
	if typed == 0 && n == 1 {
		why = "its one edge is not an OS-011 typed action with `state_before` and `state_after` (spec §3 step 1 asks both hashes of every action)"
	} else if typed == 0 {
		why = fmt.Sprintf("none of its %s is an OS-011 typed action with `state_before` and `state_after` (spec §3 step 1 asks both hashes of every action)", count(n, "edge"))
	}
	switch {
	case single > 0 && sealed == single:
		why += fmt.Sprintf("; %d %s one `state_hash`, the hash of the edge's own recorded observation: a seal on what was written down, not the body's state before and after", single, isOrAre(single, "carries", "carry"))
	case single > 0:
		why += fmt.Sprintf("; %d %s one `state_hash` (%d of them the hash of the edge's recorded observation)", single, isOrAre(single, "carries", "carry"), sealed)
	}
	if none := n - single - typed; none > 0 {
		why += fmt.Sprintf("; %d %s no state hash at all", none, isOrAre(none, "carries", "carry"))
	}
	if bad > 0 {
		why += fmt.Sprintf("; %d %s not at the index it names", bad, isOrAre(bad, "is", "are"))
	}
	return ForeignGate{Verdict: skill.VerdictFail, Why: why}
}

func isOrAre(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// foreignReplay: a replay proves only as a record of re-running the edges
// (spec §5.3, OS-011 §5.4); without one the gate is inconclusive, as for
// the workbench's own bundles.
func foreignReplay(doc *canonjson.Document, edges []foreignEdge) ForeignGate {
	g := ForeignGate{Verdict: skill.VerdictInconclusive, Level: skill.LevelInconclusive}
	records := 0
	if evs, ok := doc.At("/evidence/events"); ok && evs.Type() == canonjson.Array {
		for _, ev := range evs.Elements() {
			if members(ev).text("type") == skill.EventReplayExecuted {
				records++
			}
		}
	}
	status := textAt(doc, "/proof/replay_result/status")
	switch {
	case records > 0:
		g.Why = fmt.Sprintf("%s in its evidence, but over edges that are not OS-011 edges, so no state can be compared", count(records, "replay record"))
	case status == "" || status == skill.ProofReplayNotRun:
		g.Why = "no replay record in the bundle (spec §5.3), and none is claimed"
	default:
		sealed := 0
		for _, e := range edges {
			if e.observationOK {
				sealed++
			}
		}
		how := "walking the recorded edges again without running them"
		if sealed > 0 {
			how = fmt.Sprintf("re-hashing the observations recorded on %s, which re-runs nothing against a body", count(sealed, "edge"))
		}
		g.Why = fmt.Sprintf("no replay record in the bundle (spec §5.3): the claimed `%s` rests on %s (OS-011 §5.4 replays each edge against the body)", status, how)
	}
	return g
}

// foreignAuthority: spec §7.4 records every authorization decision into
// the bundle; DESIGN §7 asks one allow decision of each action.
func foreignAuthority(doc *canonjson.Document, edges []foreignEdge) ForeignGate {
	actions, allowed := 0, 0
	for _, e := range edges {
		if !e.acts {
			continue
		}
		actions++
		if e.m.object("authorization").text("decision") == skill.DecisionAllow {
			allowed++
		}
	}
	blocks := 0
	if bs, ok := doc.At("/proof/authority_result/authorization_blocks"); ok && bs.Type() == canonjson.Array {
		blocks = bs.Len()
	}
	switch {
	case actions == 0:
		return ForeignGate{Verdict: skill.VerdictNotApplicable, Why: "no edge acted"}
	case allowed == actions:
		return ForeignGate{Verdict: skill.VerdictPass, Why: fmt.Sprintf("each of its %s records an allow decision", count(actions, "action"))}
	}
	why := fmt.Sprintf("%d of its %s %s no allow decision (spec §7.4 records every decision into the bundle)",
		actions-allowed, count(actions, "action"), isOrAre(actions-allowed, "records", "record"))
	if allowed == 0 && actions == 1 {
		why = "its one action records no authorization decision (spec §7.4 records every decision into the bundle)"
	} else if allowed == 0 {
		why = fmt.Sprintf("none of its %s records an authorization decision (spec §7.4 records every decision into the bundle)", count(actions, "action"))
	}
	if d := textAt(doc, "/proof/authority_result/decision"); d != "" {
		why += fmt.Sprintf("; `authority_result.decision: %s` states a result with no decision under it", d)
	}
	if blocks > 0 {
		why += fmt.Sprintf("; its %s name no edge and carry tokens only the server that issued them can check",
			count(blocks, "authorization block"))
	}
	return ForeignGate{Verdict: skill.VerdictFail, Why: why}
}

// foreignRedaction: the other implementation records the profile in
// proof.redaction_result, where spec §6 puts evidence.redaction_profile,
// and lists no stripped fields; what can be checked is that no string
// still holds a secret.
func foreignRedaction(doc *canonjson.Document, edges []foreignEdge) ForeignGate {
	profile := textAt(doc, "/evidence/redaction_profile")
	where := "evidence.redaction_profile"
	if profile == "" || profile == skill.RedactionNone {
		if p := textAt(doc, "/proof/redaction_result/profile"); p != "" {
			profile, where = p, "proof.redaction_result, where spec §6 puts evidence.redaction_profile"
		}
	}
	if profile == "" || profile == skill.RedactionNone {
		return ForeignGate{Verdict: skill.VerdictNotApplicable, Why: "redaction profile none"}
	}
	lost := 0
	for _, e := range edges {
		if e.m.has("observation") && !e.stateHash {
			lost++
		}
	}
	why := fmt.Sprintf("profile %s, recorded in %s", profile, where)
	if lost > 0 {
		why += fmt.Sprintf("; %s %s an observation without its state_hash, dropped when masking changed it", count(lost, "edge"), isOrAre(lost, "keeps", "keep"))
	}
	findings, err := redact.NewDetector().Scan(doc.Generic())
	switch {
	case err != nil:
		return ForeignGate{Verdict: skill.VerdictFail, Why: why + "; its strings cannot be scanned: " + err.Error()}
	case len(findings) > 0:
		return ForeignGate{Verdict: skill.VerdictFail, Why: fmt.Sprintf("%s; %s still hold a secret: %s", why, count(len(findings), "string"), findings[0])}
	}
	return ForeignGate{Verdict: skill.VerdictInconclusive, Why: why + "; no `fields_stripped` says what was removed, so the stripping cannot be checked; no string holds a secret the workbench recognises"}
}

// foreignCapabilities: spec §7.6, every capability used is declared in
// capabilities_required or is ambient.
func foreignCapabilities(doc *canonjson.Document, edges []foreignEdge) ForeignGate {
	declared := map[string]bool{skill.CapabilityAmbient: true}
	if cs, ok := doc.At("/manifest/capabilities_required"); ok && cs.Type() == canonjson.Array {
		for _, c := range cs.Elements() {
			if c.Type() == canonjson.String {
				declared[c.Text()] = true
			}
		}
	}
	var problems []string
	silent := 0
	for i, e := range edges {
		switch {
		case e.capability != "" && !declared[e.capability]:
			problems = append(problems, fmt.Sprintf("edge %d used %s, which capabilities_required does not declare", i, e.capability))
		case e.capability == "" && e.acts:
			problems = append(problems, fmt.Sprintf("edge %d acted without naming a capability", i))
		case e.capability == "":
			silent++
		}
	}
	if len(problems) > 0 {
		return ForeignGate{Verdict: skill.VerdictFail, Why: joinReasons(problems)}
	}
	why := "every capability its edges name is declared in the manifest or ambient"
	if silent > 0 {
		why += fmt.Sprintf("; %s that %s not act %s none", count(silent, "edge"), isOrAre(silent, "does", "do"), isOrAre(silent, "names", "name"))
	}
	return ForeignGate{Verdict: skill.VerdictPass, Why: why}
}
