package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// TestLibraryPagesAndFilter stores 105 skills through /import and checks
// the library page: the newest 100 first with the count of all, "Show
// more" for the rest, a filter that searches every stored skill (also
// those not shown) by name and description in any case, and the
// re-derived verdicts written into the table in place, without replacing
// it (so a focused row keeps its focus).
func TestLibraryPagesAndFilter(t *testing.T) {
	t.Parallel()
	const count = 105
	v := appVerifier(t)
	s := newSession(t, withTimeout(15*time.Minute))
	dir := t.TempDir()
	paths := make([]string, count)
	for i := range paths {
		name, description := fmt.Sprintf("Library skill %03d", i), ""
		switch i {
		case 2, 27, 87:
			description = fmt.Sprintf("Finds the cheapest flight (%d)", i)
		case 50:
			name = "Book a FLIGHT"
		}
		paths[i] = filepath.Join(dir, fmt.Sprintf("s%03d.skill.json", i))
		writeNamedBundle(t, v, paths[i], name, description)
	}
	s.open("/import")
	s.upload("#import-files", paths...)
	s.do(chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll("#import-results > li.import-accepted").length === %d`, count),
		chromedp.WithPollingTimeout(10*time.Minute)))

	s.click(`nav a[href="/skills"]`)
	s.waitText("#skills-count", "105 of 105 skills (newest 100 shown)")
	// The table as first shown: the verdicts arriving later must not
	// replace it.
	eval[bool](s, `window.__table = document.getElementById("skills-table"), true`)
	names := s.textsOf("#skills-table .skill-name")
	if len(names) != 100 || names[0] != "Library skill 104" || names[99] != "Library skill 005" {
		t.Fatalf("first page: %d rows from %q to %q, want 100 from the newest (104) to 005", len(names), first(names), last(names))
	}
	if got := s.text("#skills-more"); got != "Show 5 more" {
		t.Errorf("more button reads %q, want %q", got, "Show 5 more")
	}

	// Every row shown is re-verified, and its cell updated in place.
	s.do(chromedp.Poll[chromedp.Void](`[...document.querySelectorAll("#skills-table .skill-verified")].every((c) => c.querySelector(".verdict") && !c.textContent.includes("verifying"))`,
		chromedp.WithPollingTimeout(10*time.Minute)))
	verified, claimed := s.textsOf("#skills-table .skill-verified"), s.textsOf("#skills-table .skill-claimed")
	if !slices.Equal(verified, claimed) {
		t.Errorf("re-verified verdicts %q differ from the claimed %q", verified, claimed)
	}
	if !eval[bool](s, `document.getElementById("skills-table") === window.__table`) {
		t.Errorf("the table was replaced when the verdicts arrived")
	}

	s.click("#skills-more")
	s.waitText("#skills-count", "105 of 105 skills")
	s.waitJS(`document.querySelectorAll("#skills-table .skill-row").length === 105 && !document.getElementById("skills-more")`)
	if got := s.text("#skills-count"); got != "105 of 105 skills" {
		t.Errorf("count after Show more: %q", got)
	}

	// The filter searches every stored skill: name or description, any
	// case, newest first.
	s.setValue("#skills-filter", "Flight", "input")
	s.waitText("#skills-count", "4 of 105 skills")
	want := []string{"Library skill 087", "Book a FLIGHT", "Library skill 027", "Library skill 002"}
	s.waitJS(fmt.Sprintf(`document.querySelectorAll("#skills-table .skill-name").length === %d`, len(want)))
	if got := s.textsOf("#skills-table .skill-name"); !slices.Equal(got, want) {
		t.Errorf("filtered rows %q, want %q", got, want)
	}
	// Verdicts already derived are shown at once.
	if got := s.textsOf("#skills-table .skill-verified"); slices.Contains(got, "verifying…") {
		t.Errorf("a filtered row verifies again: %q", got)
	}

	s.setValue("#skills-filter", "no such skill", "input")
	s.waitText("#skills-count", "0 of 105 skills")
	s.waitJS(`document.querySelectorAll("#skills-table .skill-row").length === 0`)

	s.setValue("#skills-filter", "", "input")
	s.waitText("#skills-count", "105 of 105 skills (newest 100 shown)")
	s.waitJS(`document.querySelectorAll("#skills-table .skill-row").length === 100`)
}

// writeNamedBundle writes a new skill (its own id) made from the valid
// fixture, with the given name and, unless empty, description, sealed with
// its proof.
func writeNamedBundle(t *testing.T, v *verify.Verifier, path, name, description string) {
	t.Helper()
	b := decodeFile(t, fixturePath("valid-skill-bundle.v0.json"))
	id := skill.NewID()
	b.SkillID, b.Manifest.SkillID, b.BundleID = id, id, skill.NewID()
	b.Manifest.Name = name
	if description != "" {
		b.Manifest.Description = description
	}
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f.Data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

func last(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[len(xs)-1]
}
