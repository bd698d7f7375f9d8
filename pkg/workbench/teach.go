package workbench

import (
	"context"
	"slices"
	"strings"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
)

// TeachRequest is what a person asks to demonstrate: a fixture scenario
// or a freeform task, on the simulator or on an MCP body.
type TeachRequest struct {
	// Scenario is a fixture scenario id; empty for a freeform task.
	Scenario string
	// Task is a freeform task; each {name} in it is filled from Inputs.
	Task string
	// World is the simulator world: a freeform task on the simulator
	// needs one; for a scenario it replaces the scenario's own. An MCP
	// body has none.
	World string
	// Body is the body kind the task runs on: body.KindSimulator (or
	// empty), body.KindBrowser or body.KindHost.
	Body body.Kind
	// Inputs are the values as typed. A scenario's inputs not given take
	// its examples; a freeform task's become string inputs of the skill.
	Inputs []teach.Value
	// Capabilities are what a freeform task is granted; empty means
	// every capability the world's tools exercise, or the MCP body's own.
	Capabilities []string
	// Model is the OpenRouter model id that will demonstrate; required.
	Model string
}

// PlanTeach makes the demonstration's plan: on the simulator
// teach.FromScenario or teach.Freeform; on a browser or host body a
// freeform task that starts wherever the body is. Every mistake in what
// was given is a *teach.InputError naming its field, fit to show beside
// it: a scenario or a world on an MCP body, no task, neither or both of a
// scenario and a task, capabilities for a scenario, a placeholder of the
// task without a value, no model (field FieldModel).
func PlanTeach(ctx context.Context, r TeachRequest) (*teach.Plan, error) {
	p, err := planTask(ctx, r)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(r.Model) == "" {
		return nil, &teach.InputError{Field: FieldModel, Msg: "required: the OpenRouter model id that demonstrates, e.g. openai/gpt-4o"}
	}
	return p, nil
}

// planTask plans the task of r (PlanTeach), whatever its model.
func planTask(ctx context.Context, r TeachRequest) (*teach.Plan, error) {
	onSim := r.Body == "" || r.Body == body.KindSimulator
	switch {
	case r.Body != "" && !onSim && r.Body != body.KindBrowser && r.Body != body.KindHost:
		return nil, &teach.InputError{Field: FieldBody, Name: string(r.Body), Msg: "no such body (bodies: simulator, browser, host)"}
	case r.Scenario != "" && r.Task != "":
		return nil, &teach.InputError{Field: teach.FieldTask, Msg: "give a fixture scenario or a freeform task, not both"}
	case !onSim && r.Scenario != "":
		return nil, &teach.InputError{Field: teach.FieldScenario, Name: r.Scenario,
			Msg: "the fixture scenarios run on the simulator; on the " + string(r.Body) + " body describe the task as a freeform task"}
	case !onSim && r.World != "":
		return nil, &teach.InputError{Field: teach.FieldWorld, Name: r.World, Msg: "a world is the simulator's; the " + string(r.Body) + " body starts where it is"}
	case r.Scenario == "" && strings.TrimSpace(r.Task) == "":
		return nil, &teach.InputError{Field: teach.FieldTask, Msg: "describe the task"}
	}
	if r.Scenario != "" {
		return planScenario(r)
	}
	if err := filled(r.Task, r.Inputs); err != nil {
		return nil, err
	}
	if onSim {
		return teach.Freeform(ctx, r.Task, r.World, r.Inputs, r.Capabilities)
	}
	return planMCP(r)
}

// FieldBody and FieldModel name the body kind and the model in a
// *teach.InputError (teach names the other fields).
const (
	FieldBody  = "body"
	FieldModel = "model"
)

// planScenario plans a fixture scenario on the simulator, in its own world
// or the one named.
func planScenario(r TeachRequest) (*teach.Plan, error) {
	if len(r.Capabilities) > 0 {
		if sc, err := fixtures.ScenarioByID(r.Scenario); err == nil {
			return nil, &teach.InputError{Field: teach.FieldCapability, Name: r.Capabilities[0],
				Msg: "capabilities are granted to a freeform task: scenario " + sc.ID + " declares " + strings.Join(sc.CapabilitiesDeclared, ", ")}
		}
	}
	p, err := teach.FromScenario(r.Scenario, r.Inputs)
	if err != nil || r.World == "" {
		return p, err
	}
	if p.World, err = teach.World(r.World); err != nil {
		return nil, err
	}
	p.WorldName = r.World
	return p, nil
}

// filled checks that every {placeholder} of task has a value that is not
// blank, before anything is planned.
func filled(task string, given []teach.Value) error {
	for _, name := range teach.Placeholders(task) {
		i := slices.IndexFunc(given, func(v teach.Value) bool { return v.Name == name })
		switch {
		case i < 0:
			return &teach.InputError{Field: teach.FieldInput, Name: name, Msg: "the task mentions {" + name + "} but no value was given for it"}
		case strings.TrimSpace(given[i].Raw) == "":
			return &teach.InputError{Field: teach.FieldInput, Name: name, Msg: "the task mentions {" + name + "}: give it a value"}
		}
	}
	return nil
}

// planMCP plans a freeform task on an MCP body: the given values become
// string inputs and fill the task's placeholders, and the task is granted
// the capabilities named or else the body's own.
func planMCP(r TeachRequest) (*teach.Plan, error) {
	p := &teach.Plan{Task: demonstrate.Task{ID: skill.NewID(), BodyChoice: r.Body}}
	values := map[string]any{}
	for _, v := range r.Inputs {
		if _, dup := values[v.Name]; dup {
			return nil, &teach.InputError{Field: teach.FieldInput, Name: v.Name, Msg: "given twice"}
		}
		values[v.Name] = v.Raw
		p.Inputs = append(p.Inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: v.Name, Type: "string", Required: true}, Value: v.Raw})
	}
	desc, err := teach.Fill(r.Task, values)
	if err != nil {
		return nil, err
	}
	p.Task.Description, p.Task.Inputs = desc, values
	p.Declared = slices.Clone(r.Capabilities)
	if len(p.Declared) == 0 {
		p.Declared = []string{map[body.Kind]string{body.KindBrowser: skill.CapabilityBrowser, body.KindHost: skill.CapabilityOS}[r.Body]}
	}
	return p, nil
}
