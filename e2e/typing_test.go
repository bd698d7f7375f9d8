package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// typingRace empties the field sel, then types text followed by "def"
// the way a fast typist's keys can land: "d" and "f" reach the field after
// the input event before them and before the page's next frame, when the
// app renders what that event's handler read. It returns what the field
// holds afterwards: text+"def" unless a render wrote older text over a key.
func typingRace(s *session, sel, text string) string {
	return eval[string](s, fmt.Sprintf(`(async () => {
  const e = document.querySelector(%q);
  const frames = () => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(ok, 50))));
  e.focus();
  e.value = "";
  e.dispatchEvent(new Event("input", {bubbles: true}));
  await frames();
  for (const c of %q) {
    e.value += c;
    e.dispatchEvent(new Event("input", {bubbles: true}));
  }
  e.value += "d";
  await frames();
  e.value += "e";
  e.dispatchEvent(new Event("input", {bubbles: true}));
  e.value += "f";
  await frames();
  return e.value;
})()`, sel, text))
}

// Every text field the page binds to its state keeps what is typed, to
// the last character, when keys land between an input event and the
// render it causes (recordTyped): the palette's search and, on /teach, an
// input and a textarea.
// The key field on / is not bound and has a test of its own
// (TestKeyFieldKeepsWhatIsTyped).
func TestBoundFieldsKeepWhatIsTyped(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/teach")
	s.waitVisible("#teach-form")
	s.openPalette(chromedp.ModifierCtrl)
	if got := typingRace(s, "#pal-search", "abc"); got != "abcdef" {
		t.Errorf("the palette's search holds %q after typing %q", got, "abcdef")
	}
	s.press(kb.Escape)
	s.waitJS(`!document.querySelector("#pal-dialog[open]")`)
	if got := typingRace(s, "#teach-model", "abc"); got != "abcdef" {
		t.Errorf("the model field holds %q after typing %q", got, "abcdef")
	}
	s.setField("#teach-scenario", "freeform", "change")
	s.waitVisible("#teach-task")
	if got := typingRace(s, "#teach-task", "abc"); got != "abcdef" {
		t.Errorf("the task field holds %q after typing %q", got, "abcdef")
	}
}
