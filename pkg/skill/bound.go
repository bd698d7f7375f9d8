package skill

import (
	"maps"
	"slices"
)

// Manifest bindings (spec §5.2): what a skill's replay depends on besides
// the body.
const (
	// BindingSubstrateOnly: every parameter is literal or bound to an
	// input, so replay needs no model.
	BindingSubstrateOnly = "substrate_only"
	// BindingModelFamily: some parameter is chosen again by a model on
	// replay, so replay needs one.
	BindingModelFamily = "model_family_bound"
)

// ModelBound reports whether replaying e asks a model for any of its
// parameters: whether one of them has the source SourceLLM.
func (e *Edge) ModelBound() bool { return len(e.ModelParams()) > 0 }

// ModelParams are the parameters of e a model chose (source SourceLLM),
// which a replay asks a model for again, sorted; nil when there are none.
func (e *Edge) ModelParams() []string {
	var out []string
	for p, s := range e.ParamSources {
		if s == SourceLLM {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// ModelBound reports whether replaying the trace asks a model for any
// parameter of any edge.
func (t *Trace) ModelBound() bool {
	for i := range t.Edges {
		if t.Edges[i].ModelBound() {
			return true
		}
	}
	return false
}

// Binding is the manifest binding the trace's parameter sources amount
// to: BindingModelFamily when it is ModelBound, else BindingSubstrateOnly.
func (t *Trace) Binding() string {
	if t.ModelBound() {
		return BindingModelFamily
	}
	return BindingSubstrateOnly
}

// WithParamSources returns a copy of t whose edges have their own
// ParamSources maps, so that setting a source on the copy leaves t as it
// was. Everything else the edges hold is shared with t and must be
// treated as read-only.
func (t *Trace) WithParamSources() Trace {
	c := *t
	c.Edges = make([]Edge, len(t.Edges))
	for i, e := range t.Edges {
		e.ParamSources = maps.Clone(e.ParamSources)
		if e.ParamSources == nil {
			e.ParamSources = map[string]string{}
		}
		c.Edges[i] = e
	}
	return c
}
