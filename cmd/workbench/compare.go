package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

func compareHelp(w io.Writer) {
	fmt.Fprintln(w, "usage: workbench compare BUNDLE --model A --model B [--model C]... [--input-set JSON]... [flags]")
	fmt.Fprintln(w, `
Replays one skill against each model with each input set, every replay on a fresh simulator
body under the same policy, proves every replay as the next version and verifies it, and shows
the matrix: for each input set, the models side by side with where each pair diverges. The
first input set is the inputs the skill was taught with, changed by --input; each --input-set
adds one more, a JSON object of input values over the taught ones, e.g.
--input-set '{"changelog_url":"https://git.workbench.test/acme/gadget/changelog"}'.
A model whose call fails (out of credit, rate limited, …) is reported as that failure; the
other cells still run. The written bundle is the next version, carrying every cell's replay.
The key is read from OPENROUTER_API_KEY.
Exit status: 0 every cell's replay was exercised and passes; 1 a model failed, a replay does
not pass, or the skill made no model call; 2 bad usage, a file that is not a valid bundle, or a
refused key.`)
	fmt.Fprintln(w)
}

// inputSetFlag collects --input-set JSON, one input set each.
type inputSetFlag []map[string]any

func (f *inputSetFlag) String() string { return "" }

func (f *inputSetFlag) Set(v string) error {
	var set map[string]any
	if err := json.Unmarshal([]byte(v), &set); err != nil || set == nil {
		return fmt.Errorf("%q is not a JSON object of input values, e.g. '{\"name\":\"value\"}'", v)
	}
	*f = append(*f, set)
	return nil
}

func runCompare(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("compare", stdout, stderr, compareHelp)
	var inputs inputFlag
	var sets inputSetFlag
	var models multiFlag
	c.fs.Var(&models, "model", "OpenRouter model `ID` to compare, at least two")
	c.fs.Var(&inputs, "input", "input `name=value` of the first input set, repeatable (default: the inputs the skill was taught with)")
	c.fs.Var(&sets, "input-set", "one more input set, a `JSON` object of input values over the taught ones; repeatable")
	worldName := c.fs.String("world", "", "simulator world `NAME` (default: the world the recording starts in)")
	mf := addModelFlags(c.fs)
	out := c.fs.String("out", "", "write the new version to `FILE` (default <slug>.v<n>.skill.json)")
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
	b, err := readBundle(pos[0], stdin)
	if err != nil {
		return c.fail(err)
	}
	v, err := verify.Standard()
	if err != nil {
		return c.fail(err)
	}
	started := false
	req := workbench.CompareRequest{Bundle: b, Models: models, World: *worldName, Destructive: *destructive,
		Sets: []workbench.InputSet{{Values: inputs.list()}},
		Progress: func(p workbench.CompareProgress) {
			// Said once the checks passed and the first cell runs, so a
			// refusal stays the one line on stderr.
			if !started {
				started = true
				c.progressf("replaying %q v%d with %d models and %s", b.Manifest.Name, b.SkillVersion, len(models), words.Count(len(sets)+1, "input set"))
			}
			switch {
			case p.Edge != nil:
				c.progressf("%s%s: %s", p.Model, setLabel(p.Set, len(sets)), edgeLine(b, *p.Edge))
			case p.Result.Err != nil:
				msg, _ := explain(p.Result.Err)
				c.progressf("%s%s: failed: %s", p.Model, setLabel(p.Set, len(sets)), msg)
			default:
				c.progressf("%s%s: %s, verdict %s", p.Model, setLabel(p.Set, len(sets)), p.Result.Record.Report.Status, p.Result.Verdict())
			}
		},
	}
	for _, s := range sets {
		req.Sets = append(req.Sets, workbench.InputSet{Input: s})
	}
	w := newFlows(v, nil, clientOf(mf), false)
	cmp, err := w.Compare(ctx, req)
	if err != nil {
		return c.fail(compareError(err))
	}

	printMatrix(stdout, cmp)
	if cmp.Final != nil {
		file, err := writeBundle(cmp.Final, *out)
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(stdout, "\nwrote %s (v%d, carrying the replay of every model that ran)\n", file, cmp.Final.SkillVersion)
	} else {
		fmt.Fprintln(stdout, "\nnothing written: no model has a replay")
	}
	for _, set := range cmp.BySet {
		if !set.ModelsExercised {
			return exitUnproven
		}
		for _, r := range set.Results {
			if r.Err != nil || r.Verdict() != skill.VerdictPass {
				return exitUnproven
			}
		}
	}
	return exitProven
}

// compareError puts the flow's refusals in the command line's words.
func compareError(err error) error {
	var (
		ml *workbench.ModelListError
		se *workbench.InputSetError
		ie *teach.InputError
	)
	switch {
	case errors.As(err, &ml):
		return usagef("%s", strings.ReplaceAll(ml.Msg, "model ", "--model "))
	case errors.As(err, &se) && se.Set > 0 && errors.As(err, &ie):
		return usagef("--input-set %d: %s: %s", se.Set, ie.Name, ie.Msg)
	}
	return replayError(err)
}

// setLabel names input set j in a progress line when there is more than
// the first.
func setLabel(j, more int) string {
	if more == 0 {
		return ""
	}
	return " on input set " + strconv.Itoa(j+1)
}

// printMatrix prints, for each input set, its values and its comparison.
func printMatrix(w io.Writer, c *workbench.Comparison) {
	for j, set := range c.BySet {
		if len(c.BySet) > 1 {
			if j > 0 {
				fmt.Fprintln(w)
			}
			in, _ := json.Marshal(c.Inputs[j])
			fmt.Fprintf(w, "INPUT SET %d %s\n\n", j+1, in)
		}
		printComparison(w, set)
	}
}

// printComparison prints one input set's results side by side, every gate
// of every proof, and the divergence summary.
func printComparison(w io.Writer, c *workbench.SetComparison) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tCALLS\tMODEL USED\tSTATUS\tLEVEL\tFIDELITY\tHALTED AT\tSURPRISES\tVERDICT\tCOST\tLATENCY\tVERSION")
	for _, r := range c.Results {
		if r.Err != nil {
			// The error itself is in the summary below.
			fmt.Fprintf(tw, "%s\t%d\t-\terror\t-\t-\t-\t-\t-\t%s\t-\t-\n", r.Model, r.ModelCalls, cost(r.CostUSD, r.CostKnown))
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
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%v\t%s\t%s\t%s\t%s\t%d ms\tv%d\n", r.Model, r.ModelCalls, rep.ModelUsed, rep.Status, rep.FidelityLevel,
			rep.Fidelity, halted, listOrNone(kinds), strings.ToUpper(r.Verdict()), cost(r.CostUSD, r.CostKnown), r.Latency.Milliseconds(), r.Bundle.SkillVersion)
	}
	tw.Flush()

	var ran []workbench.Cell
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
