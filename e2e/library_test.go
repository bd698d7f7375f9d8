package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
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

	librarySortAndDelete(t, s)
	libraryCollisionsAndHistory(t, s, v)
}

// librarySortAndDelete sorts the library of TestLibraryPagesAndFilter by
// name, deletes one skill from its row (Cancel keeps it, Delete removes
// it), and reloads: the order is kept in the URL.
func librarySortAndDelete(t *testing.T, s *session) {
	s.setValue("#skills-sort", "name", "change")
	s.waitJS(`location.search === "?sort=name"`)
	s.waitText("#skills-count", "105 of 105 skills (first 100 shown)")
	s.waitJS(`document.querySelector("#skills-table .skill-name").textContent === "Book a FLIGHT"`)
	names := s.textsOf("#skills-table .skill-name")
	if len(names) != 100 || names[1] != "Library skill 000" || names[99] != "Library skill 099" {
		t.Errorf("by name: %d rows, %q … %q; want Book a FLIGHT, Library skill 000 … 099 (050 is the FLIGHT)", len(names), first(names), last(names))
	}

	// Delete asks first; Cancel deletes nothing.
	row := `#skills-table .skill-row:first-child .skill-delete`
	s.click(row)
	s.waitJS(`document.getElementById("delete-dialog").open`)
	if got := s.text("#delete-dialog-name"); got != "Book a FLIGHT" {
		t.Errorf("the dialog names %q", got)
	}
	s.click("#delete-cancel")
	s.waitJS(`!document.getElementById("delete-dialog").open`)
	if got := s.text("#skills-count"); got != "105 of 105 skills (first 100 shown)" {
		t.Errorf("after Cancel: %q", got)
	}
	s.click(row)
	s.waitJS(`document.getElementById("delete-dialog").open`)
	s.click("#delete-confirm")
	s.waitText("#delete-done", "Deleted Book a FLIGHT")
	s.waitText("#skills-count", "104 of 104 skills (first 100 shown)")
	s.waitJS(`document.querySelector("#skills-table .skill-name").textContent === "Library skill 000" && !document.getElementById("delete-dialog").open`)

	// A reload lists the same way: the order is in the URL. (Last: the
	// reload re-verifies the rows shown, which holds up later listings.)
	s.load("/skills?sort=name")
	s.waitText("#skills-count", "104 of 104 skills (first 100 shown)")
	s.waitJS(`document.querySelector("#skills-table .skill-name").textContent === "Library skill 000"`)
	if got := eval[string](s, `document.getElementById("skills-sort").value`); got != "name" {
		t.Errorf("after a reload the sort control reads %q, want name", got)
	}
}

// libraryCollisionsAndHistory imports one version exported under `full`,
// then under `none`: the second file is not silently dropped but offers
// Replace (suggested, it keeps more) or Keep both. Replace, then the
// `full` file again and Keep both (the next version), make two versions,
// which the History tab diffs; the skill is then deleted from its own page.
func libraryCollisionsAndHistory(t *testing.T, s *session, v *verify.Verifier) {
	b := decodeFile(t, fixturePath("valid-skill-bundle.v0.json"))
	id := skill.NewID()
	b.SkillID, b.Manifest.SkillID, b.BundleID = id, id, skill.NewID()
	b.Manifest.Name = "Profiles of one version"
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{}
	for _, p := range []string{skill.RedactionFull, skill.RedactionNone} {
		f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, p, true)
		if err != nil {
			t.Fatalf("export %s: %v", p, err)
		}
		files[p] = filepath.Join(dir, p+".skill.json")
		if err := os.WriteFile(files[p], f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	s.open("/import")
	s.upload("#import-files", files[skill.RedactionFull])
	s.waitText("#import-summary", "1 accepted, 0 rejected, 0 already stored")
	s.upload("#import-files", files[skill.RedactionNone])
	s.waitText("#import-summary", "1 accepted, 0 rejected, 0 already stored, 1 waiting for a choice")
	col := `#import-results > li.import-collision`
	if got := eval[string](s, `document.querySelector(`+jsQuote(col)+`).dataset.suggested`); got != "replace" {
		t.Errorf("suggested %q for a none copy of a stored full one, want replace", got)
	}
	diffs := strings.Join(s.textsOf(col+" .collision-difference"), "\n")
	if !strings.Contains(diffs, "the stored copy is full, this file is none") {
		t.Errorf("the differences do not name the profiles: %q", diffs)
	}
	s.click(col + " .import-replace")
	s.waitText("#import-summary", "2 accepted, 0 rejected, 0 already stored")
	s.waitText("#import-results > li:nth-child(2) .import-status", "accepted, in place of the stored copy")

	// The full copy again: now it strips more than the stored one.
	s.upload("#import-files", files[skill.RedactionFull])
	s.waitText("#import-summary", "2 accepted, 0 rejected, 0 already stored, 1 waiting for a choice")
	if got := eval[string](s, `document.querySelector(`+jsQuote(col)+`).dataset.suggested`); got != "keep_both" {
		t.Errorf("suggested %q for a full copy of a stored none one, want keep_both", got)
	}
	s.click(col + " .import-keep-both")
	s.waitText("#import-summary", "3 accepted, 0 rejected, 0 already stored")
	next := b.SkillVersion + 1
	s.waitText("#import-results > li:nth-child(3) .import-status", fmt.Sprintf("accepted as version %d; the stored copy is kept", next))
	// The hash shown is the stored version's: sealed anew, not the file's.
	stored := s.text("#import-results > li:nth-child(3) .import-stored-hash")
	held := false
	for _, b := range s.library().Bundles {
		held = held || b.ContentHash == stored
	}
	if !held || stored == decodeFile(t, files[skill.RedactionFull]).ContentHash {
		t.Errorf("the import shows content hash %q, not version %d's as stored", stored, next)
	}

	// The History tab diffs the two versions: manifest members and the
	// re-derived gates.
	s.open("/skills/" + id)
	s.waitText("#skill-version", strconv.Itoa(next))
	s.click("#tab-history")
	s.waitVisible("#history-diff")
	if got, want := s.text("#diff-summary"), fmt.Sprintf("v%d → v%d: ", b.SkillVersion, next); !strings.HasPrefix(got, want) {
		t.Errorf("diff summary %q", got)
	}
	fields := eval[[]string](s, `[...document.querySelectorAll("#diff-fields tr.diff-field")].map((r) => r.dataset.field)`)
	for _, want := range []string{"version", "updated_at"} {
		if !slices.Contains(fields, want) {
			t.Errorf("diff fields %q lack %s", fields, want)
		}
	}
	gates := eval[[]string](s, `[...document.querySelectorAll("#diff-gates tr.diff-gate")].map((r) => r.dataset.gate)`)
	if len(gates) != 7 || gates[0] != "overall" || !slices.Contains(gates, skill.GateRedactionVerify) {
		t.Errorf("diff gates %q, want overall and the six gates", gates)
	}
	// Comparing a version with itself shows no difference.
	s.setValue("#history-from", strconv.Itoa(next), "change")
	s.waitText("#diff-summary", fmt.Sprintf("v%d → v%d: 0 manifest members and 0 gates changed.", next, next))
	if !eval[bool](s, `!!document.getElementById("diff-fields-same")`) {
		t.Error("a version compared with itself shows differing fields")
	}

	// Delete from the skill page: it asks, then the library says so.
	s.click("#skill-delete")
	s.waitJS(`document.getElementById("delete-dialog").open`)
	s.click("#delete-confirm")
	s.waitText("#delete-done", "Deleted Profiles of one version")
	s.waitJS(`location.pathname === "/skills" && location.search === ""`)
	s.open("/skills/" + id)
	s.waitVisible("#skill-missing")
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
