package export_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/export"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// fakeKey has the shape of an OpenRouter key; it is not one.
const fakeKey = "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func setup(t *testing.T) (*verify.Verifier, *skill.Bundle) {
	t.Helper()
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fixtures.ValidBundleFile))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return v, b
}

// withSecret puts a key-shaped string into the bundle's task and re-seals it.
func withSecret(t *testing.T, v *verify.Verifier, b *skill.Bundle) {
	t.Helper()
	b.Evidence.Scenario.Task.Description += " (use key " + fakeKey + ")"
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
}

func TestPrepare(t *testing.T) {
	v, b := setup(t)
	before := b.ContentHash
	for _, profile := range []string{skill.RedactionNone, skill.RedactionTranscriptPII, skill.RedactionFull} {
		t.Run(profile, func(t *testing.T) {
			f, err := export.Prepare(v, b, profile, false)
			if err != nil {
				t.Fatal(err)
			}
			if want := skill.ExportFilename(b.Manifest.Slug, b.SkillVersion); f.Name != want {
				t.Errorf("name %q, want %q", f.Name, want)
			}
			got, _, err := skill.Decode(f.Data)
			if err != nil {
				t.Fatal(err)
			}
			if got.ContentHash != f.ContentHash || got.Evidence.RedactionProfile != profile {
				t.Errorf("file holds hash %s profile %q; File says %s %q", got.ContentHash, got.Evidence.RedactionProfile, f.ContentHash, profile)
			}
			if h, err := got.Hash(); err != nil || h != f.ContentHash {
				t.Errorf("the exported hash does not verify: %s, %v", h, err)
			}
			if len(f.Report.Overclaims) > 0 {
				t.Errorf("overclaims: %v", f.Report.Overclaims)
			}
		})
	}
	if b.ContentHash != before {
		t.Error("Prepare changed the stored bundle")
	}
	if _, err := export.Prepare(v, b, "some", false); err == nil || !strings.Contains(err.Error(), `unknown redaction profile "some"`) {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestSecretsAreNeverExportedSilently(t *testing.T) {
	v, b := setup(t)
	withSecret(t, v, b)
	adv, err := export.Advise(b)
	if err != nil {
		t.Fatal(err)
	}
	if adv.Profile != skill.RedactionTranscriptPII || !adv.Secrets.Found() || !strings.Contains(strings.Join(adv.Secrets.Kinds, ","), "openrouter") {
		t.Fatalf("advice %+v", adv)
	}
	if strings.Contains(adv.Secrets.String(), fakeKey) {
		t.Error("the advice repeats the secret")
	}
	if _, err := export.Prepare(v, b, skill.RedactionNone, false); !errors.Is(err, export.ErrSecrets) {
		t.Errorf("none without confirmation: %v, want ErrSecrets", err)
	}
	f, err := export.Prepare(v, b, skill.RedactionNone, true)
	if err != nil || !bytes.Contains(f.Data, []byte(fakeKey)) {
		t.Errorf("none, confirmed: %v (the user chose to keep the secret)", err)
	}
	for _, profile := range []string{skill.RedactionTranscriptPII, skill.RedactionFull} {
		f, err := export.Prepare(v, b, profile, false)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(f.Data, []byte(fakeKey)) {
			t.Errorf("%s export still holds the secret", profile)
		}
		if len(f.Redaction.FieldsStripped) == 0 {
			t.Errorf("%s export lists no stripped fields", profile)
		}
	}
}
