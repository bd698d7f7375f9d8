package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"workbench/pkg/skill"
	"workbench/pkg/store"
)

// viewport is one window size the layout must hold at.
type viewport struct {
	name          string
	width, height int64
}

// viewports are the sizes of issue 14: a phone, a tablet, a laptop and a
// desktop.
var viewports = []viewport{
	{"phone", 390, 844},
	{"tablet", 768, 1024},
	{"laptop", 1280, 800},
	{"desktop", 1920, 1080},
}

// resize sets the tab's viewport and waits for the layout that follows.
func (s *session) resize(v viewport) {
	s.t.Helper()
	s.do(chromedp.EmulateViewport(v.width, v.height))
	s.waitJS(fmt.Sprintf(`window.innerWidth === %d`, v.width))
	eval[bool](s, `new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))`)
}

// Long unbroken values a bundle may carry: a URL, a 20-level JSON
// pointer, a hash, and a name and a slug of the longest lengths the
// manifest schema allows, without a space.
var (
	longURL     = "https://docs.example.test/" + strings.Repeat("very-long-path-segment-without-any-space/", 9) + "index.html?query=" + strings.Repeat("x", 120)
	longPointer = "/" + strings.Join(strings.Fields(strings.Repeat("level ", 20)), "/")
	longHash    = "sha256:" + strings.Repeat("0123456789abcdef", 4)
	longName    = "Extract" + strings.Repeat("Everything", 11) + "Now"
	longSlug    = strings.Repeat("unbroken", 10)
)

// writeLongBundle writes a new skill made from the valid fixture, with
// the long values above in its name, slug and description, sealed with
// its proof through the project's own packages, and returns its id.
func writeLongBundle(t *testing.T, path string) string {
	t.Helper()
	b := decodeFile(t, fixturePath(fixtureValid))
	id := skill.NewID()
	b.SkillID, b.Manifest.SkillID, b.BundleID = id, id, skill.NewID()
	b.Manifest.Name = longName[:min(len(longName), 120)]
	b.Manifest.Slug = longSlug
	b.Manifest.Description = longURL + longPointer + longHash + strings.Repeat("Z", 300)
	if err := appVerifier(t).SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, f.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return id
}

// layoutProblems is a page-side check of the layout rules, returned as
// one sentence per broken rule:
//   - the document does not scroll sideways (scrollWidth ≤ clientWidth),
//     naming the elements that stick out;
//   - every link of the navigation bar, and the capability launcher, lies
//     inside the viewport and is what is hit at its center;
//   - the launcher's rectangle meets no other control's, at the top of
//     the page and scrolled to the bottom;
//   - every element matching the selectors in visible (the verdicts)
//     lies inside the viewport's width.
const layoutProblems = `((visible) => {
  const out = [], de = document.documentElement, vw = de.clientWidth;
  const name = (e) => !e ? "nothing" : e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "");
  const shown = (e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden"; };
  if (de.scrollWidth > vw) {
    const wide = [...document.querySelectorAll("body *")].filter((e) => shown(e) && e.getBoundingClientRect().right > vw + 0.5 &&
      !(e.parentElement && e.parentElement.getBoundingClientRect().right > vw + 0.5));
    out.push("the page is " + de.scrollWidth + " px wide in a " + vw + " px viewport: " + wide.slice(0, 4).map(name).join(", "));
  }
  window.scrollTo(0, 0);
  for (const a of document.querySelectorAll("nav.wb-nav a, #pal-launcher")) {
    const r = a.getBoundingClientRect();
    if (r.left < 0 || r.right > vw) { out.push("nav " + name(a) + " lies outside the viewport (" + r.left + "–" + r.right + ")"); continue; }
    const h = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!h || !(h === a || a.contains(h))) out.push("nav " + name(a) + " is covered by " + name(h));
  }
  const l = document.getElementById("pal-launcher");
  if (!l) out.push("no capability launcher");
  const controls = 'a[href], button, input, select, textarea, summary, label, [role=tab], [tabindex="0"], .verdict';
  for (const at of ["top", "bottom"]) {
    if (!l) break;
    window.scrollTo(0, at === "top" ? 0 : de.scrollHeight);
    const lr = l.getBoundingClientRect();
    for (const e of document.querySelectorAll(controls)) {
      if (e === l || l.contains(e) || e.contains(l) || e.closest("dialog:not([open])") || !shown(e)) continue;
      const r = e.getBoundingClientRect();
      if (r.left < lr.right && lr.left < r.right && r.top < lr.bottom && lr.top < r.bottom)
        out.push("the launcher covers " + name(e) + " (" + (e.textContent || e.value || "").trim().slice(0, 30) + ") at the " + at);
    }
  }
  window.scrollTo(0, 0);
  for (const sel of visible) {
    const all = document.querySelectorAll(sel);
    if (all.length === 0) out.push("nothing matches " + sel);
    for (const e of all) {
      const r = e.getBoundingClientRect();
      if (r.left < 0 || r.right > vw) out.push(sel + " lies outside the viewport's width (" + Math.round(r.left) + "–" + Math.round(r.right) + " of " + vw + ")");
      const cell = e.closest("td");
      if (cell && getComputedStyle(cell).display === "table-cell") {
        const c = cell.getBoundingClientRect();
        if (r.left < c.left - 1 || r.right > c.right + 1) out.push(sel + " spills out of its table cell (" + Math.round(r.left) + "–" + Math.round(r.right) + " in " + Math.round(c.left) + "–" + Math.round(c.right) + ")");
      }
    }
  }
  return out;
})`

// checkLayout runs layoutProblems at every size on the page shown, with
// the verdicts that must stay in view, and, at the phone's size and at
// 1280×800, axe.
func (s *session) checkLayout(t *testing.T, route, axe string, verdicts ...string) {
	t.Helper()
	sel, _ := json.Marshal(append([]string{}, verdicts...))
	for _, v := range viewports {
		s.resize(v)
		for _, p := range eval[[]string](s, layoutProblems+`(`+string(sel)+`)`) {
			t.Errorf("%s at %d×%d: %s", route, v.width, v.height, p)
		}
		if (v.name == "phone" || v.width == 1280) && axe != "" {
			for _, a := range s.axeRun(axe) {
				t.Errorf("%s at %d×%d: axe: %s", route, v.width, v.height, a)
			}
		}
	}
}

// TestLayoutEveryRouteEverySize loads every route — with a library that
// holds the fixture skills and one whose name, slug and description are
// long unbroken values — and checks the layout rules at 390×844,
// 768×1024, 1280×800 and 1920×1080: no sideways scrolling, the whole
// navigation reachable, the capability launcher over no control, the
// verdict columns of /skills and a skill's overall verdict in view; and
// no serious or critical axe-core violation at the phone's size and at
// 1280×800.
func TestLayoutEveryRouteEverySize(t *testing.T) {
	t.Parallel()
	axe := axeSource(t)
	s := newSession(t, withTimeout(10*time.Minute))
	defer s.resize(viewports[2])
	id := s.seedFixtures()
	long := filepath.Join(t.TempDir(), "long.skill.json")
	longID := writeLongBundle(t, long)
	s.upload("#import-files", long, fixturePath("invalid-missing-content-hash.v0.json"))
	s.waitVisible("#import-results > li:nth-child(4)")
	s.checkLayout(t, "/import with results", axe)

	for _, path := range []string{"/", "/teach", "/no/such/page"} {
		s.open(path)
		s.checkLayout(t, path, axe)
	}
	// workbench serve keeps no registry: the page says so, and lists
	// the registries a person may add.
	s.open("/registry")
	s.waitVisible("#registry-none")
	s.checkLayout(t, "/registry without a registry", axe)

	s.open("/skills")
	s.waitJS(`document.querySelectorAll("#skills-table .skill-row").length === 3 &&
  [...document.querySelectorAll("#skills-table .skill-verified")].every((c) => c.querySelector(".verdict"))`)
	if got := s.text("#skills-table"); !strings.Contains(got, longSlug) || !strings.Contains(got, longPointer) {
		t.Errorf("/skills does not show the long slug and description: %.200q", got)
	}
	s.checkLayout(t, "/skills", axe, "#skills-table .skill-verified .verdict", "#skills-table .skill-claimed .verdict")

	for _, sk := range []string{longID, id} {
		s.openSkill(sk)
		route := "/skills/" + sk
		s.checkLayout(t, route, axe, "#overall-verdict .verdict")
		for _, tab := range []string{"manifest", "memory", "compare", "audit", "history"} {
			s.click("#tab-" + tab)
			s.waitVisible("#panel-" + tab)
			if tab == "audit" {
				// The trace viewer with a step's detail (JSON, snapshots, hashes).
				s.click("#audit-edge-0 .audit-edge-select")
				s.waitVisible("#audit-detail-heading")
			}
			s.checkLayout(t, route+" tab "+tab, axe, "#overall-verdict .verdict")
		}
		s.open(route + "/replay")
		s.waitVisible("main h1")
		s.checkLayout(t, route+"/replay", axe)
	}
}

// paletteProblems checks the open capability workbench at the current
// size: full screen on a phone; elsewhere at least 900 px wide (or 90 %
// of the viewport) with the list and the detail side by side; no id or
// title broken a few letters a line (two lines, or 20 characters a line
// on average, at most); nothing wider than the dialog.
const paletteProblems = `((phone) => {
  const out = [], vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const d = document.getElementById("pal-dialog"), r = d.getBoundingClientRect();
  if (phone) {
    if (r.left > 1 || r.top > 1 || r.width < window.innerWidth - 1 || r.height < vh - 1)
      out.push("the dialog is not full screen: " + [r.left, r.top, r.width, r.height].map(Math.round).join(" "));
  } else {
    if (r.width < Math.min(900, 0.9 * window.innerWidth)) out.push("the dialog is " + Math.round(r.width) + " px wide");
    const c = d.querySelector(".pal-catalog").getBoundingClientRect(), t = d.querySelector(".pal-detail").getBoundingClientRect();
    if (!(c.right <= t.left && Math.abs(c.top - t.top) < 60)) out.push("the list and the detail are not side by side");
  }
  if (d.scrollWidth > d.clientWidth) out.push("the dialog scrolls sideways: " + d.scrollWidth + " > " + d.clientWidth);
  if (document.documentElement.scrollWidth > vw) out.push("the page scrolls sideways");
  for (const e of d.querySelectorAll(".pal-opt-id, .pal-opt-title, #pal-desc-id, #pal-detail-h")) {
    const lines = Math.round(e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight));
    if (lines > Math.max(2, Math.ceil(e.textContent.length / 20))) out.push(e.textContent + " is broken onto " + lines + " lines");
  }
  return out;
})`

// resultInView says whether the top of the result of the run invoked is
// where the user sees it — inside the viewport, the dialog and the box
// that scrolls around it (the detail pane, or the run's timeline), and
// not covered. A synchronous answer is #pal-result; a run's is its
// tool_result event.
const resultInView = `((sel, box) => {
  const e = document.querySelector(sel); if (!e) return "no " + sel;
  const r = e.getBoundingClientRect(), top = r.top + Math.min(r.height, 24);
  const boxes = [{top: 0, bottom: window.innerHeight}, document.getElementById("pal-dialog").getBoundingClientRect(),
    document.querySelector(box).getBoundingClientRect()];
  for (const b of boxes) if (r.top < b.top - 1 || top > b.bottom + 1) return "the result (" + Math.round(r.top) + "–" + Math.round(r.bottom) + ") is outside " + Math.round(b.top) + "–" + Math.round(b.bottom);
  const h = document.elementFromPoint(r.left + 8, r.top + 8);
  return h && e.contains(h) ? "" : "the result is covered";
})`

// TestLayoutPalette opens the capability workbench at every size, over
// a backend whose capability has a long id, and checks it is a working
// surface (paletteProblems), and that after Invoke, pressed with the
// dialog scrolled to its top, the run's result (its tool_result event) is
// in view without scrolling.
func TestLayoutPalette(t *testing.T) {
	t.Parallel()
	name := "summarise_the_recorded_observations_of_a_long_capability_identifier"
	rec := &recorder{schemas: map[string]json.RawMessage{
		name:    json.RawMessage(`{"type":"object","properties":{"note":{"type":"string","description":"Anything; the answer echoes it."},"detail":{"type":"string"},"more":{"type":"string"},"again":{"type":"string"}}}`),
		"short": json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`),
	}}
	s, _ := contractSessionWith(t, []option{withTimeout(6 * time.Minute)}, rec)
	defer s.resize(viewports[2])
	s.connectContract()
	id := "mcp/corpus:" + name
	s.pickCapability("summarise", id)
	s.waitPresent(field("/note"))
	for _, v := range viewports {
		s.resize(v)
		for _, p := range eval[[]string](s, paletteProblems+fmt.Sprintf(`(%v)`, v.name == "phone")) {
			t.Errorf("palette at %d×%d: %s", v.width, v.height, p)
		}
		// From the top of the dialog, as a user who just filled the form
		// would see it, Invoke; then the result must be in view.
		eval[bool](s, `(document.getElementById("pal-dialog").scrollTop = 0, document.querySelector(".pal-detail").scrollTop = 0, true)`)
		note := fmt.Sprintf("at-%d", v.width)
		s.setValue(field("/note"), note, "input")
		result := `#pal-timeline [data-type="tool_result"]`
		done := `(document.querySelector(` + jsQuote(result) + `) || {textContent: ""}).textContent.includes(` + jsQuote(note) + `)`
		// The edit disables Invoke until its preflight answers; a click
		// that lands before the button is re-rendered disabled is lost,
		// so Invoke is pressed again until the run shows.
		for try := 1; ; try++ {
			s.waitInvokable()
			s.tap("#pal-invoke")
			if chromedp.Do(s.ctx, chromedp.Poll[chromedp.Void](done, chromedp.WithPollingTimeout(10*time.Second))) == nil {
				break
			}
			if try == 3 {
				t.Fatalf("palette at %d×%d: no run answered Invoke", v.width, v.height)
			}
		}
		s.waitText("#pal-run-status", "completed")
		eval[bool](s, `new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true))))`)
		if p := eval[string](s, resultInView+`(`+jsQuote(result)+`, "#pal-timeline")`); p != "" {
			t.Errorf("palette at %d×%d after Invoke: %s", v.width, v.height, p)
		}
	}
}
