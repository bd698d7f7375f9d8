package assemble_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

func TestRevise(t *testing.T) {
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
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	nb, err := assemble.Revise(v, b, assemble.Edit{Name: "Read the heading", Slug: "read-the-heading", Description: "Reads a page heading."}, now, skill.NewID)
	if err != nil {
		t.Fatal(err)
	}
	if nb.SkillVersion != b.SkillVersion+1 || nb.Manifest.Version != nb.SkillVersion || nb.SkillID != b.SkillID {
		t.Errorf("version %d (manifest %d), skill %s; want version %d of skill %s", nb.SkillVersion, nb.Manifest.Version, nb.SkillID, b.SkillVersion+1, b.SkillID)
	}
	if nb.Manifest.Name != "Read the heading" || nb.Manifest.Slug != "read-the-heading" || nb.Manifest.Description != "Reads a page heading." {
		t.Errorf("manifest %q %q %q", nb.Manifest.Name, nb.Manifest.Slug, nb.Manifest.Description)
	}
	if nb.ContentHash == b.ContentHash || nb.BundleID == b.BundleID {
		t.Error("the new version shares the old one's hash or id")
	}
	out, err := nb.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Bytes(out); err != nil {
		t.Errorf("the revised bundle does not verify: %v", err)
	}
	if again, _ := b.Hash(); again != b.ContentHash {
		t.Error("Revise changed the original bundle")
	}
	for _, tc := range []struct {
		e    assemble.Edit
		want string
	}{
		{assemble.Edit{Name: "", Slug: "a", Description: "d"}, "name is empty"},
		{assemble.Edit{Name: "n", Slug: "a", Description: ""}, "description is empty"},
		{assemble.Edit{Name: "n", Slug: "Not A Slug", Description: "d"}, `slug "Not A Slug"`},
	} {
		if _, err := assemble.Revise(v, b, tc.e, now, skill.NewID); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.e, err, tc.want)
		}
	}
}
