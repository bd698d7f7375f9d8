package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandUsage checks each command built on newFlags: --help prints
// exactly its usage (testdata/usage) and exits 0; an unknown flag is
// reported with the usage and exits 2; missing arguments print the usage
// and exit 2.
func TestCommandUsage(t *testing.T) {
	for _, tc := range []struct {
		golden string
		cmd    []string
	}{
		{"verify.txt", []string{"verify"}},
		{"export.txt", []string{"export"}},
		{"sign.txt", []string{"sign"}},
		{"keygen.txt", []string{"keygen"}},
		{"capabilities-check.txt", []string{"capabilities", "check"}},
	} {
		t.Run(strings.Join(tc.cmd, " "), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "usage", tc.golden))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name   string
				args   []string
				code   int
				prefix string
			}{
				{"help", []string{"--help"}, 0, ""},
				{"unknown flag", []string{"--bogus"}, 2, "flag provided but not defined: -bogus\n"},
				{"no arguments", nil, 2, ""},
			} {
				code, stdout, stderr := runCmd(t, "", append(append([]string{}, tc.cmd...), c.args...)...)
				if code != c.code {
					t.Errorf("%s: exit %d, want %d", c.name, code, c.code)
				}
				if stdout != "" {
					t.Errorf("%s: stdout %q, want none", c.name, stdout)
				}
				if stderr != c.prefix+string(want) {
					t.Errorf("%s: stderr\n%s\nwant\n%s%s", c.name, stderr, c.prefix, want)
				}
			}
		})
	}
}
