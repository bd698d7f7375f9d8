package main

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
	"workbench/pkg/words"
)

// auditTab is the skill page's Audit tab, a component of its own: a
// trace viewer. The step list (skill.Bundle.Steps) is made in a task of
// its own when the tab first opens and shows one page of steps; the
// selected step's detail (skill.Bundle.StepDetail, put into text by
// viewStep) is made when it is picked. The other views (events,
// authorization blocks, tool calls, transcript) are paged the same way,
// so the tab's work does not grow with the bundle: opening it on a 20 MB
// bundle renders one page.
//
// The page makes one per bundle it shows and renders that same one each
// time the tab is opened, so the view, the pages and the selection stay
// while another tab is open.
type auditTab struct {
	app.Compo
	pageTab
	bundle *skill.Bundle
	// onSelect is called when the selected step changes: the selection is
	// part of the page context the capability palette prefills forms
	// from.
	onSelect func()

	reading bool
	steps   []skill.Step // nil until read
	auths   []skill.AuthorizationAt
	scope   []keyValue

	view  string         // steps, events, auth, tools, transcript
	pages map[string]int // the page shown of each view
	// edge is the selected step's edge index, nil when none is; detail
	// is its detail.
	edge   *int
	detail *stepView
	// shown is the long texts of the selected step opened with "Show
	// all", by element id; a new selection closes them.
	shown map[string]bool
}

// selected is the edge index of the selected step, or nil.
func (a *auditTab) selected() *int {
	if a == nil {
		return nil
	}
	return a.edge
}

// OnMount reads the steps, once. The tab is shown at once; its steps
// follow, so neither blocks the page long on a large bundle.
func (a *auditTab) OnMount(ctx app.Context) {
	a.keep(ctx)
	if a.steps != nil || a.reading {
		return
	}
	a.reading = true
	b := a.bundle
	ctx.Async(func() {
		steps, auths, scope := b.Steps(), b.Authorizations(), scopeOf(b)
		a.settle(a, func() {
			a.reading, a.steps, a.auths, a.scope = false, steps, auths, scope
		})
	})
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

// Render is the Audit tab (spec §2.1): the trace as steps, each with its
// call, answer, observations, state, authorization, events and time; and
// every PULSE event, every authorization block, every tool call's hashes
// and the transcript, from the bundle alone.
func (a *auditTab) Render() app.UI {
	if a.steps == nil {
		return app.P().Text("Reading the bundle…")
	}
	view := orText(a.view, "steps")
	counts := map[string]int{
		"steps": len(a.steps), "events": len(a.bundle.Evidence.Events), "auth": len(a.auths),
		"tools": len(a.bundle.Evidence.ToolCalls), "transcript": len(a.bundle.Evidence.Transcript),
	}
	buttons := make([]app.UI, len(auditViews))
	for i, v := range auditViews {
		buttons[i] = app.Button().Type("button").ID("audit-view-"+v.id).Class("secondary audit-view").
			Aria("pressed", strconv.FormatBool(v.id == view)).
			Text(fmt.Sprintf("%s (%d)", v.label, counts[v.id])).OnClick(a.onView(v.id))
	}
	var body app.UI
	switch view {
	case "events":
		body = a.renderEvents()
	case "auth":
		body = a.renderAuth()
	case "tools":
		body = a.renderTools()
	case "transcript":
		body = a.renderTranscript()
	default:
		body = a.renderSteps()
	}
	scope := make([]app.UI, 0, 2*len(a.scope))
	for _, kv := range a.scope {
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

func (a *auditTab) onView(id string) app.EventHandler {
	return func(ctx app.Context, e app.Event) { a.view = id }
}

// onPage shows page n of view.
func (a *auditTab) onPage(view string, n int) app.EventHandler {
	return func(ctx app.Context, e app.Event) { a.setPage(view, n) }
}

func (a *auditTab) setPage(view string, n int) {
	if a.pages == nil {
		a.pages = map[string]int{}
	}
	a.pages[view] = n
}

// pager is the "rows a–b of n" line of a paged view, with previous and
// next page buttons when there is more than one page.
func (a *auditTab) pager(view, noun string, w window, n int) app.UI {
	text := "No " + noun + "s recorded."
	if n > 0 {
		text = fmt.Sprintf("%s %d–%d of %d", strings.ToUpper(noun[:1])+noun[1:]+"s", w.Start+1, w.End, n)
	}
	return app.Div().Class("audit-pager field-row").Body(
		app.Span().ID("audit-"+view+"-range").Aria("live", "polite").Text(text),
		app.If(w.Pages > 1, func() app.UI {
			return app.Span().Class("field-row").Body(
				app.Button().Type("button").Class("secondary").ID("audit-"+view+"-prev").Disabled(w.Page == 0).
					Text(fmt.Sprintf("Previous %d", auditPageSize)).OnClick(a.onPage(view, w.Page-1)),
				app.Button().Type("button").Class("secondary").ID("audit-"+view+"-next").Disabled(w.Page == w.Pages-1).
					Text(fmt.Sprintf("Next %d", auditPageSize)).OnClick(a.onPage(view, w.Page+1)),
			)
		}),
	)
}

func (a *auditTab) window(view string, n int) window {
	return pageOf(n, auditPageSize, a.pages[view])
}

// renderSteps is the trace viewer: the page of steps beside the selected
// step's detail.
func (a *auditTab) renderSteps() app.UI {
	steps := a.steps
	w := a.window("steps", len(steps))
	items := make([]app.UI, 0, w.End-w.Start)
	for _, s := range steps[w.Start:w.End] {
		selected := a.edge != nil && *a.edge == s.Index
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
				OnClick(a.onSelectEdge(s.Index), app.EventScope(strconv.Itoa(s.Index))).Text(stepLine(s)),
		))
	}
	return app.Div().Class("trace-viewer").Body(
		app.Div().Class("trace-steps").Body(
			app.H3().ID("audit-steps-heading").Text("Steps of trace "+a.bundle.Trace.TraceID),
			a.pager("steps", "step", w, len(steps)),
			app.Ol().Class("step-list").ID("audit-edges").Aria("labelledby", "audit-steps-heading").OnKeyDown(a.onStepKey).Body(items...),
		),
		a.renderStepDetail(),
	)
}

// stepLine is one step of the list in words: "3 browser_click · ok ·
// state changed", with a denial, an error and a surprise said.
func stepLine(s skill.Step) string {
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
// the capability palette prefills an edge field with) follows.
func (a *auditTab) onSelectEdge(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		a.shown = nil
		if a.edge != nil && *a.edge == i {
			a.edge, a.detail = nil, nil
		} else {
			a.edge = &i
			if d, ok := a.bundle.StepDetail(i); ok {
				v := viewStep(d)
				a.detail = &v
			}
		}
		if a.onSelect != nil {
			a.onSelect()
		}
	}
}

// onStepKey moves the selection through the steps with the arrow keys
// (Home and End for the first and last), turning the page when the next
// step is on another, and keeps the focus on the selected step.
func (a *auditTab) onStepKey(ctx app.Context, e app.Event) {
	n := len(a.steps)
	if n == 0 {
		return
	}
	cur := -1
	if a.edge != nil {
		cur = *a.edge
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
	a.setPage("steps", next/auditPageSize)
	a.onSelectEdge(next)(ctx, e)
	id := "audit-edge-" + strconv.Itoa(next)
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID(id); el.Truthy() {
			if b := el.Call("querySelector", "button"); b.Truthy() {
				b.Call("focus")
			}
		}
	})
}

func (a *auditTab) onShowAll(id string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if a.shown == nil {
			a.shown = map[string]bool{}
		}
		a.shown[id] = !a.shown[id]
	}
}

// longText is a long text of the selected step, cut to its first lines
// until "Show all" is pressed. It is text, never HTML.
func (a *auditTab) longText(id, label, text string) app.UI {
	if text == "" {
		return app.P().ID(id).Class("muted").Text("(empty)")
	}
	shown, clipped := words.Clip(text, clipLines, clipChars)
	open := a.shown[id]
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
				Aria("expanded", strconv.FormatBool(open)).Aria("controls", id).Text(more).OnClick(a.onShowAll(id))
		}),
	)
}

// renderStepDetail is everything about the selected step.
func (a *auditTab) renderStepDetail() app.UI {
	d := a.detail
	if d == nil || a.edge == nil || d.Index != *a.edge {
		return app.Section().Class("trace-detail").ID("audit-detail").Aria("label", "Selected step").Body(
			app.P().Class("muted").Text("Select a step to see its call, the body's answer, what the body showed before and after, its state, authorization, events and time."),
		)
	}
	changed := "unchanged"
	if d.Changed {
		changed = "changed"
	}
	auth := app.UI(app.P().Class("status status-error").Text("No authorization block: the step was not authorized."))
	policy := a.bundle.Manifest.DelegaticPolicyID
	if z := d.Edge.Authorization; z != nil {
		auth = app.Dl().Class("facts").ID("audit-detail-auth").Body(
			app.Dt().Text("Decision"), app.Dd().Body(decisionBadge(z.Decision)),
			app.Dt().Text("Policy"), app.Dd().Body(app.Code().ID("audit-detail-policy").Text(z.PolicyID),
				app.If(policy != "" && z.PolicyID != policy, func() app.UI {
					return app.Span().Class("status-error").Text(" — not the manifest's " + policy)
				})),
			app.Dt().Text("Reason"), app.Dd().Text(z.Reason),
			app.Dt().Text("Capability · action"), app.Dd().Body(app.Code().Text(z.Capability), app.Text(" · "), app.Code().Text(z.ActionType)),
			app.Dt().Text("Authorizer"), app.Dd().Text(z.Authorizer+map[bool]string{true: " (" + z.Strength + ")", false: ""}[z.Strength != ""]),
			app.Dt().Text("Decided at"), app.Dd().Text(z.DecidedAt),
			app.Dt().Text("Block"), app.Dd().Body(app.Code().Class("hash").Text(z.BlockID)),
		)
	}
	params := make([]app.UI, 0, 2*len(d.params))
	for _, kv := range d.params {
		params = append(params, app.Dt().Body(app.Code().Text(kv.Key)), app.Dd().Text(kv.Value))
	}
	hashes := make([]app.UI, 0, len(d.ToolCalls))
	for _, tc := range d.ToolCalls {
		hashes = append(hashes, app.Li().Body(
			app.Text("request "), app.Code().Class("hash").Text(tc.RequestHash),
			app.Text(" · response "), app.Code().Class("hash").Text(tc.ResponseHash),
		))
	}
	events := make([]app.UI, len(d.events))
	for i, ev := range d.events {
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
			app.Dt().Text("Server · capability"), app.Dd().Body(app.Text(d.Edge.Tool.Server+" · "), app.Code().Text(d.Edge.Capability)),
			app.Dt().Text("Edge id"), app.Dd().Body(app.Code().Class("hash").Text(d.Edge.EdgeID)),
			app.Dt().Text("Time"), app.Dd().ID("audit-detail-time").Text(d.Time),
			app.Dt().Text("Latency"), app.Dd().Text(words.Ratio(d.Edge.LatencyMS)+" ms (latency_ms) · "+span),
			app.Dt().Text("Cost"), app.Dd().ID("audit-detail-cost").Text("not recorded per step: the bundle records a run's model cost as a whole"),
		),
		app.H4().Text("Call (request)"),
		a.longText("audit-request", "Request of step "+strconv.Itoa(d.Index), d.request),
		app.If(len(hashes) > 0, func() app.UI { return app.Ul().Class("audit-hashes").ID("audit-detail-hashes").Body(hashes...) }),
		app.H4().Text("Answer (response)"),
		a.longText("audit-response", "Response of step "+strconv.Itoa(d.Index), d.response),
		app.Div().Class("observations").Body(
			app.Div().Body(
				app.H4().Text("Observation before"),
				app.P().Class("muted").Text("From "+d.beforeFrom+"."),
				app.If(d.before != "", func() app.UI {
					return a.longText("audit-obs-before", "Observation before step "+strconv.Itoa(d.Index), d.before)
				}),
			),
			app.Div().Body(
				app.H4().Text("Observation after"),
				app.P().Class("muted").Text("The body's answer to this step."),
				a.longText("audit-obs-after", "Observation after step "+strconv.Itoa(d.Index), d.after),
			),
		),
		app.H4().Text("State"),
		app.Dl().Class("facts").ID("audit-detail-state").Body(
			app.Dt().Text("Before"), app.Dd().Body(app.Code().Class("hash").Text(orText(d.Edge.StateBefore, "(none)"))),
			app.Dt().Text("After"), app.Dd().Body(app.Code().Class("hash").Text(orText(d.Edge.StateAfter, "(none)"))),
			app.Dt().Text("State"), app.Dd().Body(app.Strong().ID("audit-detail-changed").Text(changed)),
			app.Dt().Text("Shape before → after"), app.Dd().Body(hashPair(d.Edge.ShapeBefore, d.Edge.ShapeAfter)),
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

func (a *auditTab) renderEvents() app.UI {
	all := a.bundle.Evidence.Events
	w := a.window("events", len(all))
	rows := make([]app.UI, 0, w.End-w.Start)
	for i := w.Start; i < w.End; i++ {
		// Only this page's rows are put into words.
		e := eventRowOf(all[i])
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
		a.pager("events", "event", w, len(all)),
		auditTable("audit-events", "PULSE events (CloudEvents), in the order recorded", []string{"#", "Type", "Time", "Data"}, rows),
	)
}

func (a *auditTab) renderAuth() app.UI {
	all := a.auths
	w := a.window("auth", len(all))
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
		a.pager("auth", "authorization block", w, len(all)),
		auditTable("audit-auth", "Authorization blocks: every decision, during the demonstration and every replay",
			[]string{"Where", "Edge", "Decision", "Capability", "Action", "Reason", "Policy · authorizer", "Block"}, rows),
	)
}

func (a *auditTab) renderTools() app.UI {
	all := a.bundle.Evidence.ToolCalls
	w := a.window("tools", len(all))
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
		a.pager("tools", "tool call", w, len(all)),
		auditTable("audit-tools", "Tool calls: request and response hashes",
			[]string{"Edge", "Server", "Tool", "Request hash", "Response hash"}, rows),
	)
}

func (a *auditTab) renderTranscript() app.UI {
	all := a.bundle.Evidence.Transcript
	w := a.window("transcript", len(all))
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
		a.pager("transcript", "turn", w, len(all)),
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

// stepView is a step's detail put into text once, when the step is
// selected, so that rendering the tab again converts nothing: the call
// and the answer as indented JSON, the observations as snapshot text
// (words.Snapshot), the parameter sources sorted, the events as rows.
type stepView struct {
	skill.StepDetail
	request, response string
	// before is what the body showed before the step (the answer to the
	// step before), "" for the first step; beforeFrom says where it
	// comes from.
	before, beforeFrom string
	after              string
	params             []keyValue
	events             []eventRow
}

func viewStep(d skill.StepDetail) stepView {
	v := stepView{
		StepDetail: d,
		request:    jsonText(d.Edge.Tool),
		response:   jsonText(d.Edge.ObservedOutcome),
		after:      words.Snapshot(d.Edge.ObservedOutcome),
		beforeFrom: "not recorded: the bundle keeps the state before the first step as a hash only",
	}
	if d.Before != nil {
		v.before = words.Snapshot(d.Before.ObservedOutcome)
		v.beforeFrom = "the body's answer to step " + strconv.Itoa(d.Before.Index)
	}
	for _, p := range slices.Sorted(maps.Keys(d.Edge.ParamSources)) {
		v.params = append(v.params, keyValue{Key: p, Value: d.Edge.ParamSources[p]})
	}
	for _, ev := range d.Events {
		v.events = append(v.events, eventRowOf(ev))
	}
	return v
}

// keyValue is one member of an open object, its value as text.
type keyValue struct{ Key, Value string }

// scopeOf is evidence.authorization, the authorization in scope for the
// whole run (policy, approver, principal), as key/value pairs sorted by
// key, each value as compact JSON.
func scopeOf(b *skill.Bundle) []keyValue {
	out := make([]keyValue, 0, len(b.Evidence.Authorization))
	for _, k := range slices.Sorted(maps.Keys(b.Evidence.Authorization)) {
		v, err := words.CompactJSON(b.Evidence.Authorization[k])
		if err != nil {
			v = "(cannot be shown: " + err.Error() + ")"
		}
		out = append(out, keyValue{Key: k, Value: v})
	}
	return out
}

// eventRow is one CloudEvents envelope of evidence.events as a row.
type eventRow struct {
	Type    string
	Time    string
	Summary string // the event's data as compact JSON, cut at summaryLen
	Full    string // the event's data as indented JSON
}

// summaryLen is how many characters of an event's data a summary keeps.
const summaryLen = 200

// eventRowOf is one event as a row: its data as compact JSON cut at
// summaryLen, and as indented JSON, & and < as written.
func eventRowOf(e skill.Event) eventRow {
	compact, err := words.CompactJSON(e.Data)
	if err != nil {
		compact = "(data cannot be shown: " + err.Error() + ")"
	}
	if utf8.RuneCountInString(compact) > summaryLen {
		compact = string([]rune(compact)[:summaryLen]) + "…"
	}
	return eventRow{Type: e.Type, Time: e.Time, Summary: compact, Full: jsonText(e.Data)}
}

// jsonText is v as indented JSON, or why it cannot be shown.
func jsonText(v any) string {
	s, err := words.JSON(v)
	if err != nil {
		return "(cannot be shown: " + err.Error() + ")"
	}
	return s
}

// window is the part of a list of n items that page Page (from 0) of a
// given size shows: [Start, End), with Pages pages in all.
type window struct {
	Start, End, Page, Pages int
}

// pageOf is page p of a list of n items, size a page; p is held within
// the pages there are.
func pageOf(n, size, p int) window {
	if size < 1 {
		size = 1
	}
	pages := (n + size - 1) / size
	if pages < 1 {
		pages = 1
	}
	p = max(0, min(p, pages-1))
	return window{Start: p * size, End: min(n, (p+1)*size), Page: p, Pages: pages}
}
