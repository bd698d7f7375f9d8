package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody"
	"workbench/pkg/body/sim"
	"workbench/pkg/mcp"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

func teachHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: workbench teach (--scenario ID | --task TEXT (--world NAME | --body URL)) --model ID [flags]")
	fmt.Fprintln(w, `
Demonstrates a task to an OpenRouter model acting on the simulator body, crystallizes the
recording into a skill and writes the sealed bundle. The key is read from OPENROUTER_API_KEY.
A scenario supplies the task, its inputs and its declared capabilities; --task is freeform,
its {name} placeholders filled from --input. With --body the model acts through an MCP
server instead: a browser (e.g. Playwright MCP) or a host with file or shell tools, whose
annotations count only with --trusted (docs/bodies.md). Scenarios:
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
	mf := addModelFlags(c.fs)
	out := c.fs.String("out", "", "write the sealed bundle to `FILE` (default <slug>.v1.skill.json)")
	destructive := c.fs.Bool("destructive", false, "destructive mode: the policy allows host writes")
	maxSteps := c.fs.Int("max-steps", workbench.DefaultMaxSteps, "stop after `N` model turns")
	bf := addBodyFlags(c.fs, "browser")
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	if err := mf.check(); err != nil {
		return c.fail(err)
	}
	if len(pos) > 0 {
		return c.fail(usagef("unexpected argument %q (run 'workbench teach --help')", pos[0]))
	}
	if *maxSteps <= 0 {
		return c.fail(usagef("--max-steps %d: must be at least 1", *maxSteps))
	}
	if err := bf.check(); err != nil {
		return c.fail(err)
	}
	var plan *teach.Plan
	var err error
	var kind body.Kind
	if bf.set() {
		kind = bf.kindOr(body.KindBrowser)
	}
	plan, err = planTeach(ctx, *scenario, *task, *worldName, *model, kind, inputs, caps)
	if err != nil {
		return c.fail(err)
	}
	cl, err := mf.client(ctx)
	if err != nil {
		return c.fail(err)
	}
	v, err := verify.Standard()
	if err != nil {
		return c.fail(err)
	}
	// The CLI's library is the file it writes: the Workbench has no Store.
	// The flow opens the body: the simulator in the plan's world, or the
	// MCP body at --body.
	where := "the simulator world " + plan.WorldName
	wb := newFlows(v,
		func(ctx context.Context, kind body.Kind, world []byte) (body.Body, bool, error) {
			if !bf.set() {
				bd, err := sim.New(world)
				return bd, true, err // the simulator's annotations are the workbench's own
			}
			mb, err := bf.dial(ctx, kind)
			if err != nil {
				return nil, false, err
			}
			where = bf.where(mb)
			return mb, mb.Trusted(), nil
		}, nil, bf.set())
	taught, err := wb.Teach(ctx, plan, workbench.TeachOptions{
		Model: cl, ModelID: *model, DestructiveMode: *destructive, MaxSteps: *maxSteps,
		Started: func(s workbench.TeachStart) {
			c.progressf("demonstrating with %s on %s (declared: %s)", *model, where, strings.Join(plan.Declared, ", "))
			if s.Fallback {
				c.progressf("delegatic-mcp is not configured here; the local policy engine (%s) authorizes every action", s.Authority)
			}
		},
		Progress: func(p workbench.TeachStep) { teachProgress(c, p.TeachProgress) },
	})
	if errors.Is(err, teach.ErrNothingDemonstrated) {
		return c.fail(fmt.Errorf("%w (answer: %q)", err, clip(c.clean(taught.Result.Answer), 200)))
	}
	if err != nil && taught != nil {
		return c.fail(fmt.Errorf("nothing written: %w", err))
	}
	if err != nil {
		return c.fail(err)
	}
	saved, err := wb.SealTaught(ctx, taught, taught.Draft)
	if err != nil {
		return c.fail(err)
	}
	b, rep, res := saved.Bundle, saved.Report, taught.Result
	file, err := writeBundle(b, *out)
	if err != nil {
		return c.fail(err)
	}

	fmt.Fprintf(stdout, "taught %q: skill %s v%d, %s, %s, model %s\n", b.Manifest.Name, b.SkillID, b.SkillVersion,
		orFreeform(plan.Task.ScenarioID), strings.TrimPrefix(where, "the simulator "), *model)
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
	if taught.StepLimited() {
		c.errorf("the model did not finish within --max-steps %d turns; the bundle holds what it did", *maxSteps)
		return exitUnproven
	}
	if !saved.Ready {
		return exitUnproven
	}
	return exitProven
}

// planTeach plans the scenario or freeform task on the simulator, or with
// kind set on an MCP body of that kind (workbench.PlanTeach), with every
// mistake reported against the flag that carries it. Three mistakes of
// the command line are said first in its own words.
func planTeach(ctx context.Context, scenarioID, task, worldName, model string, kind body.Kind, in inputFlag, caps multiFlag) (*teach.Plan, error) {
	if kind != "" && scenarioID != "" {
		return nil, usagef("--scenario runs on the simulator; with --body, describe the task with --task")
	}
	if kind == "" && scenarioID == "" && task == "" {
		return nil, usagef("give --scenario ID (one of %s) or --task TEXT", strings.Join(teach.ScenarioIDs(), ", "))
	}
	if kind == "" && scenarioID == "" && worldName == "" {
		return nil, usagef("--task needs --world NAME (worlds: %s)", strings.Join(fixtures.Worlds(), ", "))
	}
	p, err := workbench.PlanTeach(ctx, workbench.TeachRequest{
		Scenario: scenarioID, Task: task, World: worldName, Body: kind, Inputs: in.list(), Capabilities: caps, Model: model,
	})
	return p, flagError(err)
}

// bodyFlags choose an MCP server as the body instead of the simulator
// (teach and replay share them).
type bodyFlags struct {
	url, kind, perceive, perceiveArgs *string
	trusted                           *bool
}

// bodyTimeout bounds each request to an MCP body: long enough for a page
// load (Playwright MCP waits up to 60 s for a navigation), short enough
// that a server that never answers ends the run.
const bodyTimeout = 90 * time.Second

func addBodyFlags(fs *flag.FlagSet, defaultKind string) bodyFlags {
	return bodyFlags{
		url:  fs.String("body", "", "act through the MCP server at `URL` (streamable HTTP) instead of the simulator"),
		kind: fs.String("body-kind", "", "what the --body server is: `browser` or host (default: "+defaultKind+")"),
		trusted: fs.Bool("trusted", false, "trust the --body server's tool annotations (read-only, destructive);\n"+
			"untrusted, every tool counts as a write, and the policy denies host reads too"),
		perceive:     fs.String("perceive", "", "`TOOL` the --body observes itself with (browser default: browser_snapshot;\nrequired for a host, e.g. directory_tree)"),
		perceiveArgs: fs.String("perceive-args", "", "arguments of --perceive as a JSON `OBJECT`, e.g. {\"path\":\"/srv/work\"}"),
	}
}

// set reports whether --body was given.
func (f bodyFlags) set() bool { return *f.url != "" }

// check refuses the body's options without --body, and a kind that is not
// one.
func (f bodyFlags) check() error {
	if !f.set() {
		for _, o := range []struct {
			name  string
			given bool
		}{{"--body-kind", *f.kind != ""}, {"--trusted", *f.trusted}, {"--perceive", *f.perceive != ""}, {"--perceive-args", *f.perceiveArgs != ""}} {
			if o.given {
				return usagef("%s is an option of --body URL, which is not given", o.name)
			}
		}
		return nil
	}
	switch body.Kind(*f.kind) {
	case "", body.KindBrowser, body.KindHost:
	default:
		return usagef("--body-kind %q: want browser or host", *f.kind)
	}
	return nil
}

func (f bodyFlags) kindOr(def body.Kind) body.Kind {
	if *f.kind == "" {
		return def
	}
	return body.Kind(*f.kind)
}

// dial connects to the --body server as a body of kind.
func (f bodyFlags) dial(ctx context.Context, kind body.Kind) (*mcpbody.Body, error) {
	opts := mcpbody.Options{Kind: kind, Trusted: *f.trusted, Perceive: mcpbody.Perceive{Tool: *f.perceive},
		Client: &mcp.Options{Timeout: bodyTimeout}}
	if *f.perceiveArgs != "" {
		if err := json.Unmarshal([]byte(*f.perceiveArgs), &opts.Perceive.Arguments); err != nil || opts.Perceive.Arguments == nil {
			return nil, usagef("--perceive-args %s: not a JSON object", *f.perceiveArgs)
		}
		if *f.perceive == "" && kind == body.KindHost {
			return nil, usagef("--perceive-args needs --perceive TOOL")
		}
	}
	if kind == body.KindHost && *f.perceive == "" {
		return nil, usagef("a host --body needs --perceive TOOL: the server's tool that shows what the skill works on, e.g. directory_tree")
	}
	bd, err := mcpbody.Dial(ctx, *f.url, opts)
	if err != nil {
		return nil, fmt.Errorf("--body %s: %w", *f.url, err)
	}
	return bd, nil
}

func (f bodyFlags) where(bd *mcpbody.Body) string {
	trust := "untrusted"
	if bd.Trusted() {
		trust = "trusted"
	}
	return fmt.Sprintf("the %s body %s at %s (%s)", bd.Kind(), bd.Server(), *f.url, trust)
}

func teachProgress(c *cli, p workbench.TeachProgress) {
	switch p.Phase {
	case workbench.TeachPhaseModel:
		c.progressf("step %d: %s (cost so far %s)", p.Step+1, p.Detail, words.USD(p.CostUSD))
	case workbench.TeachPhaseAct:
		if p.Edge == nil {
			c.progressf("step %d: %s", p.Step+1, p.Detail)
			return
		}
		args, _ := json.Marshal(p.Edge.Tool.Arguments)
		c.progressf("step %d: edge %d %s %s: %s, %s", p.Step+1, p.Edge.Index, p.Edge.Tool.Name, clip(c.clean(string(args)), 160), p.Edge.OutcomeStatus, decision(*p.Edge))
	case workbench.TeachPhaseAnswer:
		c.progressf("step %d: the model answered: %s", p.Step+1, clip(c.clean(p.Detail), 160))
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
