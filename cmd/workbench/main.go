// Command workbench is the Skill Workbench on the command line: it teaches
// a skill on the simulator (teach), replays and compares it (replay,
// compare), verifies bundles (verify), exports a redacted copy (export),
// serves the workbench locally with its browser and host bodies (serve),
// runs those bodies on a visitor's machine for a deployed workbench page
// (bodies), and publishes signed bundles to a skill registry and withdraws
// them (publish, withdraw).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand: run gets the arguments after its name and
// returns the process exit status.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() map[string]command {
	return map[string]command{
		"verify":   {"verify bundles: strict decode, schema, hash, re-derived proof", runVerify},
		"export":   {"redact a copy of a bundle under a profile, re-seal and re-verify it, and write it", runExport},
		"serve":    {"serve the site, the OpenRouter proxy and the browser and host bodies on one local origin", runServe},
		"bodies":   {"run a browser and a host body on this machine for a deployed workbench page, behind a pairing secret", runBodies},
		"teach":    {"demonstrate a task to a model on the simulator and write the sealed skill", runTeach},
		"replay":   {"replay a skill, save the replay as its next version and verify it", runReplay},
		"compare":  {"replay a skill against several models and show where they diverge", runCompare},
		"keygen":   {"create an Ed25519 signing key and a pin set holding its public key", runKeygen},
		"sign":     {"sign bundles with an Ed25519 key made by keygen", runSign},
		"publish":  {"sign a redacted bundle and publish it to a skill registry", runPublish},
		"withdraw": {"withdraw a bundle this key published from a skill registry", runWithdraw},
		"mcp":      {"list or call the tools of an MCP server (for debugging servers)", runMCP},

		"capabilities": {"check a capability backend against the HTTP contract of the capability workbench document", runCapabilities},
	}
}

func main() {
	// Ctrl+C, a service manager's stop and a closed terminal end the
	// command's context, so that serve and bodies stop their bodies
	// before they exit.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "workbench: unknown command %q (run 'workbench help')\n", args[0])
		return 2
	}
	return c.run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: workbench <command> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, strings.TrimSpace(`
Run 'workbench <command> --help' for a command's flags.`))
}
