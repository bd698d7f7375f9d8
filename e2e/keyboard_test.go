package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The landing page works from the keyboard alone: the skip link comes
// first, the key field is reached with Tab, Enter submits it.
func TestKeyboardLanding(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/")
	s.do(chromedp.KeyEvent(kb.Tab))
	if got := eval[string](s, `document.activeElement.textContent`); got != "Skip to content" {
		t.Errorf("first Tab focuses %q, want the skip link", got)
	}
	// Tab until the key field has focus.
	for i := 0; i < 20 && eval[string](s, `document.activeElement.id`) != "key"; i++ {
		s.do(chromedp.KeyEvent(kb.Tab))
	}
	if eval[string](s, `document.activeElement.id`) != "key" {
		t.Fatal("the key field cannot be reached with Tab")
	}
	s.do(chromedp.KeyEvent(s.OR.Key), chromedp.KeyEvent(kb.Enter))
	s.waitVisible("#key-label")
	if !strings.Contains(s.text("#key-label"), "...") {
		t.Errorf("label %q", s.text("#key-label"))
	}
}

// The import file picker is reachable with Tab (the drop zone is not the
// only way in).
func TestKeyboardImport(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/import")
	for i := 0; i < 20 && eval[string](s, `document.activeElement.id`) != "import-files"; i++ {
		s.do(chromedp.KeyEvent(kb.Tab))
	}
	if eval[string](s, `document.activeElement.id`) != "import-files" {
		t.Fatal("the file picker cannot be reached with Tab")
	}
}
