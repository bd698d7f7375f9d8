package teach_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/pulse"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/schemas"
)

// Every scenario's fields, typed back in as they start, plan the scenario
// with its example values.
func TestScenarioFieldsRoundTrip(t *testing.T) {
	all, err := fixtures.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range all {
		fields, err := teach.ScenarioFields(sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(fields) != len(sc.Inputs) {
			t.Fatalf("%s: %d fields for %d inputs", sc.ID, len(fields), len(sc.Inputs))
		}
		var given []teach.Value
		for i, f := range fields {
			if f.Name != sc.Inputs[i].Name || f.Type != sc.Inputs[i].Type {
				t.Errorf("%s: field %d is %s %s, want %s %s", sc.ID, i, f.Name, f.Type, sc.Inputs[i].Name, sc.Inputs[i].Type)
			}
			given = append(given, teach.Value{Name: f.Name, Raw: f.Raw})
		}
		p, err := teach.FromScenario(sc.ID, given)
		if err != nil {
			t.Fatalf("%s: the prefilled fields do not plan: %v", sc.ID, err)
		}
		for name, want := range sc.ExampleInput() {
			if !equalJSON(p.Task.Inputs[name], want) {
				t.Errorf("%s: input %s = %#v, want the example %#v", sc.ID, name, p.Task.Inputs[name], want)
			}
		}
	}
	var ie *teach.InputError
	if _, err := teach.ScenarioFields("skill.nope"); !errors.As(err, &ie) || ie.Field != teach.FieldScenario {
		t.Errorf("unknown scenario: %v", err)
	}
}

func TestExampleText(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"https://a.test/x", "https://a.test/x"},
		{2.5, "2.5"},
		{true, "true"},
		{map[string]any{"a": 1.0}, `{"a":1}`},
	} {
		if got := teach.ExampleText(tc.in); got != tc.want {
			t.Errorf("ExampleText(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// draftManifest is a valid draft made the way crystallize makes one.
func draftManifest(t *testing.T) skill.Manifest {
	t.Helper()
	e := skill.Edge{
		EdgeID: skill.NewID(), StateBefore: skill.HashBytes([]byte("a")), StateAfter: skill.HashBytes([]byte("b")),
		TypedAction: skill.TypedAction{Type: "browser_navigate", Params: map[string]any{"url": "https://docs.workbench.test/"}, Preconditions: []string{}},
		Tool:        skill.ToolCall{Server: "simulator", Name: "browser_navigate", Arguments: map[string]any{"url": "https://docs.workbench.test/"}},
		Capability:  skill.CapabilityBrowser, OutcomeStatus: skill.OutcomeOK,
		ParamSources: map[string]string{"url": skill.SourceLLM},
	}
	tr := skill.Trace{TraceID: skill.NewID(), BodySubtype: "simulator", Goal: "Open the docs", Edges: []skill.Edge{e}}
	m, err := crystallize.Draft(crystallize.Request{Trace: &tr, SkillID: skill.NewID(), BodyChoice: body.KindSimulator, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fakeKey has the shape of an OpenRouter key; it is not one.
var fakeKey = "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)

// CheckDraft puts each schema error under the field the user edits, and
// accepts a draft once they are fixed.
func TestCheckDraft(t *testing.T) {
	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	base := draftManifest(t)
	for _, tc := range []struct {
		name   string
		edit   func(*skill.Manifest)
		member string
		msg    string
	}{
		{"valid", func(*skill.Manifest) {}, "", ""},
		{"empty name", func(m *skill.Manifest) { m.Name = "" }, "name", "must not be empty"},
		{"long name", func(m *skill.Manifest) { m.Name = strings.Repeat("n", 121) }, "name", "120"},
		{"slug with spaces", func(m *skill.Manifest) { m.Slug = "Bad Slug" }, "slug", "pattern"},
		{"slug with double hyphen", func(m *skill.Manifest) { m.Slug = "a--b" }, "slug", "pattern"},
		// What the workbench writes stays stricter than spec §4's
		// [a-z0-9-]+, which the schema accepts from other producers.
		{"one-character slug", func(m *skill.Manifest) { m.Slug = "a" }, "slug", "2 to 80 characters"},
		{"slug of 81 characters", func(m *skill.Manifest) { m.Slug = strings.Repeat("a", 81) }, "slug", "kebab-case"},
		{"slug with a trailing hyphen", func(m *skill.Manifest) { m.Slug = "ab-" }, "slug", "pattern"},
		{"empty description", func(m *skill.Manifest) { m.Description = "" }, "description", "must not be empty"},
		{"name holding a key", func(m *skill.Manifest) { m.Name = "Use " + fakeKey }, "name", "holds what looks like a openrouter_key: it becomes the file name"},
		{"slug holding a key", func(m *skill.Manifest) { m.Slug = "use-" + fakeKey }, "slug", "openrouter_key"},
		{"name holding an e-mail address", func(m *skill.Manifest) { m.Name = "Mail jane@example.com" }, "name", "email"},
		{"a key in the description is for redaction", func(m *skill.Manifest) { m.Description = "Use " + fakeKey }, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := base
			tc.edit(&m)
			got, err := teach.CheckDraft(v, m)
			if err != nil {
				t.Fatal(err)
			}
			if tc.member == "" {
				if !got.Valid() {
					t.Fatalf("a valid draft has problems: %v", got)
				}
				return
			}
			if len(got) != 1 || len(got[tc.member]) != 1 || !strings.Contains(got[tc.member][0], tc.msg) {
				t.Errorf("problems %v, want one under %q containing %q", got, tc.member, tc.msg)
			}
		})
	}
}

// The simulator's view shows its page and its files, as its state holds
// them, and follows the body as it acts.
func TestObserveSimulator(t *testing.T) {
	ctx := context.Background()
	p, err := teach.FromScenario(fixtures.BasicPromptToManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	bd, err := sim.New(p.World)
	if err != nil {
		t.Fatal(err)
	}
	before, err := teach.Observe(ctx, bd)
	if err != nil {
		t.Fatal(err)
	}
	if before.Kind != "simulator" || before.Raw != "" {
		t.Errorf("kind %q, raw %d bytes: want the simulator's structured view", before.Kind, len(before.Raw))
	}
	res, err := bd.Call(ctx, "browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"})
	if err != nil || res.IsError {
		t.Fatalf("navigate: %v %+v", err, res)
	}
	after, err := teach.Observe(ctx, bd)
	if err != nil {
		t.Fatal(err)
	}
	if after.URL != "https://docs.workbench.test/getting-started" || after.Page == nil || after.Page.Title == "" {
		t.Fatalf("after navigating: url %q page %+v", after.URL, after.Page)
	}
	if !slices.ContainsFunc(after.Page.Blocks, func(b sim.Block) bool { return b.Kind == "h1" }) {
		t.Errorf("the page shows no heading: %+v", after.Page.Blocks)
	}
	// A world with files: the view lists them with their sizes.
	world, err := teach.World("status-and-host")
	if err != nil {
		t.Fatal(err)
	}
	if bd, err = sim.New(world); err != nil {
		t.Fatal(err)
	}
	if after, err = teach.Observe(ctx, bd); err != nil {
		t.Fatal(err)
	}
	w := bd.World()
	if len(after.Files) == 0 || len(after.Files) != len(w.Host.Files) || after.Cwd != w.Host.Cwd {
		t.Errorf("files %d cwd %q; the world has %d files, cwd %q", len(after.Files), after.Cwd, len(w.Host.Files), w.Host.Cwd)
	}
	for _, f := range after.Files {
		if f.Size != len(w.Host.Files[f.Path]) {
			t.Errorf("%s: size %d, want %d", f.Path, f.Size, len(w.Host.Files[f.Path]))
		}
	}
}

func TestPulsePhase(t *testing.T) {
	for step, want := range map[demonstrate.StepPhase]pulse.Phase{
		demonstrate.PhasePerceive: pulse.PhaseAct, demonstrate.PhaseModel: pulse.PhaseAct, demonstrate.PhaseAuthorize: pulse.PhaseRoute,
		demonstrate.PhaseAct: pulse.PhaseAct, demonstrate.PhaseAnswer: pulse.PhaseAct, demonstrate.PhaseStopped: pulse.PhaseAct, "dance": "",
	} {
		if got := teach.PulsePhase(step); got != want {
			t.Errorf("PulsePhase(%q) = %q, want %q", step, got, want)
		}
	}
}
