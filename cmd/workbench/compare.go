package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/compare"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

func compareHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: workbench compare BUNDLE --model A --model B [--model C]... [flags]")
	fmt.Fprintln(w, `
Replays one skill with one input against each model, each on a fresh simulator body under the
same policy, saves every replay as a new version and verifies it, and shows the results side
by side with where each pair of models diverges. A model whose call fails (out of credit, rate
limited, …) is reported as that failure; the others still run. The written bundle is the last
version, carrying every model's replay. The key is read from OPENROUTER_API_KEY.
Exit status: 0 every model's replay was exercised and passes; 1 a model failed, a replay does
not pass, or the skill made no model call; 2 bad usage, a file that is not a valid bundle, or a
refused key.`)
	fmt.Fprintln(w)
}

func runCompare(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("compare", stdout, stderr, compareHelp)
	var inputs inputFlag
	var models multiFlag
	c.fs.Var(&models, "model", "OpenRouter model `ID` to compare, at least two")
	c.fs.Var(&inputs, "input", "input `name=value`, repeatable (default: the inputs the skill was taught with)")
	worldName := c.fs.String("world", "", "simulator world `NAME` (default: the world the recording starts in)")
	mf := addModelFlags(c.fs)
	out := c.fs.String("out", "", "write the last version to `FILE` (default <slug>.v<n>.skill.json)")
	destructive := c.fs.Bool("destructive", false, "destructive mode: the policy allows host writes")
	pos, code, done := c.parse(args)
	if done {
		return code
	}
	if err := mf.check(); err != nil {
		return c.fail(err)
	}
	if len(pos) != 1 {
		return c.fail(usagef("want exactly one BUNDLE file, got %d (run 'workbench compare --help')", len(pos)))
	}
	if len(models) < 2 {
		return c.fail(usagef("give at least two models to compare: --model A --model B"))
	}
	for i, m := range models {
		for _, prev := range models[:i] {
			if m == prev {
				return c.fail(usagef("--model %s is given twice", m))
			}
		}
	}
	rs, auth, err := prepareReplay(ctx, pos[0], stdin, inputs, *worldName, *destructive)
	if err != nil {
		return c.fail(err)
	}
	defer auth.Close()
	b, input, wname, wdata := rs.Bundle, rs.Input, rs.World, rs.WorldData
	cl, err := mf.client(ctx)
	if err != nil {
		return c.fail(err)
	}
	v, err := verify.Standard()
	if err != nil {
		return c.fail(err)
	}
	newBody := func() (body.Body, error) { return sim.New(wdata) }
	c.progressf("replaying %q v%d on the simulator world %s with %d models", b.Manifest.Name, b.SkillVersion, wname, len(models))
	cmp, err := compare.Run(ctx, v, b, newBody, models, compare.Options{
		Model: cl, Authorizer: auth.For(rs, true), Input: input, Deterministic: true,
		Progress: func(m string, e skill.ReplayEdge) { c.progressf("%s: %s", m, edgeLine(b, e)) },
		Finished: func(r *compare.Result) {
			if r.Err != nil {
				msg, _ := explain(r.Err)
				c.progressf("%s: failed: %s", r.Model, msg)
				return
			}
			c.progressf("%s: %s, verdict %s", r.Model, r.Record.Report.Status, r.Verdict())
		},
	})
	if err != nil {
		return c.fail(err)
	}

	printComparison(stdout, cmp)
	if cmp.Final != nil {
		file, err := writeBundle(cmp.Final, *out)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(stdout, "\nwrote %s (v%d, carrying the replay of every model that ran)\n", file, cmp.Final.SkillVersion)
	} else {
		fmt.Fprintln(stdout, "\nnothing written: no model has a replay")
	}
	if !cmp.ModelsExercised {
		return exitUnproven
	}
	for _, r := range cmp.Results {
		if r.Err != nil || r.Verdict() != skill.VerdictPass {
			return exitUnproven
		}
	}
	return exitProven
}

// printComparison prints the results side by side, every gate of every
// proof, and the divergence summary.
func printComparison(w io.Writer, c *compare.Comparison) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tCALLS\tMODEL USED\tSTATUS\tLEVEL\tFIDELITY\tHALTED AT\tSURPRISES\tVERDICT\tCOST\tVERSION")
	for _, r := range c.Results {
		if r.Err != nil {
			// The error itself is in the summary below.
			fmt.Fprintf(tw, "%s\t%d\t-\terror\t-\t-\t-\t-\t-\t%s\t-\n", r.Model, r.ModelCalls, cost(r.CostUSD, r.CostKnown))
			continue
		}
		rep := r.Record.Report
		halted := "-"
		if rep.HaltedAtEdge != nil {
			halted = "edge " + strconv.Itoa(*rep.HaltedAtEdge)
		}
		var kinds []string
		for _, s := range rep.SurpriseSignals {
			kinds = append(kinds, fmt.Sprintf("%s@%d", s.Kind, s.EdgeIndex))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%v\t%s\t%s\t%s\t%s\tv%d\n", r.Model, r.ModelCalls, rep.ModelUsed, rep.Status, rep.FidelityLevel,
			rep.Fidelity, halted, listOrNone(kinds), strings.ToUpper(r.Verdict()), cost(r.CostUSD, r.CostKnown), r.Bundle.SkillVersion)
	}
	tw.Flush()

	var ran []compare.Result
	for _, r := range c.Results {
		if r.Err == nil {
			ran = append(ran, r)
		}
	}
	if len(ran) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		header := []string{"GATE"}
		for _, r := range ran {
			header = append(header, r.Model)
		}
		fmt.Fprintln(tw, strings.Join(header, "\t"))
		for i, g := range ran[0].Report.Derived.ProofGates {
			row := []string{g.ID}
			for _, r := range ran {
				gs := r.Report.Derived.ProofGates
				if i < len(gs) && gs[i].ID == g.ID {
					row = append(row, withLevel(gs[i]))
				} else {
					row = append(row, "-")
				}
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}

	fmt.Fprintln(w)
	for _, line := range c.Summary() {
		fmt.Fprintln(w, line)
	}
}
