package e2e

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"workbench/pkg/store"
)

func fixturePath(name string) string { return filepath.Join(setup.root, "fixtures", name) }

// Import through the file picker: a valid bundle is accepted and listed
// in /skills; the same bundle again is reported as already stored, not
// duplicated; an invalid one is rejected with its JSON pointer.
func TestImportPickerAcceptsDuplicateRejects(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/import")
	s.upload("#import-files", fixturePath("valid-skill-bundle.v0.json"), fixturePath("invalid-missing-content-hash.v0.json"))
	s.waitVisible("#import-results li:nth-child(2)")
	results := eval[[]string](s, `[...document.querySelectorAll("#import-results > li")].map((li) => li.textContent)`)
	if len(results) != 2 {
		t.Fatalf("%d results: %q", len(results), results)
	}
	if !strings.Contains(results[0], "valid-skill-bundle.v0.json — accepted") {
		t.Errorf("first result %q", results[0])
	}
	if !strings.Contains(results[1], "invalid-missing-content-hash.v0.json — rejected") || !strings.Contains(results[1], "content_hash") {
		t.Errorf("second result %q", results[1])
	}
	verdict := s.text("#import-results > li:first-child .verdict")
	if verdict == "" {
		t.Error("no re-verified verdict shown")
	}

	s.upload("#import-files", fixturePath("valid-skill-bundle.v0.json"))
	s.waitVisible("#import-results li:nth-child(3)")
	if got := s.text("#import-results > li:nth-child(3) .import-status"); got != "already in the library" {
		t.Errorf("re-import status %q", got)
	}

	// A bundle in the other implementation's shape is read only: what it
	// claims beside what its contents support, and not stored (the count
	// in /skills below stays one).
	s.upload("#import-files", filepath.Join(setup.root, "pkg", "verify", "testdata", "foreign", "taught.json"))
	s.waitVisible("#import-results li:nth-child(4)")
	foreign := "#import-results > li:nth-child(4)"
	if got := s.text(foreign + " .import-status"); got != "read only, not stored" {
		t.Errorf("foreign status %q", got)
	}
	if got := s.text(foreign + " .import-headline"); !strings.Contains(got, "the other implementation's shape") || !strings.Contains(got, "it claims PASS; under spec v0.1 its contents give FAIL") {
		t.Errorf("foreign headline %q", got)
	}
	if n := eval[int](s, `document.querySelectorAll("#import-results > li:nth-child(4) .foreign-gates tbody tr").length`); n != 7 {
		t.Errorf("%d rows in the gate table, want six gates and the overall verdict", n)
	}
	row := func(gate, cell string) string {
		return s.text(foreign + ` tr[data-gate="` + gate + `"] .` + cell)
	}
	if c, f := row("gate.replay_fidelity", "foreign-claimed"), row("gate.replay_fidelity", "foreign-found"); c != "pass (exact)" || f != "inconclusive" {
		t.Errorf("replay row: claimed %q, found %q", c, f)
	}
	if why := row("gate.trace_completeness", "foreign-why"); !strings.Contains(why, "state_before") {
		t.Errorf("trace completeness why %q", why)
	}
	if got := s.text(foreign + " .overclaims"); !strings.Contains(got, "overall_verdict: claimed pass, evidence gives fail") {
		t.Errorf("overclaims %q", got)
	}

	s.open("/skills")
	s.waitVisible("#skills-table")
	if n := eval[int](s, `document.querySelectorAll("#skills-table tbody tr").length`); n != 1 {
		t.Errorf("%d skills listed, want 1", n)
	}
	s.waitText("#skills-table .skill-verified", verdict)

	// The replays the bundle carries came with it: counted, the newest
	// summarised, as where it was replayed.
	fixture := decodeFile(t, fixturePath("valid-skill-bundle.v0.json"))
	carried := fixture.ReplayRecords()
	if len(carried) == 0 {
		t.Fatal("the fixture carries no replay")
	}
	newest := carried[0].Report
	for _, r := range carried {
		if r.Report.ReplayID > newest.ReplayID {
			newest = r.Report
		}
	}
	if got, want := s.text("#skills-table .skill-replays"), strconv.Itoa(len(carried)); got != want {
		t.Errorf("replays column %q, want %q (the replays the bundle carries)", got, want)
	}
	wantFidelity := strconv.FormatFloat(newest.Fidelity, 'f', 2, 64) + " · " + newest.FidelityLevel + " · " + newest.Status
	if got := s.text("#skills-table .skill-fidelity"); got != wantFidelity {
		t.Errorf("last fidelity column %q, want %q", got, wantFidelity)
	}

	// Its deep links load directly (the host's single-page fallback).
	name := s.text("#skills-table .skill-name")
	href := eval[string](s, `document.querySelector("#skills-table .skill-name").getAttribute("href")`)
	s.open(href)
	if got := s.waitText("main h1", name); got != name {
		t.Errorf("%s: h1 %q, want %q", href, got, name)
	}
	if got := s.waitText("#skill-replays", strconv.Itoa(len(carried))); got != strconv.Itoa(len(carried)) {
		t.Errorf("skill page counts %q replays, want %d", got, len(carried))
	}
	s.open(href + "/replay")
	s.waitText("main h1", name)
}

// A dropped file reaches the same flow as a picked one, and is imported
// by the import worker: the page runs it, from the loader the CSP allows.
// A visit that begins at /import has the site's loader start the worker
// before the app runs, and the app adopts it: one worker, not two.
func TestImportByDrop(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.load("/import")
	s.drop("#dropzone", fixturePath("valid-skill-bundle.v0.json"))
	s.waitVisible("#import-results > li")
	if got := s.text("#import-results > li .import-status"); got != "accepted" {
		t.Errorf("status %q", got)
	}
	if got := importWorkers(t, s); len(got) != 1 || !strings.HasPrefix(got[0], "/web/importer.js?v=") {
		t.Errorf("the page's workers: %q, want the import worker's loader at its version", got)
	}
}

// importWorkers are the paths (with the query) of the workers the
// session's page runs.
func importWorkers(t *testing.T, s *session) []string {
	t.Helper()
	var paths []string
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		own, err := cdp.Call(ctx, tt, target.GetTargetInfo, target.GetTargetInfoParams{})
		if err != nil {
			return err
		}
		res, err := cdp.Call(ctx, tt, target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			return err
		}
		for _, info := range res.TargetInfos {
			if info.Type != "worker" || info.BrowserContextID != own.TargetInfo.BrowserContextID {
				continue
			}
			u, err := url.Parse(info.URL)
			if err != nil {
				return err
			}
			paths = append(paths, u.RequestURI())
		}
		return nil
	}))
	return paths
}

// An import worker that cannot load its module fails the import where it
// happens, with the loader's reason, and writes nothing; once the module
// can be loaded, the next file starts the worker again and is imported.
func TestImportWorkerUnavailable(t *testing.T) {
	t.Parallel()
	site := filepath.Join(t.TempDir(), "site")
	if err := os.CopyFS(site, os.DirFS(setup.site)); err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(site, "web", "importer.wasm")
	if err := os.Rename(module, module+".kept"); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, withServeFlags("--site", site))
	s.open("/import")
	s.upload("#import-files", fixturePath("valid-skill-bundle.v0.json"))
	s.waitVisible("#import-results > li")
	if got := s.text("#import-results > li .import-status"); got != "error" {
		t.Errorf("status %q, want error", got)
	}
	if got := s.text("#import-results > li .error-text"); !strings.Contains(got, "the import worker cannot import: /web/importer.wasm could not be loaded") {
		t.Errorf("the error says %q, want the worker's reason", got)
	}
	s.open("/skills")
	s.waitText("#skills-empty", "No skills yet.")

	// The module is back. The browser keeps the failed answer (the
	// host's page, under the module's immutable cache rule); the worker
	// started again asks past it.
	if err := os.Rename(module+".kept", module); err != nil {
		t.Fatal(err)
	}
	s.open("/import")
	s.upload("#import-files", fixturePath("valid-skill-bundle.v0.json"))
	s.waitVisible("#import-results > li")
	if got := s.text("#import-results > li .import-status"); got != "accepted" {
		t.Errorf("with the module in place: status %q, want accepted", got)
	}
}

// A bundle whose strings carry markup, event handlers and URLs is stored
// as data and shown as text: no element is made from it, and nothing is
// requested from another host (the session's end checks fail otherwise).
func TestImportHostileStringsAreInert(t *testing.T) {
	t.Parallel()
	b := decodeFile(t, fixturePath("valid-skill-bundle.v0.json"))
	const hostile = `<img src="https://evil.example/x.png" onerror="window.__pwned=1"><script>window.__pwned=2</script>`
	b.Manifest.Name = "Hostile " + hostile
	b.Manifest.Description = `[click](javascript:window.__pwned=3) ![p](https://tracker.example/p.gif) https://evil.example/ ` + hostile
	v := appVerifier(t)
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hostile.skill.json")
	if err := os.WriteFile(path, f.Data, 0o644); err != nil {
		t.Fatal(err)
	}

	s := newSession(t)
	s.open("/import")
	s.upload("#import-files", path)
	s.waitVisible("#import-results > li")
	if got := s.text("#import-results > li .import-status"); got != "accepted" {
		t.Fatalf("status %q: %s", got, s.text("#import-results > li"))
	}
	s.open("/skills")
	s.waitVisible("#skills-table .skill-name")
	if got := s.text("#skills-table .skill-name"); got != b.Manifest.Name {
		t.Errorf("name shown as %q, want the text itself", got)
	}
	if n := eval[int](s, `document.querySelectorAll("main img, main script, main a[href^='javascript']").length`); n != 0 {
		t.Errorf("%d elements made from bundle text", n)
	}
	if v := eval[bool](s, `window.__pwned === undefined`); !v {
		t.Error("bundle text ran as script")
	}
}

// "Clear all local data" asks first; cancel keeps everything, confirm
// deletes it.
func TestClearAllLocalData(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/import")
	s.upload("#import-files", fixturePath("valid-skill-bundle.v0.json"))
	s.waitVisible("#import-results > li")
	s.open("/skills")
	s.waitVisible("#skills-table")

	s.click("#clear-all")
	s.waitVisible("#clear-dialog[open]")
	s.click("#clear-cancel")
	s.open("/skills")
	s.waitVisible("#skills-table")

	s.click("#clear-all")
	s.waitVisible("#clear-dialog[open]")
	s.click("#clear-confirm")
	s.waitVisible("#clear-done")
	s.open("/skills")
	s.waitVisible("#skills-empty")
}
