package verify_test

import (
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/redact"
	"workbench/pkg/skill"
)

// fakeKey has the shape of an OpenRouter key; it is not one.
var fakeKey = "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)

// TestExportFragmentRule: a bundle whose name was cut through a key still
// holds a run of it that the detector cannot see, so verifying the bytes
// alone passes gate.redaction_verify; verifying them as an export, with
// the secrets of the bundle before redaction, fails it — for a run in the
// document and for one in the file name.
func TestExportFragmentRule(t *testing.T) {
	v, files := setup(t)
	orig := decode(t, files[fixtures.ValidBundleFile])
	orig.Trace.Goal = "Use token " + fakeKey + " to read the README"
	cutName := "Use token " + fakeKey[:40] + "…"
	d := redact.NewDetector()
	known, err := d.Known(orig)
	if err != nil {
		t.Fatal(err)
	}

	red := decode(t, files[fixtures.ValidBundleFile])
	*red = *orig
	if _, err := d.Apply(red, skill.RedactionTranscriptPII); err != nil {
		t.Fatal(err)
	}
	// What a redaction that masks only whole secrets would leave: the cut
	// name, which no pattern recognizes.
	leaky := *red
	leaky.Manifest.Name = cutName
	if err := v.SealWithProof(&leaky); err != nil {
		t.Fatal(err)
	}
	if d.ContainsSecret(cutName) {
		t.Fatal("the cut name still looks like a key: the test no longer shows the fragment rule")
	}
	clean, err := red.Encode()
	if err != nil {
		t.Fatal(err)
	}
	leak, err := leaky.Encode()
	if err != nil {
		t.Fatal(err)
	}
	cleanName := skill.ExportFilename(red.Manifest.Slug, red.SkillVersion)
	leakName := "use-token-" + fakeKey[9:29] + ".v1.skill.json"

	for _, tc := range []struct {
		name    string
		data    []byte
		file    string
		known   *redact.Known
		verdict string
		because string
	}{
		{"the redacted copy", clean, cleanName, known, skill.VerdictPass, ""},
		{"the cut name, bytes alone", leak, cleanName, nil, skill.VerdictPass, ""},
		{"the cut name, as an export", leak, cleanName, known, skill.VerdictFail, "/manifest/name: a string holds 40 characters of a openrouter_key found before redaction"},
		{"a file name holding a run of the key", clean, leakName, known, skill.VerdictFail, "the file name: it holds 21 characters of a openrouter_key found before redaction"},
		{"a file name holding an e-mail address", clean, "jane@example.com.v1.skill.json", nil, skill.VerdictFail, "the file name: it still holds what looks like a e-mail address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := v.Export(tc.data, tc.file, tc.known)
			if err != nil {
				t.Fatal(err)
			}
			g := gate(r.Derived, skill.GateRedactionVerify)
			if g.Verdict != tc.verdict || !strings.Contains(g.Reason, tc.because) {
				t.Errorf("gate %s: %s\nwant %s: %s", g.Verdict, g.Reason, tc.verdict, tc.because)
			}
			if strings.Contains(g.Reason, fakeKey[9:25]) || strings.Contains(g.Reason, "jane@") {
				t.Errorf("the reason quotes what it found: %s", g.Reason)
			}
		})
	}

}
