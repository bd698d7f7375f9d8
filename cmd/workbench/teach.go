package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
)

func teachHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: workbench teach (--scenario ID | --task TEXT --world NAME) --model ID [flags]")
	fmt.Fprintln(w, `
Demonstrates a task to an OpenRouter model acting on the simulator body, crystallizes the
recording into a skill and writes the sealed bundle. The key is read from OPENROUTER_API_KEY.
A scenario supplies the task, its inputs and its declared capabilities; --task is freeform,
its {name} placeholders filled from --input. Scenarios:
  `+strings.Join(teach.ScenarioIDs(), "\n  ")+`
Exit status: 0 the bundle verifies with only its replay still to come; 1 the demonstration
failed or the bundle does not verify; 2 bad usage, bad input or a refused key.`)
	fmt.Fprintln(w)
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
	bd, err := sim.New(plan.World)
	if err != nil {
		return c.fail(fmt.Errorf("world %s: %w", plan.WorldName, err))
	}
	c.progressf("demonstrating with %s on the simulator world %s (declared: %s)", *model, plan.WorldName, strings.Join(plan.Declared, ", "))
	res, err := teach.Demonstrate(ctx, plan, teach.Options{
		Model: cl, ModelID: *model, Body: bd, Authorizer: policy.Default(),
		DestructiveMode: *destructive, TrustedServer: true,
		MaxSteps: *maxSteps, Progress: func(p demonstrate.Progress) { teachProgress(c, p) },
	})
	if err != nil {
		return c.fail(err)
	}
	now := time.Now()
	m, err := teach.Draft(plan, res, now)
	if errors.Is(err, teach.ErrNothingDemonstrated) {
		return c.fail(fmt.Errorf("%w (answer: %q)", err, clip(res.Answer, 200)))
	}
	if err != nil {
		return c.fail(fmt.Errorf("nothing written: %w", err))
	}

	v, err := newVerifier()
	if err != nil {
		return c.fail(err)
	}
	b, rep, err := teach.Seal(v, plan, res, m, *model, now)
	if err != nil {
		return c.fail(err)
	}
	file, err := writeBundle(b, *out)
	if err != nil {
		return c.fail(err)
	}

	fmt.Fprintf(stdout, "taught %q: skill %s v%d, %s, world %s, model %s\n", b.Manifest.Name, b.SkillID, b.SkillVersion,
		orFreeform(plan.Task.ScenarioID), plan.WorldName, *model)
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
	if !teach.Ready(rep) {
		return exitUnproven
	}
	return exitProven
}

// planTeach resolves the scenario or freeform task, its inputs, world and
// declared capabilities (package teach), with every mistake reported
// against the flag that carries it.
func planTeach(ctx context.Context, scenarioID, task, worldName string, in inputFlag, caps multiFlag) (*teach.Plan, error) {
	switch {
	case scenarioID == "" && task == "":
		return nil, usagef("give --scenario ID (one of %s) or --task TEXT", strings.Join(teach.ScenarioIDs(), ", "))
	case scenarioID != "" && task != "":
		return nil, usagef("give --scenario or --task, not both")
	}
	if scenarioID == "" {
		if worldName == "" {
			return nil, usagef("--task needs --world NAME (worlds: %s)", strings.Join(fixtures.Worlds(), ", "))
		}
		p, err := teach.Freeform(ctx, task, worldName, in.list(), caps)
		return p, flagError(err)
	}
	if len(caps) > 0 {
		if sc, err := fixtures.ScenarioByID(scenarioID); err == nil {
			return nil, usagef("--capability is for --task: scenario %s declares %s", sc.ID, strings.Join(sc.CapabilitiesDeclared, ", "))
		}
	}
	p, err := teach.FromScenario(scenarioID, in.list())
	if err != nil {
		return nil, flagError(err)
	}
	if worldName != "" {
		data, err := teach.World(worldName)
		if err != nil {
			return nil, flagError(err)
		}
		p.WorldName, p.World = worldName, data
	}
	return p, nil
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
