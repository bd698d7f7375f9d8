package main

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// What a replay did, in words, before any hash: each step's call with the
// arguments it was given on replay, what the body answered (clipped, the
// whole text one click away) and its verdict; and where the state
// diverged, the recorded answer beside the observed one with the changed
// lines marked and the tolerance it exceeded (workbench.EdgeRows).

// Clipping of a body's answer in the step list: a person sees the first
// lines and opens the rest.
const (
	answerLines = 30
	answerChars = 2400
)

// renderSteps lists the replayed steps in words.
func renderSteps(rows []workbench.EdgeRow) app.UI {
	items := make([]app.UI, 0, len(rows))
	for _, r := range rows {
		if !r.Replayed {
			continue
		}
		verdict := words.Match(r.Match)
		if r.Decision != "" {
			verdict = words.Decision(r.Decision) + " · " + verdict
		}
		call := r.Tool
		if args, err := words.CompactJSON(r.ReplayedArgs); err == nil && len(r.ReplayedArgs) > 0 {
			call += " " + args
		}
		id := "replay-step-" + strconv.Itoa(r.Index)
		items = append(items, app.Li().ID(id).Class("replay-step").Body(
			app.P().Body(
				app.Strong().Text("Step "+strconv.Itoa(r.Index)+": "),
				app.Code().Class("replay-step-call wrap").Text(call),
				app.Span().Class("replay-step-verdict match-"+r.Match).Text(" — "+verdict),
			),
			app.If(r.Saw != "", func() app.UI {
				return renderAnswer(id+"-saw", "The body answered", r.Saw)
			}),
		))
	}
	if len(items) == 0 {
		return app.If(false, nil)
	}
	return app.Div().ID("replay-steps").Body(
		app.H3().Text("What the replay did"),
		app.Ol().Class("replay-steps").Body(items...),
	)
}

// renderAnswer is a body's answer as text: its first lines, and all of it
// behind a disclosure when it is longer.
func renderAnswer(id, label, text string) app.UI {
	clip, more := words.Clip(text, answerLines, answerChars)
	return app.Div().Class("replay-answer").Body(
		app.P().Class("muted").Text(label+":"),
		app.Pre().ID(id).Class("edge-observed").TabIndex(0).Aria("label", label).Text(clip),
		app.If(more, func() app.UI {
			return app.Details().Class("replay-answer-all").Body(
				app.Summary().Text("Show all "+words.Count(strings.Count(text, "\n")+1, "line")),
				app.Pre().Class("edge-observed").TabIndex(0).Text(text),
			)
		}),
	)
}

// renderDifferences shows, for each edge whose state diverged, what was
// recorded beside what was observed.
func renderDifferences(rows []workbench.EdgeRow) app.UI {
	var out []app.UI
	for _, r := range rows {
		if r.Difference == nil {
			continue
		}
		out = append(out, renderDifference(r.Index, r.Difference))
	}
	if len(out) == 0 {
		return app.If(false, nil)
	}
	return app.Div().ID("replay-differences").Body(out...)
}

func renderDifference(edge int, d *workbench.Difference) app.UI {
	id := "replay-diff-" + strconv.Itoa(edge)
	lines := make([]app.UI, 0, len(d.Lines))
	for _, l := range d.Lines {
		cls, mark := "diff-same", "  "
		switch l.Op {
		case words.DiffRemoved:
			cls, mark = "diff-removed", "− "
		case words.DiffAdded:
			cls, mark = "diff-added", "+ "
		case words.DiffGap:
			cls, mark = "diff-gap", "… "
		}
		lines = append(lines, app.Span().Class("diff-line "+cls).Text(mark+l.Text+"\n"))
	}
	var compared app.UI
	switch {
	case d.Recorded == "":
		compared = renderAnswer(id+"-observed", "What the body showed", d.Observed)
	case len(lines) == 0:
		compared = app.P().Class("muted").Text("The body's answer reads the same as recorded; the state behind it differed.")
	default:
		compared = app.Div().Body(
			app.P().Class("muted").Text("Lines marked − were in the recorded answer, + in the answer to the replay:"),
			app.Pre().ID(id+"-lines").Class("diff").TabIndex(0).Aria("label", "Recorded answer beside the replayed one").Body(lines...),
			app.Details().Class("replay-answer-all").Body(
				app.Summary().Text("Both answers whole"),
				renderAnswer(id+"-recorded", "Recorded", d.Recorded),
				renderAnswer(id+"-observed", "On replay", d.Observed),
			),
		)
	}
	return app.Div().ID(id).Class("status status-error replay-difference").Body(
		app.P().Body(app.Strong().Text("What differed at edge "+strconv.Itoa(edge)+". "), app.Span().ID(id+"-tolerance").Text(d.Tolerance)),
		compared,
	)
}
