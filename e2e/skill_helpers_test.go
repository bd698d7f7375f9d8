package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"workbench/pkg/openrouter/openroutertest"
)

// teacherModel is the model the bundles of these tests are taught with.
const teacherModel = "example/teacher"

// teachBundle teaches a fixture scenario with `workbench teach` against an
// OpenRouter stand-in of its own, scripted with steps, and returns the
// bundle file it wrote: a real demonstration on the simulator, the same
// flow /teach runs, so the library is seeded only with what the product
// itself makes. A scenario whose proof fails (authority denied) still
// writes its evidence; only a refused command line fails the test.
func teachBundle(t *testing.T, scenario string, steps ...openroutertest.Step) string {
	t.Helper()
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: teacherModel, CostPerCall: 0.001, Steps: steps}))
	file := filepath.Join(t.TempDir(), strings.ReplaceAll(scenario, ".", "-")+".skill.json")
	cmd := exec.Command(setup.workbench, "teach", "--scenario", scenario, "--model", teacherModel,
		"--openrouter", or.APIBase(), "--out", file)
	cmd.Env = append(os.Environ(), "OPENROUTER_API_KEY="+or.Key)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		t.Fatalf("workbench teach %s: %v\n%s", scenario, err, out)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("workbench teach %s wrote no bundle: %v\n%s", scenario, err, out)
	}
	return file
}

// workbenchVerify runs `workbench verify` on a file and returns its exit
// code and output.
func workbenchVerify(t *testing.T, file string) (int, string) {
	t.Helper()
	out, err := exec.Command(setup.workbench, "verify", file).CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &exit):
		return exit.ExitCode(), string(out)
	}
	t.Fatalf("workbench verify: %v", err)
	return 0, ""
}

var skillLink = regexp.MustCompile(`^/skills/([0-9a-f-]{36})$`)

// importBundle imports a bundle file through /import's file picker, as a
// user would, and returns the id of the skill it was stored as.
func (s *session) importBundle(file string) string {
	s.t.Helper()
	// On /import already, the page is used as it is: a reload would be
	// one more page load for nothing (and under wrangler dev, one more
	// chance of the held request docs/decisions.md describes).
	if eval[string](s, `location.pathname`) != "/import" {
		s.open("/import")
	}
	s.waitVisible("#import-files")
	before := s.countOf("#import-results > li")
	s.upload("#import-files", file)
	cond := fmt.Sprintf(`document.querySelectorAll("#import-results > li").length > %d && !!document.querySelector("#import-results > li:last-child a[href^='/skills/']")`, before)
	if err := chromedp.Do(s.ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		s.t.Fatalf("the import of %s stored no skill (%v): the last result says %q", filepath.Base(file), err,
			eval[string](s, `(document.querySelector("#import-results > li:last-child") || {textContent: "(no result)"}).textContent`))
	}
	href := eval[string](s, `document.querySelector("#import-results > li:last-child a[href^='/skills/']").getAttribute("href")`)
	m := skillLink.FindStringSubmatch(href)
	if m == nil {
		s.t.Fatalf("the import result links to %q, not a skill", href)
	}
	return m[1]
}

// openSkill opens /skills/{id} and waits for the conformance panel.
func (s *session) openSkill(id string) {
	s.t.Helper()
	s.open("/skills/" + id)
	s.waitVisible("#conformance")
}

// enterKey enters the stand-in's key on the start page and waits until
// OpenRouter (the stand-in, through the proxy) has accepted it.
func (s *session) enterKey() {
	s.t.Helper()
	s.open("/")
	s.typeInto("#key", s.OR.Key)
	s.click("#key-check")
	s.waitVisible("#key-label")
}

// allowDownloads makes the browser save downloads into a fresh directory,
// which it returns.
func (s *session) allowDownloads() string {
	s.t.Helper()
	dir := s.t.TempDir()
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		// The session's tab lives in a browser context of its own; the
		// behaviour is set for that context.
		_, err := cdp.Call(ctx, tt, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
			BrowserContextID: chromedp.FromContext(ctx).BrowserContextID,
		})
		return err
	}))
	return dir
}

// waitFile waits until the browser has finished writing name into dir and
// returns its bytes.
func waitFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	path := filepath.Join(dir, name)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && len(data) > 0 {
			if _, err := os.Stat(path + ".crdownload"); err != nil {
				return data
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	t.Fatalf("no download %s in %s (found %q)", name, dir, names)
	return nil
}

// countOf returns how many elements match a CSS selector.
func (s *session) countOf(sel string) int {
	s.t.Helper()
	return eval[int](s, `document.querySelectorAll(`+jsQuote(sel)+`).length`)
}

// textsOf returns the text of every element matching a CSS selector.
func (s *session) textsOf(sel string) []string {
	s.t.Helper()
	return eval[[]string](s, `[...document.querySelectorAll(`+jsQuote(sel)+`)].map((e) => e.textContent)`)
}

func jsQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// setValue sets a form control's value as typing would and fires event
// ("input" or "change"), which the page listens to.
func (s *session) setValue(sel, value, event string) {
	s.t.Helper()
	eval[bool](s, `(() => { const e = document.querySelector(`+jsQuote(sel)+`); if (!e) throw new Error("no element "+`+jsQuote(sel)+`);
  e.value = `+jsQuote(value)+`; e.dispatchEvent(new Event(`+jsQuote(event)+`, {bubbles: true})); return true; })()`)
}

// waitJS polls a JavaScript condition until it holds.
func (s *session) waitJS(cond string) {
	s.t.Helper()
	s.do(chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(60*time.Second)))
}

// isDisabled reports whether the element matching sel is disabled.
func (s *session) isDisabled(sel string) bool {
	s.t.Helper()
	return eval[bool](s, `document.querySelector(`+jsQuote(sel)+`).disabled`)
}
