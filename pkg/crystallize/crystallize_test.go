package crystallize_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/canonjson"
	"workbench/pkg/crystallize"
	"workbench/pkg/skill"
	"workbench/schemas"
)

func edge(i int, capability, outcome string, params map[string]any) skill.Edge {
	return skill.Edge{Index: i, Capability: capability, OutcomeStatus: outcome,
		TypedAction: skill.TypedAction{Type: "act", Params: params}}
}

func trace() *skill.Trace {
	return &skill.Trace{
		TraceID: skill.NewID(),
		Goal:    "Open https://weather.workbench.test/forecast and find the forecast for Porto. Then save it.",
		Edges: []skill.Edge{
			edge(0, skill.CapabilityBrowser, skill.OutcomeOK, map[string]any{"url": "https://weather.workbench.test/forecast"}),
			edge(1, skill.CapabilityBrowser, skill.OutcomeOK, map[string]any{"field": "City", "text": "Porto"}),
			edge(2, skill.CapabilityBrowser, skill.OutcomeOK, map[string]any{"url": "https://weather.workbench.test/forecast?city=Porto", "days": 3.0}),
			edge(3, skill.CapabilityOS, skill.OutcomeDenied, map[string]any{"path": "/home/user/out.txt"}),
		},
	}
}

var weatherInputs = []crystallize.Input{
	{InputSpec: skill.InputSpec{Name: "city", Type: "string", Required: true}, Value: "Porto"},
	{InputSpec: skill.InputSpec{Name: "days", Type: "number", Required: false}, Value: 3.0},
}

func TestDraft(t *testing.T) {
	tr := trace()
	m, err := crystallize.Draft(crystallize.Request{
		Trace: tr, SkillID: skill.NewID(), BodyChoice: body.KindSimulator,
		Inputs:  weatherInputs,
		Outputs: []skill.OutputSpec{{Name: "forecast", Type: "string"}},
		Now:     time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	bound := crystallize.Bind(tr, weatherInputs)
	want := []map[string]string{
		{"url": skill.SourceLiteral},
		{"field": skill.SourceLLM, "text": "input:city"},
		{"url": "input:city", "days": "input:days"},
		{"path": skill.SourceLLM},
	}
	for i, w := range want {
		if len(bound.Edges[i].ParamSources) != len(w) {
			t.Errorf("edge %d: sources %v, want %v", i, bound.Edges[i].ParamSources, w)
		}
		for p, src := range w {
			if got := bound.Edges[i].ParamSources[p]; got != src {
				t.Errorf("edge %d param %s: source %q, want %q", i, p, got, src)
			}
		}
	}
	if strings.Join(m.CapabilitiesRequired, ",") != skill.CapabilityBrowser {
		t.Errorf("capabilities %v: the denied &body.os attempt must not be declared", m.CapabilitiesRequired)
	}
	if m.Name != "Open weather.workbench.test and find" || m.Slug != "open-weather-workbench-test-and-find" {
		t.Errorf("name %q, slug %q", m.Name, m.Slug)
	}
	if m.Binding != skill.BindingModelFamily || m.DerivedFromTraceID != tr.TraceID || m.DelegaticPolicyID != skill.DefaultPolicyID {
		t.Errorf("manifest %+v", m)
	}
	if !strings.Contains(strings.Join(m.Preconditions, ";"), "OpenRouter key present") {
		t.Errorf("preconditions %v", m.Preconditions)
	}

	sv, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	m.Name = "Weather lookup"
	m.Slug = skill.Slugify(m.Name)
	if err := sv.Validate(schemas.Manifest, generic(t, m)); err != nil {
		t.Fatalf("the draft does not validate: %v", err)
	}
}

// Neither Draft nor Bind changes the caller's trace: the trace is the
// same, member for member, before and after.
func TestCrystallizingLeavesTheTrace(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(*skill.Trace) error
	}{
		{"Draft", func(tr *skill.Trace) error {
			_, err := crystallize.Draft(crystallize.Request{Trace: tr, SkillID: skill.NewID(), BodyChoice: body.KindSimulator, Inputs: weatherInputs})
			return err
		}},
		{"Bind", func(tr *skill.Trace) error {
			crystallize.Bind(tr, weatherInputs)
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := trace()
			// One edge already has sources (a trace crystallized before), the
			// others none, as the demonstration left them.
			tr.Edges[0].ParamSources = map[string]string{"url": skill.SourceLLM}
			before := snapshot(t, tr)
			if err := tc.run(tr); err != nil {
				t.Fatal(err)
			}
			if after := snapshot(t, tr); after != before {
				t.Errorf("%s changed the caller's trace:\nbefore %s\nafter  %s", tc.name, before, after)
			}
		})
	}
}

// snapshot is a deep copy of tr as JSON text, nil maps and empty maps told
// apart.
func snapshot(t *testing.T, tr *skill.Trace) string {
	t.Helper()
	data, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestDraftWithoutModelParams(t *testing.T) {
	tr := &skill.Trace{TraceID: skill.NewID(), Goal: "Open sim://a/ now", Edges: []skill.Edge{
		edge(0, skill.CapabilityBrowser, skill.OutcomeOK, map[string]any{"url": "sim://a/"}),
	}}
	m, err := crystallize.Draft(crystallize.Request{Trace: tr, SkillID: skill.NewID(), BodyChoice: body.KindSimulator})
	if err != nil {
		t.Fatal(err)
	}
	if m.Binding != skill.BindingSubstrateOnly || slices.Contains(m.Preconditions, "OpenRouter key present") {
		t.Errorf("a skill with no model parameters: binding %s, preconditions %v", m.Binding, m.Preconditions)
	}
}

func TestDraftRefusesAnEmptyTrace(t *testing.T) {
	if _, err := crystallize.Draft(crystallize.Request{Trace: &skill.Trace{}, SkillID: skill.NewID()}); err == nil {
		t.Fatal("an empty trace crystallized")
	}
}

// generic turns v into the form a schema validator takes.
func generic(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	return doc.Generic()
}
