package pulse

import "workbench/pkg/skill"

// Header opens every event's data: the token and its version (OS-010
// §10.1) and the interaction trace the event belongs to (OS-010 §7.7).
type Header struct {
	Token   string `json:"token"`
	Version string `json:"version"`
	TraceID string `json:"trace_id"`
}

// PhaseTransitionData is the audit event of one phase transition (OS-010
// §7.3): the phase entered, the one left (nil at the start of the loop),
// the transition's place in the run, when, and a signature.
//
// Signature is "sha256:" over the canonical JSON of loop, trace, phase,
// previous phase and sequence number: deterministic, unique within a run,
// and the same for a re-delivered copy, which is what OS-010 §5.6 asks of a
// deduplication key.
type PhaseTransitionData struct {
	Header
	LoopID    string `json:"loop_id"`
	PhaseID   Phase  `json:"phase_id"`
	PhaseKind Phase  `json:"phase_kind"`
	FromPhase *Phase `json:"from_phase"`
	Seq       int    `json:"seq"`
	Timestamp string `json:"timestamp"`
	Signature string `json:"signature"`
}

// Topology is what the retrieve phase found for a task: the goal and the
// skills already in the library that relate to it.
type Topology struct {
	// TaskID is the task's id; its description stays in the task, out of
	// the event.
	TaskID string
	// RelatedSkillIDs are skills the library offered for the goal.
	RelatedSkillIDs []string
}

// TopologyNode is a node of a TopologyContext: the goal or a related skill.
type TopologyNode struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// TopologyEdge links the goal to a related skill.
type TopologyEdge struct {
	Src  string `json:"src"`
	Dst  string `json:"dst"`
	Type string `json:"type"`
}

// TopologyContextData is OS-010 §6.1's TopologyContext for a workbench
// task. The graph is a star — the goal and edges to related skills — so it
// has no strongly connected component: max_kappa is 0 and routing "fast",
// by construction rather than by measurement.
type TopologyContextData struct {
	Header
	LoopID   string         `json:"loop_id"`
	Nodes    []TopologyNode `json:"nodes"`
	Edges    []TopologyEdge `json:"edges"`
	SCCs     []any          `json:"sccs"`
	SCCCount int            `json:"scc_count"`
	MaxKappa int            `json:"max_kappa"`
	Routing  string         `json:"routing"`
}

// Outcome is the result of an action, or of a whole run, and what it rests
// on (OS-010 §6.3, §7.6).
type Outcome struct {
	// ActionID names the action: an edge id, or the trace id for the run.
	ActionID string
	// Status is success, partial, failure or timeout.
	Status string
	// CausalParentIDs are the ids the outcome is attributed to, e.g. the
	// edges that produced it; never nil in the event.
	CausalParentIDs []string
	// Evidence is optional supporting data.
	Evidence any
}

// OutcomeSignal statuses (OS-010 §6.3).
const (
	OutcomeSuccess = "success"
	OutcomePartial = "partial"
	OutcomeFailure = "failure"
	OutcomeTimeout = "timeout"
)

// OutcomeSignalData is OS-010 §6.3's OutcomeSignal.
type OutcomeSignalData struct {
	Header
	ActionID        string   `json:"action_id"`
	Status          string   `json:"status"`
	CausalParentIDs []string `json:"causal_parent_ids"`
	Evidence        any      `json:"evidence,omitempty"`
	Timestamp       string   `json:"timestamp"`
}

// SurpriseSignalData is the SurpriseSignal token: OS-011 §8.2's fields (the
// token, version and trace id among them) plus the ReplayReport's kind,
// exactly as skill.SurpriseSignal carries them in a replay report.
type SurpriseSignalData = skill.SurpriseSignal

// OS-011 §8.2 surprise kinds.
var surpriseKinds = []string{"unexpected_navigation", "unexpected_unchanged", "unexpected_structure",
	"unexpected_error", "unexpected_permission", "unexpected_latency", "other"}

// Consolidation is what the consolidate phase produced: a sealed bundle.
type Consolidation struct {
	BundleID    string
	SkillID     string
	ContentHash string
}

// ConsolidationEventData is OS-010 §6.5's ConsolidationEvent for a sealed
// bundle: the trace and the skill were merged into the bundle, at the
// fast timescale (one run), and the result is stable (it is sealed).
type ConsolidationEventData struct {
	Header
	Timescale         string   `json:"timescale"`
	AffectedNodeIDs   []string `json:"affected_node_ids"`
	MergedIntoIDs     []string `json:"merged_into_ids"`
	ConvergenceStatus string   `json:"convergence_status"`
	BundleID          string   `json:"bundle_id"`
	SkillID           string   `json:"skill_id"`
	// ContentHash is the sealed bundle's hash when the event is kept
	// outside it; a bundle cannot carry its own hash, so inside one it is
	// left out.
	ContentHash string `json:"content_hash,omitempty"`
}

// SkillCrystallizedData says a trace became a skill: which skill and
// version, from which trace, needing which capabilities, and the hash of
// the manifest as crystallized (before the user edits its name).
type SkillCrystallizedData struct {
	Header
	SkillID              string   `json:"skill_id"`
	SkillVersion         int      `json:"skill_version"`
	DerivedFromTraceID   string   `json:"derived_from_trace_id"`
	CapabilitiesRequired []string `json:"capabilities_required"`
	ManifestHash         string   `json:"manifest_hash"`
}

// ReplayExecutedData carries one replay's full record (DESIGN §12): its
// ReplayReport and what it observed at every edge, from which a verifier
// re-derives gate.replay_fidelity.
type ReplayExecutedData struct {
	Header
	skill.ReplayRecord
}
