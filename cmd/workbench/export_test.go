package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// fakeKey has the shape of an OpenRouter key; it is not one.
const fakeKey = "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// bundleFile writes the valid fixture, changed by edit and sealed again
// (with its proof re-derived when prove is set), to dir/name.
func bundleFile(t *testing.T, dir, name string, prove bool, edit func(*skill.Bundle)) string {
	t.Helper()
	data, err := os.ReadFile(fixture("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	edit(b)
	if prove {
		v, err := verify.Standard()
		if err != nil {
			t.Fatal(err)
		}
		err = v.SealWithProof(b)
	} else {
		err = b.Seal()
	}
	if err != nil {
		t.Fatal(err)
	}
	if data, err = b.Encode(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExport: the export command's profile, secret advice, refusals,
// output file and exit status.
func TestExport(t *testing.T) {
	dir := t.TempDir()
	valid := fixture("valid-skill-bundle.v0.json")
	secret := bundleFile(t, dir, "secret.skill.json", true, func(b *skill.Bundle) {
		b.Evidence.Scenario.Task.Description += " (use key " + fakeKey + ")"
	})
	overclaim := bundleFile(t, dir, "overclaim.skill.json", false, func(b *skill.Bundle) {
		b.Proof.OverallVerdict = skill.VerdictPass
		for i := range b.Proof.ProofGates {
			if b.Proof.ProofGates[i].ID == skill.GateReplayFidelity {
				b.Proof.ProofGates[i].Verdict = skill.VerdictPass
			}
		}
		b.Trace.Edges = b.Trace.Edges[:1]
	})
	full := filepath.Join(dir, "full.skill.json")
	if code, _, stderr := runCmd(t, "", "export", "--profile", "full", "-o", full, valid); code != 0 {
		t.Fatalf("export full: exit %d: %s", code, stderr)
	}
	exists := filepath.Join(dir, "exists.skill.json")
	os.WriteFile(exists, []byte("keep"), 0o644)
	out := func(name string) string { return filepath.Join(dir, name) }

	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		out      string   // the file written, "" when none should be
		holdsKey bool     // whether the file keeps the key verbatim
		stdout   []string // in what is printed
		stderr   []string
	}{
		{"default profile", []string{"-o", out("a.skill.json"), valid}, 0, out("a.skill.json"), false,
			[]string{"exported under transcript_pii", "redaction: transcript_pii", "verdict: PASS"}, nil},
		{"full", []string{"--profile", "full", "-o", out("b.skill.json"), valid}, 0, out("b.skill.json"), false,
			[]string{"exported under full"}, nil},
		{"secrets, default", []string{"-o", out("c.skill.json"), secret}, 0, out("c.skill.json"), false,
			[]string{"exported under transcript_pii"}, []string{"look like secrets (openrouter_key): 1 in 1 strings; transcript_pii and full remove them"}},
		{"secrets under none, unconfirmed", []string{"--profile", "none", "-o", out("d.skill.json"), secret}, 2, "", false,
			nil, []string{"look like secrets", "nothing was written (--confirm-secrets exports them verbatim)"}},
		{"secrets under none, confirmed", []string{"--profile", "none", "--confirm-secrets", "-o", out("e.skill.json"), secret}, 0, out("e.skill.json"), true,
			[]string{"exported under none"}, nil},
		{"weaker than the bundle's own", []string{"--profile", "transcript_pii", "-o", out("f.skill.json"), full}, 2, "", false,
			nil, []string{"already redacted as full", "weaker than the bundle's own full", "nothing was written"}},
		{"the bundle's own profile by default", []string{"-o", out("g.skill.json"), full}, 0, out("g.skill.json"), false,
			[]string{"exported under full"}, nil},
		{"does not prove what it claims", []string{"-o", out("h.skill.json"), overclaim}, 1, out("h.skill.json"), false,
			[]string{"OVERCLAIM", "verdict: FAIL"}, nil},
		{"unknown profile", []string{"--profile", "partial", valid}, 2, "", false, nil, []string{`unknown redaction profile "partial"`}},
		{"not a bundle", []string{fixture("invalid-missing-content-hash.v0.json")}, 2, "", false, nil, []string{"content_hash"}},
		{"existing output", []string{"-o", exists, valid}, 2, "", false, nil, []string{"exists", "nothing was written"}},
		{"no bundle", nil, 2, "", false, nil, []string{"usage: workbench export"}},
		{"two bundles", []string{valid, valid}, 2, "", false, nil, []string{"usage: workbench export"}},
		{"help", []string{"--help"}, 0, "", false, nil, []string{"usage: workbench export", "Exit status"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", append([]string{"export"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if strings.Contains(stdout+stderr, fakeKey[9:25]) {
				t.Error("the output shows a piece of the key")
			}
			if tc.out == "" {
				if data, _ := os.ReadFile(exists); string(data) != "keep" {
					t.Error("an existing file was overwritten")
				}
				return
			}
			data, err := os.ReadFile(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(fakeKey)) != tc.holdsKey {
				t.Errorf("the file holds the key: %v, want %v", !tc.holdsKey, tc.holdsKey)
			}
		})
	}
}

// TestExportNames: without -o the file is named after the redacted slug
// in the current directory; -o - writes the bundle to standard output and
// the report to standard error.
func TestExportNames(t *testing.T) {
	valid, err := filepath.Abs(fixture("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	code, stdout, stderr := runCmd(t, "", "export", valid)
	const name = "open-the-project-page-at-git-workbench-test.v2.skill.json"
	if code != 0 || !strings.HasPrefix(stdout, name+": exported under transcript_pii") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if _, err := os.Stat(name); err != nil {
		t.Error(err)
	}
	code, stdout, stderr = runCmd(t, "", "export", "--profile", "full", "-o", "-", valid)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, _, err := skill.Decode([]byte(stdout))
	if err != nil || b.Evidence.RedactionProfile != skill.RedactionFull {
		t.Errorf("standard output is not the full bundle: %v", err)
	}
	if !strings.Contains(stderr, "-: exported under full") {
		t.Errorf("stderr: %s", stderr)
	}
}
