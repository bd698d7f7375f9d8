package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"workbench/pkg/signature"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Exit statuses of workbench verify.
const (
	exitProven   = 0 // every bundle passes
	exitUnproven = 1 // well-formed, but some bundle does not prove what it claims
	exitInvalid  = 2 // some input is not a bundle, or the command line is wrong
)

func runVerify(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("verify", "verify [--json] [--trust PINS.json] FILE... ('-' reads standard input)",
		`Strictly decodes each bundle, validates it against the bundle schema, recomputes its
content hash, re-derives its proof and checks its signature. Exit status: 0 every bundle
passes; 1 a bundle is well-formed but does not prove what it claims, or its signature is
invalid; 2 an input is not a valid bundle, or the command line or pin set is wrong.
Without --trust a signature that verifies reads "signature present, not verified".`, stderr)
	asJSON := fs.Bool("json", false, "print the reports as JSON")
	trust := fs.String("trust", "", "a pin set `FILE` of trusted signers (as keygen writes beside a key): a signature is trusted only when its key is in it")
	if code, done := parseFlags(fs, args, exitProven, exitInvalid); done {
		return code
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitInvalid
	}
	var pins *signature.PinSet
	if *trust != "" {
		data, err := os.ReadFile(*trust)
		if err == nil {
			pins, err = signature.ParsePins(data)
		}
		if err != nil {
			fmt.Fprintf(stderr, "workbench verify: --trust %s: %v\n", *trust, err)
			return exitInvalid
		}
	}
	v, err := verify.Standard()
	if err != nil {
		fmt.Fprintf(stderr, "workbench verify: %v\n", err)
		return exitInvalid
	}

	type result struct {
		File string `json:"file"`
		// Headline is the one line to read first: what the input is and
		// what is wrong with it, or its verdict.
		Headline string         `json:"headline"`
		Report   *verify.Report `json:"report,omitempty"`
		// For an input that is not a well-formed bundle: where reading
		// stopped, the other artifact it is, its content hash recomputed
		// when it claims one, its problems grouped by cause.
		Stage       string            `json:"stage,omitempty"`
		Artifact    string            `json:"artifact,omitempty"`
		ContentHash *verify.HashCheck `json:"content_hash,omitempty"`
		// Foreign, for a bundle in the other implementation's shape, is
		// what it claims gate by gate beside what its contents support
		// under spec v0.1. It is still not a conforming bundle (exit 2).
		Foreign *verify.Foreign       `json:"foreign,omitempty"`
		Groups  []verify.ProblemGroup `json:"problem_groups,omitempty"`
		// Errors lists an invalid input's first problems; ErrorsOmitted
		// counts the others (a hostile file can have millions).
		Errors        []string `json:"errors,omitempty"`
		ErrorsOmitted int      `json:"errors_omitted,omitempty"`
	}
	var results []result
	code := exitProven
	for _, name := range fs.Args() {
		res := result{File: name}
		data, err := readInput(name, stdin)
		if err == nil {
			res.Report, err = v.Bytes(data)
		}
		if err == nil {
			res.Report.CheckSignature(pins)
		}
		var ie *verify.InvalidError
		switch {
		case errors.As(err, &ie):
			for _, p := range ie.Problems {
				res.Errors = append(res.Errors, p.String())
			}
			res.ErrorsOmitted = ie.Omitted
			res.Headline, res.Stage, res.Artifact, res.ContentHash = ie.Headline(), ie.Stage, ie.Artifact, ie.Hash
			res.Foreign = ie.Foreign
			res.Groups = ie.Groups()
			code = max(code, exitInvalid)
		case err != nil:
			res.Errors = append(res.Errors, err.Error())
			res.Headline = err.Error()
			code = max(code, exitInvalid)
		default:
			res.Headline = res.Report.Headline()
			if res.Report.Verdict != skill.VerdictPass || res.Report.Signature == verify.SignatureInvalid {
				code = max(code, exitUnproven)
			}
		}
		results = append(results, res)
	}

	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			fmt.Fprintf(stderr, "workbench verify: %v\n", err)
			return exitInvalid
		}
		return code
	}
	for i, r := range results {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if r.Report == nil {
			printInvalid(stderr, r.File, r.Headline, r.ContentHash, r.Foreign, r.Groups, r.Stage, r.ErrorsOmitted)
			continue
		}
		printReport(stdout, r.File, r.Report)
	}
	return code
}

// maxInputBytes caps what verify reads: one byte over the bundle limit is
// enough for the decoder to say the file is too large.
const maxInputBytes = skill.MaxBundleBytes + 1

// readInput reads the file name, or stdin for "-", up to maxInputBytes.
// A file is read into a buffer of its own size: io.ReadAll grows its
// buffer step by step, and the steps it leaves behind, up to the size of
// the file again, were a fifth of what verifying a large file took at its
// peak.
func readInput(name string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	size := int64(512)
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("cannot read: %w", errors.Unwrap(err))
		}
		defer f.Close()
		r = f
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = min(st.Size(), maxInputBytes) + 1 // the 1: to see the end
		}
	}
	lr := io.LimitReader(r, maxInputBytes)
	data := make([]byte, 0, size)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // stdin, or a file that grew
		}
		n, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read: %w", err)
		}
	}
}

// printInvalid writes what is wrong with an input that is not a
// well-formed bundle: the headline, the content hash when it claims one,
// and its problems by cause, each with its first examples.
func printInvalid(w io.Writer, file, headline string, hash *verify.HashCheck, foreign *verify.Foreign, groups []verify.ProblemGroup, stage string, omitted int) {
	fmt.Fprintf(w, "%s: %s\n", file, headline)
	if verify.HeadlineSays(stage) {
		return // the headline holds the one problem
	}
	if hash != nil {
		fmt.Fprintf(w, "  %s\n", hash)
	}
	if foreign != nil {
		printForeign(w, foreign)
	}
	for _, g := range groups {
		fmt.Fprintf(w, "  %s\n", g.Sentence)
		if len(g.Names) > 0 && !strings.Contains(g.Pattern, "*") {
			continue // one object: the sentence names its members
		}
		for _, p := range g.Examples {
			fmt.Fprintf(w, "      %s\n", p)
		}
		if more := g.Count - len(g.Examples); more > 0 {
			fmt.Fprintf(w, "      … and %d more\n", more)
		}
	}
	if omitted > 0 {
		fmt.Fprintf(w, "  … and %d more problems beyond these\n", omitted)
	}
}

// printForeign writes what a bundle in the other implementation's shape
// claims, gate by gate, beside what its contents support under spec v0.1
// and why; its schema problems follow.
func printForeign(w io.Writer, f *verify.Foreign) {
	fmt.Fprintln(w, "  Read only: it is not a spec v0.1 bundle, so it proves nothing as one; what it claims, beside what its contents support:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  GATE\tCLAIMED\tUNDER SPEC v0.1\tWHY")
	for _, g := range f.Gates {
		c := g.Claimed
		switch {
		case c == "":
			c = "-"
		case g.ClaimedLevel != "":
			c += " (" + g.ClaimedLevel + ")"
		}
		found := g.Verdict
		if g.Level != "" && g.Level != g.Verdict {
			found += " (" + g.Level + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", g.ID, c, found, g.Why)
	}
	fmt.Fprintf(tw, "  overall\t%s\t%s\t\n", f.Claimed, f.Verdict)
	tw.Flush()
	for _, o := range f.Overclaims {
		fmt.Fprintf(w, "  OVERCLAIM %s\n", o)
	}
	fmt.Fprintln(w, "  Against the bundle schema:")
}

func printReport(w io.Writer, file string, r *verify.Report) {
	fmt.Fprintf(w, "%s: %s\n", file, r.Headline())
	fmt.Fprintf(w, "  skill %q v%d  bundle %s\n", r.SkillName, r.Version, r.BundleID)
	fmt.Fprintf(w, "  content_hash %s  signed: %s  redaction: %s\n", r.ContentHash, r.SignedText(), r.Derived.RedactionResult.Profile)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  GATE\tCLAIMED\tRE-VERIFIED\tREASON")
	claimed := map[string]skill.Gate{}
	for _, g := range r.Claimed.ProofGates {
		claimed[g.ID] = g
	}
	for _, g := range r.Derived.ProofGates {
		c := claimed[g.ID].Verdict
		if c == "" {
			c = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", g.ID, c, withLevel(g), g.Reason)
	}
	for _, inv := range r.Derived.InvariantResults {
		c := "-"
		for _, ci := range r.Claimed.InvariantResults {
			if ci.ID == inv.ID {
				c = fmt.Sprint(ci.Held)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%v\t%s\n", inv.ID, c, inv.Held, inv.Detail)
	}
	fmt.Fprintf(tw, "  overall\t%s\t%s\t\n", r.Claimed.OverallVerdict, r.Derived.OverallVerdict)
	tw.Flush()
	if len(r.Derived.ConformanceCheck.FixturesPassed)+len(r.Derived.ConformanceCheck.FixturesFailed) > 0 {
		fmt.Fprintf(w, "  fixtures passed: %s  failed: %s\n",
			orNone(r.Derived.ConformanceCheck.FixturesPassed), orNone(r.Derived.ConformanceCheck.FixturesFailed))
	}
	for _, o := range r.Overclaims {
		fmt.Fprintf(w, "  OVERCLAIM %s\n", o)
	}
	for _, p := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", p)
	}
	if r.WarningsOmitted > 0 {
		fmt.Fprintf(w, "  warning: … and %d more\n", r.WarningsOmitted)
	}
	fmt.Fprintf(w, "  verdict: %s\n", strings.ToUpper(r.Verdict))
}

func withLevel(g skill.Gate) string {
	if g.Level != "" {
		return g.Verdict + " (" + g.Level + ")"
	}
	return g.Verdict
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
