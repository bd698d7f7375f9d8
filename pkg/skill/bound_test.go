package skill_test

import (
	"slices"
	"testing"

	"workbench/pkg/skill"
)

func edgeWith(sources map[string]string) skill.Edge {
	return skill.Edge{ParamSources: sources}
}

func TestModelBound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edges   []skill.Edge
		bound   bool
		binding string
	}{
		{"no edges", nil, false, skill.BindingSubstrateOnly},
		{"no parameters", []skill.Edge{edgeWith(nil)}, false, skill.BindingSubstrateOnly},
		{"literal and input", []skill.Edge{edgeWith(map[string]string{"url": skill.SourceInputPrefix + "repo", "name": skill.SourceLiteral})}, false, skill.BindingSubstrateOnly},
		{"one model-chosen parameter on a later edge", []skill.Edge{
			edgeWith(map[string]string{"url": skill.SourceLiteral}),
			edgeWith(map[string]string{"name": skill.SourceLLM}),
		}, true, skill.BindingModelFamily},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := skill.Trace{Edges: tc.edges}
			if got := tr.ModelBound(); got != tc.bound {
				t.Errorf("Trace.ModelBound() = %v, want %v", got, tc.bound)
			}
			if got := tr.Binding(); got != tc.binding {
				t.Errorf("Trace.Binding() = %q, want %q", got, tc.binding)
			}
			any := false
			for i := range tc.edges {
				any = any || tc.edges[i].ModelBound()
			}
			if any != tc.bound {
				t.Errorf("the edges' ModelBound give %v, the trace's %v", any, tc.bound)
			}
		})
	}
}

func TestModelParams(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sources map[string]string
		want    []string
	}{
		{"none", nil, nil},
		{"literal and input", map[string]string{"url": skill.SourceInputPrefix + "repo", "name": skill.SourceLiteral}, nil},
		{"sorted", map[string]string{"wait": skill.SourceLLM, "url": skill.SourceInputPrefix + "repo", "a": skill.SourceLLM}, []string{"a", "wait"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := edgeWith(tc.sources)
			if got := e.ModelParams(); !slices.Equal(got, tc.want) {
				t.Errorf("ModelParams() = %v, want %v", got, tc.want)
			}
			if e.ModelBound() != (len(tc.want) > 0) {
				t.Errorf("ModelBound() = %v with model parameters %v", e.ModelBound(), tc.want)
			}
		})
	}
}

// Setting a source on the copy leaves the original as it was.
func TestWithParamSources(t *testing.T) {
	tr := skill.Trace{Goal: "g", Edges: []skill.Edge{
		edgeWith(map[string]string{"url": skill.SourceLLM}),
		edgeWith(nil),
	}}
	c := tr.WithParamSources()
	c.Edges[0].ParamSources["url"] = skill.SourceLiteral
	c.Edges[1].ParamSources["x"] = skill.SourceLiteral
	c.Edges[0].Index = 7
	if tr.Edges[0].ParamSources["url"] != skill.SourceLLM || tr.Edges[1].ParamSources != nil || tr.Edges[0].Index != 0 {
		t.Errorf("the original changed with its copy: %+v", tr.Edges)
	}
	if c.Goal != "g" || len(c.Edges) != 2 {
		t.Errorf("copy %+v", c)
	}
}
