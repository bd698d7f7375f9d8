package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

func replayHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: workbench replay BUNDLE [--input name=value]... [--model ID] [--body URL] [flags]")
	fmt.Fprintln(w, `
Replays a skill on a fresh simulator body, or with --body on a fresh session of the MCP server
at URL, halting at the first divergence the skill does not tolerate, saves the replay as the
bundle's next version and verifies it. Inputs default to the ones the skill was taught with.
Parameters the model chose are chosen again, live, by --model (default: the model that taught
the skill), with the key from OPENROUTER_API_KEY; a skill whose parameters are all literal or
bound to inputs makes no model call and needs no key.
Exit status: 0 the new version's proof passes; 1 it does not, or the model call failed;
2 bad usage, a file that is not a valid bundle, or a refused key.`)
	fmt.Fprintln(w)
}

func runReplay(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("replay", stdout, stderr, replayHelp)
	var inputs inputFlag
	c.fs.Var(&inputs, "input", "input `name=value`, repeatable (default: the inputs the skill was taught with)")
	model := c.fs.String("model", "", "OpenRouter model `ID` that re-chooses model-chosen parameters (default: the teaching model)")
	worldName := c.fs.String("world", "", "simulator world `NAME` (default: the world the recording starts in)")
	mf := addModelFlags(c.fs)
	out := c.fs.String("out", "", "write the new version to `FILE` (default <slug>.v<n>.skill.json)")
	destructive := c.fs.Bool("destructive", false, "destructive mode: the policy allows host writes")
	bf := addBodyFlags(c.fs, "the skill's body")
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	if err := mf.check(); err != nil {
		return c.fail(err)
	}
	if len(pos) != 1 {
		return c.fail(usagef("want exactly one BUNDLE file, got %d (run 'workbench replay --help')", len(pos)))
	}
	if err := bf.check(); err != nil {
		return c.fail(err)
	}
	b, err := readBundle(pos[0], stdin)
	if err != nil {
		return c.fail(err)
	}
	kind := b.Manifest.BodyChoice
	switch {
	case bf.set() && *worldName != "":
		return c.fail(usagef("--world is the simulator's; not with --body"))
	case bf.set() && kind != body.KindBrowser && kind != body.KindHost:
		return c.fail(usagef("%s: the skill was taught on the %s, not on an MCP body; replay it without --body", pos[0], kind))
	case bf.set() && bf.kindOr(kind) != kind:
		return c.fail(usagef("--body-kind %s: the skill was taught on a %s body", bf.kindOr(kind), kind))
	case !bf.set() && kind != body.KindSimulator:
		return c.fail(usagef("%s: the skill was taught on a %s body; replay it with --body URL", pos[0], kind))
	}
	v, err := verify.Standard()
	if err != nil {
		return c.fail(err)
	}
	req := workbench.ReplayRequest{Bundle: b, Values: inputs.list(), World: *worldName, Model: *model, Destructive: *destructive,
		Progress: func(e skill.ReplayEdge) { c.progressf("%s", edgeLine(b, e)) },
	}
	// The body is opened when the flow runs; the line says where.
	var where, useModel string
	bodies := func(ctx context.Context, kind body.Kind, world []byte) (body.Body, bool, error) {
		if !bf.set() {
			bd, err := sim.New(world)
			if err != nil {
				return nil, false, err
			}
			c.progressf("replaying %q v%d on %s with %s", b.Manifest.Name, b.SkillVersion, where, orNoModel(useModel))
			return bd, true, nil
		}
		mb, err := bf.dial(ctx, kind)
		if err != nil {
			return nil, false, err
		}
		c.progressf("replaying %q v%d on %s with %s", b.Manifest.Name, b.SkillVersion, bf.where(mb), orNoModel(useModel))
		return mb, mb.Trusted(), nil
	}
	w := newFlows(v, bodies, clientOf(mf), bf.set())
	s, err := w.PrepareReplay(req)
	if err != nil {
		return c.fail(replayError(err))
	}
	where = "the simulator world " + s.World
	if s.ModelBound {
		if useModel = *model; useModel == "" {
			useModel = b.Evidence.System.Model
		}
	} else if *model != "" {
		c.progressf("every parameter of this skill is literal or bound to an input: replay makes no model call, so --model %s is not used", *model)
	}
	r, err := w.Replay(ctx, req)
	if err != nil {
		return c.fail(replayError(err))
	}
	if r.Err != nil {
		return c.fail(fmt.Errorf("nothing saved: %w", r.Err))
	}
	if r.Fallback {
		c.progressf("delegatic-mcp is not configured here; the local policy engine (%s) authorized every action", r.Authority)
	}
	file, err := writeBundle(r.Bundle, *out)
	if err != nil {
		return c.fail(err)
	}
	printReplay(stdout, r)
	fmt.Fprintf(stdout, "wrote %s (v%d)\n\n", file, r.Bundle.SkillVersion)
	printReport(stdout, file, r.Report)
	if r.Report.Verdict != skill.VerdictPass {
		return exitUnproven
	}
	return exitProven
}

// replayError is err of the replay flow as the command line says it: what
// the user gave that cannot be used is a usage error naming the flag.
func replayError(err error) error {
	var (
		pe *workbench.PolicyError
		me *workbench.MissingModelError
		be *workbench.BodyUnavailableError
	)
	switch {
	case errors.As(err, &pe):
		return usagef("%v", pe)
	case errors.As(err, &me):
		return usagef("the skill has parameters a model chooses on replay; name one with --model")
	case errors.As(err, &be):
		return usagef("%v", be)
	}
	return flagError(err)
}

func orNoModel(m string) string {
	if m == "" {
		return "no model (every parameter is literal or bound to an input)"
	}
	return "model " + m
}
