// Package pulse records what a workbench run emits for PULSE (OS-010, spec
// §9): CloudEvents v1 envelopes carrying PULSE tokens, collected in order
// into a bundle's evidence.events, and OpenTelemetry-compatible spans, one
// per phase and per tool call, for evidence.trace.
//
// PULSE names six canonical tokens — TopologyContext, DeliberationResult,
// OutcomeSignal, ReputationUpdate, ConsolidationEvent and (v0.1.1)
// SurpriseSignal — and gives them the CloudEvents type
// "org.opensentience.pulse.<Token>". It has no token for a phase: a phase is
// an entry of the loop manifest, and OS-010 §7.3 asks instead that every
// phase transition leave an audit event carrying the trace id, the phase
// id, a timestamp and a signature. The workbench records those as its own
// vendor token workbench.v1.PhaseTransition, beside
// workbench.v1.SkillCrystallized and workbench.v1.ReplayExecuted (PULSE
// v0.1.2's "<vendor>.v<N>.<Token>" form; their CloudEvents type is the
// token itself). The canonical prefixes pulse, opensentience and os are left
// to PULSE.
//
// Every event's data starts with the token's name and version, as OS-010
// §10.1 shows, and carries the interaction trace's id. Events hold ids and
// hashes rather than free text a user typed, so that redacting a bundle's
// transcript leaves nothing personal behind in its events.
//
// A Recorder stamps events and spans from an injected clock and id source,
// so the same run with the same sources records the same bytes.
package pulse

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"workbench/pkg/skill"
)

// The workbench's loop, as its PULSE manifest (package static) declares it.
const (
	LoopID = "workbench.skill_workshop"
	// ProtocolVersion is the PULSE version the manifest declares.
	ProtocolVersion = skill.PulseVersion
	// TokenVersion is the version written in the data of the tokens whose
	// shape OS-010 v0.1 defines, and of the workbench's own tokens.
	TokenVersion = "0.1"
)

// CloudEvents envelope constants.
const (
	SpecVersion     = "1.0"
	DataContentType = "application/json"
	// SourcePrefix starts every event's source; the body's name follows.
	SourcePrefix = "workbench://"
)

// Phase is one of the five canonical PULSE phase kinds. The workbench's
// manifest declares one phase of each kind, with the kind as its id.
type Phase string

// The workbench's phases, in loop order.
const (
	PhaseRetrieve    Phase = "retrieve"
	PhaseRoute       Phase = "route"
	PhaseAct         Phase = "act"
	PhaseLearn       Phase = "learn"
	PhaseConsolidate Phase = "consolidate"
)

// Phases returns the phases in loop order.
func Phases() []Phase {
	return []Phase{PhaseRetrieve, PhaseRoute, PhaseAct, PhaseLearn, PhaseConsolidate}
}

// Valid reports whether p is one of Phases.
func (p Phase) Valid() bool { return slices.Contains(Phases(), p) }

// Canonical PULSE tokens (OS-010 §6; SurpriseSignal since v0.1.1).
const (
	TokenTopologyContext    = "TopologyContext"
	TokenDeliberationResult = "DeliberationResult"
	TokenOutcomeSignal      = "OutcomeSignal"
	TokenReputationUpdate   = "ReputationUpdate"
	TokenConsolidationEvent = "ConsolidationEvent"
	TokenSurpriseSignal     = "SurpriseSignal"
)

// The workbench's vendor tokens.
const (
	TokenPhaseTransition   = "workbench.v1.PhaseTransition"
	TokenSkillCrystallized = skill.EventSkillCrystallized
	TokenReplayExecuted    = skill.EventReplayExecuted
)

// CanonicalTokens returns PULSE's six canonical tokens.
func CanonicalTokens() []string {
	return []string{TokenTopologyContext, TokenDeliberationResult, TokenOutcomeSignal,
		TokenReputationUpdate, TokenConsolidationEvent, TokenSurpriseSignal}
}

// vendorToken is PULSE v0.1.2's vendor-namespaced token: a lowercase snake
// vendor, a version, a PascalCase name.
var vendorToken = regexp.MustCompile(`^([a-z][a-z0-9_]*)\.v[0-9]+\.[A-Z][A-Za-z0-9]*$`)

// reservedVendors are prefixes PULSE keeps for canonical use.
var reservedVendors = []string{"pulse", "opensentience", "os"}

// EventType returns the CloudEvents type of a token: PULSE's prefix and the
// name for a canonical token (org.opensentience.pulse.OutcomeSignal), the
// token itself for a vendor token (workbench.v1.ReplayExecuted). Anything
// else is an error.
func EventType(token string) (string, error) {
	if slices.Contains(CanonicalTokens(), token) {
		return skill.PulseTypePrefix + token, nil
	}
	m := vendorToken.FindStringSubmatch(token)
	switch {
	case m == nil:
		return "", fmt.Errorf("pulse: %q is neither a canonical token nor a vendor token <vendor>.v<N>.<Name>", token)
	case slices.Contains(reservedVendors, m[1]):
		return "", fmt.Errorf("pulse: vendor token %q uses the reserved namespace %q", token, m[1])
	}
	return token, nil
}

// TokenOf returns the token an event type carries, and whether the type is
// one EventType produces.
func TokenOf(eventType string) (string, bool) {
	token := eventType
	if rest, ok := strings.CutPrefix(eventType, skill.PulseTypePrefix); ok {
		if !slices.Contains(CanonicalTokens(), rest) {
			return "", false
		}
		token = rest
	}
	if t, err := EventType(token); err != nil || t != eventType {
		return "", false
	}
	return token, true
}

// Emits returns the tokens phase p emits, as the manifest declares them
// under the phase's outputs.emits: every phase its own transition, and
// retrieve the TopologyContext (OS-010 §6.1: retrieve phases emit it); act
// the SurpriseSignals of replay (OS-011: the body's forward-model error) and
// ReplayExecuted; learn the OutcomeSignal (OS-010 §6.3: learn phases emit it)
// and SkillCrystallized; consolidate the ConsolidationEvent (OS-010 §6.5).
func Emits(p Phase) []string {
	var out []string
	switch p {
	case PhaseRetrieve:
		out = []string{TokenTopologyContext}
	case PhaseAct:
		out = []string{TokenSurpriseSignal, TokenReplayExecuted}
	case PhaseLearn:
		out = []string{TokenOutcomeSignal, TokenSkillCrystallized}
	case PhaseConsolidate:
		out = []string{TokenConsolidationEvent}
	case PhaseRoute:
	default:
		return nil
	}
	return append(out, TokenPhaseTransition)
}
