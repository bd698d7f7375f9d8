package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"workbench/pkg/openrouter/openroutertest"
)

// Before Save the page sums the recording up: fixture 3 taught with a
// navigation to a page that does not exist (an error) and two host writes
// the policy refuses. The summary counts them, gives the cost and the
// verdict the verifier derives for the draft's bundle, and names the
// gates that fail; the timeline marks the three steps, says how many
// there are above the list, and has followed the newest step.
func TestTeachSummaryBeforeSave(t *testing.T) {
	t.Parallel()
	script := openroutertest.Script{Model: teacher, CostPerCall: 0.001, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://status.workbench.test/no-such-page"}),
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://status.workbench.test/"}),
		openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/a.txt", "content": "a"}),
		openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/b.txt", "content": "b"}),
		openroutertest.Answer("Both writes were refused."),
	}}
	s := newSession(t, withOpenRouter(openroutertest.WithScript(script)))
	s.startTeaching()
	s.setField("#teach-scenario", "skill.authority_denied", "change")
	s.waitVisible("#teach-input-report_path")
	s.click("#teach-start")
	s.waitVisible("#teach-summary-headline")

	const headline = "2 actions denied, 1 error — this skill will fail gate.authority and gate.no_hidden_capability"
	if got := s.text("#teach-summary-headline"); got != headline {
		t.Errorf("summary headline\n got %q\nwant %q", got, headline)
	}
	for sel, want := range map[string]string{
		"#summary-edges":   "4",
		"#summary-denied":  "2 (edges 2, 3)",
		"#summary-errors":  "1 (edge 0)",
		"#summary-cost":    "$0.005",
		"#summary-verdict": "fail",
	} {
		if got := s.text(sel); got != want {
			t.Errorf("%s reads %q, want %q", sel, got, want)
		}
	}
	if got := s.text("#summary-gates"); !strings.Contains(got, "gate.authority: edge 2 was denied") || !strings.Contains(got, "gate.replay_fidelity") {
		t.Errorf("the gates listed: %q", got)
	}
	// The summary comes before Save, in the outcome.
	if !eval[bool](s, `!!(document.querySelector("#teach-summary").compareDocumentPosition(document.querySelector("#teach-save")) & Node.DOCUMENT_POSITION_FOLLOWING)`) {
		t.Error("the summary is not above Save")
	}

	marks := eval[[]string](s, `[...document.querySelectorAll("#timeline-steps .step-marked .step-flag")].map((e) => e.textContent)`)
	if strings.Join(marks, ",") != "error,denied,denied" {
		t.Errorf("marked steps %q, want error, denied, denied", marks)
	}
	if got := s.text("#timeline-flags"); !strings.HasPrefix(got, "2 actions denied, 1 error") {
		t.Errorf("the timeline's count of marked steps reads %q", got)
	}
	follow := eval[map[string]float64](s, `(() => { const e = document.querySelector("#timeline-steps");
  return {scroll: e.scrollHeight, client: e.clientHeight, top: e.scrollTop}; })()`)
	if follow["scroll"] <= follow["client"] {
		t.Fatalf("the timeline does not overflow (%v), so following cannot be seen", follow)
	}
	if follow["top"]+follow["client"] < follow["scroll"]-2 {
		t.Errorf("the timeline is not at its newest step: %v", follow)
	}
	if got := s.text("#timeline-steps .step:last-child .step-phase"); got != "stopped" {
		t.Errorf("the last step is %q", got)
	}

	for _, v := range s.axeRun(axeSource(t)) {
		t.Errorf("axe, the summary shown: %s", v)
	}
	s.summaryScreenshot("teach-summary")
}

// summaryScreenshot captures the summary and the timeline at 1280 px; with
// WORKBENCH_SCREENSHOTS=1 it is written to docs/screenshots/<name>.png.
func (s *session) summaryScreenshot(name string) {
	s.t.Helper()
	dir := s.t.TempDir()
	if os.Getenv("WORKBENCH_SCREENSHOTS") == "1" {
		dir = filepath.Join(setup.root, "docs", "screenshots")
	}
	eval[bool](s, `document.fonts.ready.then(() => new Promise((ok) => {
  document.querySelector("#teach-summary").scrollIntoView({block: "start"});
  requestAnimationFrame(() => ok(true)); }))`)
	data := run(s, chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name+".png"), data, 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// A recording is not lost by navigating: while it runs, a click on a
// navigation link asks in the page first (staying keeps the run going,
// leaving discards it and goes), and the page answers beforeunload so the
// browser asks before the tab is closed or reloaded. An unsaved draft is
// guarded the same way; once nothing is at stake, nothing asks.
func TestTeachLeaveAsksFirst(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var once sync.Once
	script := openroutertest.Script{Model: teacher, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
		openroutertest.Func(func(*openroutertest.ChatRequest) openroutertest.Step {
			<-release
			return openroutertest.Answer("done")
		}),
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
		openroutertest.Func(func(*openroutertest.ChatRequest) openroutertest.Step {
			<-release
			return openroutertest.Answer("done")
		}),
	}}
	s := newSession(t, withOpenRouter(openroutertest.WithScript(script)))
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	const unloadAsks = `(() => { const e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented; })()`
	s.startTeaching()
	if eval[bool](s, unloadAsks) {
		t.Error("the form with nothing recorded asks before unload")
	}
	s.click("#teach-start")
	s.waitFor(`!!document.querySelector("#timeline-steps .edge")`)
	if !eval[bool](s, unloadAsks) {
		t.Error("a running recording does not ask before unload")
	}

	s.click(`.wb-navlink[href="/skills"]`)
	s.waitFor(`document.querySelector("#teach-leave").open`)
	if got := eval[string](s, `location.pathname`); got != "/teach" {
		t.Fatalf("the link navigated to %s while asking", got)
	}
	if got := s.text("#teach-leave-text"); !strings.Contains(got, "A recording is running") {
		t.Errorf("the dialog says %q", got)
	}
	if got := s.focused(); !strings.HasPrefix(got, "button#teach-leave-stay") {
		t.Errorf("focus is on %s, want Stay", got)
	}
	for _, v := range s.axeRun(axeSource(t)) {
		t.Errorf("axe, the leave dialog open: %s", v)
	}
	s.click("#teach-leave-stay")
	s.waitFor(`!document.querySelector("#teach-leave").open`)
	if got := eval[string](s, `location.pathname`); got != "/teach" || !eval[bool](s, `!!document.querySelector("#teach-stop")`) {
		t.Fatalf("after Stay: at %s, the run going on: %v", got, eval[bool](s, `!!document.querySelector("#teach-stop")`))
	}

	// The run ends; its draft is not saved, so leaving still asks.
	once.Do(func() { close(release) })
	s.waitVisible("#teach-draft")
	if !eval[bool](s, unloadAsks) {
		t.Error("an unsaved draft does not ask before unload")
	}
	s.click(`.wb-navlink[href="/skills"]`)
	s.waitFor(`document.querySelector("#teach-leave").open`)
	if got := s.text("#teach-leave-text"); !strings.Contains(got, "The draft is not saved") {
		t.Errorf("the dialog says %q", got)
	}
	s.click("#teach-leave-go")
	s.waitFor(`location.pathname === "/skills"`)
	if eval[bool](s, unloadAsks) {
		t.Error("after leaving, the next page still asks before unload")
	}
	if l := s.library(); len(l.Skills) != 0 {
		t.Errorf("leaving stored %d skills", len(l.Skills))
	}
}

// The key's state decides Start, and the pages say it: a key OpenRouter
// refuses is not kept by the home page, and /teach and replay say so
// before any click; a key kept but not yet checked is checked by /teach
// itself, which offers Start once OpenRouter accepts it or says it
// refused it.
func TestTeachKeyState(t *testing.T) {
	t.Parallel()
	const bad = "sk-or-v1-not-a-key-the-server-knows"
	s := newSession(t, withOpenRouter(openroutertest.WithScript(readHeading("https://docs.workbench.test/getting-started"))))
	s.expectConsole("401")
	id := s.seedFixtures()

	s.keepKey(bad)
	s.waitVisible("#key-error")
	if eval[bool](s, `sessionStorage.getItem("workbench.openrouter_key") !== null`) {
		t.Error("the home page keeps a key OpenRouter refused")
	}
	if eval[bool](s, `!!document.querySelector("#key-forget")`) {
		t.Error("the home page offers to forget a key it does not keep")
	}
	s.open("/")
	s.waitVisible("#key-refused")

	s.open("/teach")
	s.waitVisible("#teach-form")
	if got := s.text("#teach-key-text"); !strings.Contains(got, "refused") {
		t.Errorf("/teach says of the key: %q", got)
	}
	if got := s.text("#teach-no-key"); !strings.Contains(got, "refused the key entered last") {
		t.Errorf("/teach says beside Start: %q", got)
	}
	if !s.disabled("#teach-start") {
		t.Error("Start recording is enabled with a refused key")
	}
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-key")
	if got := s.text("#replay-key-text"); !strings.Contains(got, "refused") {
		t.Errorf("replay says of the key: %q", got)
	}

	// Kept but unchecked (the home page's check never answered): /teach
	// checks it, then offers Start or says it was refused.
	for _, tc := range []struct {
		key, state string
		start      bool
	}{{s.OR.Key, "OpenRouter accepted it", true}, {bad, "refused", false}} {
		eval[bool](s, `sessionStorage.setItem("workbench.openrouter_key", `+jsQuote(tc.key)+`); sessionStorage.removeItem("workbench.openrouter_key_state"); true`)
		s.open("/teach")
		s.waitText("#teach-key-text", tc.state)
		if s.disabled("#teach-start") == tc.start {
			t.Errorf("key %s: Start enabled %v, want %v", tc.state, !tc.start, tc.start)
		}
	}
	s.keepKey(s.OR.Key)
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-key")
	if got := s.text("#replay-key-text"); !strings.Contains(got, "accepted") {
		t.Errorf("replay says of an accepted key: %q", got)
	}
}

// The draft's default name and slug are a few readable words of the task
// (crystallize.Name), never the whole task with its URL: a freeform task
// that opens with a long address gives a name of at most six words with
// the address standing as its host, and a slug made from that name.
func TestTeachDefaultNameIsShort(t *testing.T) {
	t.Parallel()
	const page = "https://docs.workbench.test/getting-started"
	s := newSession(t, withOpenRouter(openroutertest.WithScript(readHeading(page))))
	s.startTeaching()
	s.setField("#teach-scenario", "freeform", "change")
	s.waitVisible("#teach-task")
	task := "Open " + page + " in the browser, read the page from top to bottom and report its main heading exactly as written."
	s.setField("#teach-task", task, "input")
	s.setField("#teach-world", "docs-and-git", "change")
	s.click("#teach-start")
	s.waitVisible("#teach-draft")
	name := eval[string](s, `document.querySelector("#draft-name").value`)
	slug := eval[string](s, `document.querySelector("#draft-slug").value`)
	if n := len(strings.Fields(name)); n == 0 || n > 6 || len([]rune(name)) > 49 {
		t.Errorf("default name %q: want a few words (at most 6, 49 characters)", name)
	}
	if strings.Contains(name, "://") || strings.Contains(name, "/getting-started") || name == task {
		t.Errorf("default name %q carries the task's URL", name)
	}
	if !strings.Contains(name, "docs.workbench.test") {
		t.Errorf("default name %q: want the address standing as its host", name)
	}
	if strings.Count(slug, "-") > 7 || strings.Contains(slug, "http") || strings.Contains(slug, "getting-started") {
		t.Errorf("default slug %q: want a few words, without the URL", slug)
	}
	if s.disabled("#teach-save") {
		t.Errorf("the default name %q and slug %q do not make a valid draft", name, slug)
	}
}
