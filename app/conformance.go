package main

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/pkg/words"
)

// renderConformance is the conformance panel (spec §8.3 criterion 10):
// one overall badge, then every proof gate and every invariant with the
// bundle's claim beside the re-verified result. An overclaim — a claim
// better than the evidence — is shown as a failure on its row and listed.
func renderConformance(p verify.Panel) app.UI {
	gateRows := make([]app.UI, 0, len(p.Gates))
	for _, g := range p.Gates {
		claimed := app.UI(app.Span().Class("muted").Text("not claimed"))
		if g.Claimed != "" {
			claimed = app.Span().Body(verdictBadge(g.Claimed), levelNote(words.LevelBeside(g.Claimed, g.ClaimedLevel)))
		}
		reason := app.UI(app.Text(g.Reason))
		if g.Overclaim {
			reason = app.Span().Body(
				app.Span().Class("overclaim-note").Text("Overclaim: the bundle claims more than its evidence shows. "),
				app.Text(g.Reason),
			)
		}
		row := app.Tr().ID("gate-"+rowID(g.ID)).Class("gate-row").Body(
			app.Th().Scope("row").Body(app.Code().Text(g.ID)),
			app.Td().Class("gate-claimed").Body(claimed),
			app.Td().Class("gate-derived").Body(verdictBadge(g.Derived), levelNote(words.LevelBeside(g.Derived, g.Level))),
			app.Td().Class("gate-reason").Body(reason),
		)
		if g.Overclaim {
			row = row.Class("overclaim")
		}
		gateRows = append(gateRows, row)
	}
	invRows := make([]app.UI, 0, len(p.Invariants))
	for _, inv := range p.Invariants {
		checked := ""
		if inv.CheckedN != nil {
			checked = strconv.Itoa(*inv.CheckedN)
		}
		row := app.Tr().ID("inv-"+rowID(inv.ID)).Class("inv-row").Body(
			app.Th().Scope("row").Body(app.Code().Text(inv.ID)),
			app.Td().Class("inv-claimed").Body(heldBadge(inv.Claimed)),
			app.Td().Class("inv-derived").Body(heldBadge(inv.Derived)),
			app.Td().Text(checked),
			app.Td().Body(app.If(inv.Overclaim, func() app.UI {
				return app.Span().Class("overclaim-note").Text("Overclaim: claimed held, the evidence does not show it. ")
			}), app.Text(inv.Detail)),
		)
		if inv.Overclaim {
			row = row.Class("overclaim")
		}
		invRows = append(invRows, row)
	}
	return app.Section().Class("panel conformance").ID("conformance").Aria("labelledby", "conformance-heading").Body(
		app.H2().ID("conformance-heading").Text("Conformance"),
		app.P().Class("overall").Body(
			app.Span().Class("overall-label").Text("Overall verdict "),
			app.Span().ID("overall-verdict").Body(verdictBadge(p.Verdict)),
			app.Span().Class("muted").Body(
				app.Text(" — claimed "), app.Span().ID("overall-claimed").Body(verdictBadge(p.Claimed)),
				app.Text(", re-verified "), app.Span().ID("overall-derived").Body(verdictBadge(p.Derived)),
			),
		),
		app.If(p.Verdict != skill.VerdictPass, func() app.UI {
			return app.P().Class("overall-note").Text("This bundle has not proved what it describes: only pass is a proof.")
		}),
		app.If(len(p.Overclaims) > 0, func() app.UI {
			items := make([]app.UI, len(p.Overclaims))
			for i, o := range p.Overclaims {
				items[i] = app.Li().Body(verdictBadge(skill.VerdictFail), app.Text(" "+o.String()))
			}
			return app.Div().Class("status status-error").ID("overclaims").Role("alert").Body(
				app.P().Text("The bundle's embedded proof overclaims; each overclaim counts as a failure:"),
				app.Ul().Body(items...),
			)
		}),
		app.Table().Class("list gates").ID("gates").Body(
			app.Caption().Text("Proof gates: the bundle's claim beside the verdict re-derived from its evidence"),
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Gate"), app.Th().Scope("col").Text("Claimed"),
				app.Th().Scope("col").Text("Re-verified"), app.Th().Scope("col").Text("Reason"),
			)),
			app.TBody().Body(gateRows...),
		),
		app.Table().Class("list invariants").ID("invariants").Body(
			app.Caption().Text("Invariants"),
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Invariant"), app.Th().Scope("col").Text("Claimed"),
				app.Th().Scope("col").Text("Re-verified"), app.Th().Scope("col").Text("Checked"),
				app.Th().Scope("col").Text("Detail"),
			)),
			app.TBody().Body(invRows...),
		),
	)
}

// heldBadge shows an invariant's held value: held reads as a pass, not
// held as a failure, n/a as neutral; nothing claimed is said in words.
func heldBadge(h string) app.UI {
	switch h {
	case "held":
		return app.Span().Class("verdict verdict-pass").Title("the invariant held").Text("held")
	case "not held":
		return app.Span().Class("verdict verdict-fail").Title("the invariant did not hold").Text("not held")
	case skill.VerdictNotApplicable:
		return verdictBadge(skill.VerdictNotApplicable)
	case "":
		return app.Span().Class("muted").Text("not claimed")
	}
	return verdictBadge(h)
}

// levelNote shows a fidelity level next to a gate verdict; callers pass
// words.LevelBeside, so that a level repeating the verdict is not shown.
func levelNote(level string) app.UI {
	if level == "" {
		return app.Text("")
	}
	return app.Span().Body(app.Text(" "), levelBadge(level))
}

// levelBadge shows a fidelity level of spec §5.5 literally. failed and
// inconclusive each look different from the levels a passing replay
// reaches, and from each other; an unknown level is shown as such.
func levelBadge(level string) app.UI {
	class, title := "level-unknown", "not a fidelity level the workbench knows"
	switch level {
	case skill.LevelExact:
		class, title = "level-exact", "exact: every state hash matched byte for byte"
	case skill.LevelStructural:
		class, title = "level-structural", "structural: shapes, edges and action types matched"
	case skill.LevelSemantic:
		class, title = "level-semantic", "semantic: a judge confirmed equivalent output"
	case skill.LevelFailed:
		class, title = "level-failed", "failed: the replay halted or an invariant did not hold"
	case skill.LevelInconclusive:
		class, title = "level-inconclusive", "inconclusive: the verifier could not assign a level"
	}
	text := level
	if text == "" {
		text = "(none)"
	}
	return app.Span().Class("level " + class).Title(title).Text(text)
}

// rowID turns a gate or invariant id into an element id fragment.
func rowID(id string) string {
	out := []byte(id)
	for i, c := range out {
		if c == '.' || c == '/' {
			out[i] = '-'
		}
	}
	return string(out)
}
