package e2e

import (
	"bytes"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/openrouter/openroutertest"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write the route screenshots into docs/screenshots")

// TestScreenshots takes a screenshot of each route at 390×844 (a phone)
// and 1280×800, the browser's viewport only, with a library seeded from
// the fixture bundles and the OpenRouter stand-in's key entered, and
// checks each is a PNG of that size, written to
// docs/screenshots/<name>-<width>.png. It runs only with
// -update-screenshots or WORKBENCH_SCREENSHOTS=1 (make screenshots).
func TestScreenshots(t *testing.T) {
	t.Parallel()
	// The screenshots are documentation: the layout rules they show are
	// checked by the layout tests at four sizes, so the e2e layer spends
	// no time taking pictures nobody keeps.
	if !*updateScreenshots && os.Getenv("WORKBENCH_SCREENSHOTS") != "1" {
		t.Skip("screenshots are taken by make screenshots (WORKBENCH_SCREENSHOTS=1)")
	}
	dir := filepath.Join(setup.root, "docs", "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newSession(t, withTimeout(6*time.Minute))
	defer s.resize(viewports[2])
	id := s.seedFixtures()
	s.upload("#import-files", fixturePath("invalid-missing-content-hash.v0.json"))
	s.waitVisible("#import-results > li:nth-child(3)")

	// shot captures the viewport at each width with the element matching
	// top at its top ("" for the page's top), once fonts and the last
	// render settled.
	shot := func(name, top string) {
		t.Helper()
		for _, v := range []viewport{viewports[0], viewports[2]} {
			s.resize(v)
			eval[bool](s, `document.fonts.ready.then(() => new Promise((ok) => requestAnimationFrame(() => {
  const e = `+jsQuote(top)+` && document.querySelector(`+jsQuote(top)+`);
  if (e) e.scrollIntoView({block: "start"}); else window.scrollTo(0, 0);
  requestAnimationFrame(() => ok(true));
})))`)
			data := run(s, chromedp.CaptureScreenshot())
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: not a PNG: %v", name, err)
			}
			if b := img.Bounds(); b.Dx() != int(v.width) || b.Dy() != int(v.height) {
				t.Errorf("%s: %v, want the %d×%d viewport", name, b, v.width, v.height)
			}
			file := fmt.Sprintf("%s-%d.png", name, v.width)
			if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	shot("import", "#dropzone")

	s.enterKey()
	shot("home", "")

	s.open("/teach")
	shot("teach", "")

	s.open("/skills")
	s.waitVisible("#skills-table .skill-row .verdict")
	s.waitJS(`![...document.querySelectorAll("#skills-table .skill-verified")].some((e) => e.textContent.includes("verifying"))`)
	shot("skills", "")

	s.openSkill(id)
	shot("skill", "")
	for _, tab := range []string{"manifest", "memory", "compare", "audit"} {
		s.click("#tab-" + tab)
		s.waitVisible("#panel-" + tab)
		shot("skill-"+tab, "[role=tablist]")
	}

	s.open("/skills/" + id + "/replay")
	shot("skill-replay", "")

	s.open("/no/such/page")
	shot("not-found", "")

	s.open("/")
	s.click("#pal-launcher")
	s.waitVisible("#pal-dialog[open] #pal-search")
	shot("palette", "")
}

// TestScreenshotsBrowserBody takes the README's pictures of a person's
// path through the workbench on the real browser body: `workbench serve`
// with the bodies it starts (as after make run), a key entered, the
// Browser picked and the tab's authority answered; a task taught through
// Playwright MCP on Debian's Chromium; and a replay after the page
// changed, with what differed. The model is the OpenRouter stand-in
// playing a script (OpenRouter cannot be reached here), which the README
// says under the pictures; the body, the relay, the policy and the
// verifier are the real ones. Full-page captures at 1280 px wide, written
// to docs/screenshots/use-*.png; like TestScreenshots it runs only with
// -update-screenshots or WORKBENCH_SCREENSHOTS=1.
func TestScreenshotsBrowserBody(t *testing.T) {
	t.Parallel()
	if !*updateScreenshots && os.Getenv("WORKBENCH_SCREENSHOTS") != "1" {
		t.Skip("screenshots are taken by make screenshots (WORKBENCH_SCREENSHOTS=1)")
	}
	dir := filepath.Join(setup.root, "docs", "screenshots")
	site := mcpbodytest.StartShop(t)
	click := openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
		return mcpbodytest.ClickDocs(r.LastToolResult, r.LastUser, openroutertest.ToolCall, openroutertest.Answer)
	})
	const replayer = "example/replayer"
	s := newSession(t, withTimeout(10*time.Minute), withBodies(), withOpenRouter(openroutertest.WithScript(
		openroutertest.Script{Model: teacher, CostPerCall: 0.001, Steps: []openroutertest.Step{
			openroutertest.ToolCall("browser_navigate", map[string]any{"url": site.URL + "/"}), click,
			openroutertest.Answer("The docs page's heading is \"Getting started\".")}},
		openroutertest.Script{Model: replayer, Steps: []openroutertest.Step{click}},
	)))
	// The session's viewport is 1280×800 (viewports[2]); a full-page
	// capture takes the page's whole height at that width.
	full := func(name string) {
		t.Helper()
		eval[bool](s, `document.fonts.ready.then(() => new Promise((ok) => requestAnimationFrame(() => { window.scrollTo(0, 0); requestAnimationFrame(() => ok(true)); })))`)
		data := run(s, chromedp.FullScreenshot(100)) // quality 100: PNG
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Fatalf("%s: not a PNG: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "use-"+name+".png"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	s.keepKey(s.OR.Key)
	s.waitText("#body-browser-note", "On this workbench: reachable")
	s.waitText("#body-host-note", "On this workbench: reachable")
	s.click("#body-browser")
	s.waitVisible("#local-policy-question")
	s.click("#local-policy-accept")
	s.waitVisible("#local-policy-notice")
	full("home")

	s.open("/teach")
	s.waitVisible("#teach-form")
	s.setField("#teach-scenario", "freeform", "change")
	s.waitVisible("#teach-task")
	s.setField("#teach-task", "Open "+site.URL+"/ , follow the Docs link and read its heading.", "input")
	s.setField("#teach-model", teacher, "input")
	s.waitFor(`!document.querySelector("#teach-start").disabled`)
	s.click("#teach-start")
	s.waitLong(present("#teach-draft"))
	s.waitFor(`!document.querySelector("#teach-save").disabled`)
	full("teach")
	s.click("#teach-save")
	s.waitLong(`location.pathname.startsWith("/skills/")`)
	id := s.library().Skills[0].ID

	site.Move() // the docs page has another layout now
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-form")
	s.setField("#replay-model", replayer, "input")
	s.click("#replay-run")
	s.waitLong(`!!document.querySelector("#replay-outcome, #replay-error") && !document.querySelector("#replay-run").disabled`)
	s.waitVisible("#replay-diff-1")
	full("replay")
}
