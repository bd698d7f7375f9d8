package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body/sim"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

func teachHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: workbench teach (--scenario ID | --task TEXT --world NAME) --model ID [flags]")
	fmt.Fprintln(w, `
Demonstrates a task to an OpenRouter model acting on the simulator body, crystallizes the
recording into a skill and writes the sealed bundle. The key is read from OPENROUTER_API_KEY.
A scenario supplies the task, its inputs and its declared capabilities; --task is freeform,
its {name} placeholders filled from --input. Scenarios:
  `+strings.Join(scenarioIDs(), "\n  ")+`
Exit status: 0 the bundle verifies with only its replay still to come; 1 the demonstration
failed or the bundle does not verify; 2 bad usage, bad input or a refused key.`)
	fmt.Fprintln(w)
}

func scenarioIDs() []string {
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

// teachPlan is a teach command line resolved into what to demonstrate.
type teachPlan struct {
	task      demonstrate.Task
	inputs    []crystallize.Input
	outputs   []skill.OutputSpec
	declared  []string
	worldName string
	world     []byte
}

func runTeach(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("teach", stdout, stderr, teachHelp)
	var inputs inputFlag
	var caps multiFlag
	scenario := c.fs.String("scenario", "", "fixture scenario `ID`: task, inputs and declared capabilities")
	task := c.fs.String("task", "", "freeform task `TEXT`; {name} placeholders are filled from --input")
	worldName := c.fs.String("world", "", "simulator world `NAME` (default: the scenario's world)")
	c.fs.Var(&inputs, "input", "task input `name=value`, repeatable (a scenario's inputs default to its examples)")
	c.fs.Var(&caps, "capability", "`capability` a freeform task is granted, e.g. &body.browser, repeatable\n(default: every capability the world's tools exercise)")
	model := c.fs.String("model", "", "OpenRouter model `ID` that demonstrates, e.g. openai/gpt-4o (required)")
	base := c.fs.String("openrouter", openrouter.OpenRouterAPI, "OpenRouter API base `URL`")
	out := c.fs.String("out", "", "write the sealed bundle to `FILE` (default <slug>.v1.skill.json)")
	destructive := c.fs.Bool("destructive", false, "destructive mode: the policy allows host writes")
	maxSteps := c.fs.Int("max-steps", demonstrate.DefaultMaxSteps, "stop after `N` model turns")
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return c.fail(usagef("unexpected argument %q (run 'workbench teach --help')", pos[0]))
	}
	if *model == "" {
		return c.fail(usagef("--model is required: the OpenRouter model that demonstrates, e.g. openai/gpt-4o"))
	}
	if *maxSteps <= 0 {
		return c.fail(usagef("--max-steps %d: must be at least 1", *maxSteps))
	}
	plan, err := planTeach(ctx, *scenario, *task, *worldName, inputs, caps)
	if err != nil {
		return c.fail(err)
	}
	cl, err := client(ctx, *base)
	if err != nil {
		return c.fail(err)
	}
	bd, err := sim.New(plan.world)
	if err != nil {
		return c.fail(fmt.Errorf("world %s: %w", plan.worldName, err))
	}
	c.progressf("demonstrating with %s on the simulator world %s (declared: %s)", *model, plan.worldName, strings.Join(plan.declared, ", "))
	res, err := demonstrate.Run(ctx, plan.task, demonstrate.Options{
		Model: cl, ModelID: *model, Body: bd, Authorizer: policy.Default(),
		Declared: plan.declared, DestructiveMode: *destructive, TrustedServer: true,
		MaxSteps: *maxSteps, Progress: func(p demonstrate.Progress) { teachProgress(c, p) },
	})
	if err != nil {
		return c.fail(err)
	}
	switch {
	case res.Stopped == demonstrate.StopError:
		return c.fail(fmt.Errorf("the demonstration stopped after %d edges, nothing written: %w", len(res.Trace.Edges), res.Err))
	case res.Stopped == demonstrate.StopCancelled:
		return c.fail(fmt.Errorf("cancelled after %d edges, nothing written", len(res.Trace.Edges)))
	case len(res.Trace.Edges) == 0:
		return c.fail(fmt.Errorf("the model answered without acting on the body, so there is nothing to crystallize (answer: %q)", clip(res.Answer, 200)))
	}

	v, err := newVerifier()
	if err != nil {
		return c.fail(err)
	}
	now := time.Now()
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: skill.NewID(), BodyChoice: skill.BodySimulator,
		Inputs: plan.inputs, Outputs: plan.outputs, Now: now})
	if err != nil {
		return c.fail(err)
	}
	b, err := assemble.Bundle(v, assemble.Teaching{Task: plan.task, Result: res, Manifest: m, ModelID: *model}, now, skill.NewID)
	if err != nil {
		return c.fail(err)
	}
	data, err := b.Encode()
	if err != nil {
		return c.fail(err)
	}
	rep, err := v.Bytes(data)
	if err != nil {
		return c.fail(fmt.Errorf("the assembled bundle does not verify: %w", err))
	}
	file, err := writeBundle(b, *out)
	if err != nil {
		return c.fail(err)
	}

	fmt.Fprintf(stdout, "taught %q: skill %s v%d, %s, world %s, model %s\n", b.Manifest.Name, b.SkillID, b.SkillVersion,
		orFreeform(plan.task.ScenarioID), plan.worldName, *model)
	fmt.Fprintf(stdout, "  stopped: %s; %d edges; cost %s\n", res.Stopped, len(b.Trace.Edges), cost(res.CostUSD, res.CostKnown))
	for _, e := range b.Trace.Edges {
		fmt.Fprintf(stdout, "  edge %d %s: %s, %s; %s\n", e.Index, e.Tool.Name, e.OutcomeStatus, decision(e), sources(e))
	}
	if res.Answer != "" {
		fmt.Fprintf(stdout, "  answer: %s\n", clip(res.Answer, 300))
	}
	fmt.Fprintf(stdout, "  binding: %s\n", b.Manifest.Binding)
	fmt.Fprintf(stdout, "wrote %s\n\n", file)
	printReport(stdout, file, rep)
	if res.Stopped == demonstrate.StopStepLimit {
		c.errorf("the model did not finish within --max-steps %d turns; the bundle holds what it did", *maxSteps)
		return exitUnproven
	}
	if !taughtPasses(rep) {
		return exitUnproven
	}
	return exitProven
}

// planTeach resolves the scenario or freeform task, its inputs, world and
// declared capabilities.
func planTeach(ctx context.Context, scenarioID, task, worldName string, in inputFlag, caps multiFlag) (*teachPlan, error) {
	switch {
	case scenarioID == "" && task == "":
		return nil, usagef("give --scenario ID (one of %s) or --task TEXT", strings.Join(scenarioIDs(), ", "))
	case scenarioID != "" && task != "":
		return nil, usagef("give --scenario or --task, not both")
	}
	p := &teachPlan{task: demonstrate.Task{ID: skill.NewID(), BodyChoice: skill.BodySimulator}}
	values := map[string]any{}
	if scenarioID != "" {
		sc, err := fixtures.ScenarioByID(scenarioID)
		if err != nil {
			return nil, usagef("--scenario %s: no such scenario (scenarios: %s)", scenarioID, strings.Join(scenarioIDs(), ", "))
		}
		if len(caps) > 0 {
			return nil, usagef("--capability is for --task: scenario %s declares %s", sc.ID, strings.Join(sc.CapabilitiesDeclared, ", "))
		}
		types := map[string]string{}
		var names []string
		for _, i := range sc.Inputs {
			types[i.Name] = i.Type
			names = append(names, i.Name)
			values[i.Name] = i.Example
		}
		for _, name := range in.names {
			typ, ok := types[name]
			if !ok {
				return nil, usagef("--input %s: scenario %s has no input %q (its inputs: %s)", name, sc.ID, name, listOrNone(names))
			}
			v, err := typedValue(name, typ, in.values[name])
			if err != nil {
				return nil, err
			}
			values[name] = v
		}
		for _, i := range sc.Inputs {
			p.inputs = append(p.inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: i.Name, Type: i.Type, Required: true}, Value: values[i.Name]})
		}
		task, p.task.ScenarioID, p.outputs, p.declared = sc.TaskPrompt, sc.ID, sc.ExpectedOutputsShape, sc.CapabilitiesDeclared
		if worldName == "" {
			name, err := fixtures.WorldFor(sc.ID)
			if err != nil {
				return nil, usagef("scenario %s has no world; name one with --world", sc.ID)
			}
			worldName = name
		}
	} else {
		if worldName == "" {
			return nil, usagef("--task needs --world NAME (worlds: %s)", strings.Join(fixtures.Worlds(), ", "))
		}
		for _, name := range in.names {
			values[name] = in.values[name]
			p.inputs = append(p.inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: name, Type: "string", Required: true}, Value: in.values[name]})
		}
	}
	filled, err := fillTask(task, values)
	if err != nil {
		return nil, err
	}
	p.task.Description, p.task.Inputs = filled, values
	p.worldName = worldName
	if p.world, err = world(worldName); err != nil {
		return nil, err
	}
	if p.task.ScenarioID == "" {
		if p.declared, err = freeformCapabilities(ctx, p.world, caps); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// freeformCapabilities is what a freeform task is granted: the
// --capability flags, or every capability the world's tools exercise. The
// policy still refuses host writes outside destructive mode.
func freeformCapabilities(ctx context.Context, world []byte, caps multiFlag) ([]string, error) {
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
			return nil, usagef("--capability %s: the world offers %s", c, strings.Join(offered, ", "))
		}
	}
	return caps, nil
}

// taughtPasses says whether a fresh bundle is as good as a bundle can be
// before its first replay: no overclaim, every gate passes or does not
// apply, except gate.replay_fidelity, which only a replay can decide.
func taughtPasses(r *verify.Report) bool {
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

func teachProgress(c *cli, p demonstrate.Progress) {
	switch p.Phase {
	case "model":
		c.progressf("step %d: %s (cost so far $%.4f)", p.Step+1, p.Detail, p.CostUSD)
	case "act":
		if p.Edge == nil {
			c.progressf("step %d: %s", p.Step+1, p.Detail)
			return
		}
		args, _ := json.Marshal(p.Edge.Tool.Arguments)
		c.progressf("step %d: edge %d %s %s: %s, %s", p.Step+1, p.Edge.Index, p.Edge.Tool.Name, clip(string(args), 160), p.Edge.OutcomeStatus, decision(*p.Edge))
	case "answer":
		c.progressf("step %d: the model answered: %s", p.Step+1, clip(p.Detail, 160))
	}
}

func decision(e skill.Edge) string {
	if e.Authorization == nil {
		return "no authorization"
	}
	if e.Authorization.Decision == skill.DecisionAllow {
		return "allowed"
	}
	return e.Authorization.Decision + " (" + e.Authorization.Reason + ")"
}

// sources lists where each parameter of an edge comes from on replay.
func sources(e skill.Edge) string {
	names := make([]string, 0, len(e.ParamSources))
	for n := range e.ParamSources {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + e.ParamSources[n]
	}
	if len(parts) == 0 {
		return "no parameters"
	}
	return "parameters " + strings.Join(parts, " ")
}

func orFreeform(id string) string {
	if id == "" {
		return "freeform"
	}
	return "scenario " + id
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
