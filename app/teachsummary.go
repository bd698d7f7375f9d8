package main

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
	"workbench/pkg/words"
)

// summarize asks the teach flow what the finished recording amounts to: its
// denials, errors and cost, and the verdict the verifier gives the bundle
// the draft would seal. Verifying takes a moment in the browser, so it
// runs off the event loop; the page shows the answer when it comes.
func (p *teachPage) summarize(ui app.Context, r *teachRun) {
	m := r.draft
	ui.Async(func() {
		s, err := p.env.flows.SummarizeTaught(ui, r.taught, m)
		ui.Dispatch(func(app.Context) { r.summary, r.summaryErr = &s, err })
	})
}

// renderSummary is the summary shown above the draft, before Save: a
// headline such as "2 actions denied, 1 error — this skill will fail
// gate.authority", the counts with the steps they concern, the cost and
// the would-be verdict with the reason of each gate that fails.
func (p *teachPage) renderSummary() app.UI {
	r := p.run
	head := app.H3().ID("teach-summary-heading").Text("What was recorded")
	switch {
	case r.summaryErr != nil:
		return app.Section().ID("teach-summary").Class("teach-summary status status-error").Aria("labelledby", "teach-summary-heading").Body(
			head, app.P().Text("The verifier could not judge the draft: "),
			app.P().ID("teach-summary-error").Class("error-text").Text(r.summaryErr.Error()))
	case r.summary == nil:
		return app.Section().ID("teach-summary").Class("teach-summary status status-pending").Aria("labelledby", "teach-summary-heading").Body(
			head, app.P().Role("status").Text("Running the verifier on the draft…"))
	}
	s := r.summary
	look := "status-ok"
	if len(s.Failing) > 0 || len(s.Denied) > 0 || len(s.Errors) > 0 {
		look = "status-error"
	}
	var gates []app.UI
	for _, g := range append(append([]skill.Gate{}, s.Failing...), s.Pending...) {
		gates = append(gates, app.Li().Body(verdictBadge(g.Verdict), app.Text(" "), app.Code().Text(g.ID), app.Text(": "+g.Reason)))
	}
	return app.Section().ID("teach-summary").Class("teach-summary status "+look).Aria("labelledby", "teach-summary-heading").Body(
		head,
		app.P().ID("teach-summary-headline").Class("teach-summary-headline").Text(s.Headline()),
		app.Dl().Class("facts").Body(
			app.Dt().Text("Actions"), app.Dd().ID("summary-edges").Text(strconv.Itoa(s.Edges)),
			app.Dt().Text("Denied"), app.Dd().ID("summary-denied").Text(stepList(s.Denied)),
			app.Dt().Text("Errors"), app.Dd().ID("summary-errors").Text(stepList(s.Errors)),
			app.Dt().Text("Model cost"), app.Dd().ID("summary-cost").Text(runCostText(s.CostUSD, s.CostKnown)),
			app.Dt().Text("Verdict if saved"), app.Dd().ID("summary-verdict").Body(verdictBadge(s.Verdict)),
		),
		app.If(len(gates) > 0, func() app.UI { return app.Ul().ID("summary-gates").Class("problems").Body(gates...) }),
	)
}

// stepList is a count and the edges it concerns: "none", or
// "2 (edges 1, 2)".
func stepList(edges []int) string {
	if len(edges) == 0 {
		return "none"
	}
	ids := make([]string, len(edges))
	for i, e := range edges {
		ids[i] = strconv.Itoa(e)
	}
	word := "edges "
	if len(edges) == 1 {
		word = "edge "
	}
	return strconv.Itoa(len(edges)) + " (" + word + strings.Join(ids, ", ") + ")"
}

// runCostText is a run's model cost: the sum, or that it was not reported
// with what the replies that did report it add up to.
func runCostText(usd float64, known bool) string {
	if !known {
		return "not reported (a model reply carried no cost; the replies that did add up to " + words.USD(usd) + ")"
	}
	return words.USD(usd)
}
