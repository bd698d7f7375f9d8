package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/pulse"
	"workbench/pkg/session"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
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
		errField  string // teach.Field… or fieldModel; "" when it plans
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &teachForm{values: map[string]string{}, modelID: defaultModel}
			tc.form(f)
			p, err := f.plan(ctx)
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
// browser and host say plainly that this build cannot drive them.
func TestEnvBody(t *testing.T) {
	ctx := context.Background()
	e := &env{}
	world, err := teach.World("docs-and-git")
	if err != nil {
		t.Fatal(err)
	}
	b, trusted, err := e.body(ctx, session.Simulator, world)
	if err != nil || b.Kind() != "simulator" || !trusted {
		t.Fatalf("simulator: %v %v %v", b, trusted, err)
	}
	for _, c := range []session.Body{session.Browser, session.Host} {
		b, _, err := e.body(ctx, c, world)
		if b != nil || err == nil || !strings.Contains(err.Error(), "the "+string(c)+" body is not available yet in this build") {
			t.Errorf("%s: %v, %v", c, b, err)
		}
	}
	if _, _, err := e.body(ctx, session.Simulator, []byte(`{}`)); err == nil {
		t.Error("a world that is not one loaded")
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
		{errors.New("body gone"), "stopped with an error"},
	} {
		if got := modelErrorSummary(tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("%v: %q, want it to say %q", tc.err, got, tc.want)
		}
	}
}
