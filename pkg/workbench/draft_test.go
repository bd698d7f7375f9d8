package workbench_test

import (
	"context"
	"strings"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/workbench"
)

// CheckDraft is the check a front-end runs on every keystroke of the
// teach page's draft and the skill page's Manifest tab: each problem
// under the member the user edits, with the verifier's own schemas.
func TestCheckDraft(t *testing.T) {
	base := taught(t).Manifest
	key := "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4) // the shape of an OpenRouter key; not one
	w := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(verifier(t))})
	for _, tc := range []struct {
		name   string
		edit   func(*skill.Manifest)
		member string
		msg    string
	}{
		{"as stored", func(*skill.Manifest) {}, "", ""},
		{"edited and still valid", func(m *skill.Manifest) { m.Name, m.Slug = "Read the changelog", "read-the-changelog" }, "", ""},
		{"empty name", func(m *skill.Manifest) { m.Name = "" }, "name", "must not be empty"},
		{"slug with spaces", func(m *skill.Manifest) { m.Slug = "Bad Slug" }, "slug", "pattern"},
		{"one-character slug", func(m *skill.Manifest) { m.Slug = "a" }, "slug", "2 to 80 characters"},
		{"empty description", func(m *skill.Manifest) { m.Description = "" }, "description", "must not be empty"},
		{"name holding a key", func(m *skill.Manifest) { m.Name = "Use " + key }, "name", "openrouter_key"},
		{"slug holding an e-mail address", func(m *skill.Manifest) { m.Slug = "mail-jane@example.com" }, "slug", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := base
			tc.edit(&m)
			got, err := w.CheckDraft(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if tc.member == "" {
				if !got.Valid() {
					t.Fatalf("a valid manifest has problems: %v", got)
				}
				return
			}
			if len(got[tc.member]) == 0 || !strings.Contains(strings.Join(got[tc.member], "; "), tc.msg) {
				t.Errorf("problems %v, want one under %q containing %q", got, tc.member, tc.msg)
			}
			for member := range got {
				if member != tc.member {
					t.Errorf("a problem under %q as well: %v", member, got[member])
				}
			}
		})
	}
	if _, err := workbench.New(workbench.Deps{}).CheckDraft(context.Background(), base); err == nil || !strings.Contains(err.Error(), "no verifier") {
		t.Errorf("checked with no verifier: %v", err)
	}
}

// A draft's slug follows its name until the person edits the slug.
func TestRename(t *testing.T) {
	m := skill.Manifest{Name: "Read the heading", Slug: "read-the-heading"}
	got := workbench.Rename(m, "Read the docs heading", false)
	if got.Name != "Read the docs heading" || got.Slug != "read-the-docs-heading" {
		t.Errorf("following: %q, %q", got.Name, got.Slug)
	}
	got = workbench.Rename(skill.Manifest{Name: "x", Slug: "my-own"}, "Read the docs heading", true)
	if got.Slug != "my-own" {
		t.Errorf("an edited slug changed with the name: %q", got.Slug)
	}
	if m.Name != "Read the heading" {
		t.Error("Rename changed the manifest it was given")
	}
}
