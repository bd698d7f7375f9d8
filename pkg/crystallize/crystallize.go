// Package crystallize turns a recorded demonstration into a draft
// SkillManifest (spec §3 step 2, §5.2).
//
// Crystallizing is a pure function of the trace and the task: it decides
// where each action parameter will come from on replay and writes that into
// the trace's param_sources, and it derives the manifest's inputs, outputs,
// preconditions, capabilities and binding from what the demonstration
// actually did. It calls no model and no body.
//
// Where a parameter comes from (DESIGN §3):
//   - input:<name> — the value, or a part of it, is the value the user gave
//     for that input; replay substitutes the new input's value there.
//   - literal — the value appears word for word in the task description: the
//     user fixed it, so replay sends it unchanged.
//   - llm — the model chose it while looking at the body; replay asks the
//     model again, live, with the new observation.
package crystallize

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"workbench/pkg/skill"
)

// Input is one declared task input and the value the demonstration used.
type Input struct {
	skill.InputSpec
	Value any
}

// Request is everything a draft is made from.
type Request struct {
	Trace       *skill.Trace
	SkillID     string // minted by the caller (skill.NewID)
	Name        string // defaults to the first sentence of the goal
	Description string // defaults to the goal
	BodyChoice  string
	Inputs      []Input
	Outputs     []skill.OutputSpec
	PolicyID    string // defaults to skill.DefaultPolicyID
	Now         time.Time
}

// Draft crystallizes req.Trace. It rewrites the trace's param_sources for
// every edge and returns the draft manifest; the trace is otherwise left as
// recorded.
func Draft(req Request) (skill.Manifest, error) {
	tr := req.Trace
	if tr == nil || len(tr.Edges) == 0 {
		return skill.Manifest{}, errors.New("crystallize: the trace has no edges: nothing was demonstrated")
	}
	if req.SkillID == "" {
		return skill.Manifest{}, errors.New("crystallize: no skill id")
	}
	for i := range tr.Edges {
		bindParams(&tr.Edges[i], req.Inputs, tr.Goal)
	}

	name := strings.TrimSpace(req.Name)
	if name == "" {
		name = firstSentence(tr.Goal, 120)
	}
	desc := strings.TrimSpace(req.Description)
	if desc == "" {
		desc = strings.TrimSpace(tr.Goal)
	}
	policy := req.PolicyID
	if policy == "" {
		policy = skill.DefaultPolicyID
	}
	inputs := make([]skill.InputSpec, len(req.Inputs))
	for i, in := range req.Inputs {
		inputs[i] = in.InputSpec
	}
	now := skill.Timestamp(req.Now)
	m := skill.Manifest{
		Schema:               skill.ManifestSchemaURI,
		SkillID:              req.SkillID,
		Name:                 name,
		Slug:                 skill.Slugify(name),
		Description:          desc,
		Version:              1,
		DerivedFromTraceID:   tr.TraceID,
		BodyChoice:           req.BodyChoice,
		Inputs:               inputs,
		Outputs:              slices.Clone(req.Outputs),
		Preconditions:        preconditions(tr, req),
		Binding:              binding(tr),
		ValidatedAgainst:     []skill.Validation{},
		RegressionProbes:     []any{},
		FallbackBehavior:     skill.FallbackHalt,
		CapabilitiesRequired: capabilities(tr),
		DelegaticPolicyID:    policy,
		CreatedAt:            now,
		UpdatedAt:            now,
	}
	m.Normalize()
	return m, nil
}

// bindParams decides each parameter's source on one edge.
func bindParams(e *skill.Edge, inputs []Input, goal string) {
	if e.ParamSources == nil {
		e.ParamSources = map[string]string{}
	}
	for name, v := range e.TypedAction.Params {
		e.ParamSources[name] = source(v, inputs, goal)
	}
}

func source(v any, inputs []Input, goal string) string {
	for _, in := range inputs {
		if appearsIn(in.Value, v) {
			return skill.SourceInputPrefix + in.Name
		}
	}
	if s, ok := v.(string); ok && s != "" && strings.Contains(goal, s) {
		return skill.SourceLiteral
	}
	return skill.SourceLLM
}

// appearsIn reports whether an input value is the parameter value or, for
// strings, a part of it (a city inside a URL).
func appearsIn(input, param any) bool {
	is, iok := input.(string)
	ps, pok := param.(string)
	switch {
	case iok && pok:
		return is != "" && strings.Contains(ps, is)
	case iok || pok:
		return false
	}
	return input != nil && reflect.DeepEqual(input, param)
}

// capabilities is every capability an edge that acted used. Denied edges
// never acted, so what they attempted is not declared: a skill that needs
// it fails gate.no_hidden_capability rather than smuggling it in.
func capabilities(tr *skill.Trace) []string {
	set := map[string]bool{}
	for _, e := range tr.Edges {
		if e.OutcomeStatus == skill.OutcomeDenied {
			continue
		}
		c := e.Capability
		if c == "" {
			c = e.Provenance.Capability
		}
		if c != "" {
			set[c] = true
		}
	}
	if len(set) == 0 {
		return []string{skill.CapabilityAmbient}
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// binding says what the skill depends on: a skill whose parameters are all
// literal or bound to inputs replays without any model.
func binding(tr *skill.Trace) string {
	for _, e := range tr.Edges {
		for _, s := range e.ParamSources {
			if s == skill.SourceLLM {
				return "model_family_bound"
			}
		}
	}
	return "substrate_only"
}

func preconditions(tr *skill.Trace, req Request) []string {
	var out []string
	if binding(tr) != "substrate_only" {
		out = append(out, "OpenRouter key present")
	}
	switch req.BodyChoice {
	case skill.BodySimulator:
		out = append(out, "simulator body available")
	case skill.BodyBrowser:
		out = append(out, "browser body (MCP) reachable")
	case skill.BodyHost:
		out = append(out, "host body (MCP) reachable")
	}
	for _, in := range req.Inputs {
		if in.Required {
			out = append(out, fmt.Sprintf("input %q given", in.Name))
		}
	}
	return out
}

// firstSentence shortens a goal into a name of at most limit characters.
// A sentence longer than that is cut between words and ends in "…": a
// word cut in half reads badly, and when the word is a secret (an API key
// pasted into the task) the half left is a fragment that no redaction
// pattern recognizes, so it would survive an export that redacts the rest.
func firstSentence(s string, limit int) string {
	s = strings.TrimSpace(s)
	for _, end := range []string{". ", "! ", "? ", "\n"} {
		if i := strings.Index(s, end); i > 0 {
			s = s[:i]
		}
	}
	s = strings.TrimRight(s, ".!?")
	if r := []rune(s); len(r) > limit {
		cut := string(r[:limit-1]) // room for the ellipsis
		if next := r[limit-1]; !unicode.IsSpace(next) {
			// The cut is inside a word: drop that word.
			if i := strings.LastIndexFunc(cut, unicode.IsSpace); i > 0 {
				cut = cut[:i]
			}
		}
		s = strings.TrimRight(strings.TrimSpace(cut), ",;:-") + "…"
	}
	if s == "" {
		return "Untitled skill"
	}
	return s
}
