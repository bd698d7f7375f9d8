package workbench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"workbench/pkg/crystallize"
	"workbench/pkg/redact"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// fakeKey has the shape of an OpenRouter key; it is not one.
const fakeKey = "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func setup(t *testing.T) (*verify.Verifier, *skill.Bundle) {
	t.Helper()
	return verifier(t), taught(t)
}

// withSecret puts a key-shaped string into the bundle's task and re-seals it.
func withSecret(t *testing.T, v *verify.Verifier, b *skill.Bundle) {
	t.Helper()
	b.Evidence.Scenario.Task.Description += " (use key " + fakeKey + ")"
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
}

func TestExport(t *testing.T) {
	v, b := setup(t)
	before := b.ContentHash
	for _, profile := range []string{skill.RedactionNone, skill.RedactionTranscriptPII, skill.RedactionFull} {
		t.Run(profile, func(t *testing.T) {
			f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, profile, false)
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
		t.Error("Export changed the stored bundle")
	}
	if _, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, "some", false); err == nil || !strings.Contains(err.Error(), `unknown redaction profile "some"`) {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestSecretsAreNeverExportedSilently(t *testing.T) {
	v, b := setup(t)
	withSecret(t, v, b)
	adv, err := workbench.AdviseExport(b)
	if err != nil {
		t.Fatal(err)
	}
	if adv.Profile != skill.RedactionTranscriptPII || !adv.Secrets.Found() || !strings.Contains(strings.Join(adv.Secrets.Kinds, ","), "openrouter") {
		t.Fatalf("advice %+v", adv)
	}
	if strings.Contains(adv.Secrets.String(), fakeKey) {
		t.Error("the advice repeats the secret")
	}
	if _, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, skill.RedactionNone, false); !errors.Is(err, workbench.ErrSecrets) {
		t.Errorf("none without confirmation: %v, want ErrSecrets", err)
	}
	f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, skill.RedactionNone, true)
	if err != nil || !bytes.Contains(f.Data, []byte(fakeKey)) {
		t.Errorf("none, confirmed: %v (the user chose to keep the secret)", err)
	}
	for _, profile := range []string{skill.RedactionTranscriptPII, skill.RedactionFull} {
		f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, profile, false)
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

// taughtTask is the fixture bundle as if taught from goal with the given
// inputs: the manifest crystallized afresh, its name and slug made by the
// workbench, sealed with its proof.
func taughtTask(t *testing.T, v *verify.Verifier, goal string, inputs map[string]any) *skill.Bundle {
	t.Helper()
	_, b := setup(t)
	b.Trace.Goal = goal
	b.Evidence.Scenario.Task.Description = goal
	b.Evidence.Scenario.Inputs = inputs
	var in []crystallize.Input
	for name, val := range inputs {
		in = append(in, crystallize.Input{InputSpec: skill.InputSpec{Name: name, Type: "string", Required: true}, Value: val})
	}
	m, err := crystallize.Draft(crystallize.Request{Trace: &b.Trace, SkillID: b.SkillID, BodyChoice: b.Manifest.BodyChoice, Inputs: in, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	m.Version = b.SkillVersion
	b.Manifest = m
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	b.Evidence.Scenario.Manifest = map[string]any{}
	if err := json.Unmarshal(data, &b.Evidence.Scenario.Manifest); err != nil {
		t.Fatal(err)
	}
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNoKeyInNamesSlugsOrFileNames: a key pasted into a short freeform
// task, or given as an input the task mentions, never reaches the
// manifest's name or slug, the scenario's copy of them, or the export file
// name — whole or as any run of 16 of its characters — in any profile;
// under transcript_pii and full it is nowhere in the file.
func TestNoKeyInNamesSlugsOrFileNames(t *testing.T) {
	v, _ := setup(t)
	d := redact.NewDetector()
	for _, tc := range []struct {
		name   string
		goal   string
		inputs map[string]any
	}{
		{"a key in a short task", "Use token " + fakeKey, nil},
		{"a key given as an input", "Post the note " + fakeKey + " on the form", map[string]any{"note": fakeKey}},
		{"a key glued to a label", "Call it with key=" + fakeKey, nil},
	} {
		b := taughtTask(t, v, tc.goal, tc.inputs)
		known, err := d.Known(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, profile := range []string{skill.RedactionNone, skill.RedactionTranscriptPII, skill.RedactionFull} {
			t.Run(tc.name+"/"+profile, func(t *testing.T) {
				f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, profile, true)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := skill.Decode(f.Data)
				if err != nil {
					t.Fatal(err)
				}
				for what, s := range map[string]any{
					"file name":                       f.Name,
					"manifest.name":                   got.Manifest.Name,
					"manifest.slug":                   got.Manifest.Slug,
					"evidence.scenario.manifest.name": got.Evidence.Scenario.Manifest["name"],
					"evidence.scenario.manifest.slug": got.Evidence.Scenario.Manifest["slug"],
				} {
					str, _ := s.(string)
					if str == "" || len(known.Find(str)) > 0 || strings.Contains(str, "sk-or") {
						t.Errorf("%s %q holds the key or a piece of it", what, str)
					}
				}
				if err := skill.ValidSlug(got.Manifest.Slug); err != nil {
					t.Error(err)
				}
				if profile == skill.RedactionNone {
					return
				}
				if len(known.Find(string(f.Data))) > 0 {
					t.Error("the file holds a piece of the key")
				}
				for _, g := range f.Report.Derived.ProofGates {
					if g.ID == skill.GateRedactionVerify && g.Verdict != skill.VerdictPass {
						t.Errorf("gate.redaction_verify %s: %s", g.Verdict, g.Reason)
					}
				}
			})
		}
	}
}

// TestExportCleansANameCutThroughAKey: a bundle named the way names used
// to be made — cut through a key, so that the detector no longer sees one —
// is exported without the piece: the export knows the key from the goal.
func TestExportCleansANameCutThroughAKey(t *testing.T) {
	v, b := setup(t)
	b.Trace.Goal = "Use token " + fakeKey + " to read the README"
	b.Manifest.Name = "Use token " + fakeKey[:50] + "…"
	b.Manifest.Slug = skill.Slugify(b.Manifest.Name)
	b.Evidence.Scenario.Manifest["name"] = b.Manifest.Name
	b.Evidence.Scenario.Manifest["slug"] = b.Manifest.Slug
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	for _, profile := range []string{skill.RedactionTranscriptPII, skill.RedactionFull} {
		f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, profile, false)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name != "use-token.v2.skill.json" {
			t.Errorf("%s: file name %q", profile, f.Name)
		}
		if bytes.Contains(f.Data, []byte(fakeKey[9:25])) || bytes.Contains(f.Data, []byte(fakeKey[34:50])) {
			t.Errorf("%s: the file holds a piece of the key", profile)
		}
	}
}

// redactedAs is the fixture bundle exported under profile and read back,
// as the library stores an imported redacted file.
func redactedAs(t *testing.T, v *verify.Verifier, b *skill.Bundle, profile string) *skill.Bundle {
	t.Helper()
	f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, profile, true)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := skill.Decode(f.Data)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestAdviseExport: the profile the dialog opens on is never none; a
// bundle already redacted opens on its own profile and offers nothing
// weaker; secrets found name the profiles that remove them, and only
// none needs a confirmation.
func TestAdviseExport(t *testing.T) {
	v, clean := setup(t)
	_, secret := setup(t)
	withSecret(t, v, secret)
	full := redactedAs(t, v, clean, skill.RedactionFull)
	pii := redactedAs(t, v, clean, skill.RedactionTranscriptPII)
	for _, tc := range []struct {
		name        string
		b           *skill.Bundle
		profile     string
		offered     []string
		removedBy   []string
		needConfirm bool // under none
	}{
		{"clean", clean, skill.RedactionTranscriptPII, []string{"none", "transcript_pii", "full"}, nil, false},
		{"secrets", secret, skill.RedactionTranscriptPII, []string{"none", "transcript_pii", "full"}, []string{"transcript_pii", "full"}, true},
		{"stored as transcript_pii", pii, skill.RedactionTranscriptPII, []string{"transcript_pii", "full"}, nil, false},
		{"stored as full", full, skill.RedactionFull, []string{"full"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := workbench.AdviseExport(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if a.Profile != tc.profile {
				t.Errorf("opens on %q, want %q", a.Profile, tc.profile)
			}
			var offered []string
			for _, p := range redact.Profiles() {
				if a.Offered(p) {
					offered = append(offered, p)
				}
			}
			if strings.Join(offered, ",") != strings.Join(tc.offered, ",") {
				t.Errorf("offers %v, want %v", offered, tc.offered)
			}
			if a.Offered("some") {
				t.Error("offers an unknown profile")
			}
			if strings.Join(a.RemovedBy, ",") != strings.Join(tc.removedBy, ",") {
				t.Errorf("removed by %v, want %v", a.RemovedBy, tc.removedBy)
			}
			if a.NeedsConfirm(skill.RedactionNone) != tc.needConfirm || a.NeedsConfirm(skill.RedactionTranscriptPII) {
				t.Errorf("needs confirm under none: %v, want %v", a.NeedsConfirm(skill.RedactionNone), tc.needConfirm)
			}
		})
	}
}

// TestExportRefuses: every refusal says what and why, and is typed.
func TestExportRefuses(t *testing.T) {
	v, b := setup(t)
	full := redactedAs(t, v, b, skill.RedactionFull)
	ctx := context.Background()
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name    string
		wb      *workbench.Flows
		ctx     context.Context
		b       *skill.Bundle
		profile string
		want    string
	}{
		{"no verifier", workbench.New(workbench.Deps{}), ctx, b, skill.RedactionFull, "no verifier"},
		{"unknown profile", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), ctx, b, "partial", `unknown redaction profile "partial"`},
		{"weaker than stored", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), ctx, full, skill.RedactionNone, "weaker than the bundle's own full"},
		{"weaker than stored (pii)", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), ctx, full, skill.RedactionTranscriptPII, "choose full or stricter"},
		{"canceled", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}), canceled, b, skill.RedactionFull, "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flows := tc.wb
			if flows == nil {
				flows = workbench.New(workbench.Deps{})
			}
			f, err := flows.Export(tc.ctx, tc.b, tc.profile, true)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Export = %v, %v; want an error saying %q", f, err, tc.want)
			}
			var pe *workbench.ProfileError
			if strings.Contains(tc.name, "profile") || strings.Contains(tc.name, "weaker") {
				if !errors.As(err, &pe) {
					t.Errorf("%v is not a *ProfileError", err)
				}
			}
		})
	}
	// The stored profile itself, and a stricter one, are still exported.
	if _, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(ctx, full, skill.RedactionFull, false); err != nil {
		t.Errorf("full bundle under full: %v", err)
	}
}
