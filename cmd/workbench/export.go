package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"workbench/pkg/redact"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

func runExport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("export", "export [--profile none|transcript_pii|full] [--confirm-secrets] [-o FILE] BUNDLE ('-' reads standard input)",
		`Redacts a copy of the bundle under the profile, re-seals it, verifies the copy against the
secrets of the original, and writes it to -o or to <slug>.v<n>.skill.json, named after the
redacted slug, in the current directory (an existing file is not overwritten). The profile
defaults to transcript_pii, or to the bundle's own profile when that is stricter; a weaker
one is refused, and none is refused for a bundle holding secrets unless --confirm-secrets
is given. Exit status: 0 the file was written and proves what it claims; 1 it was written
and does not, or the redacted copy failed gate.redaction_verify and nothing was written;
2 the input is not a valid bundle, the profile is refused, or the command line is wrong.`, stderr)
	profile := fs.String("profile", "", "the redaction `PROFILE`: none, transcript_pii or full (default: transcript_pii, or the bundle's own when stricter)")
	confirm := fs.Bool("confirm-secrets", false, "export a bundle holding secrets under --profile none, verbatim")
	var out string
	fs.StringVar(&out, "o", "", "write the exported bundle to `FILE` ('-' writes standard output)")
	fs.StringVar(&out, "out", "", "the same as -o")
	if code, done := parseFlags(fs, args, exitProven, exitInvalid); done {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitInvalid
	}
	if *profile != "" && !redact.ValidProfile(*profile) {
		fmt.Fprintf(stderr, "workbench export: --profile: unknown redaction profile %q (want none, transcript_pii or full)\n", *profile)
		return exitInvalid
	}
	file := fs.Arg(0)
	b, err := readBundle(file, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "workbench export: %v\n", err)
		return exitInvalid
	}
	adv, err := workbench.AdviseExport(b)
	if err != nil {
		fmt.Fprintf(stderr, "workbench export: %v\n", err)
		return exitInvalid
	}
	if *profile == "" {
		*profile = adv.Profile
	}
	printAdvice(stderr, adv)
	v, err := verify.Standard()
	if err != nil {
		fmt.Fprintf(stderr, "workbench export: %v\n", err)
		return exitInvalid
	}
	f, err := newFlows(v, nil, nil, false).Export(ctx, b, *profile, *confirm)
	var pe *workbench.ProfileError
	switch {
	case errors.Is(err, workbench.ErrSecrets):
		fmt.Fprintf(stderr, "workbench export: %v; nothing was written (--confirm-secrets exports them verbatim)\n", err)
		return exitInvalid
	case errors.As(err, &pe):
		fmt.Fprintf(stderr, "workbench export: %v; nothing was written\n", err)
		return exitInvalid
	case err != nil:
		fmt.Fprintf(stderr, "workbench export: %v; nothing was written\n", err)
		return exitUnproven
	}
	if out == "" {
		out = f.Name
	}
	if out == "-" {
		if _, err := stdout.Write(f.Data); err != nil {
			fmt.Fprintf(stderr, "workbench export: %v\n", err)
			return exitInvalid
		}
	} else if err := writeNew(out, f.Data, 0o644); err != nil {
		fmt.Fprintf(stderr, "workbench export: %v; nothing was written\n", err)
		return exitInvalid
	}
	w := stdout
	if out == "-" {
		w = stderr
	}
	fmt.Fprintf(w, "%s: exported under %s, %d fields stripped, content_hash %s\n",
		out, f.Profile, len(f.Redaction.FieldsStripped), f.ContentHash)
	printReport(w, out, f.Report)
	if f.Report.Verdict != skill.VerdictPass {
		return exitUnproven
	}
	return exitProven
}

// printAdvice says what the export flow found before it redacts: the
// secrets by kind (never their text), which profiles remove them, and the
// profile the bundle was already redacted under.
func printAdvice(w io.Writer, a workbench.ExportAdvice) {
	if a.Secrets.Found() {
		fmt.Fprintf(w, "workbench export: the bundle holds strings that look like secrets (%s): %d in %d strings; %s remove them\n",
			strings.Join(a.Secrets.Kinds, ", "), a.Secrets.Findings, a.Secrets.Strings, strings.Join(a.RemovedBy, " and "))
	}
	if redact.ProfileRank(a.Floor) > 0 {
		fmt.Fprintf(w, "workbench export: the bundle is already redacted as %s; no weaker profile is offered\n", a.Floor)
	}
}
