package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"workbench/pkg/skill"
)

// The palette reopened after an Export form starts a fresh search: the
// old query is selected, so typing replaces it; a query the Export form
// does not match closes it; Enter opens Verify, the entry shown active,
// and Invoke runs Verify. On /skills, where no skill is on screen,
// the skill id field lists the library's skills by name and shows no
// error before anything is chosen.
func TestPaletteReopenedRunsWhatIsChosen(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.dumpPaletteOnFailure()
	id := s.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	name := decodeFile(t, fixturePath("valid-skill-bundle.v0.json")).Manifest.Name
	s.open("/skills")
	s.openPalette(chromedp.ModifierCtrl)
	s.pickCapability("export", "workbench:export")
	s.waitPresent(field("/skill_id"))
	if tag := eval[string](s, `document.querySelector(`+jsQuote(field("/skill_id"))+`).tagName`); tag != "SELECT" {
		t.Errorf("the skill id field is a %s, not a list to choose from", tag)
	}
	labels := eval[[]string](s, `[...document.querySelectorAll(`+jsQuote(field("/skill_id")+" option")+`)].map((o) => o.textContent)`)
	if !strings.Contains(strings.Join(labels, "|"), name) {
		t.Errorf("the skill id field offers %q, not the library's skill %q by name", labels, name)
	}
	s.waitPresent("#pal-preview")
	if n := s.countOf("#pal-form .sf-error"); n != 0 {
		t.Errorf("%d errors shown before anything was typed: %q", n, s.text("#pal-form .sf-error"))
	}

	s.closePalette()
	s.openPalette(chromedp.ModifierCtrl)
	if !eval[bool](s, `(() => { const e = document.querySelector("#pal-search"); return e.value === "export" && e.selectionStart === 0 && e.selectionEnd === e.value.length; })()`) {
		t.Errorf("the old query is not selected: %q, selection %d–%d", eval[string](s, `document.querySelector("#pal-search").value`),
			eval[int](s, `document.querySelector("#pal-search").selectionStart`), eval[int](s, `document.querySelector("#pal-search").selectionEnd`))
	}
	if !eval[bool](s, `(() => { const r = document.querySelector("#pal-search").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`) {
		t.Error("the search box is not in view")
	}
	// Typing replaces the old query; a query Export does not match closes
	// its form.
	s.do(chromedp.KeyEvent("sync"))
	s.waitJS(`document.querySelector("#pal-search").value === "sync"`)
	s.waitJS(`!document.querySelector("#pal-desc-id")`)
	// "verify" matches Export too (its description), and Verify first:
	// Enter opens Verify, the entry shown active.
	s.setValue("#pal-search", "", "input")
	s.do(chromedp.KeyEvent("verify"))
	s.waitJS(`document.querySelector("#pal-search").value === "verify" && document.querySelector("#pal-opt-0").dataset.cap === "workbench:verify"`)
	s.do(chromedp.KeyEvent(kb.Enter))
	s.waitJS(`(document.querySelector("#pal-desc-id") || {}).textContent === "workbench:verify"`)
	s.editForm(func() { s.setValue(field("/skill_id"), id, "change") })
	s.waitText("#pal-pv-decision", "allow")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "started")
	s.waitPresent(`#pal-timeline [data-type="run_completed"]`)
	if got := s.text(`#pal-timeline [data-type="tool_call"]`); !strings.Contains(got, "workbench:verify") || strings.Contains(got, "workbench:export") {
		t.Errorf("the run called %q, not Verify", got)
	}
	s.waitPresent(`#pal-timeline [data-type="tool_result"] .pal-evidence`)
}

// Export through the palette is the skill page's download: the run
// names its file, the file arrives, and it verifies.
func TestPaletteExportDownloadsAFileThatVerifies(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.dumpPaletteOnFailure()
	dir := s.allowDownloads()
	id := s.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	s.openSkill(id)
	s.openPalette(chromedp.ModifierCtrl)
	s.pickCapability("export", "workbench:export")
	s.waitJS(`(document.querySelector(` + jsQuote(field("/skill_id")) + `) || {}).value === ` + jsQuote(id))
	s.waitText("#pal-pv-decision", "allow")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "started")
	s.waitText(".pal-run-file", "Downloaded")
	file := s.text(".pal-run-file .pal-run-file-name")
	b := decodeFile(t, fixturePath("valid-skill-bundle.v0.json"))
	if want := skill.ExportFilename(b.Manifest.Slug, b.SkillVersion); file != want {
		t.Errorf("file %q, want %q", file, want)
	}
	data := waitFile(t, dir, file)
	var head struct {
		SkillID  string `json:"skill_id"`
		Evidence struct {
			RedactionProfile string `json:"redaction_profile"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.SkillID != id || head.Evidence.RedactionProfile != skill.RedactionTranscriptPII {
		t.Errorf("the file: skill %q, profile %q (%v)", head.SkillID, head.Evidence.RedactionProfile, err)
	}
	if code, out := workbenchVerify(t, filepath.Join(dir, file)); code != 0 {
		t.Errorf("the exported file does not verify (exit %d):\n%s", code, out)
	}
	if s.countOf(".pal-run-file-error") != 0 {
		t.Errorf("the run view reports %q", s.text(".pal-run-file-error"))
	}
}
