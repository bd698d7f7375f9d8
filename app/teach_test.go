package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/pulse"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/workbench"
)

// The form plans what it shows: a scenario with its examples as typed, a
// freeform task with a value for each placeholder; a mistake lands beside
// the field it concerns, anything else in the form's general error.
func TestTeachFormPlans(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		form      func(*teachForm)
		wantTask  string
		errField  string // teach.Field… or workbench.FieldModel; "" when it plans
		errName   string
		errBeside bool // shown beside a field, not in the general error
	}{
		{name: "scenario examples", form: func(f *teachForm) { f.pick(fixtures.BasicPromptToManifest) },
			wantTask: "Open the page at https://docs.workbench.test/getting-started and report its main heading."},
		{name: "scenario input edited", form: func(f *teachForm) {
			f.pick(fixtures.BasicPromptToManifest)
			f.fields[0].Raw = "https://docs.workbench.test/install"
		}, wantTask: "Open the page at https://docs.workbench.test/install and report its main heading."},
		{name: "freeform", form: func(f *teachForm) {
			f.pick(freeformOption)
			f.task, f.world = "Open {page} and read it.", "docs-and-git"
			f.values["page"] = "https://docs.workbench.test/install"
		}, wantTask: "Open https://docs.workbench.test/install and read it."},
		{name: "freeform placeholder empty", form: func(f *teachForm) {
			f.pick(freeformOption)
			f.task, f.world = "Open {page} and read it.", "docs-and-git"
			f.values["page"] = "  "
		}, errField: teach.FieldInput, errName: "page", errBeside: true},
		{name: "freeform without a task", form: func(f *teachForm) {
			f.pick(freeformOption)
			f.world = "docs-and-git"
		}, errField: teach.FieldTask, errBeside: true},
		{name: "freeform in no world", form: func(f *teachForm) {
			f.pick(freeformOption)
			f.task, f.world = "Open a page.", "mars"
		}, errField: teach.FieldWorld, errName: "mars", errBeside: true},
		{name: "no model", form: func(f *teachForm) {
			f.pick(fixtures.BasicPromptToManifest)
			f.modelID = ""
		}, errField: workbench.FieldModel, errBeside: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &teachForm{values: map[string]string{}, modelID: defaultModel}
			tc.form(f)
			p, err := f.plan(ctx, body.KindSimulator)
			f.planErr = err
			if tc.errField == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Task.Description != tc.wantTask {
					t.Errorf("task %q, want %q", p.Task.Description, tc.wantTask)
				}
				if f.otherError() != "" {
					t.Errorf("general error %q without an error", f.otherError())
				}
				return
			}
			var ie *teach.InputError
			if !errors.As(err, &ie) || ie.Field != tc.errField || ie.Name != tc.errName {
				t.Fatalf("error %v, want an InputError for %s %q", err, tc.errField, tc.errName)
			}
			beside := f.errorFor(tc.errField, tc.errName) != ""
			if beside != tc.errBeside || beside == (f.otherError() != "") {
				t.Errorf("beside the field: %v, in the general error: %q; want beside=%v", beside, f.otherError(), tc.errBeside)
			}
		})
	}
}

// Picking a scenario resets its inputs to the scenario's examples;
// picking freeform clears them.
func TestTeachFormPick(t *testing.T) {
	f := &teachForm{values: map[string]string{}}
	for _, id := range teach.ScenarioIDs() {
		f.pick(id)
		sc, err := fixtures.ScenarioByID(id)
		if err != nil {
			t.Fatal(err)
		}
		if f.freeform || f.scenario != id || len(f.fields) != len(sc.Inputs) {
			t.Errorf("%s: form %+v", id, f)
		}
	}
	f.pick(freeformOption)
	if !f.freeform || f.scenario != "" || f.fields != nil {
		t.Errorf("freeform: form %+v", f)
	}
	f.pick("skill.nope")
	if f.planErr == nil || !strings.Contains(f.otherError(), "no such scenario") {
		t.Errorf("unknown scenario: %v", f.planErr)
	}
}

// The body is chosen in one place: the simulator from the plan's world;
// an MCP body neither a pairing nor the relay offers is said to be not
// available, pointing to "This computer", never to an operator's command.
func TestEnvBody(t *testing.T) {
	ctx := context.Background()
	e := &env{}
	world, err := teach.World("docs-and-git")
	if err != nil {
		t.Fatal(err)
	}
	b, trusted, err := e.body(ctx, body.KindSimulator, world, mcpSettings{})
	if err != nil || b.Kind() != "simulator" || !trusted {
		t.Fatalf("simulator: %v %v %v", b, trusted, err)
	}
	if _, _, err := e.body(ctx, body.KindSimulator, []byte(`{}`), mcpSettings{}); err == nil {
		t.Error("a world that is not one loaded")
	}
	for _, tc := range []struct {
		err  errBodyNotConfigured
		want string
	}{
		{errBodyNotConfigured{choice: body.KindBrowser}, `the browser body is not available: this tab is not paired with bodies on this computer, and this workbench's MCP relay has no server named "browser" (it has: none); pair this computer on the home page (This computer)`},
		{errBodyNotConfigured{choice: body.KindHost, known: []string{"browser", "prism"}}, `no server named "host" (it has: browser, prism); pair this computer on the home page`},
	} {
		if got := tc.err.Error(); !strings.Contains(got, tc.want) {
			t.Errorf("%q, want it to contain %q", got, tc.want)
		}
	}
}

// The MCP settings: nothing is trusted unless named; the host's perceive
// arguments must be a JSON object, and a bad one is an error naming them.
func TestMCPSettings(t *testing.T) {
	s := mcpSettings{Trusted: []string{"host"}, Perceive: "list_files", PerceiveArgs: `{"path": "/tmp"}`}
	if !s.trusts("host") || s.trusts("browser") {
		t.Errorf("trusts: %+v", s)
	}
	tool, args, err := s.perceive()
	if err != nil || tool != "list_files" || args["path"] != "/tmp" {
		t.Errorf("perceive: %q %v %v", tool, args, err)
	}
	s.PerceiveArgs = `[1]`
	if _, _, err := s.perceive(); err == nil || !strings.Contains(err.Error(), `perceive arguments "[1]" are not a JSON object`) {
		t.Errorf("bad arguments: %v", err)
	}
}

// On an MCP body a task is freeform: its placeholders become string
// inputs, the body's capability is granted, and no simulator world is
// planned; a fixture scenario is refused with the reason.
func TestPlanMCP(t *testing.T) {
	f := teachForm{values: map[string]string{"site": "http://127.0.0.1:8080/"}, modelID: defaultModel}
	f.pick("skill.nope")
	f.pick(freeformOption)
	f.task = "Open {site} and read the heading"
	p, err := f.plan(context.Background(), body.KindBrowser)
	if err != nil {
		t.Fatal(err)
	}
	if p.Task.BodyChoice != "browser" || p.Task.Description != "Open http://127.0.0.1:8080/ and read the heading" ||
		p.World != nil || len(p.Declared) != 1 || p.Declared[0] != skill.CapabilityBrowser || len(p.Inputs) != 1 || p.Inputs[0].Type != "string" {
		t.Errorf("plan: %+v", p)
	}
	f.values = map[string]string{}
	if _, err := f.plan(context.Background(), body.KindHost); err == nil || !strings.Contains(err.Error(), "{site}") {
		t.Errorf("missing value: %v", err)
	}
	g := teachForm{}
	g.pick(teach.ScenarioIDs()[0])
	if _, err := g.plan(context.Background(), body.KindBrowser); err == nil || !strings.Contains(err.Error(), "run on the simulator") {
		t.Errorf("scenario on a browser: %v", err)
	}
}

// The timeline follows what the run reported: retrieve once it started,
// then the phase of each step; nothing is marked that did not happen.
func TestTeachRunProgress(t *testing.T) {
	r := &teachRun{stage: stageRunning, reached: map[pulse.Phase]bool{}}
	if r.reached[pulse.PhaseRetrieve] {
		t.Fatal("retrieve reached before the run reported anything")
	}
	edge := &skill.Edge{Index: 0}
	for _, pr := range []demonstrate.Progress{
		{Phase: "model", CostUSD: 0},
		{Phase: "perceive"},
		{Phase: "authorize"},
		{Phase: "act", Edge: edge, CostUSD: 0.001},
	} {
		r.progress(pr)
	}
	for ph, want := range map[pulse.Phase]bool{pulse.PhaseRetrieve: true, pulse.PhaseRoute: true, pulse.PhaseAct: true,
		pulse.PhaseLearn: false, pulse.PhaseConsolidate: false} {
		if r.reached[ph] != want {
			t.Errorf("%s reached: %v, want %v", ph, r.reached[ph], want)
		}
	}
	if r.current != pulse.PhaseAct || r.cost != 0.001 || len(r.steps) != 4 {
		t.Errorf("current %s, cost %v, %d steps", r.current, r.cost, len(r.steps))
	}
}

func TestModelErrorSummary(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&openrouter.APIError{Status: 401, Message: "User not found."}, "refused the key (401)"},
		{&openrouter.APIError{Status: 402, Message: "Insufficient credits"}, "out of credit (402)"},
		{&openrouter.APIError{Status: 429}, "rate limiting"},
		{&openrouter.APIError{Status: 500}, "model call failed"},
		{fmt.Errorf("model: %w", &openrouter.UnreadableError{Replies: 3, Last: &openrouter.MalformedError{Reason: "not a chat completion"}}), "replies could not be read (3 in a row)"},
		{errors.New("body gone"), "stopped with an error"},
	} {
		if got := modelErrorSummary(tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("%v: %q, want it to say %q", tc.err, got, tc.want)
		}
	}
}
