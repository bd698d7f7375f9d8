// Package crystallize turns a recorded demonstration into a draft
// SkillManifest (spec §3 step 2, §5.2).
//
// Crystallizing is a pure function of the trace and the task: Bind decides
// where each action parameter will come from on replay and returns a copy
// of the trace with those param_sources, and Draft derives the manifest's
// inputs, outputs, preconditions, capabilities and binding from what the
// demonstration actually did. Neither changes the trace it is given, calls
// a model or touches a body.
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
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"workbench/pkg/body"
	"workbench/pkg/redact"
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
	Name        string // defaults to a few words of the goal (see Draft)
	Description string // defaults to the goal
	BodyChoice  body.Kind
	Inputs      []Input
	Outputs     []skill.OutputSpec
	PolicyID    string // defaults to skill.DefaultPolicyID
	Now         time.Time
	// Secrets finds what never enters a name; nil means a detector made
	// for the call.
	Secrets *redact.Detector
}

// Draft crystallizes req.Trace into a draft manifest. req.Trace is not
// changed: the param_sources the manifest's binding stands on are those
// Bind gives for req.Inputs, and the bundle that is sealed carries that
// bound trace (package assemble binds it again from the manifest's inputs
// and the task's values, with the same result).
//
// The name and slug are made only after the secret detector has run over
// their source: secrets, e-mail addresses and password values never enter
// them, whole or in part. The default name is a few words of the goal's
// first sentence, cut between words, with a URL standing as its host and
// no word longer than a word should be (see Name); a name given in req has
// the same patterns removed and falls back to the default when nothing is
// left. The description defaults to the goal as written: it is text that
// redaction cleans, never part of a file name.
func Draft(req Request) (skill.Manifest, error) {
	tr := req.Trace
	if tr == nil || len(tr.Edges) == 0 {
		return skill.Manifest{}, errors.New("crystallize: the trace has no edges: nothing was demonstrated")
	}
	if req.SkillID == "" {
		return skill.Manifest{}, errors.New("crystallize: no skill id")
	}
	bound := Bind(tr, req.Inputs)
	tr = &bound

	d := req.Secrets
	if d == nil {
		d = redact.NewDetector()
	}
	name := cleanWords(d, req.Name)
	if name == "" {
		name = Name(d, tr.Goal)
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
		Binding:              tr.Binding(),
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

// Bind returns a copy of tr in which every edge's param_sources say where
// each parameter of its action comes from on replay, given the inputs the
// demonstration ran with (see the package doc). tr is not changed.
func Bind(tr *skill.Trace, inputs []Input) skill.Trace {
	c := tr.WithParamSources()
	for i := range c.Edges {
		e := &c.Edges[i]
		for name, v := range e.TypedAction.Params {
			e.ParamSources[name] = source(v, inputs, c.Goal)
		}
	}
	return c
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

func preconditions(tr *skill.Trace, req Request) []string {
	var out []string
	if tr.ModelBound() {
		out = append(out, "OpenRouter key present")
	}
	switch req.BodyChoice {
	case body.KindSimulator:
		out = append(out, "simulator body available")
	case body.KindBrowser:
		out = append(out, "browser body (MCP) reachable")
	case body.KindHost:
		out = append(out, "host body (MCP) reachable")
	}
	for _, in := range req.Inputs {
		if in.Required {
			out = append(out, fmt.Sprintf("input %q given", in.Name))
		}
	}
	return out
}

// Limits of a default name: a few words, short enough to read at a glance
// and to make a short slug and file name.
const (
	nameWords   = 6  // words at most
	nameChars   = 48 // characters at most
	maxWordChar = 32 // a longer word is a token, a path or an id, not a word
)

// Name makes a skill's default name from a goal: the first sentence, with
// every secret, e-mail address and password value d finds masked and each
// word holding a mask left out, each URL reduced to its host, and words
// longer than 32 characters left out; then at most six words and 48
// characters of it, cut between words. A shortened name is a phrase, not
// a fragment: it ends on a word that carries meaning, never on "the",
// "and", "of" or a comma, and carries no ellipsis (a name is a title the
// person may keep). Detection runs over the whole goal before anything is
// cut, so a key is seen in its full shape and no piece of it is left: a
// name is made of whole words that are not secrets. A goal with no such
// words gives "Untitled skill".
func Name(d *redact.Detector, goal string) string {
	var out []string
	n, cut := 0, false
	for _, w := range strings.Fields(firstSentence(d.Clean(goal))) {
		w = nameWord(w)
		if w == "" {
			continue
		}
		size := utf8.RuneCountInString(w)
		if len(out) > 0 {
			size++ // the space before it
		}
		if len(out) == nameWords || n+size > nameChars {
			cut = true
			break
		}
		out = append(out, w)
		n += size
	}
	if cut {
		// End the phrase on a word that carries its meaning.
		for len(out) > 1 {
			last := strings.TrimRight(out[len(out)-1], ",;:-–—")
			if !linking(last) {
				out[len(out)-1] = last
				break
			}
			out = out[:len(out)-1]
		}
	}
	s := strings.TrimRight(strings.Join(out, " "), ",;:-–—")
	if s == "" {
		return "Untitled skill"
	}
	return s
}

// linking reports whether w, ending a shortened name, would leave it
// hanging: an article, a conjunction, a preposition or a possessive.
func linking(w string) bool {
	switch strings.ToLower(w) {
	case "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "from", "by",
		"into", "onto", "its", "their", "his", "her", "my", "your", "our", "then", "that", "which", "as":
		return true
	}
	return false
}

// firstSentence is s up to the end of its first sentence or line, without
// the sentence's closing punctuation.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for _, end := range []string{". ", "! ", "? ", "\n"} {
		if i := strings.Index(s, end); i > 0 {
			s = s[:i]
		}
	}
	return strings.TrimRight(s, ".!?")
}

// nameWord is what a word of the goal contributes to a name: nothing for a
// word holding a mask or longer than maxWordChar, the host for a URL, else
// the word. Punctuation after the word is kept.
func nameWord(w string) string {
	if redact.HasMask(w) {
		return ""
	}
	core := strings.TrimRight(w, ",;:.!?)")
	punct := w[len(core):]
	if strings.Contains(core, "://") {
		u, err := url.Parse(core)
		if err != nil || u.Hostname() == "" {
			return ""
		}
		core = u.Hostname()
	}
	if core == "" || utf8.RuneCountInString(core) > maxWordChar {
		return ""
	}
	return core + punct
}

// cleanWords is a name the user gave, with every word that holds a
// secret, an e-mail address or a password value left out.
func cleanWords(d *redact.Detector, name string) string {
	var out []string
	for _, w := range strings.Fields(d.Clean(name)) {
		if !redact.HasMask(w) {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}
