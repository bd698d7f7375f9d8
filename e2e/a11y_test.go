package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The fixture bundles a seeded library is made of (spec §8.2, written by a
// real run of the workbench): two skills, one carrying a replay.
const (
	fixtureValid    = "valid-skill-bundle.v0.json"
	fixtureRedacted = "redacted-transcript_pii.v0.json"
)

// fixtureSkillID reads the skill id of a fixture bundle.
func fixtureSkillID(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	var b struct {
		SkillID string `json:"skill_id"`
	}
	if err := json.Unmarshal(data, &b); err != nil || b.SkillID == "" {
		t.Fatalf("%s: no skill_id (%v)", name, err)
	}
	return b.SkillID
}

// seedFixtures imports the two fixture skills through /import's picker
// and returns the id of the one with a replay. It leaves the browser on
// /import with both results shown.
func (s *session) seedFixtures() string {
	s.t.Helper()
	s.open("/import")
	s.upload("#import-files", fixturePath(fixtureValid), fixturePath(fixtureRedacted))
	s.waitVisible("#import-results > li:nth-child(2)")
	if got := eval[[]string](s, `[...document.querySelectorAll("#import-results > li .import-status")].map((e) => e.textContent)`); strings.Join(got, ",") != "accepted,accepted" {
		s.t.Fatalf("seeding the library: %q", got)
	}
	return fixtureSkillID(s.t, fixtureValid)
}

// axeSource is axe-core's browser build from the project's node_modules.
func axeSource(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(setup.root, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is not installed (make node-deps): %v", err)
	}
	return string(src)
}

// axeViolation is one rule axe-core found broken, with where.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

func (v axeViolation) String() string {
	return fmt.Sprintf("%s (%s): %s\n      %s", v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n      "))
}

// axeRun runs axe-core on the current document and returns its serious
// and critical violations. axe is evaluated through CDP
// (Runtime.evaluate), which the page's CSP does not govern; axe itself
// runs no eval, so the session's CSP check still holds.
func (s *session) axeRun(src string) []axeViolation {
	s.t.Helper()
	if !eval[bool](s, `typeof window.axe === "object"`) {
		eval[bool](s, src+"\n;true")
	}
	out := eval[string](s, `axe.run(document, {resultTypes: ["violations"]}).then((r) => JSON.stringify(
  r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ") + " — " + (n.failureSummary || "").replace(/\s+/g, " ")),
  }))))`)
	var vs []axeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		s.t.Fatalf("axe result: %v", err)
	}
	return vs
}

// press sends one key to the focused element, as the keyboard would.
func (s *session) press(key string) {
	s.t.Helper()
	s.do(chromedp.KeyEvent(key))
}

// focused describes the focused element: its tag, id and text.
func (s *session) focused() string {
	s.t.Helper()
	return eval[string](s, `(() => { const e = document.activeElement; return e ? e.tagName.toLowerCase() + "#" + e.id + " " + (e.getAttribute("href") || "") + " " + e.textContent.trim().slice(0, 40) : "none"; })()`)
}

// tabTo presses Tab until the element matching sel has the focus, and
// fails t if it never does within limit presses.
func (s *session) tabTo(t testing.TB, sel string, limit int) {
	t.Helper()
	test := `document.activeElement && document.activeElement.matches(` + jsQuote(sel) + `)`
	var path []string
	for range limit {
		if eval[bool](s, test) {
			return
		}
		s.press(kb.Tab)
		path = append(path, s.focused())
	}
	if !eval[bool](s, test) {
		t.Fatalf("Tab never reached %s; focus went:\n  %s", sel, strings.Join(path, "\n  "))
	}
}

// Every flow can be done from the keyboard alone: the skip link, setting
// the key on /, the navigation bar, opening the import file picker, the
// library's links and its confirmation dialog, a skill's tabs.
func TestAccessibilityKeyboard(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	id := s.seedFixtures()

	t.Run("skip link", func(t *testing.T) {
		defer s.as(t)()
		s.open("/")
		s.press(kb.Tab)
		if !eval[bool](s, `document.activeElement.matches("a.skip-link")`) {
			t.Fatalf("the first Tab focuses %s, not the skip link", s.focused())
		}
		if !eval[bool](s, `(() => { const r = document.activeElement.getBoundingClientRect(); return r.width > 1 && r.height > 1 && r.top >= 0; })()`) {
			t.Error("the focused skip link is not visible")
		}
		s.press(kb.Enter)
		s.waitJS(`location.hash === "#main"`)
	})

	t.Run("set the key", func(t *testing.T) {
		defer s.as(t)()
		s.open("/")
		s.tabTo(t, "#key", 20)
		s.do(chromedp.KeyEvent(s.OR.Key))
		s.press(kb.Enter)
		s.waitVisible("#key-label")
	})

	t.Run("navigation bar", func(t *testing.T) {
		defer s.as(t)()
		s.open("/")
		s.tabTo(t, `nav a[href="/import"]`, 20)
		s.press(kb.Enter)
		s.waitText("main h1", "Import")
		s.tabTo(t, `nav a[href="/skills"]`, 20)
		s.press(kb.Enter)
		s.waitText("main h1", "Skills")
	})

	t.Run("import file picker", func(t *testing.T) {
		defer s.as(t)()
		s.open("/import")
		s.tabTo(t, "#import-files", 20)
		if !eval[bool](s, `getComputedStyle(document.querySelector('label[for="import-files"]')).outlineStyle !== "none"`) {
			t.Error("the focused file picker shows no focus outline on its label")
		}
		for _, key := range []string{" ", kb.Enter} {
			if !s.opensFileChooser(key) {
				t.Errorf("%q on the focused file input opens no file chooser", key)
			}
		}
	})

	t.Run("library and dialog", func(t *testing.T) {
		defer s.as(t)()
		s.open("/skills")
		s.waitVisible("#skills-table .skill-row")
		s.tabTo(t, "#clear-all", 40)
		s.press(" ")
		s.waitVisible("#clear-dialog[open]")
		s.press(kb.Escape)
		s.waitJS(`!document.querySelector("#clear-dialog[open]")`)
		s.tabTo(t, `#skills-table a[href="/skills/`+id+`"]`, 40)
		s.press(kb.Enter)
		s.waitVisible("#conformance")
	})

	t.Run("skill tabs", func(t *testing.T) {
		defer s.as(t)()
		s.openSkill(id)
		s.tabTo(t, `[role=tab][aria-selected=true]`, 60)
		for _, step := range []struct{ key, tab string }{
			{kb.ArrowRight, "memory"}, {kb.ArrowRight, "compare"}, {kb.End, "history"},
			{kb.Home, "manifest"}, {kb.ArrowLeft, "history"}, {kb.ArrowLeft, "audit"},
		} {
			s.press(step.key)
			s.waitJS(`(() => { const p = document.querySelector("#panel-` + step.tab + `"); return !!p && p.offsetParent !== null; })()`)
			if !eval[bool](s, `document.activeElement.id === "tab-`+step.tab+`" && document.activeElement.getAttribute("aria-selected") === "true"`) {
				t.Errorf("after %q the focus is on %s, want the selected tab %s", step.key, s.focused(), step.tab)
			}
		}
		// Tab leaves the tab list for the panel.
		s.press(kb.Tab)
		if !eval[bool](s, `document.activeElement.id === "panel-audit"`) {
			t.Errorf("Tab from the tab list focuses %s, not the panel", s.focused())
		}
	})
}

// opensFileChooser presses key on the focused element and reports
// whether the browser opened a file chooser (intercepted, so none shows).
func (s *session) opensFileChooser(key string) bool {
	s.t.Helper()
	opened := false
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tt, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true}); err != nil {
			return err
		}
		defer cdp.Call(ctx, tt, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: false})
		wait, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		events := cdp.Events(wait, tt, page.FileChooserOpened)
		if _, err := chromedp.KeyEvent(key)(ctx, tt); err != nil {
			return err
		}
		for _, err := range events {
			opened = err == nil
			break
		}
		return nil
	}))
	return opened
}
