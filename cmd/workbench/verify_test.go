package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/schemas"
)

func fixture(name string) string { return filepath.Join("..", "..", "fixtures", name) }

func runCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVerifyExitStatus(t *testing.T) {
	tampered := filepath.Join(t.TempDir(), "tampered.skill.json")
	data, err := os.ReadFile(fixture("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(tampered, bytes.Replace(data, []byte(`"outcome_status":"ok"`), []byte(`"outcome_status":"done"`), 1), 0o644)

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"passing bundle", []string{"verify", fixture("valid-skill-bundle.v0.json")}, 0,
			[]string{"gate.replay_fidelity", "pass (exact)", "verdict: PASS", "signed: false"}, nil},
		{"redacted bundle", []string{"verify", fixture("redacted-transcript_pii.v0.json")}, 0,
			[]string{"redaction: transcript_pii", "verdict: PASS"}, nil},
		{"tampered bundle", []string{"verify", tampered}, 1,
			[]string{"gate.content_hash", "OVERCLAIM gate.content_hash: claimed pass, evidence gives fail", "verdict: FAIL"}, nil},
		{"missing content hash", []string{"verify", fixture("invalid-missing-content-hash.v0.json")}, 2,
			nil, []string{"a bundle with 1 problem against the bundle schema\n", "the top level lacks 1 required member: `content_hash`"}},
		{"missing file", []string{"verify", "no-such.skill.json"}, 2, nil, []string{"no-such.skill.json: cannot read"}},
		{"worst status wins", []string{"verify", fixture("valid-skill-bundle.v0.json"), tampered}, 1, []string{"verdict: PASS", "verdict: FAIL"}, nil},
		{"no files", []string{"verify"}, 2, nil, []string{"usage: workbench verify"}},
		{"help", []string{"verify", "--help"}, 0, nil, []string{"usage: workbench verify"}},
		{"unknown command", []string{"frobnicate"}, 2, nil, []string{"unknown command"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace on stderr:\n%s", stderr)
			}
		})
	}
}

func TestVerifyStdinAndJSON(t *testing.T) {
	data, err := os.ReadFile(fixture("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, string(data), "verify", "--json", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var results []struct {
		File   string `json:"file"`
		Report struct {
			Verdict string `json:"verdict"`
			Derived struct {
				OverallVerdict string `json:"overall_verdict"`
			} `json:"re_verified"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(stdout), &results); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
	}
	if len(results) != 1 || results[0].File != "-" || results[0].Report.Verdict != "pass" || results[0].Report.Derived.OverallVerdict != "pass" {
		t.Fatalf("unexpected report: %+v", results)
	}

	code, _, stderr = runCmd(t, "{not json", "verify", "-")
	if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "byte 1") {
		t.Fatalf("malformed stdin: exit %d, stderr %q (want one line naming the offset)", code, stderr)
	}
}

// A bundle carrying a signature string is reported as signed: false with
// the signature present and not verified, and its verdict is that of the
// same bundle without one.
func TestVerifyUnverifiedSignature(t *testing.T) {
	data, err := os.ReadFile(fixture("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	signed := filepath.Join(t.TempDir(), "signed.skill.json")
	if err := os.WriteFile(signed, bytes.Replace(data, []byte(`"signature":null`), []byte(`"signature":"ed25519:forged"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "", "verify", signed)
	if code != 0 {
		t.Fatalf("exit %d, want 0 as without a signature\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, s := range []string{"signed: false (signature present, not verified)", "verdict: PASS"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	if strings.Contains(stdout, "signed: true") {
		t.Errorf("an unverified signature reads as signed:\n%s", stdout)
	}
}

// An input with more problems than are listed gets the first ones, by
// cause, and the count of the others, as text and as JSON.
func TestVerifyListsFirstProblems(t *testing.T) {
	file := filepath.Join(t.TempDir(), "edges.json")
	data := `{"interaction_trace":{"edges":[0` + strings.Repeat(",0", 999) + `]}}`
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	// The 10 other members a bundle requires, the 9 others a trace does,
	// and 1,000 edges of the wrong type.
	const total, listed = 10 + 9 + 1000, schemas.MaxFieldErrors

	code, _, stderr := runCmd(t, "", "verify", file)
	want := []string{
		fmt.Sprintf("%s: a bundle with %d problems against the bundle schema\n", file, total),
		// The first 100 problems listed are grouped.
		"  93 values at `/interaction_trace/edges/*` failing type (must be an object, not a number)\n" +
			"      /interaction_trace/edges/0: must be an object, not a number\n",
		"      … and 90 more\n",
		"  the top level lacks 5 required members: `bundle_id`, `bundle_version`, `content_hash`, …\n",
		"  `/interaction_trace` lacks 2 required members: `agent_id`, `body_subtype`\n",
		fmt.Sprintf("  … and %d more problems beyond these\n", total-listed),
	}
	for _, s := range want {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr lacks %q", s)
		}
	}
	if lines := strings.Count(stderr, "\n"); code != 2 || lines != 9 {
		t.Errorf("exit %d, %d lines:\n%s", code, lines, stderr)
	}

	code, stdout, _ := runCmd(t, "", "verify", "--json", file)
	var results []struct {
		Headline      string   `json:"headline"`
		Stage         string   `json:"stage"`
		Errors        []string `json:"errors"`
		ErrorsOmitted int      `json:"errors_omitted"`
		Groups        []struct {
			Pattern, Keyword string
			Count            int
		} `json:"problem_groups"`
	}
	if err := json.Unmarshal([]byte(stdout), &results); err != nil {
		t.Fatalf("--json output is not JSON: %v", err)
	}
	if code != 2 || len(results) != 1 || len(results[0].Errors) != listed || results[0].ErrorsOmitted != total-listed ||
		results[0].Stage != "schema" || !strings.HasPrefix(results[0].Headline, "a bundle with 1019 problems") ||
		len(results[0].Groups) != 3 || results[0].Groups[0].Pattern != "/interaction_trace/edges/*" || results[0].Groups[0].Count != 93 {
		t.Errorf("exit %d, results %+v", code, results)
	}
}

// TestVerifyWarnsOfInexactNumbers: a number whose digits a double does not
// hold is a warning with its pointer, in text and JSON, not a rejection.
func TestVerifyWarnsOfInexactNumbers(t *testing.T) {
	data, err := os.ReadFile(fixture("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "inexact.skill.json")
	data = bytes.Replace(data, []byte(`"end_unix_nano":15000000,`), []byte(`"end_unix_nano":15000000.0000000000000000001,`), 1)
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCmd(t, "", "verify", name)
	if code != exitProven || !strings.Contains(stdout, "verdict: PASS") ||
		!strings.Contains(stdout, "/end_unix_nano (byte ") ||
		!strings.Contains(stdout, "warning: /evidence/trace/spans/") ||
		!strings.Contains(stdout, "the number 15000000.0000000000000000001 is read as 15000000") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, "", "verify", "--json", name)
	var res []struct {
		Report struct {
			Warnings []struct {
				Pointer, Message string
				Offset           int
			} `json:"warnings"`
		} `json:"report"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != exitProven || len(res) != 1 ||
		len(res[0].Report.Warnings) != 1 || !strings.HasSuffix(res[0].Report.Warnings[0].Pointer, "/end_unix_nano") {
		t.Errorf("exit %d, %v\n%s", code, err, stdout)
	}
}

// TestVerifyForeignBundle: a bundle in the other implementation's shape
// (pkg/verify/testdata/foreign) is read only: its claims gate by gate
// beside what its contents support under spec v0.1, in text and JSON, and
// exit 2, since it is not a conforming bundle.
func TestVerifyForeignBundle(t *testing.T) {
	file := filepath.Join("..", "..", "pkg", "verify", "testdata", "foreign", "taught.json")
	code, stdout, stderr := runCmd(t, "", "verify", file)
	if code != exitInvalid || stdout != "" {
		t.Errorf("exit %d, stdout %q; want %d and nothing on stdout", code, stdout, exitInvalid)
	}
	for _, want := range []string{
		"taught.json: a bundle in the other implementation's shape, not spec v0.1's, read only: it claims PASS; under spec v0.1 its contents give FAIL (6 overclaims); content hash intact; 53 problems against the bundle schema\n",
		"GATE                       CLAIMED       UNDER SPEC v0.1  WHY",
		"gate.replay_fidelity       pass (exact)  inconclusive     no replay record in the bundle (spec §5.3)",
		"gate.content_hash          pass          pass             the content hashes to its content_hash",
		"overall                    pass          fail",
		"OVERCLAIM overall_verdict: claimed pass, evidence gives fail",
		"Against the bundle schema:\n",
		"3 edges carry one `state_hash` instead of `state_before`/`state_after` (OS-011 §4)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	code, stdout, _ = runCmd(t, "", "verify", "--json", file)
	var res []struct {
		Headline string `json:"headline"`
		Stage    string `json:"stage"`
		Foreign  *struct {
			Claimed string `json:"claimed_verdict"`
			Verdict string `json:"verdict"`
			Marks   []string
			Gates   []struct{ ID, Claimed, Verdict, Why string }
		} `json:"foreign"`
		Report json.RawMessage `json:"report"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res) != 1 {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	r := res[0]
	if code != exitInvalid || r.Stage != "schema" || r.Report != nil || r.Foreign == nil {
		t.Fatalf("exit %d, stage %q, report %s, foreign %v", code, r.Stage, r.Report, r.Foreign)
	}
	if r.Foreign.Claimed != "pass" || r.Foreign.Verdict != "fail" || len(r.Foreign.Marks) != 3 || len(r.Foreign.Gates) != 6 {
		t.Errorf("foreign %+v", r.Foreign)
	}
	for _, g := range r.Foreign.Gates {
		if g.ID == "gate.authority" && (g.Claimed != "pass" || g.Verdict != "fail" || !strings.Contains(g.Why, "no authorization decision")) {
			t.Errorf("authority %+v", g)
		}
	}
	if !strings.Contains(r.Headline, "the other implementation's shape") {
		t.Errorf("headline %q", r.Headline)
	}
}
