package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
	"workbench/pkg/skillpage"
	"workbench/pkg/words"
)

// auditState is the Audit tab: a trace viewer. The step list shows one
// page of steps; the selected step's detail (skillpage.DetailOf) is made
// when it is picked. The other views (events, authorization blocks, tool
// calls, transcript) are paged the same way, so the tab's work does not
// grow with the bundle: opening it on a 20 MB bundle renders one page.
type auditState struct {
	view   string         // steps, events, auth, tools, transcript
	page   map[string]int // the page shown of each view
	detail *skillpage.Detail
	// shown is the long texts of the selected step opened with "Show
	// all", by element id; a new selection closes them.
	shown map[string]bool
}

// auditPageSize is how many rows a page of any audit list holds: enough
// to scan, few enough that rendering one page never blocks the tab (each
// element go-app creates is a few calls from WebAssembly into the page).
const auditPageSize = 50

// Long texts of a step (JSON, snapshots) show this much until "Show all".
const (
	clipLines = 24
	clipChars = 2000
)

// The views of the Audit tab, in order.
var auditViews = [...]struct{ id, label string }{
	{"steps", "Steps"},
	{"events", "Events"},
	{"auth", "Authorizations"},
	{"tools", "Tool calls"},
	{"transcript", "Transcript"},
}

// renderAudit is the Audit tab (spec §2.1): the trace as steps, each
// with its call, answer, observations, state, authorization, events and
// time; and every PULSE event, every authorization block, every tool
// call's hashes and the transcript, from the bundle alone.
func (p *skillPage) renderAudit() app.UI {
	a := p.audit
	if a == nil {
		return app.P().Text("Reading the bundle…")
	}
	view := orText(p.auditUI.view, "steps")
	counts := map[string]int{
		"steps": len(a.Steps), "events": len(p.bundle.Evidence.Events), "auth": len(a.Authorizations),
		"tools": len(a.ToolCalls), "transcript": len(p.bundle.Evidence.Transcript),
	}
	buttons := make([]app.UI, len(auditViews))
	for i, v := range auditViews {
		buttons[i] = app.Button().Type("button").ID("audit-view-"+v.id).Class("secondary audit-view").
			Aria("pressed", strconv.FormatBool(v.id == view)).
			Text(fmt.Sprintf("%s (%d)", v.label, counts[v.id])).OnClick(p.onAuditView(v.id))
	}
	var body app.UI
	switch view {
	case "events":
		body = p.renderAuditEvents()
	case "auth":
		body = p.renderAuditAuth()
	case "tools":
		body = p.renderAuditTools()
	case "transcript":
		body = p.renderAuditTranscript()
	default:
		body = p.renderSteps()
	}
	scope := make([]app.UI, 0, 2*len(a.Scope))
	for _, kv := range a.Scope {
		scope = append(scope, app.Dt().Text(kv.Key), app.Dd().Body(app.Code().Text(kv.Value)))
	}
	return app.Div().Body(
		app.H2().Text("Audit"),
		app.Details().Class("audit-scope").Body(
			app.Summary().Text("Authorization in scope"),
			app.If(len(scope) == 0, func() app.UI { return app.P().Text("The bundle records no authorization scope.") }).
				Else(func() app.UI { return app.Dl().Class("facts").ID("audit-scope").Body(scope...) }),
		),
		app.Div().Class("audit-views").Role("group").Aria("label", "What to audit").Body(buttons...),
		body,
	)
}

func (p *skillPage) onAuditView(id string) app.EventHandler {
	return func(ctx app.Context, e app.Event) { p.auditUI.view = id }
}

// onAuditPage shows page n of view.
func (p *skillPage) onAuditPage(view string, n int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if p.auditUI.page == nil {
			p.auditUI.page = map[string]int{}
		}
		p.auditUI.page[view] = n
	}
}

// pager is the "rows a–b of n" line of a paged view, with previous and
// next page buttons when there is more than one page.
func (p *skillPage) pager(view, noun string, w skillpage.Window, n int) app.UI {
	text := "No " + noun + "s recorded."
	if n > 0 {
		text = fmt.Sprintf("%s %d–%d of %d", strings.ToUpper(noun[:1])+noun[1:]+"s", w.Start+1, w.End, n)
	}
	return app.Div().Class("audit-pager field-row").Body(
		app.Span().ID("audit-"+view+"-range").Aria("live", "polite").Text(text),
		app.If(w.Pages > 1, func() app.UI {
			return app.Span().Class("field-row").Body(
				app.Button().Type("button").Class("secondary").ID("audit-"+view+"-prev").Disabled(w.Page == 0).
					Text(fmt.Sprintf("Previous %d", auditPageSize)).OnClick(p.onAuditPage(view, w.Page-1)),
				app.Button().Type("button").Class("secondary").ID("audit-"+view+"-next").Disabled(w.Page == w.Pages-1).
					Text(fmt.Sprintf("Next %d", auditPageSize)).OnClick(p.onAuditPage(view, w.Page+1)),
			)
		}),
	)
}

func (p *skillPage) window(view string, n int) skillpage.Window {
	return skillpage.PageOf(n, auditPageSize, p.auditUI.page[view])
}

// renderSteps is the trace viewer: the page of steps beside the selected
// step's detail.
func (p *skillPage) renderSteps() app.UI {
	steps := p.audit.Steps
	w := p.window("steps", len(steps))
	items := make([]app.UI, 0, w.End-w.Start)
	for _, s := range steps[w.Start:w.End] {
		selected := p.edge != nil && *p.edge == s.Index
		class := "audit-step"
		switch {
		case s.Decision != "" && s.Decision != skill.DecisionAllow:
			class += " step-denied"
		case s.Outcome == skill.OutcomeError:
			class += " step-error"
		}
		if s.Surprise {
			class += " step-surprise"
		}
		if selected {
			class += " audit-edge-selected"
		}
		items = append(items, app.Li().ID("audit-edge-"+strconv.Itoa(s.Index)).Class(class).Body(
			// A toggle: aria-pressed says whether it is the selected step.
			// One text node a row: a page of steps is created fast.
			app.Button().Type("button").Class("audit-edge-select").Aria("pressed", strconv.FormatBool(selected)).
				OnClick(p.onSelectEdge(s.Index), app.EventScope(strconv.Itoa(s.Index))).Text(stepLine(s)),
		))
	}
	return app.Div().Class("trace-viewer").Body(
		app.Div().Class("trace-steps").Body(
			app.H3().ID("audit-steps-heading").Text("Steps of trace "+p.bundle.Trace.TraceID),
			p.pager("steps", "step", w, len(steps)),
			app.Ol().Class("step-list").ID("audit-edges").Aria("labelledby", "audit-steps-heading").OnKeyDown(p.onStepKey).Body(items...),
		),
		p.renderStepDetail(),
	)
}

// stepLine is one step of the list in words: "3 browser_click · ok ·
// state changed", with a denial, an error and a surprise said.
func stepLine(s skillpage.Step) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.Index) + " " + s.Tool + " · " + words.Outcome(s.Outcome))
	if s.Decision != "" && s.Decision != skill.DecisionAllow && s.Outcome != skill.OutcomeDenied {
		b.WriteString(" · " + words.Decision(s.Decision))
	}
	if s.Surprise {
		b.WriteString(" · surprise")
	}
	if s.Changed {
		b.WriteString(" · state changed")
	} else {
		b.WriteString(" · state unchanged")
	}
	return b.String()
}

// onSelectEdge selects the step of edge i and makes its detail, or, when
// it is already selected, clears the selection; the page context (what
// the capability workbench prefills an edge field with) follows.
func (p *skillPage) onSelectEdge(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.auditUI.shown = nil
		if p.edge != nil && *p.edge == i {
			p.edge, p.auditUI.detail = nil, nil
		} else {
			p.edge = &i
			if d, ok := skillpage.DetailOf(p.bundle, i); ok {
				p.auditUI.detail = &d
			}
		}
		p.publishContext()
	}
}

// onStepKey moves the selection through the steps with the arrow keys
// (Home and End for the first and last), turning the page when the next
// step is on another, and keeps the focus on the selected step.
func (p *skillPage) onStepKey(ctx app.Context, e app.Event) {
	n := len(p.audit.Steps)
	if n == 0 {
		return
	}
	cur := -1
	if p.edge != nil {
		cur = *p.edge
	}
	next := cur
	switch e.Get("key").String() {
	case "ArrowDown":
		next = min(cur+1, n-1)
	case "ArrowUp":
		next = max(cur-1, 0)
	case "Home":
		next = 0
	case "End":
		next = n - 1
	default:
		return
	}
	e.PreventDefault()
	if next == cur {
		return
	}
	if p.auditUI.page == nil {
		p.auditUI.page = map[string]int{}
	}
	p.auditUI.page["steps"] = next / auditPageSize
	p.onSelectEdge(next)(ctx, e)
	id := "audit-edge-" + strconv.Itoa(next)
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID(id); el.Truthy() {
			if b := el.Call("querySelector", "button"); b.Truthy() {
				b.Call("focus")
			}
		}
	})
}

func (p *skillPage) onShowAll(id string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if p.auditUI.shown == nil {
			p.auditUI.shown = map[string]bool{}
		}
		p.auditUI.shown[id] = !p.auditUI.shown[id]
	}
}

// longText is a long text of the selected step, cut to its first lines
// until "Show all" is pressed. It is text, never HTML.
func (p *skillPage) longText(id, label, text string) app.UI {
	if text == "" {
		return app.P().ID(id).Class("muted").Text("(empty)")
	}
	shown, clipped := skillpage.Clip(text, clipLines, clipChars)
	open := p.auditUI.shown[id]
	if open {
		shown = text
	}
	return app.Div().Class("long-text").Body(
		app.Pre().Class("json").ID(id).TabIndex(0).Role("region").Aria("label", label).Text(shown),
		app.If(clipped, func() app.UI {
			more := fmt.Sprintf("Show all (%s, %s)", words.Count(strings.Count(text, "\n")+1, "line"), words.Count(len([]rune(text)), "character"))
			if open {
				more = "Show less"
			}
			return app.Button().Type("button").Class("secondary show-all").ID(id+"-more").
				Aria("expanded", strconv.FormatBool(open)).Aria("controls", id).Text(more).OnClick(p.onShowAll(id))
		}),
	)
}

// renderStepDetail is everything about the selected step.
func (p *skillPage) renderStepDetail() app.UI {
	d := p.auditUI.detail
	if d == nil || p.edge == nil || d.Index != *p.edge {
		return app.Section().Class("trace-detail").ID("audit-detail").Aria("label", "Selected step").Body(
			app.P().Class("muted").Text("Select a step to see its call, the body's answer, what the body showed before and after, its state, authorization, events and time."),
		)
	}
	changed := "unchanged"
	if d.Changed {
		changed = "changed"
	}
	auth := app.UI(app.P().Class("status status-error").Text("No authorization block: the step was not authorized."))
	if a := d.Authorization; a != nil {
		auth = app.Dl().Class("facts").ID("audit-detail-auth").Body(
			app.Dt().Text("Decision"), app.Dd().Body(decisionBadge(a.Decision)),
			app.Dt().Text("Policy"), app.Dd().Body(app.Code().ID("audit-detail-policy").Text(a.PolicyID),
				app.If(d.Policy != "" && a.PolicyID != d.Policy, func() app.UI {
					return app.Span().Class("status-error").Text(" — not the manifest's " + d.Policy)
				})),
			app.Dt().Text("Reason"), app.Dd().Text(a.Reason),
			app.Dt().Text("Capability · action"), app.Dd().Body(app.Code().Text(a.Capability), app.Text(" · "), app.Code().Text(a.ActionType)),
			app.Dt().Text("Authorizer"), app.Dd().Text(a.Authorizer+map[bool]string{true: " (" + a.Strength + ")", false: ""}[a.Strength != ""]),
			app.Dt().Text("Decided at"), app.Dd().Text(a.DecidedAt),
			app.Dt().Text("Block"), app.Dd().Body(app.Code().Class("hash").Text(a.BlockID)),
		)
	}
	params := make([]app.UI, 0, 2*len(d.ParamSources))
	for _, kv := range d.ParamSources {
		params = append(params, app.Dt().Body(app.Code().Text(kv.Key)), app.Dd().Text(kv.Value))
	}
	hashes := make([]app.UI, 0, len(d.ToolCalls))
	for _, tc := range d.ToolCalls {
		hashes = append(hashes, app.Li().Body(
			app.Text("request "), app.Code().Class("hash").Text(tc.RequestHash),
			app.Text(" · response "), app.Code().Class("hash").Text(tc.ResponseHash),
		))
	}
	events := make([]app.UI, len(d.Events))
	for i, ev := range d.Events {
		events[i] = app.Li().Body(
			app.Code().Text(ev.Type), app.Text(" · "+ev.Time+" "),
			app.Details().Body(app.Summary().Body(app.Code().Text(ev.Summary)),
				app.Pre().Class("json").Text(ev.Full)),
		)
	}
	replays := make([]app.UI, len(d.Replays))
	for i, r := range d.Replays {
		decision := "no decision"
		if r.Edge.Authorization != nil {
			decision = words.Decision(r.Edge.Authorization.Decision)
		}
		kinds := make([]string, len(r.Surprises))
		for j, s := range r.Surprises {
			kinds[j] = words.SurpriseKind(s.Kind)
		}
		replays[i] = app.Li().Body(
			app.Text("replay "), app.Code().Class("hash").Text(r.ReplayID),
			app.Text(fmt.Sprintf(": %s, committed %s, %s", words.Match(r.Edge.Match), words.YesNo(r.Edge.Committed), decision)),
			app.If(len(kinds) > 0, func() app.UI { return app.Strong().Text(" — surprise: " + strings.Join(kinds, ", ")) }),
			app.Text(" · observed "), hashPair(r.Edge.ObservedStateBefore, r.Edge.ObservedStateAfter),
		)
	}
	span := "no tool-call span recorded"
	if d.SpanMS >= 0 {
		span = fmt.Sprintf("%s ms (tool-call span)", words.Ratio(d.SpanMS))
	}
	return app.Section().Class("trace-detail").ID("audit-detail").Aria("labelledby", "audit-detail-heading").Body(
		app.H3().ID("audit-detail-heading").Body(
			app.Text(fmt.Sprintf("Step %d: ", d.Index)), app.Code().Text(d.Tool),
		),
		app.Dl().Class("facts").Body(
			app.Dt().Text("Outcome"), app.Dd().ID("audit-detail-outcome").Title(d.Outcome).Text(words.Outcome(d.Outcome)),
			app.Dt().Text("Server · capability"), app.Dd().Body(app.Text(d.Server+" · "), app.Code().Text(d.Capability)),
			app.Dt().Text("Edge id"), app.Dd().Body(app.Code().Class("hash").Text(d.EdgeID)),
			app.Dt().Text("Time"), app.Dd().ID("audit-detail-time").Text(d.Time),
			app.Dt().Text("Latency"), app.Dd().Text(words.Ratio(d.LatencyMS)+" ms (latency_ms) · "+span),
			app.Dt().Text("Cost"), app.Dd().ID("audit-detail-cost").Text("not recorded per step: the bundle records a run's model cost as a whole"),
		),
		app.H4().Text("Call (request)"),
		p.longText("audit-request", "Request of step "+strconv.Itoa(d.Index), d.Request),
		app.If(len(hashes) > 0, func() app.UI { return app.Ul().Class("audit-hashes").ID("audit-detail-hashes").Body(hashes...) }),
		app.H4().Text("Answer (response)"),
		p.longText("audit-response", "Response of step "+strconv.Itoa(d.Index), d.Response),
		app.Div().Class("observations").Body(
			app.Div().Body(
				app.H4().Text("Observation before"),
				app.P().Class("muted").Text("From "+d.BeforeFrom+"."),
				app.If(d.ObservationBefore != "", func() app.UI {
					return p.longText("audit-obs-before", "Observation before step "+strconv.Itoa(d.Index), d.ObservationBefore)
				}),
			),
			app.Div().Body(
				app.H4().Text("Observation after"),
				app.P().Class("muted").Text("The body's answer to this step."),
				p.longText("audit-obs-after", "Observation after step "+strconv.Itoa(d.Index), d.ObservationAfter),
			),
		),
		app.H4().Text("State"),
		app.Dl().Class("facts").ID("audit-detail-state").Body(
			app.Dt().Text("Before"), app.Dd().Body(app.Code().Class("hash").Text(orText(d.StateBefore, "(none)"))),
			app.Dt().Text("After"), app.Dd().Body(app.Code().Class("hash").Text(orText(d.StateAfter, "(none)"))),
			app.Dt().Text("State"), app.Dd().Body(app.Strong().ID("audit-detail-changed").Text(changed)),
			app.Dt().Text("Shape before → after"), app.Dd().Body(hashPair(d.ShapeBefore, d.ShapeAfter)),
		),
		app.H4().Text("Authorization"),
		auth,
		app.If(len(params) > 0, func() app.UI {
			return app.Div().Body(app.H4().Text("Where each parameter came from"), app.Dl().Class("facts").Body(params...))
		}),
		app.H4().Text("Events"),
		app.If(len(events) == 0, func() app.UI {
			return app.P().Class("muted").ID("audit-detail-events").Text("No event names this step.")
		}).Else(func() app.UI { return app.Ul().ID("audit-detail-events").Body(events...) }),
		app.H4().Text("Replays of this step"),
		app.If(len(replays) == 0, func() app.UI {
			return app.P().Class("muted").ID("audit-detail-replays").Text("No replay in this bundle.")
		}).Else(func() app.UI { return app.Ul().ID("audit-detail-replays").Body(replays...) }),
	)
}

func (p *skillPage) renderAuditEvents() app.UI {
	all := p.bundle.Evidence.Events
	w := p.window("events", len(all))
	rows := make([]app.UI, 0, w.End-w.Start)
	for i := w.Start; i < w.End; i++ {
		// Only this page's rows are put into words.
		e := skillpage.EventRowOf(all[i])
		rows = append(rows, app.Tr().Body(
			app.Td().Text(strconv.Itoa(i+1)),
			app.Td().Body(app.Code().Text(e.Type)),
			app.Td().Text(e.Time),
			app.Td().Class("event-data").Body(
				app.Details().Body(
					app.Summary().Body(app.Code().Text(e.Summary)),
					app.Pre().Class("json").TabIndex(0).Role("region").Aria("label", "Data of event "+strconv.Itoa(i+1)).Text(e.Full),
				),
			),
		))
	}
	return app.Div().Body(
		p.pager("events", "event", w, len(all)),
		auditTable("audit-events", "PULSE events (CloudEvents), in the order recorded", []string{"#", "Type", "Time", "Data"}, rows),
	)
}

func (p *skillPage) renderAuditAuth() app.UI {
	all := p.audit.Authorizations
	w := p.window("auth", len(all))
	rows := make([]app.UI, 0, w.End-w.Start)
	for _, r := range all[w.Start:w.End] {
		where := "demonstration"
		if r.Replay != "" {
			where = "replay " + r.Replay
		}
		rows = append(rows, app.Tr().Class("auth-"+r.Decision).Body(
			app.Td().Text(where),
			app.Td().Text(strconv.Itoa(r.Edge)),
			app.Td().Body(decisionBadge(r.Decision)),
			app.Td().Body(app.Code().Text(r.Capability)),
			app.Td().Body(app.Code().Text(r.ActionType)),
			app.Td().Text(r.Reason),
			app.Td().Text(r.PolicyID+" · "+r.Authorizer),
			app.Td().Body(app.Code().Class("hash").Text(r.BlockID)),
		))
	}
	return app.Div().Body(
		p.pager("auth", "authorization block", w, len(all)),
		auditTable("audit-auth", "Authorization blocks: every decision, during the demonstration and every replay",
			[]string{"Where", "Edge", "Decision", "Capability", "Action", "Reason", "Policy · authorizer", "Block"}, rows),
	)
}

func (p *skillPage) renderAuditTools() app.UI {
	all := p.audit.ToolCalls
	w := p.window("tools", len(all))
	rows := make([]app.UI, 0, w.End-w.Start)
	for _, c := range all[w.Start:w.End] {
		edge := "–"
		if c.EdgeIndex != nil {
			edge = strconv.Itoa(*c.EdgeIndex)
		}
		rows = append(rows, app.Tr().Body(
			app.Td().Text(edge),
			app.Td().Text(c.Server),
			app.Td().Body(app.Code().Text(c.Tool)),
			app.Td().Body(app.Code().Class("hash").Text(c.RequestHash)),
			app.Td().Body(app.Code().Class("hash").Text(c.ResponseHash)),
		))
	}
	return app.Div().Body(
		p.pager("tools", "tool call", w, len(all)),
		auditTable("audit-tools", "Tool calls: request and response hashes",
			[]string{"Edge", "Server", "Tool", "Request hash", "Response hash"}, rows),
	)
}

func (p *skillPage) renderAuditTranscript() app.UI {
	all := p.bundle.Evidence.Transcript
	w := p.window("transcript", len(all))
	rows := make([]app.UI, 0, w.End-w.Start)
	for _, tr := range all[w.Start:w.End] {
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
		rows = append(rows, app.Tr().Body(
			app.Td().Text(strconv.Itoa(tr.Turn)),
			app.Td().Text(tr.Role),
			app.Td().Body(content),
		))
	}
	return app.Div().Body(
		p.pager("transcript", "turn", w, len(all)),
		auditTable("audit-transcript", "Transcript: every LLM turn, as text (redacted turns say so)",
			[]string{"Turn", "Role", "Content"}, rows),
	)
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

// decisionBadge shows an authorization decision in words: allow as a
// pass, deny as a failure, anything else (approval_required) as
// undecided. The decision as recorded is its title.
func decisionBadge(d string) app.UI {
	class := "verdict-inconclusive"
	switch d {
	case skill.DecisionAllow:
		class = "verdict-pass"
	case skill.DecisionDeny:
		class = "verdict-fail"
	}
	return app.Span().Class("verdict " + class).Title(d).Text(words.Decision(d))
}
