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

// Off the browser every page renders the same neutral frame, so the
// page the host serves for a deep link shows no other page's text.
func TestFrameOffBrowserIsNeutral(t *testing.T) {
	html := app.HTMLString(frame("/skills", app.H1().Text("Skills")))
	if strings.Contains(html, "Skills</h1>") || !strings.Contains(html, "Loading the workbench") {
		t.Errorf("server-side frame shows page content: %s", html)
	}
	if !strings.Contains(html, strings.ReplaceAll(footerText, "&", "&amp;")) {
		t.Errorf("no footer: %s", html)
	}
	if strings.Contains(html, "style=") {
		t.Errorf("style attribute: %s", html)
	}
}
