package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// newFlags returns the flag set of the command name (verify, sign, …). Its
// errors go to stderr, and its usage reads "usage: workbench " + synopsis,
// a blank line, the help paragraph and the flags.
func newFlags(name, synopsis, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: workbench %s\n\n%s\n", synopsis, help)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs. done is true when the command must exit
// at once with code: ok after --help, which printed the usage, and bad
// after a flag error, which the flag package reported.
func parseFlags(fs *flag.FlagSet, args []string, ok, bad int) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		return ok, true
	default:
		return bad, true
	}
}
