//go:build !wasm

package main

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Each verdict is shown as its own word with its own class; only pass
// gets the pass class, and unknown values get the alarming one.
func TestVerdictBadge(t *testing.T) {
	seen := map[string]string{}
	for _, tc := range []struct{ verdict, class string }{
		{"pass", "verdict-pass"},
		{"partial", "verdict-partial"},
		{"fail", "verdict-fail"},
		{"inconclusive", "verdict-inconclusive"},
		{"n/a", "verdict-na"},
		{"PASS", "verdict-unknown"},
		{"passed", "verdict-unknown"},
		{"", "verdict-unknown"},
	} {
		html := app.HTMLString(verdictBadge(tc.verdict))
		if !strings.Contains(html, `class="verdict `+tc.class+`"`) {
			t.Errorf("%q: %s, want class %s", tc.verdict, html, tc.class)
		}
		if tc.verdict != "" && !strings.Contains(html, ">"+tc.verdict+"<") {
			t.Errorf("%q: %s does not show the verdict literally", tc.verdict, html)
		}
		if tc.class != "verdict-unknown" {
			if prev, dup := seen[tc.class]; dup {
				t.Errorf("%q and %q look the same", prev, tc.verdict)
			}
			seen[tc.class] = tc.verdict
		}
	}
}

// Off the browser a page renders its heading and explanatory text (the
// leading h1 and p) and a loading line in place of the rest; the frame
// with no content, the neutral shell served for deep links, renders the
// loading line alone.
func TestFrameOffBrowser(t *testing.T) {
	html := app.HTMLString(frame("/skills", app.H1().Text("Skills"), app.P().Text("What this page is."),
		app.Button().Text("Act"), app.P().Text("After a control.")))
	for _, want := range []string{"<h1>Skills</h1>", "What this page is.", "Loading the workbench"} {
		if !strings.Contains(html, want) {
			t.Errorf("server-side frame lacks %q: %s", want, html)
		}
	}
	for _, gone := range []string{"Act", "After a control."} {
		if strings.Contains(html, gone) {
			t.Errorf("server-side frame shows %q, which follows a control: %s", gone, html)
		}
	}
	if shell := app.HTMLString(frame("")); strings.Contains(shell, "<h1") || !strings.Contains(shell, "Loading the workbench") {
		t.Errorf("the neutral shell shows page content: %s", shell)
	}
	if !strings.Contains(html, strings.ReplaceAll(footerText, "&", "&amp;")) {
		t.Errorf("no footer: %s", html)
	}
	if strings.Contains(html, "style=") {
		t.Errorf("style attribute: %s", html)
	}
}
