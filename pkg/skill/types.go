package skill

import (
	"encoding/json"

	"workbench/pkg/body"
)

// Versions written into every artifact this build produces.
const (
	BundleVersion      = "0.1.0"
	WorkbenchVersion   = "0.1.0"
	SpecVersion        = "0.1"
	AmpersandVersion   = "0.1.0"
	PulseVersion       = "0.1.1"
	PrismVersion       = "0.1.0"
	VerifierVersion    = "workbench-verify@0.1.0"
	DefaultPolicyID    = "workbench-default-v1"
	ManifestSchemaURI  = "https://opensentience.org/spec/skill-manifest/v0.1"
	ProofSchemaURI     = "https://opensentience.org/spec/proof-result/v0.1"
	BundleSchemaURI    = "https://opensentience.org/spec/skill-bundle/v0.1"
	EvidenceSchemaURI  = "https://opensentience.org/spec/evidence-bundle/v0.1"
	ReplaySchemaURI    = "https://opensentience.org/spec/replay-report/v0.1"
	ScenarioSchemaURI  = "https://opensentience.org/spec/workbench-fixture-scenario/v0.1"
	CapabilityAmbient  = "ambient"
	CapabilityBrowser  = "&body.browser"
	CapabilityOS       = "&body.os"
	CapabilityEpisodic = "&memory.episodic"
)

// Bundle is the SkillBundle of spec §5.1: one file per skill version, the
// unit that is exported, imported, hashed and verified. Its Proof is the
// producer's claim about the evidence; a reader re-derives it (package verify)
// rather than trusting it.
//
// Invariant: once sealed, ContentHash equals the hash of the bundle's other
// members (see Seal). Signature is the signature member as it stands in
// the file, nil for null; package signature reads and checks it, and the
// content hash never covers it.
type Bundle struct {
	BundleVersion    string          `json:"bundle_version"`
	BundleID         string          `json:"bundle_id"`
	SkillID          string          `json:"skill_id"`
	SkillVersion     int             `json:"skill_version"`
	CreatedAt        string          `json:"created_at"`
	WorkbenchVersion string          `json:"workbench_version"`
	Manifest         Manifest        `json:"manifest"`
	Trace            Trace           `json:"interaction_trace"`
	Proof            ProofResult     `json:"proof"`
	Evidence         Evidence        `json:"evidence"`
	ContentHash      string          `json:"content_hash"`
	Signature        json.RawMessage `json:"signature"`
}

// Manifest is the SkillManifest of spec §5.2: the user-facing description of
// a crystallized skill, what it needs and how it may be replayed. Name and
// description are the only members a user edits (spec §1.4).
type Manifest struct {
	Schema               string       `json:"schema"`
	SkillID              string       `json:"skill_id"`
	Name                 string       `json:"name"`
	Slug                 string       `json:"slug"`
	Description          string       `json:"description"`
	Version              int          `json:"version"`
	DerivedFromTraceID   string       `json:"derived_from_trace_id"`
	BodyChoice           body.Kind    `json:"body_choice"`
	Inputs               []InputSpec  `json:"inputs"`
	Outputs              []OutputSpec `json:"outputs"`
	Preconditions        []string     `json:"preconditions"`
	Binding              string       `json:"binding"`
	ValidatedAgainst     []Validation `json:"validated_against"`
	RegressionProbes     []any        `json:"regression_probes"`
	FallbackBehavior     string       `json:"fallback_behavior,omitempty"`
	CapabilitiesRequired []string     `json:"capabilities_required"`
	DelegaticPolicyID    string       `json:"delegatic_policy_id"`
	CreatedAt            string       `json:"created_at"`
	UpdatedAt            string       `json:"updated_at"`
}

// Fallback behaviours a manifest may declare (DESIGN §5).
const (
	FallbackHalt     = "halt_on_state_hash_mismatch"
	FallbackContinue = "continue_on_minor"
	FallbackAskUser  = "ask_user"
)

// InputSpec declares one named input of a skill. Type is one of string,
// number, boolean, url, json.
type InputSpec struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Description string `json:"description,omitempty"`
}

// OutputSpec declares one named output of a skill.
type OutputSpec struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Validation records one replay that validated the skill against a model.
type Validation struct {
	Model    string  `json:"model"`
	Fidelity float64 `json:"fidelity"`
	Level    string  `json:"level,omitempty"`
	TS       string  `json:"ts"`
}

// Trace is the OS-011 §4 InteractionTrace recorded during a demonstration.
// Outcome is one of success, partial, failure, aborted.
//
// Invariant: Edges are ordered by Index, starting at 0 without gaps.
type Trace struct {
	TraceID     string      `json:"trace_id"`
	BodySubtype string      `json:"body_subtype"`
	Provider    string      `json:"provider"`
	AgentID     string      `json:"agent_id"`
	StartedAt   string      `json:"started_at"`
	EndedAt     string      `json:"ended_at"`
	Environment Environment `json:"environment"`
	Edges       []Edge      `json:"edges"`
	Goal        string      `json:"goal"`
	Outcome     string      `json:"outcome"`

	// Extra holds members this build does not know, so that a trace from
	// another producer survives decoding and re-encoding unchanged.
	Extra map[string]json.RawMessage `json:"-"`
}

// Environment describes where a trace was recorded.
type Environment struct {
	OSFamily      string `json:"os_family"`
	BrowserFamily string `json:"browser_family"`
	Viewport      string `json:"viewport"`
	InitialURL    string `json:"initial_url"`
}

// Edge is one recorded step of a trace: OS-011 §4 TraceEdge plus the
// workbench's additions of DESIGN §3 (index, the concrete tool call, the
// capability used, shape signatures and parameter sources).
//
// Invariant for an action edge: StateBefore and StateAfter are
// "sha256:<hex>" hashes of the body's encoded state; ShapeBefore and
// ShapeAfter hash the state's skeleton. An edge refused by policy never acted,
// so its StateAfter equals its StateBefore and OutcomeStatus is "denied".
type Edge struct {
	EdgeID          string            `json:"edge_id"`
	Index           int               `json:"index"`
	StateBefore     string            `json:"state_before"`
	TypedAction     TypedAction       `json:"typed_action"`
	StateAfter      string            `json:"state_after"`
	LatencyMS       float64           `json:"latency_ms"`
	OutcomeStatus   string            `json:"outcome_status"`
	ObservedOutcome any               `json:"observed_outcome"`
	Authorization   *Authorization    `json:"authorization"`
	Provenance      Provenance        `json:"provenance"`
	Tool            ToolCall          `json:"tool"`
	Capability      string            `json:"capability,omitempty"`
	ShapeBefore     string            `json:"shape_before,omitempty"`
	ShapeAfter      string            `json:"shape_after,omitempty"`
	ParamSources    map[string]string `json:"param_sources"`
	// TS and Kind are the edge's time (provenance.timestamp again) and
	// what it is (EdgeKindAct): the members the other implementation of
	// the spec requires of every edge before it accepts a trace as
	// complete. Assembly writes them (package assemble); the verifier
	// reads provenance.timestamp and typed_action.
	TS   string `json:"ts,omitempty"`
	Kind string `json:"kind,omitempty"`

	// Extra holds members this build does not know (see Trace.Extra).
	Extra map[string]json.RawMessage `json:"-"`
}

// EdgeKindAct is the kind the workbench writes on each edge: every edge it
// records is a typed action. The other implementation also writes
// message and perception edges, which the workbench never records.
const EdgeKindAct = "act"

// Edge outcome statuses.
const (
	OutcomeOK     = "ok"
	OutcomeError  = "error"
	OutcomeDenied = "denied"
)

// Parameter sources (DESIGN §3): a parameter value was typed literally by the
// model, bound from a task input, or chosen by the model at run time.
const (
	SourceLiteral     = "literal"
	SourceInputPrefix = "input:"
	SourceLLM         = "llm"
)

// TypedAction is the OS-011 typed action an edge performed.
type TypedAction struct {
	Type            string           `json:"type"`
	Target          string           `json:"target"`
	SemanticLocator *SemanticLocator `json:"semantic_locator"`
	Params          map[string]any   `json:"params"`
	Preconditions   []string         `json:"preconditions"`
}

// SemanticLocator names the element an action targets by accessible role and
// name rather than by a volatile reference.
type SemanticLocator struct {
	Role string `json:"role"`
	Name string `json:"name"`
}

// Provenance says when an edge happened and through which capability and
// operation.
type Provenance struct {
	Timestamp  string `json:"timestamp"`
	Capability string `json:"capability"`
	Operation  string `json:"operation"`
}

// ToolCall is the concrete call an edge made on a body: the server (or
// "simulator"), the tool name and its arguments as sent.
type ToolCall struct {
	Server    string         `json:"server"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// Authorization is the decision block a policy engine returned for one
// action (DESIGN §7). Decision is allow, deny or approval_required.
type Authorization struct {
	BlockID    string `json:"block_id"`
	PolicyID   string `json:"policy_id"`
	Decision   string `json:"decision"`
	Capability string `json:"capability"`
	ActionType string `json:"action_type"`
	Reason     string `json:"reason"`
	DecidedAt  string `json:"decided_at"`
	Authorizer string `json:"authorizer"`
	Strength   string `json:"strength,omitempty"`
}

// Authorization decisions.
const (
	DecisionAllow            = "allow"
	DecisionDeny             = "deny"
	DecisionApprovalRequired = "approval_required"
)

// ReplayReport is the ReplayReport of spec §5.3. Status is success,
// halted_at_edge_N (literally; the edge is HaltedAtEdge) or
// completed_with_surprises. Fidelity is EdgesCommitted / EdgesAttempted.
type ReplayReport struct {
	ReplayID         string           `json:"replay_id"`
	SkillID          string           `json:"skill_id"`
	SkillVersion     int              `json:"skill_version"`
	Input            map[string]any   `json:"input"`
	StartedAt        string           `json:"started_at"`
	EndedAt          string           `json:"ended_at"`
	EdgesAttempted   int              `json:"edges_attempted"`
	EdgesCommitted   int              `json:"edges_committed"`
	Status           string           `json:"status"`
	HaltedAtEdge     *int             `json:"halted_at_edge"`
	SurpriseSignals  []SurpriseSignal `json:"surprise_signals"`
	Fidelity         float64          `json:"fidelity"`
	FidelityLevel    string           `json:"fidelity_level"`
	ModelUsed        string           `json:"model_used"`
	CostUSD          *float64         `json:"cost_usd"`
	EvidenceBundleID string           `json:"evidence_bundle_id"`
}

// NoModel is the model_used of a replay that made no model call: every
// parameter was bound from the recording or the input.
const NoModel = "none"

// Replay statuses (spec §3 step 3).
const (
	StatusSuccess                = "success"
	StatusHalted                 = "halted_at_edge_N"
	StatusCompletedWithSurprises = "completed_with_surprises"
)

// Fidelity levels (spec §5.5).
const (
	LevelExact        = "exact"
	LevelStructural   = "structural"
	LevelSemantic     = "semantic"
	LevelFailed       = "failed"
	LevelInconclusive = "inconclusive"
)

// SurpriseSignal records one divergence seen during replay. It carries both
// the ReplayReport's Kind and OS-011 §8.2's SurpriseKind, mapped, not chosen.
type SurpriseSignal struct {
	EdgeIndex          int          `json:"edge_index"`
	Kind               SurpriseKind `json:"kind"`
	Detail             string       `json:"detail,omitempty"`
	Token              string       `json:"token,omitempty"`
	Version            string       `json:"version,omitempty"`
	TraceID            string       `json:"trace_id,omitempty"`
	EdgeID             string       `json:"edge_id,omitempty"`
	BodySubtype        string       `json:"body_subtype,omitempty"`
	ActionType         string       `json:"action_type,omitempty"`
	PredictedStateHash string       `json:"predicted_state_hash,omitempty"`
	ActualStateHash    string       `json:"actual_state_hash,omitempty"`
	SurpriseMagnitude  float64      `json:"surprise_magnitude"`
	SurpriseKind       string       `json:"surprise_kind,omitempty"`
	Evidence           any          `json:"evidence,omitempty"`
	Timestamp          string       `json:"timestamp,omitempty"`
	Law                string       `json:"law,omitempty"`
	InvariantFamily    string       `json:"invariant_family,omitempty"`
}

// SurpriseKind is the ReplayReport's kind of a surprise signal.
type SurpriseKind string

// Surprise kinds of the ReplayReport.
const (
	KindStateHashMismatch SurpriseKind = "state_hash_mismatch"
	KindAffordanceDrift   SurpriseKind = "affordance_drift"
	KindPolicyDeny        SurpriseKind = "policy_deny"
	KindModelRefusal      SurpriseKind = "model_refusal"
	KindOther             SurpriseKind = "other"
)

// ProofResult is the ProofResult of spec §5.4: the verdict on a bundle's
// evidence. OverallVerdict is pass, partial, fail or inconclusive.
type ProofResult struct {
	Schema           string            `json:"schema"`
	VerifierVersion  string            `json:"verifier_version"`
	ComputedAt       string            `json:"computed_at"`
	OverallVerdict   string            `json:"overall_verdict"`
	ProofGates       []Gate            `json:"proof_gates"`
	InvariantResults []InvariantResult `json:"invariant_results"`
	AuthorityResult  AuthorityResult   `json:"authority_result"`
	RedactionResult  RedactionResult   `json:"redaction_result"`
	ReplayResult     ReplayResult      `json:"replay_result"`
	ConformanceCheck ConformanceCheck  `json:"conformance_check"`

	// IASubstrate is another implementation's optional declaration; kept,
	// never written by this one.
	IASubstrate map[string]any `json:"ia_substrate,omitempty"`
}

// Gate returns the proof's gate with the given id, and whether it has one.
func (p ProofResult) Gate(id string) (Gate, bool) {
	for _, g := range p.ProofGates {
		if g.ID == id {
			return g, true
		}
	}
	return Gate{}, false
}

// Verdicts of gates and of a whole proof. NotApplicable is for gates only.
const (
	VerdictPass          = "pass"
	VerdictPartial       = "partial"
	VerdictFail          = "fail"
	VerdictInconclusive  = "inconclusive"
	VerdictNotApplicable = "n/a"
)

// Gate ids (spec §5.4).
const (
	GateAuthority          = "gate.authority"
	GateTraceCompleteness  = "gate.trace_completeness"
	GateReplayFidelity     = "gate.replay_fidelity"
	GateRedactionVerify    = "gate.redaction_verify"
	GateContentHash        = "gate.content_hash"
	GateNoHiddenCapability = "gate.no_hidden_capability"
)

// Gate is one proof gate's verdict with what it rests on.
type Gate struct {
	ID          string `json:"id"`
	Verdict     string `json:"verdict"`
	EvidenceRef string `json:"evidence_ref,omitempty"`
	Level       string `json:"level,omitempty"`
	Reason      string `json:"reason,omitempty"`

	// Law and InvariantFamily are written by another implementation that
	// grounds gates in Invariant Arithmetic; this one reads and keeps them.
	Law             string `json:"law,omitempty"`
	InvariantFamily string `json:"invariant_family,omitempty"`
}

// Invariant ids (spec §5.4).
const (
	InvEveryActionAuthorized     = "inv.every_action_authorized"
	InvStateHashPerEdge          = "inv.state_hash_per_edge"
	InvBundleHashReproducible    = "inv.bundle_hash_reproducible"
	InvRedactedBundleStillVerify = "inv.redacted_bundle_still_verifies"
)

// InvariantResult says whether an invariant held. Held is a bool or the
// string "n/a".
type InvariantResult struct {
	ID       string `json:"id"`
	Held     any    `json:"held"`
	CheckedN *int   `json:"checked_n,omitempty"`
	Detail   string `json:"detail,omitempty"`
}

// AuthorityResult summarizes the authorization decisions in a bundle.
// Decision is allow, deny or partial.
type AuthorityResult struct {
	Decision string   `json:"decision"`
	PolicyID string   `json:"policy_id"`
	Denials  []Denial `json:"denials"`
}

// Denial is one refused action.
type Denial struct {
	Capability string `json:"capability"`
	Reason     string `json:"reason"`
	EdgeIndex  *int   `json:"edge_index,omitempty"`
}

// RedactionResult records what a redaction profile stripped, as JSON
// pointers into the bundle, and whether the re-sealed hash verified.
type RedactionResult struct {
	Profile                  string   `json:"profile"`
	FieldsStripped           []string `json:"fields_stripped"`
	PostRedactionHashMatches bool     `json:"post_redaction_hash_matches"`
}

// Redaction profiles (spec §7.3).
const (
	RedactionNone          = "none"
	RedactionTranscriptPII = "transcript_pii"
	RedactionFull          = "full"
)

// ReplayResult summarizes the replay a proof cites. Status is success,
// halted, completed_with_surprises or not_run (the proof vocabulary, which
// differs from the ReplayReport's halted_at_edge_N).
type ReplayResult struct {
	Status         string `json:"status"`
	FidelityLevel  string `json:"fidelity_level"`
	EdgesAttempted int    `json:"edges_attempted"`
	EdgesCommitted int    `json:"edges_committed"`
	HaltedAtEdge   *int   `json:"halted_at_edge"`
}

// Proof replay statuses.
const (
	ProofReplayHalted = "halted"
	ProofReplayNotRun = "not_run"
)

// ConformanceCheck names the fixture scenarios (spec §8.4) this bundle was
// checked against and which of their pass criteria it met.
type ConformanceCheck struct {
	SpecVersion    string   `json:"spec_version"`
	FixturesPassed []string `json:"fixtures_passed"`
	FixturesFailed []string `json:"fixtures_failed"`
}

// Evidence is the EvidenceBundle of spec §6: the PRISM-facing view of the
// same run. Scenario is open (extensions go there); the other members are the
// spec's.
type Evidence struct {
	Scenario              Scenario           `json:"scenario"`
	System                System             `json:"system"`
	CapabilitySnapshot    CapabilitySnapshot `json:"capability_snapshot"`
	PulseManifestSnapshot map[string]any     `json:"pulse_manifest_snapshot"`
	Trace                 OTelTrace          `json:"trace"`
	Events                []Event            `json:"events"`
	Transcript            []Turn             `json:"transcript"`
	ToolCalls             []ToolCallHash     `json:"tool_calls"`
	GraphonomousRefs      []GraphRef         `json:"graphonomous_refs"`
	Authorization         map[string]any     `json:"authorization"`
	Judge                 map[string]any     `json:"judge"`
	Score                 map[string]any     `json:"score"`
	EvidenceRefs          []EvidenceRef      `json:"evidence_refs"`
	RedactionProfile      string             `json:"redaction_profile"`
	Reproducibility       Reproducibility    `json:"reproducibility"`

	// Invariants is another implementation's optional declaration; kept,
	// never written by this one.
	Invariants map[string]any `json:"invariants,omitempty"`
}

// Scenario is the seed task framed as a PRISM scenario. ScenarioID is a
// fixture id (skill.*) or "freeform".
type Scenario struct {
	ScenarioID string         `json:"scenario_id"`
	Source     string         `json:"source,omitempty"`
	Manifest   map[string]any `json:"manifest"`
	Task       *Task          `json:"task,omitempty"`
	Inputs     map[string]any `json:"inputs,omitempty"`

	// Extra holds members this build does not know (see Trace.Extra).
	Extra map[string]json.RawMessage `json:"-"`
}

// Task is the user's seed goal (spec §4.1).
type Task struct {
	ID          string    `json:"id"`
	Description string    `json:"description"`
	BodyChoice  body.Kind `json:"body_choice"`
	CreatedAt   string    `json:"created_at"`
}

// System identifies the model that drove the run.
type System struct {
	SystemID string `json:"system_id"`
	Model    string `json:"model"`
	Provider string `json:"provider"`
	BYOKey   bool   `json:"byo_key,omitempty"`
}

// CapabilitySnapshot lists the [&] primitives and subtypes active at run time.
type CapabilitySnapshot struct {
	AmpersandVersion string   `json:"ampersand_version"`
	Primitives       []string `json:"primitives"`
	Subtypes         []string `json:"subtypes"`
}

// OTelTrace is an OpenTelemetry-compatible trace: TraceID is 32 lowercase
// hex (the interaction trace's UUID without hyphens), span ids 16 hex.
//
// Span times count nanoseconds from TimeOrigin. Absolute Unix nanoseconds
// (about 1.8e18) are integers beyond 2^53, which a double — what every
// JavaScript reader and RFC 8785 read a number as — cannot hold exactly:
// the bundle would hash rounded values and verify with warnings. Add
// TimeOrigin to get OTLP's absolute times.
type OTelTrace struct {
	TraceID    string `json:"trace_id"`
	TimeOrigin string `json:"time_origin,omitempty"`
	Spans      []Span `json:"spans"`
}

// Span is one timed unit of work: a PULSE phase or a tool call.
type Span struct {
	SpanID        string         `json:"span_id"`
	ParentSpanID  *string        `json:"parent_span_id"`
	Name          string         `json:"name"`
	StartUnixNano int64          `json:"start_unix_nano"`
	EndUnixNano   int64          `json:"end_unix_nano"`
	Attributes    map[string]any `json:"attributes,omitempty"`
	Phase         string         `json:"phase,omitempty"`
}

// Event is a CloudEvents v1 envelope carrying a PULSE token or a workbench
// token. Data is open.
type Event struct {
	SpecVersion     string `json:"specversion"`
	ID              string `json:"id"`
	Source          string `json:"source"`
	Type            string `json:"type"`
	Time            string `json:"time"`
	Subject         string `json:"subject,omitempty"`
	DataContentType string `json:"datacontenttype,omitempty"`
	TraceID         string `json:"trace_id,omitempty"`
	SpanID          string `json:"span_id,omitempty"`
	Data            any    `json:"data"`
}

// Event types the workbench emits (DESIGN §12).
const (
	PulseTypePrefix        = "org.opensentience.pulse."
	EventSkillCrystallized = "workbench.v1.SkillCrystallized"
	EventReplayExecuted    = "workbench.v1.ReplayExecuted"
)

// Turn is one LLM conversation turn. Content is nil once redacted.
type Turn struct {
	Turn     int     `json:"turn"`
	Role     string  `json:"role"`
	Content  *string `json:"content"`
	Redacted bool    `json:"redacted"`
}

// ToolCallHash records the hashes of one MCP (or simulated) tool call's
// request and response.
type ToolCallHash struct {
	SpanID       string `json:"span_id"`
	Server       string `json:"server"`
	Tool         string `json:"tool"`
	RequestHash  string `json:"request_hash"`
	ResponseHash string `json:"response_hash"`
	EdgeIndex    *int   `json:"edge_index,omitempty"`
	Body         string `json:"body,omitempty"`
}

// GraphRef is a Graphonomous node touched by the run.
type GraphRef struct {
	URI string `json:"uri"`
	Op  string `json:"op"`
}

// EvidenceRef anchors a claim with a W3C Web Annotation selector.
type EvidenceRef struct {
	Target     string         `json:"target"`
	Selector   map[string]any `json:"selector"`
	Motivation string         `json:"motivation,omitempty"`
}

// Reproducibility pins the versions a run depended on.
type Reproducibility struct {
	FlyRevisions             map[string]string `json:"fly_revisions,omitempty"`
	SupabaseMigrationCount   *int              `json:"supabase_migration_count,omitempty"`
	AmpersandProtocolVersion string            `json:"ampersand_protocol_version"`
	PulseVersion             string            `json:"pulse_version"`
	PrismVersion             string            `json:"prism_version"`
	WorkbenchVersion         string            `json:"workbench_version"`
}

// ReplayRecord is the data of a workbench.v1.ReplayExecuted event: the full
// ReplayReport plus what replay observed at every edge, so that a verifier
// can re-derive gate.replay_fidelity against the trace's recorded hashes.
type ReplayRecord struct {
	Report        ReplayReport `json:"replay_report"`
	ExpectedLevel string       `json:"expected_level"`
	Edges         []ReplayEdge `json:"edges"`
}

// ReplayEdge is what replay observed when it re-ran one recorded edge.
// Match is exact (state hash equal), structural (shape equal), mismatch, or
// not_run for edges after a halt.
type ReplayEdge struct {
	Index               int            `json:"index"`
	EdgeID              string         `json:"edge_id"`
	Committed           bool           `json:"committed"`
	ObservedStateBefore string         `json:"observed_state_before,omitempty"`
	ObservedStateAfter  string         `json:"observed_state_after,omitempty"`
	ObservedShapeAfter  string         `json:"observed_shape_after,omitempty"`
	Match               string         `json:"match"`
	Authorization       *Authorization `json:"authorization,omitempty"`

	// Arguments and Outcome are what the replayed call was given and what
	// the body answered it (beside the recorded edge's arguments and
	// observed_outcome); Perceived is what the body showed before the
	// first action when that differed from the recording. They are for a
	// person to read while the replay's result is on screen and live in
	// memory only: the record a bundle keeps holds hashes, so nothing a
	// replay's body said is stored or exported past redaction.
	Arguments map[string]any `json:"-"`
	Outcome   any            `json:"-"`
	Perceived any            `json:"-"`
}

// Replay edge matches.
const (
	MatchExact      = "exact"
	MatchStructural = "structural"
	MatchMismatch   = "mismatch"
	MatchNotRun     = "not_run"
)
