// Package teach is the teaching flow that the /teach page and
// `workbench teach` share, from the user's choice to a sealed bundle:
//
//  1. FromScenario or Freeform turns a fixture scenario or a freeform task
//     and the values the user typed into a Plan (task, typed inputs,
//     declared capabilities, simulator world);
//  2. Demonstrate lets a model carry the task out on a body while every
//     step is recorded (package demonstrate);
//  3. Draft crystallizes the recording into a draft manifest the user may
//     rename;
//  4. Seal assembles, seals and verifies the bundle with the manifest as
//     the user left it.
//
// Every mistake in what the user gave comes back as an
// *InputError naming the field, so a form can show it beside that field
// and the command line beside its flag.
package teach

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Fields an InputError can name, besides an input's own name.
const (
	FieldScenario   = "scenario"
	FieldTask       = "task"
	FieldWorld      = "world"
	FieldCapability = "capability"
	FieldInput      = "input"
)

// InputError is something the user gave that cannot be used: Field is one
// of the Field constants, Name the input or capability concerned (if any),
// and Msg says what is wrong in words fit to show beside the field.
type InputError struct {
	Field string
	Name  string
	Msg   string
}

func (e *InputError) Error() string {
	if e.Name != "" {
		return e.Field + " " + e.Name + ": " + e.Msg
	}
	return e.Field + ": " + e.Msg
}

func inputErrorf(field, name, format string, args ...any) *InputError {
	return &InputError{Field: field, Name: name, Msg: fmt.Sprintf(format, args...)}
}

// Value is one input as the user typed it: raw text, typed by the input's
// declared type when the plan is made.
type Value struct {
	Name string
	Raw  string
}

// Plan is a demonstration ready to run: the task with its placeholders
// filled, the inputs with typed values, the outputs the skill promises,
// the capabilities it is granted and the simulator world it starts in.
type Plan struct {
	Task     demonstrate.Task
	Inputs   []crystallize.Input
	Outputs  []skill.OutputSpec
	Declared []string
	// Offered are the capabilities whose tools the model is shown: the
	// declared ones, and for a fixture scenario also those it attempts on
	// purpose (skill.authority_denied tries &body.os, granted only
	// &body.browser, so that the policy's refusal is exercised).
	Offered   []string
	WorldName string
	World     []byte
}

// ScenarioIDs lists the fixture scenarios in their stable order.
func ScenarioIDs() []string {
	all, err := fixtures.Scenarios()
	if err != nil {
		return nil
	}
	ids := make([]string, len(all))
	for i, s := range all {
		ids[i] = s.ID
	}
	return ids
}

// FromScenario plans fixture scenario id. Inputs not given take the
// scenario's example values; a value names an input the scenario declares
// and parses as its type.
func FromScenario(id string, given []Value) (*Plan, error) {
	sc, err := fixtures.ScenarioByID(id)
	if err != nil {
		return nil, inputErrorf(FieldScenario, id, "no such scenario (scenarios: %s)", strings.Join(ScenarioIDs(), ", "))
	}
	if err := distinct(given); err != nil {
		return nil, err
	}
	types := map[string]string{}
	var names []string
	values := map[string]any{}
	for _, i := range sc.Inputs {
		types[i.Name] = i.Type
		names = append(names, i.Name)
		values[i.Name] = i.Example
	}
	for _, g := range given {
		typ, ok := types[g.Name]
		if !ok {
			return nil, inputErrorf(FieldInput, g.Name, "scenario %s has no input %q (its inputs: %s)", sc.ID, g.Name, listOrNone(names))
		}
		v, err := Typed(g.Name, typ, g.Raw)
		if err != nil {
			return nil, err
		}
		values[g.Name] = v
	}
	p := &Plan{
		Task:    demonstrate.Task{ID: skill.NewID(), BodyChoice: skill.BodySimulator, ScenarioID: sc.ID, Inputs: values},
		Outputs: sc.ExpectedOutputsShape, Declared: sc.CapabilitiesDeclared,
		Offered: sc.Offered(),
	}
	for _, i := range sc.Inputs {
		p.Inputs = append(p.Inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: i.Name, Type: i.Type, Required: true}, Value: values[i.Name]})
	}
	if p.Task.Description, err = Fill(sc.TaskPrompt, values); err != nil {
		return nil, err
	}
	if p.WorldName, err = fixtures.WorldFor(sc.ID); err != nil {
		return nil, inputErrorf(FieldWorld, "", "scenario %s has no simulator world", sc.ID)
	}
	if p.World, err = World(p.WorldName); err != nil {
		return nil, err
	}
	return p, nil
}

// Freeform plans a task the user wrote. Its {name} placeholders are filled
// from the given values, which become the skill's string inputs. With no
// capabilities given, the task is granted every capability the world's
// tools exercise; otherwise only those named, each of which the world must
// offer.
func Freeform(ctx context.Context, task, worldName string, given []Value, caps []string) (*Plan, error) {
	if strings.TrimSpace(task) == "" {
		return nil, inputErrorf(FieldTask, "", "describe the task")
	}
	if worldName == "" {
		return nil, inputErrorf(FieldWorld, "", "a freeform task needs a simulator world (worlds: %s)", strings.Join(fixtures.Worlds(), ", "))
	}
	if err := distinct(given); err != nil {
		return nil, err
	}
	p := &Plan{Task: demonstrate.Task{ID: skill.NewID(), BodyChoice: skill.BodySimulator}, WorldName: worldName}
	values := map[string]any{}
	for _, g := range given {
		values[g.Name] = g.Raw
		p.Inputs = append(p.Inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: g.Name, Type: "string", Required: true}, Value: g.Raw})
	}
	var err error
	if p.Task.Description, err = Fill(task, values); err != nil {
		return nil, err
	}
	p.Task.Inputs = values
	if p.World, err = World(worldName); err != nil {
		return nil, err
	}
	if p.Declared, err = granted(ctx, p.World, caps); err != nil {
		return nil, err
	}
	return p, nil
}

// granted is what a freeform task may use: the capabilities named, each
// offered by the world, or all it offers.
func granted(ctx context.Context, world []byte, caps []string) ([]string, error) {
	s, err := sim.New(world)
	if err != nil {
		return nil, err
	}
	tools, err := s.Tools(ctx)
	if err != nil {
		return nil, err
	}
	offered := []string{}
	for _, t := range tools {
		if t.Capability != "" && !slices.Contains(offered, t.Capability) {
			offered = append(offered, t.Capability)
		}
	}
	slices.Sort(offered)
	if len(caps) == 0 {
		return offered, nil
	}
	for _, c := range caps {
		if c != skill.CapabilityAmbient && !slices.Contains(offered, c) {
			return nil, inputErrorf(FieldCapability, c, "the world offers %s", strings.Join(offered, ", "))
		}
	}
	return slices.Clone(caps), nil
}

func distinct(given []Value) error {
	seen := map[string]bool{}
	for _, g := range given {
		if strings.TrimSpace(g.Name) == "" {
			return inputErrorf(FieldInput, "", "an input has no name")
		}
		if seen[g.Name] {
			return inputErrorf(FieldInput, g.Name, "given twice")
		}
		seen[g.Name] = true
	}
	return nil
}

// Typed converts raw to an input's declared type (spec §5.2: string,
// number, boolean, url, json).
func Typed(name, typ, raw string) (any, error) {
	switch typ {
	case "number":
		n, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil {
			return nil, inputErrorf(FieldInput, name, "%q is not a number", raw)
		}
		return n, nil
	case "boolean":
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, inputErrorf(FieldInput, name, "%q is not true or false", raw)
		}
		return b, nil
	case "json":
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			return nil, inputErrorf(FieldInput, name, "not JSON: %v", err)
		}
		return v, nil
	}
	return raw, nil
}

var placeholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Placeholders lists the {name} placeholders of a task in order of first
// appearance, for a form that asks for each.
func Placeholders(task string) []string {
	var names []string
	for _, m := range placeholder.FindAllStringSubmatch(task, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	return names
}

// Fill puts input values into a task's {name} placeholders; a placeholder
// that no value fills is an error naming it.
func Fill(task string, values map[string]any) (string, error) {
	var missing []string
	out := placeholder.ReplaceAllStringFunc(task, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := values[name]
		if !ok {
			missing = append(missing, name)
			return m
		}
		if s, ok := v.(string); ok {
			return s
		}
		b, _ := json.Marshal(v)
		return string(b)
	})
	if len(missing) > 0 {
		return "", inputErrorf(FieldInput, missing[0], "the task mentions {%s} but no value was given for it", missing[0])
	}
	return out, nil
}

// World returns a simulator world's bytes by name.
func World(name string) ([]byte, error) {
	data, err := fixtures.World(name)
	if err != nil {
		return nil, inputErrorf(FieldWorld, name, "no such world (worlds: %s)", strings.Join(fixtures.Worlds(), ", "))
	}
	return data, nil
}

// Options are the parts of a demonstration that are not the plan: who
// thinks, what it acts through, and how much it may do.
type Options struct {
	Model           demonstrate.Model
	ModelID         string
	Body            body.Body
	Authorizer      policy.Authorizer
	DestructiveMode bool
	// TrustedServer says whether the body's tool annotations are believed
	// (DESIGN §7); the simulator's always are.
	TrustedServer bool
	MaxSteps      int
	Progress      func(demonstrate.Progress)
	// Stop, when closed, ends the recording at the next step and keeps
	// what was recorded (the /teach page's "Stop recording").
	Stop <-chan struct{}
}

// Demonstrate runs the plan's task on o.Body. The returned Result holds
// whatever was recorded, even when the run stopped early; Draft says
// whether it can become a skill.
func Demonstrate(ctx context.Context, p *Plan, o Options) (*demonstrate.Result, error) {
	return demonstrate.Run(ctx, p.Task, demonstrate.Options{
		Model: o.Model, ModelID: o.ModelID, Body: o.Body, Authorizer: o.Authorizer,
		Declared: p.Declared, Offered: p.Offered, DestructiveMode: o.DestructiveMode, TrustedServer: o.TrustedServer,
		MaxSteps: o.MaxSteps, Progress: o.Progress, Stop: o.Stop,
	})
}

// ErrNothingDemonstrated means a demonstration ended without acting on
// the body, so there is no skill to crystallize.
var ErrNothingDemonstrated = errors.New("the model answered without acting on the body, so there is nothing to crystallize")

// Draft crystallizes a finished demonstration into a draft manifest. A run
// that failed, was cancelled or never acted gives an error saying so; a
// run that hit its step limit or that the user stopped is drafted (it
// holds what it did).
func Draft(p *Plan, res *demonstrate.Result, now time.Time) (skill.Manifest, error) {
	switch {
	case res == nil:
		return skill.Manifest{}, errors.New("no demonstration")
	case res.Stopped == demonstrate.StopError:
		return skill.Manifest{}, fmt.Errorf("the demonstration stopped after %d edges: %w", len(res.Trace.Edges), res.Err)
	case res.Stopped == demonstrate.StopCancelled:
		return skill.Manifest{}, fmt.Errorf("cancelled after %d edges", len(res.Trace.Edges))
	case len(res.Trace.Edges) == 0:
		return skill.Manifest{}, ErrNothingDemonstrated
	}
	return crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: skill.NewID(), BodyChoice: p.Task.BodyChoice,
		Inputs: p.Inputs, Outputs: p.Outputs, Now: now})
}

// Seal assembles the bundle of a demonstration with manifest m as the
// user left it, seals it with its proof, and verifies the exported bytes.
// It returns the bundle and its verification report; a bundle that does
// not verify is an error. The crystallization and consolidation phases go
// on the bundle's copy of the run's PULSE recorder: res is not changed,
// so Summarize may come before and Seal may run again.
func Seal(v *verify.Verifier, p *Plan, res *demonstrate.Result, m skill.Manifest, modelID string, now time.Time) (*skill.Bundle, *verify.Report, error) {
	b, err := assemble.Bundle(v, assemble.Teaching{Task: p.Task, Result: res, Manifest: m, ModelID: modelID}, now, skill.NewID)
	if err != nil {
		return nil, nil, err
	}
	data, err := b.Encode()
	if err != nil {
		return nil, nil, err
	}
	rep, err := v.Bytes(data)
	if err != nil {
		return nil, nil, fmt.Errorf("the assembled bundle does not verify: %w", err)
	}
	return b, rep, nil
}

// Ready says whether a freshly taught bundle is as good as a bundle can be
// before its first replay: no overclaim, and every gate passes or does not
// apply, except gate.replay_fidelity, which only a replay can decide.
func Ready(r *verify.Report) bool {
	if len(r.Overclaims) > 0 {
		return false
	}
	for _, g := range r.Derived.ProofGates {
		switch {
		case g.Verdict == skill.VerdictPass, g.Verdict == skill.VerdictNotApplicable:
		case g.ID == skill.GateReplayFidelity && g.Verdict == skill.VerdictInconclusive:
		default:
			return false
		}
	}
	return true
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
