package workbench_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/workbench"
)

// TestPlanTeach: one planning for every front-end — a fixture scenario
// or a freeform task on the simulator, a freeform task on an MCP body —
// and every mistake a *teach.InputError naming its field.
func TestPlanTeach(t *testing.T) {
	site := []teach.Value{{Name: "site", Raw: "http://127.0.0.1:8080/"}}
	for _, tc := range []struct {
		name string
		r    workbench.TeachRequest
		// On success: the body, the goal, the world and the capabilities
		// granted.
		body, goal, world, declared string
		inputs                      int
		// On failure: the field and name the error is beside, and a piece
		// of its message.
		field, fieldName, msg string
	}{
		{name: "scenario", r: workbench.TeachRequest{Scenario: fixtures.BasicPromptToManifest},
			body: "simulator", goal: "https://docs.workbench.test/getting-started", world: "docs-and-git", inputs: 1},
		{name: "scenario in another world", r: workbench.TeachRequest{Scenario: fixtures.BasicPromptToManifest, World: "weather"},
			body: "simulator", world: "weather", inputs: 1},
		{name: "scenario, unknown world", r: workbench.TeachRequest{Scenario: fixtures.BasicPromptToManifest, World: "mars"},
			field: teach.FieldWorld, fieldName: "mars", msg: "no such world"},
		{name: "scenario with capabilities", r: workbench.TeachRequest{Scenario: fixtures.BasicPromptToManifest, Capabilities: []string{"&body.browser"}},
			field: teach.FieldCapability, fieldName: "&body.browser", msg: "granted to a freeform task"},
		{name: "unknown scenario", r: workbench.TeachRequest{Scenario: "skill.nope"},
			field: teach.FieldScenario, fieldName: "skill.nope", msg: "no such scenario"},
		{name: "freeform", r: workbench.TeachRequest{Task: "Open {site} and read it", World: "docs-and-git", Inputs: site},
			body: "simulator", goal: "Open http://127.0.0.1:8080/ and read it", world: "docs-and-git", inputs: 1},
		{name: "freeform without a world", r: workbench.TeachRequest{Task: "Open a page"},
			field: teach.FieldWorld, msg: "needs a simulator world"},
		{name: "a placeholder without a value", r: workbench.TeachRequest{Task: "Open {site}", World: "docs-and-git"},
			field: teach.FieldInput, fieldName: "site", msg: "no value was given"},
		{name: "a blank value", r: workbench.TeachRequest{Task: "Open {site}", World: "docs-and-git", Inputs: []teach.Value{{Name: "site", Raw: " "}}},
			field: teach.FieldInput, fieldName: "site", msg: "give it a value"},
		{name: "neither", r: workbench.TeachRequest{}, field: teach.FieldTask, msg: "describe the task"},
		{name: "both", r: workbench.TeachRequest{Scenario: fixtures.BasicPromptToManifest, Task: "x"}, field: teach.FieldTask, msg: "not both"},
		{name: "browser", r: workbench.TeachRequest{Body: body.KindBrowser, Task: "Open {site} and read the heading", Inputs: site},
			body: "browser", goal: "Open http://127.0.0.1:8080/ and read the heading", declared: skill.CapabilityBrowser, inputs: 1},
		{name: "host", r: workbench.TeachRequest{Body: body.KindHost, Task: "List the files"},
			body: "host", goal: "List the files", declared: skill.CapabilityOS},
		{name: "host, capabilities named", r: workbench.TeachRequest{Body: body.KindHost, Task: "List the files", Capabilities: []string{"&fs.read"}},
			body: "host", goal: "List the files", declared: "&fs.read"},
		{name: "scenario on a browser", r: workbench.TeachRequest{Body: body.KindBrowser, Scenario: fixtures.BasicPromptToManifest},
			field: teach.FieldScenario, fieldName: fixtures.BasicPromptToManifest, msg: "run on the simulator"},
		{name: "world on a browser", r: workbench.TeachRequest{Body: body.KindBrowser, Task: "x", World: "weather"},
			field: teach.FieldWorld, fieldName: "weather", msg: "the simulator's"},
		{name: "no task on a host", r: workbench.TeachRequest{Body: body.KindHost}, field: teach.FieldTask, msg: "describe the task"},
		{name: "missing value on a host", r: workbench.TeachRequest{Body: body.KindHost, Task: "Read {file}"},
			field: teach.FieldInput, fieldName: "file", msg: "no value was given"},
		{name: "a value given twice on a browser", r: workbench.TeachRequest{Body: body.KindBrowser, Task: "Open {site}", Inputs: append(site, site...)},
			field: teach.FieldInput, fieldName: "site", msg: "given twice"},
		{name: "unknown body", r: workbench.TeachRequest{Body: "robot", Task: "x"}, field: workbench.FieldBody, fieldName: "robot", msg: "no such body"},
		{name: "no model", r: workbench.TeachRequest{Scenario: fixtures.BasicPromptToManifest, Model: " "}, field: workbench.FieldModel, msg: "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.r.Model == "" {
				tc.r.Model = "example/teacher"
			}
			p, err := workbench.PlanTeach(context.Background(), tc.r)
			if tc.field != "" {
				var ie *teach.InputError
				if !errors.As(err, &ie) || ie.Field != tc.field || ie.Name != tc.fieldName || !strings.Contains(ie.Msg, tc.msg) {
					t.Fatalf("PlanTeach = %v, %v; want an input error beside %s %q saying %q", p, err, tc.field, tc.fieldName, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(p.Task.BodyChoice) != tc.body || !strings.Contains(p.Task.Description, tc.goal) || p.WorldName != tc.world ||
				len(p.Inputs) != tc.inputs || (tc.world == "") != (p.World == nil) {
				t.Errorf("plan: body %q goal %q world %q (%d bytes), %d inputs", p.Task.BodyChoice, p.Task.Description, p.WorldName, len(p.World), len(p.Inputs))
			}
			if tc.declared != "" && strings.Join(p.Declared, ",") != tc.declared {
				t.Errorf("declared %v, want %s", p.Declared, tc.declared)
			}
			if tc.body != "simulator" {
				for _, in := range p.Inputs {
					if in.Type != "string" || !in.Required {
						t.Errorf("input %s: type %q required %v", in.Name, in.Type, in.Required)
					}
				}
			}
		})
	}
}
