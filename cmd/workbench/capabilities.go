package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"workbench/pkg/capability/httpapi/conformance"
)

// Exit statuses of workbench capabilities check.
const (
	exitConforms = 0 // the client refuses nothing of the backend (unusable entries aside)
	exitRefused  = 1 // the client would refuse something
	exitUsage    = 2 // the command line is wrong
)

func runCapabilities(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintln(stderr, "usage: workbench capabilities check [flags] URL")
		return exitUsage
	}
	fs := newFlags("capabilities check", "capabilities check [--invoke] [--capability ID] [--action NAME] [--inputs JSON] [--json] URL",
		`Walks the capability backend at URL through the HTTP contract of the capability workbench
document — the catalog, each descriptor, a preflight, the runs list, the approvals list
when the catalog declares one, and with --invoke only, one read-only invocation and the
follow of its run — and says, point by point, what conforms to the published schemas
(schemas/capability-*.schema.json), what the client tolerates, what it refuses, and which
catalog entries it cannot use (it lists the others). Exit status: 0 nothing refused;
1 something refused; 2 usage.`, stderr)
	invoke := fs.Bool("invoke", false, "invoke one read-only action whose preflight allows it, and follow its run")
	capID := fs.String("capability", "", "the capability to preflight (and invoke); default: the first available one with a read-only action")
	action := fs.String("action", "", "the action of that capability; default: its first read-only action")
	inputs := fs.String("inputs", "{}", "the inputs of that capability, a JSON object")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to follow the invoked run")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if code, done := parseFlags(fs, args[1:], exitConforms, exitUsage); done {
		return code
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	if !json.Valid([]byte(*inputs)) || !strings.HasPrefix(strings.TrimSpace(*inputs), "{") {
		fmt.Fprintf(stderr, "workbench capabilities check: --inputs %q is not a JSON object\n", *inputs)
		return exitUsage
	}
	rep, err := conformance.Check(ctx, fs.Arg(0), nil, conformance.Options{
		Invoke: *invoke, Capability: *capID, Action: *action, Inputs: json.RawMessage(*inputs), Timeout: *timeout})
	if err != nil {
		fmt.Fprintf(stderr, "workbench capabilities check: %v\n", err)
		return exitUsage
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		fmt.Fprintf(stdout, "backend %s\n", rep.Backend)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, p := range rep.Points {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Verdict, p.What, p.Detail)
		}
		tw.Flush()
		fmt.Fprintf(stdout, "%d conform, %d tolerated, %d refused, %d unusable entries, %d skipped\n", rep.Count(conformance.Conforms),
			rep.Count(conformance.Tolerated), rep.Count(conformance.Refused), rep.Count(conformance.Unusable), rep.Count(conformance.Skipped))
	}
	if !rep.OK() {
		return exitRefused
	}
	return exitConforms
}
