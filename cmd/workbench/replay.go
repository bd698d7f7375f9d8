package main

import (
	"context"
	"fmt"
	"io"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/compare"
	"workbench/pkg/policy"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
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
	var rs *replaySetup
	var err error
	if bf.set() {
		rs, err = prepareMCPReplay(pos[0], stdin, inputs, *worldName, *destructive)
	} else {
		rs, err = prepareReplay(pos[0], stdin, inputs, *worldName, *destructive)
	}
	if err != nil {
		return c.fail(err)
	}
	b, input, wname, wdata, auth := rs.bundle, rs.input, rs.world, rs.worldData, rs.auth
	var bd body.Body
	where := "the simulator world " + wname
	if bf.set() {
		kind := bf.kindOr(b.Manifest.BodyChoice)
		if kind != b.Manifest.BodyChoice {
			return c.fail(usagef("--body-kind %s: the skill was taught on a %s body", kind, b.Manifest.BodyChoice))
		}
		mb, err := bf.dial(ctx, kind)
		if err != nil {
			return c.fail(err)
		}
		defer mb.Close(context.WithoutCancel(ctx))
		auth.BodyKind, auth.TrustedServer = kind, mb.Trusted()
		bd, where = mb, bf.where(mb)
	}
	v, err := verify.Standard()
	if err != nil {
		return c.fail(err)
	}
	opt := compare.Options{
		// Only the simulator answers the same actions with the same
		// states by construction; a real body is held to shapes.
		Input: input, Deterministic: !bf.set(), Authorizer: auth,
		Progress: func(_ string, e skill.ReplayEdge) { c.progressf("%s", edgeLine(b, e)) },
	}
	useModel := ""
	if modelBound(b) {
		useModel = *model
		if useModel == "" {
			useModel = b.Evidence.System.Model
		}
		if useModel == "" {
			return c.fail(usagef("the skill has parameters a model chooses on replay; name one with --model"))
		}
		cl, err := mf.client(ctx)
		if err != nil {
			return c.fail(err)
		}
		opt.Model = cl
	} else if *model != "" {
		c.progressf("every parameter of this skill is literal or bound to an input: replay makes no model call, so --model %s is not used", *model)
	}
	if bd == nil {
		if bd, err = sim.New(wdata); err != nil {
			return c.fail(fmt.Errorf("world %s: %w", wname, err))
		}
	}
	c.progressf("replaying %q v%d on %s with %s", b.Manifest.Name, b.SkillVersion, where, orNoModel(useModel))
	r, err := compare.Replay(ctx, v, b, bd, useModel, opt)
	if err != nil {
		return c.fail(err)
	}
	if r.Err != nil {
		return c.fail(fmt.Errorf("nothing saved: %w", r.Err))
	}
	file, err := writeBundle(r.Bundle, *out)
	if err != nil {
		return c.fail(err)
	}
	printReplay(stdout, &r)
	fmt.Fprintf(stdout, "wrote %s (v%d)\n\n", file, r.Bundle.SkillVersion)
	printReport(stdout, file, r.Report)
	if r.Report.Verdict != skill.VerdictPass {
		return exitUnproven
	}
	return exitProven
}

// authorizer re-authorizes a replay under the policy the skill was taught
// with and the capabilities its manifest declares.
// replaySetup is what replay and compare both take from their arguments:
// the bundle, its new input, the simulator world to replay on and the
// authorizer, under the policy the skill names.
type replaySetup struct {
	bundle    *skill.Bundle
	input     map[string]any
	world     string
	worldData []byte
	auth      replay.PolicyAuthorizer
}

func prepareReplay(file string, stdin io.Reader, inputs inputFlag, worldName string, destructive bool) (*replaySetup, error) {
	b, err := readBundle(file, stdin)
	if err != nil {
		return nil, err
	}
	input, err := teach.ReplayInputs(b, inputs.list())
	if err != nil {
		return nil, flagError(err)
	}
	wname, wdata, err := teach.WorldOf(b, worldName)
	if err != nil {
		return nil, flagError(err)
	}
	auth, err := authorizer(b, destructive)
	if err != nil {
		return nil, err
	}
	return &replaySetup{bundle: b, input: input, world: wname, worldData: wdata, auth: auth}, nil
}

func authorizer(b *skill.Bundle, destructive bool) (replay.PolicyAuthorizer, error) {
	if id := b.Manifest.DelegaticPolicyID; id != skill.DefaultPolicyID {
		return replay.PolicyAuthorizer{}, usagef("the skill names the policy %q; only %s is available here", id, skill.DefaultPolicyID)
	}
	return replay.PolicyAuthorizer{Policy: policy.Default(), Declared: b.Manifest.CapabilitiesRequired,
		BodyKind: skill.BodySimulator, TrustedServer: true, DestructiveMode: destructive}, nil
}

// prepareMCPReplay is prepareReplay for a replay on an MCP body: no
// simulator world, and a skill taught on a browser or a host.
func prepareMCPReplay(file string, stdin io.Reader, inputs inputFlag, worldName string, destructive bool) (*replaySetup, error) {
	if worldName != "" {
		return nil, usagef("--world is the simulator's; not with --body")
	}
	b, err := readBundle(file, stdin)
	if err != nil {
		return nil, err
	}
	if c := b.Manifest.BodyChoice; c != body.KindBrowser && c != body.KindHost {
		return nil, usagef("%s: the skill was taught on the %s, not on an MCP body; replay it without --body", file, c)
	}
	input, err := teach.ReplayInputs(b, inputs.list())
	if err != nil {
		return nil, flagError(err)
	}
	auth, err := authorizer(b, destructive)
	if err != nil {
		return nil, err
	}
	return &replaySetup{bundle: b, input: input, auth: auth}, nil
}

func orNoModel(m string) string {
	if m == "" {
		return "no model (every parameter is literal or bound to an input)"
	}
	return "model " + m
}
