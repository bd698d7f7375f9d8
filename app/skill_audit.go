package main

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/words"
)

// renderAudit is the Audit tab (spec §2.1): every PULSE event, every
// authorization block and every tool call's request and response hash,
// from the bundle alone.
func (p *skillPage) renderAudit() app.UI {
	a := p.audit
	if a == nil {
		return app.P().Text("Reading the bundle…")
	}
	events := make([]app.UI, len(a.Events))
	for i, e := range a.Events {
		events[i] = app.Tr().Body(
			app.Td().Text(strconv.Itoa(i+1)),
			app.Td().Body(app.Code().Text(e.Type)),
			app.Td().Text(e.Time),
			app.Td().Class("event-data").Body(
				app.Details().Body(
					app.Summary().Body(app.Code().Text(e.Summary)),
					app.Pre().Class("json").TabIndex(0).Role("region").Aria("label", "Data of event "+strconv.Itoa(i+1)).Text(e.Full),
				),
			),
		)
	}
	auths := make([]app.UI, len(a.Authorizations))
	for i, r := range a.Authorizations {
		where := "demonstration"
		if r.Replay != "" {
			where = "replay " + r.Replay
		}
		auths[i] = app.Tr().Class("auth-"+r.Decision).Body(
			app.Td().Text(where),
			app.Td().Text(strconv.Itoa(r.Edge)),
			app.Td().Body(decisionBadge(r.Decision)),
			app.Td().Body(app.Code().Text(r.Capability)),
			app.Td().Body(app.Code().Text(r.ActionType)),
			app.Td().Text(r.Reason),
			app.Td().Text(r.PolicyID+" · "+r.Authorizer),
			app.Td().Body(app.Code().Class("hash").Text(r.BlockID)),
		)
	}
	calls := make([]app.UI, len(a.ToolCalls))
	for i, c := range a.ToolCalls {
		edge := "–"
		if c.EdgeIndex != nil {
			edge = strconv.Itoa(*c.EdgeIndex)
		}
		calls[i] = app.Tr().Body(
			app.Td().Text(edge),
			app.Td().Text(c.Server),
			app.Td().Body(app.Code().Text(c.Tool)),
			app.Td().Body(app.Code().Class("hash").Text(c.RequestHash)),
			app.Td().Body(app.Code().Class("hash").Text(c.ResponseHash)),
		)
	}
	turns := make([]app.UI, len(p.bundle.Evidence.Transcript))
	for i, tr := range p.bundle.Evidence.Transcript {
		// Model output is untrusted: it is shown as text, never as HTML.
		var content app.UI
		switch {
		case tr.Content != nil:
			content = app.P().Class("model-text").Text(*tr.Content)
		case tr.Redacted:
			content = app.P().Class("muted").Text("(redacted)")
		default:
			content = app.P().Class("muted").Text("(no content)")
		}
		turns[i] = app.Tr().Body(
			app.Td().Text(strconv.Itoa(tr.Turn)),
			app.Td().Text(tr.Role),
			app.Td().Body(content),
		)
	}
	edges := make([]app.UI, len(p.bundle.Trace.Edges))
	for i, e := range p.bundle.Trace.Edges {
		selected := p.edge != nil && *p.edge == e.Index
		// A toggle: its name stays, aria-pressed says whether it is on.
		label := "Select edge " + strconv.Itoa(e.Index)
		row := app.Tr().ID("audit-edge-" + strconv.Itoa(e.Index))
		if selected {
			row = row.Class("audit-edge-selected")
		}
		edges[i] = row.Body(
			app.Td().Text(strconv.Itoa(e.Index)),
			app.Td().Body(app.Code().Text(e.TypedAction.Type)),
			app.Td().Text(e.OutcomeStatus),
			app.Td().Body(app.Code().Class("hash").Text(e.EdgeID)),
			app.Td().Body(app.Button().Type("button").Class("secondary audit-edge-select").
				Aria("pressed", strconv.FormatBool(selected)).OnClick(p.onSelectEdge(e.Index), app.EventScope(strconv.Itoa(e.Index))).Text(label)),
		)
	}
	scope := make([]app.UI, 0, 2*len(a.Scope))
	for _, kv := range a.Scope {
		scope = append(scope, app.Dt().Text(kv.Key), app.Dd().Body(app.Code().Text(kv.Value)))
	}
	return app.Div().Body(
		app.H2().Text("Audit"),
		app.H3().Text("Authorization in scope"),
		app.If(len(scope) == 0, func() app.UI { return app.P().Text("The bundle records no authorization scope.") }).
			Else(func() app.UI { return app.Dl().Class("facts").ID("audit-scope").Body(scope...) }),
		auditTable("audit-edges", "Interaction trace "+p.bundle.Trace.TraceID+": its edges. The selected edge is what the capability workbench (Ctrl/⌘ K) prefills an edge field with.",
			[]string{"Edge", "Action", "Outcome", "Edge id", "Selected"}, edges),
		auditTable("audit-auth", "Authorization blocks: every decision, during the demonstration and every replay",
			[]string{"Where", "Edge", "Decision", "Capability", "Action", "Reason", "Policy · authorizer", "Block"}, auths),
		auditTable("audit-tools", "Tool calls: request and response hashes",
			[]string{"Edge", "Server", "Tool", "Request hash", "Response hash"}, calls),
		auditTable("audit-events", "PULSE events (CloudEvents), in the order recorded",
			[]string{"#", "Type", "Time", "Data"}, events),
		auditTable("audit-transcript", "Transcript: every LLM turn, as text (redacted turns say so)",
			[]string{"Turn", "Role", "Content"}, turns),
	)
}

// onSelectEdge selects the trace edge with index i, or, when it is
// already selected, clears the selection; the page context follows.
func (p *skillPage) onSelectEdge(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if p.edge != nil && *p.edge == i {
			p.edge = nil
		} else {
			p.edge = &i
		}
		p.publishContext()
	}
}

func auditTable(id, caption string, cols []string, rows []app.UI) app.UI {
	head := make([]app.UI, len(cols))
	for i, c := range cols {
		head[i] = app.Th().Scope("col").Text(c)
	}
	if len(rows) == 0 {
		rows = []app.UI{app.Tr().Body(app.Td().ColSpan(len(cols)).Text("None recorded."))}
	}
	// Focusable, so a table wider than the page scrolls from the keyboard.
	return app.Div().Class("table-scroll").TabIndex(0).Role("region").Aria("label", caption).Body(
		app.Table().Class("list audit").ID(id).Body(
			app.Caption().Text(caption),
			app.THead().Body(app.Tr().Body(head...)),
			app.TBody().Body(rows...),
		),
	)
}

// decisionBadge shows an authorization decision: allow as a pass, deny as
// a failure, anything else (approval_required) as undecided.
func decisionBadge(d string) app.UI {
	class := "verdict-inconclusive"
	switch d {
	case "allow":
		class = "verdict-pass"
	case "deny":
		class = "verdict-fail"
	}
	return app.Span().Class("verdict "+class).Title(d).Text(words.Decision(d))
}
