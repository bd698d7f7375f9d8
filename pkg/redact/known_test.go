package redact

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"workbench/pkg/skill"
)

func TestKnownFind(t *testing.T) {
	d := NewDetector()
	doc := map[string]any{
		"goal":  "Use token " + fakeOpenRouter + " and the hook " + fakeSlackHook,
		"jwt":   fakeJWT,
		"pem":   fakePEM,
		"notes": map[string]any{"password": "correct horse battery staple"},
		"short": "password: hunter2",
	}
	k, err := d.Known(doc)
	if err != nil {
		t.Fatal(err)
	}
	if k.Len() != 5 {
		t.Errorf("Len = %d, want 5 (the short password has no run of %d)", k.Len(), MinFragment)
	}
	cut := fakeOpenRouter[:40]
	sigStart := strings.LastIndexByte(fakeJWT, '.') + 1
	tests := []struct {
		name string
		s    string
		want []Match
	}{
		{"a name cut through the key", "Use token " + cut + "…", []Match{{KindOpenRouterKey, 10, 50}}},
		{"the key's tail", "x-" + fakeOpenRouter[50:], []Match{{KindOpenRouterKey, 2, 2 + len(fakeOpenRouter) - 50}}},
		{"the whole key", fakeOpenRouter, []Match{{KindOpenRouterKey, 0, len(fakeOpenRouter)}}},
		{"sixteen characters", "a " + fakeOpenRouter[20:36] + " b", []Match{{KindOpenRouterKey, 2, 18}}},
		{"fifteen characters", "a " + fakeOpenRouter[20:35] + " b", nil},
		{"the JWT's signature", fakeJWT[sigStart:], []Match{{KindJWT, 0, len(fakeJWT) - sigStart}}},
		{"a long password", "it was correct horse battery", []Match{{KindPassword, 7, 28}}},
		{"the JWT's header alone", "token " + fakeJWT[:strings.IndexByte(fakeJWT, '.')+1], nil},
		{"a private key's armour alone", "-----BEGIN RSA PRIVATE KEY-----", nil},
		{"a Slack webhook's fixed part", "see https://hooks.slack.com/services/ for details", nil},
		{"nothing", strings.Repeat("0123456789abcdeX", 8), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := k.Find(tt.s); !slices.Equal(got, tt.want) {
				t.Errorf("Find(%q) = %+v, want %+v", tt.s, got, tt.want)
			}
		})
	}
	var none *Known
	if got := none.Find(fakeOpenRouter); got != nil {
		t.Errorf("a nil Known found %v", got)
	}
}

// cutKeyBundle is newBundle with the name, slug and scenario slug made the
// way a name used to be made from a long task holding a key: cut through
// the key, so that the detector sees no key in them.
func cutKeyBundle(t *testing.T) *skill.Bundle {
	t.Helper()
	b := newBundle(t, 3)
	b.Trace.Goal = "Use token " + fakeOpenRouter + " to read the forecast"
	b.Manifest.Name = "Use token " + fakeOpenRouter[:50] + "…"
	b.Manifest.Slug = skill.Slugify(b.Manifest.Name)
	b.Evidence.Scenario.Manifest["slug"] = b.Manifest.Slug
	b.Evidence.Scenario.Manifest["name"] = b.Manifest.Name
	if d := NewDetector(); d.ContainsSecret(b.Manifest.Name) || d.ContainsSecret(b.Manifest.Slug) {
		t.Fatal("the cut name still looks like a key: the test no longer shows what it is for")
	}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestApplyRemovesRunsOfKnownSecrets(t *testing.T) {
	for _, profile := range []string{skill.RedactionTranscriptPII, skill.RedactionFull} {
		t.Run(profile, func(t *testing.T) {
			b := cutKeyBundle(t)
			res, err := Apply(b, profile)
			if err != nil {
				t.Fatal(err)
			}
			tree := exported(t, b, res)
			if data := encode(t, b); bytes.Contains(data, []byte(fakeOpenRouter[9:25])) {
				t.Error("the export still holds a run of the key")
			}
			if b.Manifest.Slug != "use-token" {
				t.Errorf("slug %q, want use-token", b.Manifest.Slug)
			}
			if got, _ := resolve(tree, "/evidence/scenario/manifest/slug"); got != "use-token" {
				t.Errorf("scenario slug %v, want use-token", got)
			}
			if want := "Use token [redacted:openrouter_key]…"; b.Manifest.Name != want {
				t.Errorf("name %q, want %q", b.Manifest.Name, want)
			}
			if !slices.Contains(res.FieldsStripped, "/manifest/name") || slices.Contains(res.FieldsStripped, "/manifest/slug") {
				t.Errorf("fields_stripped %q: want the name listed, not the rebuilt slug", res.FieldsStripped)
			}
		})
	}
}

func TestApplyKeepsASlugValid(t *testing.T) {
	for _, tt := range []struct{ slug, want string }{
		{"key-" + fakeOpenRouter, "key"},
		{fakeOpenRouter, "skill"},
		{"mail-jane-example-com", "mail-jane-example-com"},
	} {
		b := newBundle(t, 3)
		b.Manifest.Slug = tt.slug
		if err := b.Seal(); err != nil {
			t.Fatal(err)
		}
		res, err := Apply(b, skill.RedactionTranscriptPII)
		if err != nil {
			t.Fatal(err)
		}
		exported(t, b, res)
		if b.Manifest.Slug != tt.want {
			t.Errorf("slug %q redacted to %q, want %q", tt.slug, b.Manifest.Slug, tt.want)
		}
	}
}

func TestCheckKnownFindsFragments(t *testing.T) {
	d := NewDetector()
	orig := cutKeyBundle(t)
	known, err := d.Known(orig)
	if err != nil {
		t.Fatal(err)
	}
	b := clone(t, orig)
	if _, err := d.Apply(b, skill.RedactionTranscriptPII); err != nil {
		t.Fatal(err)
	}
	if ps := d.CheckKnown(b, known); len(ps) != 0 {
		t.Fatalf("Apply's output: %v", ps)
	}
	// A producer that masks only what the detector sees leaves the cut
	// name as it was: Check alone cannot tell, CheckKnown can.
	b.Manifest.Name = orig.Manifest.Name
	if ps := d.Check(b); len(ps) != 0 {
		t.Errorf("Check without the known secrets: %v", ps)
	}
	ps := d.CheckKnown(b, known)
	if len(ps) != 1 || ps[0].Pointer != "/manifest/name" || ps[0].Kind != ProblemFragment || ps[0].Secret != KindOpenRouterKey {
		t.Fatalf("CheckKnown = %v, want one fragment at /manifest/name", ps)
	}
	if strings.Contains(ps[0].String(), fakeOpenRouter[9:25]) {
		t.Error("the problem quotes the key")
	}

	file := skill.ExportFilename(orig.Manifest.Slug, 1)
	got := d.CheckText("file name", file, skill.RedactionTranscriptPII, known)
	if len(got) != 1 || got[0].Kind != ProblemFragment || got[0].Place != "file name" || !strings.HasPrefix(got[0].String(), "file name: it holds ") {
		t.Errorf("CheckText(%q) = %v", file, got)
	}
	if got := d.CheckText("file name", "jane@example.com.v1.skill.json", skill.RedactionFull, nil); len(got) != 1 || got[0].Kind != ProblemPII {
		t.Errorf("an e-mail in the file name: %v", got)
	}
	if got := d.CheckText("file name", file, skill.RedactionNone, known); len(got) != 0 {
		t.Errorf("under none: %v", got)
	}
	if got := d.CheckText("file name", "use-token.v1.skill.json", skill.RedactionFull, known); len(got) != 0 {
		t.Errorf("a clean name: %v", got)
	}
}

// FuzzKnownFind holds Find to a plain search: a byte is covered exactly
// when some MinFragment-byte window around it is a window of a known
// secret, and matches are the maximal covered runs.
func FuzzKnownFind(f *testing.F) {
	secrets := []string{fakeOpenRouter, fakeGitHub, fakeAWSSecret}
	k, err := NewDetector().Known(map[string]any{"a": fakeOpenRouter, "b": fakeGitHub, "aws_secret_access_key": fakeAWSSecret})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("x", 0, 0, 20, "y")
	f.Add("Use token ", 0, 0, 40, "…")
	f.Add("", 1, 4, 19, "")
	f.Add("ab", 2, 3, 30, fakeOpenRouter[10:40])
	f.Fuzz(func(t *testing.T, before string, which, from, n int, after string) {
		sec := secrets[(which%len(secrets)+len(secrets))%len(secrets)]
		from = (from%len(sec) + len(sec)) % len(sec)
		end := min(len(sec), from+(n%64+64)%64)
		s := before + sec[from:end] + after
		covered := make([]bool, len(s))
		for i := 0; i+MinFragment <= len(s); i++ {
			for _, x := range secrets {
				if strings.Contains(x, s[i:i+MinFragment]) {
					for j := i; j < i+MinFragment; j++ {
						covered[j] = true
					}
				}
			}
		}
		var want []Match
		for i := 0; i < len(s); i++ {
			if !covered[i] {
				continue
			}
			j := i
			for j < len(s) && covered[j] {
				j++
			}
			want = append(want, Match{Start: i, End: j})
			i = j
		}
		got := k.Find(s)
		if len(got) != len(want) {
			t.Fatalf("Find(%q) = %v, want %v", s, got, want)
		}
		for i := range got {
			if got[i].Start != want[i].Start || got[i].End != want[i].End {
				t.Fatalf("Find(%q) = %v, want %v", s, got, want)
			}
		}
	})
}
