package main

// What teach, replay and compare share: the command line (interspersed
// flags, --input, repeatable flags), the OpenRouter key and client, the
// simulator world, typed input values, and how a failure reads.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"workbench/pkg/openrouter"
	"workbench/pkg/redact"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// keyEnv is the one place the OpenRouter key is read from: a flag would
// leave it in the shell's history and the process list.
const keyEnv = "OPENROUTER_API_KEY"

// usageError is a command line or input the user must fix (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// cli is one run of a pipeline command: its name, flags and streams.
type cli struct {
	name   string // "teach", "replay", "compare"
	fs     *flag.FlagSet
	stdout io.Writer
	stderr io.Writer
	help   func(w io.Writer)
	// secrets masks what a progress or error line must not show.
	secrets *redact.Detector
}

func newCLI(name string, stdout, stderr io.Writer, help func(io.Writer)) *cli {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package's own messages are replaced by one line each (fail).
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &cli{name: name, fs: fs, stdout: stdout, stderr: stderr, help: help, secrets: redact.NewDetector()}
}

// clean masks the secrets, e-mail addresses and password values in text
// from a run — tool arguments, the model's words, error messages — before
// it is shortened or printed: shortening first could cut a key where the
// detector no longer sees it.
func (c *cli) clean(s string) string { return c.secrets.Clean(s) }

// parse parses flags that may come before, between and after positional
// arguments, and returns the positional ones. done is true when the
// command should exit with code at once (help, or a bad flag).
func (c *cli) parse(args []string) (pos []string, code int, done bool) {
	for {
		err := c.fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.help(c.stderr)
			c.fs.SetOutput(c.stderr)
			c.fs.PrintDefaults()
			return nil, exitProven, true
		}
		if err != nil {
			c.errorf("%v (run 'workbench %s --help')", err, c.name)
			return nil, exitInvalid, true
		}
		rest := c.fs.Args()
		if len(rest) == 0 {
			return pos, 0, false
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			// Everything after "--" is positional.
			return append(pos, rest...), 0, false
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// errorf prints one line to stderr, prefixed with the command, with what
// clean masks masked.
func (c *cli) errorf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "workbench %s: %s\n", c.name, c.clean(fmt.Sprintf(format, args...)))
}

// progressf prints one progress line to stderr, with what clean masks
// masked. A caller that shortens text cleans it first.
func (c *cli) progressf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "%s: %s\n", c.name, c.clean(fmt.Sprintf(format, args...)))
}

// fail prints err as one line and returns its exit status: 2 for what the
// user must fix (usage, a refused key), 1 for a run that did not succeed.
func (c *cli) fail(err error) int {
	msg, code := explain(err)
	c.errorf("%s", msg)
	return code
}

// explain turns an error into one line and an exit status. An OpenRouter
// error keeps its status, its message and, for 429, the wait asked for;
// the key is never part of any error text (package openrouter scrubs it).
func explain(err error) (string, int) {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue.msg, exitInvalid
	}
	var te *openrouter.TimeoutError
	if errors.As(err, &te) {
		return fmt.Sprintf("%v — the model did not answer in time; --model-timeout sets the limit", err), exitUnproven
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Sprintf("%v — the server did not answer in time", err), exitUnproven
	}
	var ae *openrouter.APIError
	if errors.As(err, &ae) {
		switch {
		case errors.Is(err, openrouter.ErrBadKey):
			return fmt.Sprintf("%v — OpenRouter refused the key in %s", err, keyEnv), exitInvalid
		case errors.Is(err, openrouter.ErrOutOfCredit):
			return fmt.Sprintf("%v — the OpenRouter account or key is out of credit", err), exitUnproven
		case errors.Is(err, openrouter.ErrRateLimited):
			if _, ok := openrouter.RetryAfter(err); ok {
				// The error already says how long to wait.
				return fmt.Sprintf("%v — rate limited", err), exitUnproven
			}
			return fmt.Sprintf("%v — rate limited; try again later", err), exitUnproven
		}
	}
	return err.Error(), exitUnproven
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*m = append(*m, v)
	return nil
}

// list is the inputs in the order given.
func (f *inputFlag) list() []teach.Value {
	out := make([]teach.Value, len(f.names))
	for i, n := range f.names {
		out[i] = teach.Value{Name: n, Raw: f.values[n]}
	}
	return out
}

// flagError reports a *teach.InputError against the flag that carries the
// field, as a usage error; other errors pass through.
func flagError(err error) error {
	var ie *teach.InputError
	if !errors.As(err, &ie) {
		return err
	}
	flagName := "--" + ie.Field
	switch {
	case ie.Field == teach.FieldWorld && ie.Name == "":
		return usagef("%s; name one with --world", ie.Msg)
	case ie.Name != "":
		return usagef("%s %s: %s", flagName, ie.Name, ie.Msg)
	}
	return usagef("%s: %s", flagName, ie.Msg)
}

// inputFlag collects --input name=value, in order, each name once.
type inputFlag struct {
	names  []string
	values map[string]string
}

func (f *inputFlag) String() string { return "" }

func (f *inputFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	name = strings.TrimSpace(name)
	switch {
	case !ok:
		return fmt.Errorf("%q is not name=value", v)
	case name == "":
		return fmt.Errorf("%q has no input name before '='", v)
	case slices.Contains(f.names, name):
		return fmt.Errorf("input %q is given twice", name)
	}
	if f.values == nil {
		f.values = map[string]string{}
	}
	f.names = append(f.names, name)
	f.values[name] = value
	return nil
}

// apiKey reads the key from the environment.
func apiKey() (string, error) {
	k := os.Getenv(keyEnv)
	if k == "" {
		return "", usagef("%s is not set: export your OpenRouter API key in it (it is never taken as a flag)", keyEnv)
	}
	return k, nil
}

// modelFlags are the flags of the OpenRouter client: where it sends, and
// how long one request may take.
type modelFlags struct {
	base    *string
	timeout *time.Duration
}

func addModelFlags(fs *flag.FlagSet) modelFlags {
	return modelFlags{
		base: fs.String("openrouter", openrouter.OpenRouterAPI, "OpenRouter API base `URL`"),
		timeout: fs.Duration("model-timeout", defaultModelTimeout,
			"give up on a model request not answered in full within `DURATION`"),
	}
}

// check refuses a limit that is not a positive duration.
func (f modelFlags) check() error {
	if *f.timeout <= 0 {
		return usagef("--model-timeout %s: must be positive", *f.timeout)
	}
	return nil
}

// client makes an OpenRouter client for the flags' base URL and checks the
// key with GET /key before any work is done, so a refused key or an
// exhausted limit is one clear line rather than a failure half way. Every
// request has connect, header and total limits (modelHTTPClient,
// --model-timeout), so a server that never answers ends the run.
func (f modelFlags) client(ctx context.Context) (*openrouter.Client, error) {
	key, err := apiKey()
	if err != nil {
		return nil, err
	}
	base := *f.base
	cl, err := openrouter.New(key, openrouter.WithBaseURL(base),
		openrouter.WithHTTPClient(modelHTTPClient(headerLimit(*f.timeout))), openrouter.WithTimeout(*f.timeout))
	if err != nil {
		return nil, usagef("--openrouter %s: %v", base, strings.TrimPrefix(err.Error(), "openrouter: "))
	}
	info, err := cl.Key(ctx)
	if err != nil {
		return nil, fmt.Errorf("checking the key: %w", err)
	}
	if info.LimitRemaining != nil && *info.LimitRemaining <= 0 {
		return nil, fmt.Errorf("the key %q has no credit left of its %s limit", info.Label, words.USD(derefOr(info.Limit, 0)))
	}
	return cl, nil
}

func derefOr(p *float64, d float64) float64 {
	if p == nil {
		return d
	}
	return *p
}

// readBundle reads and verifies a bundle file; a file that is not a valid
// bundle is a usage error naming the first problem and where it is.
func readBundle(name string, stdin io.Reader) (*skill.Bundle, error) {
	data, err := readInput(name, stdin)
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	v, err := verify.Standard()
	if err != nil {
		return nil, err
	}
	if _, err := v.Bytes(data); err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		return nil, usagef("%s: %v", name, err)
	}
	return b, nil
}

// writeBundle writes b's exported bytes to out, or to its export name in
// the current directory, and returns the file name.
func writeBundle(b *skill.Bundle, out string) (string, error) {
	if out == "" {
		out = skill.ExportFilename(b.Manifest.Slug, b.SkillVersion)
	}
	data, err := b.Encode()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return "", fmt.Errorf("write the bundle: %w", err)
	}
	return out, nil
}

// cost formats a cost and says when some reply did not report its own.
func cost(usd float64, known bool) string {
	s := words.USD(usd)
	if !known {
		s += " (some replies reported no cost)"
	}
	return s
}

// edgeLine describes one replayed edge for a progress line.
func edgeLine(b *skill.Bundle, e skill.ReplayEdge) string {
	tool := "?"
	if e.Index >= 0 && e.Index < len(b.Trace.Edges) {
		tool = b.Trace.Edges[e.Index].Tool.Name
	}
	s := fmt.Sprintf("edge %d %s: %s", e.Index, tool, e.Match)
	if e.Committed {
		s += ", committed"
	} else if e.Match != skill.MatchNotRun {
		s += ", not committed"
	}
	return s
}

// printReplay prints what one replay did.
func printReplay(w io.Writer, r *workbench.ReplayResult) {
	rep := r.Record.Report
	fmt.Fprintf(w, "replay: %s, fidelity %v (%s), %d of %d edges committed\n",
		rep.Status, rep.Fidelity, rep.FidelityLevel, rep.EdgesCommitted, len(r.Record.Edges))
	if rep.HaltedAtEdge != nil {
		fmt.Fprintf(w, "  halted at edge %d\n", *rep.HaltedAtEdge)
	}
	for _, s := range rep.SurpriseSignals {
		fmt.Fprintf(w, "  surprise at edge %d: %s: %s\n", s.EdgeIndex, s.Kind, s.Detail)
	}
	fmt.Fprintf(w, "  model used: %s (%d model calls), cost %s\n", rep.ModelUsed, r.ModelCalls, cost(r.CostUSD, r.CostKnown))
	if r.Setup == nil {
		return
	}
	// In words: what the last step the body answered said, and on a
	// divergence what differed from the recording.
	rows := workbench.EdgeRows(r.Setup.Bundle, r.Record.Edges, rep.SurpriseSignals)
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Saw != "" {
			clip, more := words.Clip(rows[i].Saw, 30, 2400)
			fmt.Fprintf(w, "  step %d (%s) answered:\n%s\n", rows[i].Index, rows[i].Tool, indent(clip, "    "))
			if more {
				fmt.Fprintln(w, "    … (clipped; the whole answer is in the step's tool result)")
			}
			break
		}
	}
	for _, row := range rows {
		d := row.Difference
		if d == nil {
			continue
		}
		fmt.Fprintf(w, "  what differed at edge %d: %s\n", row.Index, d.Tolerance)
		switch {
		case d.Recorded == "":
			fmt.Fprintf(w, "  the body showed:\n%s\n", indent(d.Observed, "    "))
		case len(d.Lines) == 0:
			fmt.Fprintln(w, "  the body's answer reads the same as recorded; the state behind it differed")
		default:
			fmt.Fprintln(w, "  (- recorded, + on replay)")
			for _, l := range d.Lines {
				fmt.Fprintf(w, "    %s %s\n", l.Op, l.Text)
			}
		}
	}
}

// indent puts prefix before every line of text.
func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(text, "\n", "\n"+prefix)
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
