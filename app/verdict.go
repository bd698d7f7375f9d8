package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
)

// verdictBadge shows a verdict literally (spec §7.5 "replay overclaiming"):
// its own word, in a look of its own. Only pass is green and carries a
// check mark; partial, fail and inconclusive each look different from it
// and from each other; n/a is neutral. A value that is none of these is
// shown as what it is, in an alarming look, never as a success.
func verdictBadge(v string) app.UI {
	class, title, text := verdictLook(v)
	return app.Span().Class("verdict " + class).Title(title).Text(text)
}

// verdictLook is the badge of verdict v: its class, its title and its
// text.
func verdictLook(v string) (class, title, text string) {
	class, title = "verdict-unknown", "not a verdict the workbench knows"
	switch v {
	case skill.VerdictPass:
		class, title = "verdict-pass", "pass: every gate passed"
	case skill.VerdictPartial:
		class, title = "verdict-partial", "partial: not everything was proven"
	case skill.VerdictFail:
		class, title = "verdict-fail", "fail: a gate failed"
	case skill.VerdictInconclusive:
		class, title = "verdict-inconclusive", "inconclusive: the evidence does not decide"
	case skill.VerdictNotApplicable:
		class, title = "verdict-na", "n/a: the gate does not apply"
	}
	text = v
	if text == "" {
		text = "(none)"
	}
	return class, title, text
}
