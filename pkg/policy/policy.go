// Package policy is the workbench's local policy engine (DESIGN §7): it
// decides, for every action a body is asked to perform, whether the action
// may run, and says so in an authorization block that is recorded in the
// bundle.
//
// A policy is data: an ordered list of rules in a small JSON format (schema
// https://opensentience.org/spec/workbench-policy/v0.1, package schemas).
// Each rule matches on up to four facts about the requested action — its
// capability, its effect, whether the skill declares the capability, and
// whether the user turned on destructive mode — and carries a decision, a
// strength and a reason. The first rule whose every condition holds decides;
// when none does, the action is denied. The bundled policy,
// workbench-default-v1 (spec §7.4, §7.6), lives in default-policy.json:
//
//	ambient                      ambient capability            allow
//	undeclared                   capability not declared       deny
//	browser-read                 &body.browser, read           allow
//	browser-write                &body.browser, other effects  allow (advisory)
//	host-read                    &body.os, read                allow
//	host-write-destructive-mode  &body.os, other, mode on      allow
//	host-write                   &body.os, other effects       deny
//	(no match)                                                 deny
//
// An action's effect comes from its tool's MCP annotations (EffectOf), and
// only when the tool's server is trusted: an untrusted server's hints are
// ignored and the effect is unknown, which the bundled policy treats as a
// write.
//
// Guarantees: every decision is a complete skill.Authorization naming the
// policy, the authorizer ("local:" + policy id) and, in its reason, the rule
// that decided; nothing is allowed unless a rule says so; decisions depend
// only on the request, so the same request gets the same decision.
package policy

import (
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/canonjson"
	"workbench/pkg/skill"
	"workbench/schemas"
)

// SchemaURI names the policy file format; a policy file carries it in its
// "schema" member.
const SchemaURI = schemas.Policy

// Effect is what an action does to the world it acts on.
type Effect string

// Effects. Unknown is the effect of a tool whose server is not trusted to
// describe it.
const (
	EffectRead        Effect = "read"
	EffectWrite       Effect = "write"
	EffectDestructive Effect = "destructive"
	EffectUnknown     Effect = "unknown"
)

// EffectOf derives an action's effect from its tool's MCP annotations, as
// DESIGN §7 says: readOnlyHint true means read; otherwise destructiveHint
// true means destructive; otherwise write. A tool that declares nothing is
// therefore a write. When the server is not trusted its annotations are
// ignored and the effect is EffectUnknown: a server the user has not vouched
// for could call a deletion read-only.
func EffectOf(a body.Annotations, trusted bool) Effect {
	switch {
	case !trusted:
		return EffectUnknown
	case a.ReadOnlyHint != nil && *a.ReadOnlyHint:
		return EffectRead
	case a.DestructiveHint != nil && *a.DestructiveHint:
		return EffectDestructive
	}
	return EffectWrite
}

// Strengths of a decision.
const (
	// StrengthEnforced: the decision binds.
	StrengthEnforced = "enforced"
	// StrengthAdvisory: allowed, but the policy does not vouch for the
	// action's effect; the user's own judgement stands behind it.
	StrengthAdvisory = "advisory"
)

// Policy is a parsed policy file.
type Policy struct {
	Schema      string `json:"schema"`
	ID          string `json:"policy_id"`
	Description string `json:"description,omitempty"`
	Rules       []Rule `json:"rules"`
}

// Rule is one entry of a policy: when its conditions hold, Decision is the
// answer, at Strength, for Reason.
type Rule struct {
	ID       string `json:"id"`
	When     Match  `json:"when"`
	Decision string `json:"decision"`
	Strength string `json:"strength"`
	Reason   string `json:"reason"`
}

// Match holds a rule's conditions. A nil or empty field is no condition.
type Match struct {
	// Capability lists the capabilities the rule applies to.
	Capability []string `json:"capability,omitempty"`
	// Effect lists the effects the rule applies to.
	Effect []Effect `json:"effect,omitempty"`
	// Declared, when set, requires the skill to declare (true) or not to
	// declare (false) the action's capability.
	Declared *bool `json:"declared,omitempty"`
	// DestructiveMode, when set, requires destructive mode on or off.
	DestructiveMode *bool `json:"destructive_mode,omitempty"`
}

// matches reports whether every condition of m holds for the facts.
func (m Match) matches(capability string, effect Effect, declared, destructive bool) bool {
	return (len(m.Capability) == 0 || slices.Contains(m.Capability, capability)) &&
		(len(m.Effect) == 0 || slices.Contains(m.Effect, effect)) &&
		(m.Declared == nil || *m.Declared == declared) &&
		(m.DestructiveMode == nil || *m.DestructiveMode == destructive)
}

// Request is one action to be decided.
type Request struct {
	// Capability is what the action exercises: "&body.browser",
	// "&body.os", … or "ambient".
	Capability string
	// ActionType names the action, body kind first: "browser.click",
	// "os.file_write".
	ActionType string
	// Tool is the name of the tool that would perform the action.
	Tool string
	// Annotations are the tool's MCP annotations, and TrustedServer says
	// whether the user trusts the tool's server to tell the truth in them.
	Annotations   body.Annotations
	TrustedServer bool
	// Declared lists the capabilities the skill declares
	// (capabilities_required).
	Declared []string
	// DestructiveMode is the user's "destructive" toggle.
	DestructiveMode bool
	// AgentID names the agent asking. The local engine does not decide on
	// it; a delegatic-mcp authorizer passes it on.
	AgentID string
}

// Authorizer decides requests. The local Engine is one; a client of a
// delegatic-mcp server (its authorize tool) is another, and replaces the
// engine without its callers changing. An error means no decision was made
// (the context ended, the server did not answer): the action must not run.
type Authorizer interface {
	Authorize(ctx context.Context, req Request) (skill.Authorization, error)
}

// Engine evaluates one policy. It is immutable and safe for concurrent use.
type Engine struct {
	policy Policy
	now    func() time.Time
	newID  func() string
}

// Option configures an Engine.
type Option func(*Engine)

// WithClock sets where decided_at comes from (default time.Now).
func WithClock(now func() time.Time) Option { return func(e *Engine) { e.now = now } }

// WithIDs sets where block ids come from (default skill.NewID, a UUIDv7).
func WithIDs(newID func() string) Option { return func(e *Engine) { e.newID = newID } }

// defaultPolicy is a string so that it cannot change.
//
//go:embed default-policy.json
var defaultPolicy string

// DefaultPolicyJSON returns the bundled policy file, workbench-default-v1.
func DefaultPolicyJSON() []byte { return []byte(defaultPolicy) }

// Default returns an engine for the bundled policy, workbench-default-v1.
// The bundled file is checked against the schema by this package's tests,
// so Default does not compile the schemas; it panics only if the embedded
// file is broken, a build defect.
func Default(opts ...Option) *Engine {
	doc, err := canonjson.Parse([]byte(defaultPolicy), canonjson.DefaultLimits())
	if err != nil {
		panic("policy: embedded default-policy.json: " + err.Error())
	}
	var p Policy
	if err := doc.Decode(&p); err != nil {
		panic("policy: embedded default-policy.json: " + err.Error())
	}
	if err := checkRules(p); err != nil {
		panic("policy: embedded default-policy.json: " + err.Error())
	}
	return newEngine(p, opts)
}

// MaxPolicyBytes bounds a policy file.
const MaxPolicyBytes = 1 << 20

// Load parses and checks a policy file and returns its engine. The file
// must be I-JSON (no duplicate names, no lone surrogates, finite numbers)
// and match the policy schema; rule ids must be unique. A rejection
// names the place in the file: a *canonjson.Error for text that is not
// I-JSON, or a *schemas.ValidationError whose field errors carry JSON
// pointers.
func Load(data []byte, opts ...Option) (*Engine, error) {
	doc, err := canonjson.Parse(data, canonjson.Limits{MaxBytes: MaxPolicyBytes})
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	v, err := schemas.New()
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	if err := v.Validate(SchemaURI, doc.Generic()); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	var p Policy
	if err := doc.Decode(&p); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	if err := checkRules(p); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return newEngine(p, opts), nil
}

// checkRules enforces what the schema cannot say: rule ids are unique.
func checkRules(p Policy) error {
	var errs []schemas.FieldError
	first := map[string]int{}
	for i, r := range p.Rules {
		if j, dup := first[r.ID]; dup {
			errs = append(errs, schemas.FieldError{
				Pointer: fmt.Sprintf("/rules/%d/id", i),
				Keyword: "unique",
				Message: fmt.Sprintf("repeats the id %q of rule %d; rule ids must be unique", r.ID, j),
			})
			continue
		}
		first[r.ID] = i
	}
	if len(errs) > 0 {
		return &schemas.ValidationError{Schema: SchemaURI, Errors: errs}
	}
	return nil
}

func newEngine(p Policy, opts []Option) *Engine {
	e := &Engine{policy: clonePolicy(p), now: time.Now, newID: skill.NewID}
	for _, o := range opts {
		o(e)
	}
	return e
}

func clonePolicy(p Policy) Policy {
	p.Rules = slices.Clone(p.Rules)
	for i := range p.Rules {
		w := &p.Rules[i].When
		w.Capability = slices.Clone(w.Capability)
		w.Effect = slices.Clone(w.Effect)
		if w.Declared != nil {
			w.Declared = new(*w.Declared)
		}
		if w.DestructiveMode != nil {
			w.DestructiveMode = new(*w.DestructiveMode)
		}
	}
	return p
}

// Policy returns a copy of the policy the engine evaluates.
func (e *Engine) Policy() Policy { return clonePolicy(e.policy) }

// ID is the policy id recorded in every block.
func (e *Engine) ID() string { return e.policy.ID }

// Authorizer is the name recorded as a block's authorizer: "local:" and the
// policy id.
func (e *Engine) Authorizer() string { return "local:" + e.policy.ID }

// PreviewPrefix starts the authorizer of a preview block.
const PreviewPrefix = "preview:"

// Authorize decides req and returns the authorization block to record: a
// fresh block id, the policy id, the decision, capability and action type,
// a reason that starts with the id of the rule that decided ("default" when
// none did), decided_at from the engine's clock, the authorizer and the
// strength. The only error is the context's: a cancelled run gets no
// decision.
func (e *Engine) Authorize(ctx context.Context, req Request) (skill.Authorization, error) {
	if err := ctx.Err(); err != nil {
		return skill.Authorization{}, fmt.Errorf("policy: authorize %s: %w", req.ActionType, err)
	}
	a, _ := e.decide(req)
	a.BlockID = e.newID()
	return a, nil
}

// Preflight is a preview of a decision: what Authorize would answer now,
// and why.
type Preflight struct {
	// Authorization is the block Authorize would return, except that it is
	// no grant: BlockID is empty (so no bundle schema accepts it as a
	// recorded decision) and Authorizer starts with PreviewPrefix.
	Authorization skill.Authorization
	// Rule is the id of the rule that decided, "" when none matched.
	Rule string
	// Effect and Declared are the facts the rules were matched against.
	Effect   Effect
	Declared bool
}

// Preview answers what Authorize would, without granting anything: the
// capability palette's preflight. It runs the same rules on the same
// facts.
func (e *Engine) Preview(req Request) Preflight {
	a, pf := e.decide(req)
	a.Authorizer = PreviewPrefix + a.Authorizer
	pf.Authorization = a
	return pf
}

// IsPreview reports whether a block came from Preview rather than
// Authorize. A preview must never stand in for a decision.
func IsPreview(a skill.Authorization) bool {
	return a.BlockID == "" || strings.HasPrefix(a.Authorizer, PreviewPrefix)
}

// decide runs the rules; the returned block has no id yet.
func (e *Engine) decide(req Request) (skill.Authorization, Preflight) {
	effect := EffectOf(req.Annotations, req.TrustedServer)
	declared := slices.Contains(req.Declared, req.Capability)
	a := skill.Authorization{
		PolicyID:   e.policy.ID,
		Capability: req.Capability,
		ActionType: req.ActionType,
		DecidedAt:  skill.Timestamp(e.now()),
		Authorizer: e.Authorizer(),
	}
	pf := Preflight{Effect: effect, Declared: declared}
	for _, r := range e.policy.Rules {
		if r.When.matches(req.Capability, effect, declared, req.DestructiveMode) {
			a.Decision, a.Strength = r.Decision, r.Strength
			a.Reason = r.ID + ": " + r.Reason
			pf.Rule = r.ID
			return a, pf
		}
	}
	a.Decision, a.Strength = skill.DecisionDeny, StrengthEnforced
	a.Reason = fmt.Sprintf("default: no rule of %s matches capability %q with effect %s; denied",
		e.policy.ID, req.Capability, effect)
	return a, pf
}
