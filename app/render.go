package main

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/capability"
)

// renderResult shows a result view the registry prepared
// (capability.Registry.Render): the table, evidence or graph renderer's
// part when one accepted the payload, the reason when it fell back to
// JSON, and the payload as JSON always, one click away. Everything is
// text: a result never becomes markup or a link to follow.
func renderResult(v capability.View) app.UI {
	head := []app.UI{app.Span().Class("pal-pill").Text("shown as " + v.Renderer)}
	if v.Status != "" {
		head = append(head, app.Span().Class("pal-pill").Text("status "+v.Status))
	}
	if v.Redacted > 0 {
		head = append(head, app.Span().Class("pal-pill").Text(fmt.Sprintf("%d secret-shaped strings masked", v.Redacted)))
	}
	body := []app.UI{app.Div().Class("pal-result-head").Body(head...)}
	if v.Fallback != "" {
		body = append(body, app.P().Class("pal-fallback").Text("Shown as JSON: "+v.Fallback+"."))
	}
	switch {
	case v.Table != nil:
		body = append(body, renderTable(v.Table))
	case v.Evidence != nil:
		body = append(body, renderEvidence(v.Evidence))
	case v.Graph != nil:
		body = append(body, renderGraph(v.Graph))
	}
	js := app.Pre().Class("pal-json").Text(v.JSON)
	if v.Renderer == capability.HintJSON {
		body = append(body, js)
	} else {
		body = append(body, app.Details().Body(app.Summary().Text("JSON"), js))
	}
	return app.Div().Class("pal-result").Body(body...)
}

func renderTable(t *capability.Table) app.UI {
	head := make([]app.UI, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = app.Th().Scope("col").Text(c)
	}
	rows := make([]app.UI, len(t.Rows))
	for i, r := range t.Rows {
		cells := make([]app.UI, len(r))
		for j, c := range r {
			cells[j] = app.Td().Text(c)
		}
		rows[i] = app.Tr().Body(cells...)
	}
	return app.Div().Class("pal-table-wrap").Body(app.Table().Class("pal-table").Body(
		app.THead().Body(app.Tr().Body(head...)),
		app.TBody().Body(rows...),
	))
}

func renderEvidence(e *capability.Evidence) app.UI {
	gates := make([]app.UI, len(e.Gates))
	for i, g := range e.Gates {
		gates[i] = app.Li().Body(
			app.Strong().Text(g.ID+": "), app.Text(g.Verdict),
			app.If(g.Reason != "", func() app.UI { return app.Span().Class("muted").Text(" — " + g.Reason) }),
		)
	}
	notes := make([]app.UI, len(e.Notes))
	for i, n := range e.Notes {
		notes[i] = app.Li().Text(n)
	}
	return app.Div().Class("pal-evidence").Body(
		app.P().Body(app.Strong().Text("Verdict: "), app.Text(e.Verdict)),
		app.If(len(gates) > 0, func() app.UI { return app.Ul().Body(gates...) }),
		app.If(len(notes) > 0, func() app.UI { return app.Ul().Class("pal-notes").Body(notes...) }),
	)
}

func renderGraph(g *capability.Graph) app.UI {
	edges := make([]app.UI, len(g.Edges))
	for i, e := range g.Edges {
		edges[i] = app.Li().Text(e[0] + " → " + e[1])
	}
	return app.Div().Class("pal-graph").Body(
		app.P().Text(fmt.Sprintf("%d nodes, %d edges", len(g.Nodes), len(g.Edges))),
		app.Ul().Body(edges...),
	)
}
