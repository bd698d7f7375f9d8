package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/pulse"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// timelineMaxShown caps the text of one tool result or argument list in the
// timeline; the whole of it is in the saved bundle.
const timelineMaxShown = 4000

// renderTimeline is the live PULSE timeline: the five phases of the
// workbench loop, each marked reached or not by what really happened, and
// every step of the demonstration as it was reported, with each action's
// tool call, authorization decision and outcome.
func (p *teachPage) renderTimeline() app.UI {
	r := p.run
	phases := make([]app.UI, 0, 5)
	for _, ph := range pulse.Phases() {
		class, state := "pulse-pending", "not reached"
		switch {
		case ph == r.current && r.stage == stageRunning:
			class, state = "pulse-current", "now"
		case r.reached[ph]:
			class, state = "pulse-done", "reached"
		}
		phases = append(phases, app.Li().Class("pulse-phase "+class).Body(
			app.Span().Class("pulse-name").Text(string(ph)),
			app.Span().Class("pulse-state").Text(state),
		))
	}
	steps := make([]app.UI, 0, len(r.steps))
	for i, s := range r.steps {
		steps = append(steps, renderTimelineStep(i, s))
	}
	return app.Section().ID("teach-timeline").Class("panel").Aria("labelledby", "timeline-heading").Body(
		app.H2().ID("timeline-heading").Text("Timeline"),
		app.Ol().ID("pulse-phases").Class("pulse-phases").Aria("label", "PULSE phases").Body(phases...),
		p.renderCost(),
		renderFlags(r.steps),
		app.If(len(steps) == 0 && r.stage == stageRunning, func() app.UI {
			return app.P().Class("muted").Role("status").Text("Starting…")
		}),
		// Scrollable, so focusable: keyboard users scroll it too.
		app.If(len(r.events) > 0, func() app.UI { return renderTimelineEvents(r.events) }),
		app.Ol().ID("timeline-steps").Class("timeline").TabIndex(0).Aria("label", "Steps").Aria("live", "polite").Body(steps...),
	)
}

// renderCost shows the running cost, or says it was not reported.
func (p *teachPage) renderCost() app.UI {
	r := p.run
	text := words.USD(r.cost) + " so far"
	if r.result != nil {
		text = runCostText(r.result.CostUSD, r.result.CostKnown)
	}
	return app.P().Body(app.Strong().Text("Model cost: "), app.Span().ID("teach-cost").Text(text))
}

func renderTimelineStep(i int, s workbench.TeachProgress) app.UI {
	mark := stepMark(s)
	head := app.Div().Class("step-head").Body(
		app.Span().Class("step-no").Text("step "+strconv.Itoa(s.Step+1)),
		app.Span().Class("step-phase").Text(string(s.Phase)),
		app.If(mark != "", func() app.UI { return app.Span().Class("step-flag step-flag-" + mark).Text(mark) }),
		app.Span().Class("step-pulse muted").Text("PULSE "+string(teach.PulsePhase(s.Phase))),
	)
	class := "step step-" + string(s.Phase)
	if mark != "" {
		class += " step-marked step-" + mark
	}
	li := app.Li().ID("step-" + strconv.Itoa(i)).Class(class)
	if s.Edge == nil {
		return li.Body(head, app.P().Class("step-detail").Text(s.Detail))
	}
	return li.Body(head, renderTimelineEdge(s.Edge))
}

// stepMark is how a step reads (teach.Mark): "denied", "error" or "".
func stepMark(s workbench.TeachProgress) string {
	if s.Edge == nil {
		return ""
	}
	return teach.Mark(*s.Edge)
}

// renderFlags counts the marked steps above the list, so a denial or an
// error is seen without scrolling for it.
func renderFlags(steps []workbench.TeachProgress) app.UI {
	denied, failed := 0, 0
	for _, s := range steps {
		switch stepMark(s) {
		case teach.MarkDenied:
			denied++
		case teach.MarkError:
			failed++
		}
	}
	text := teach.Tally(denied, failed)
	if text == "" {
		return nil
	}
	return app.P().ID("timeline-flags").Class("status status-error").Text(text + " so far — marked in the steps below.")
}

// followTimeline keeps the newest step in view: after the render that
// adds a step, the list scrolls to its end, unless the user has scrolled
// up to read an earlier one.
func followTimeline(ctx app.Context) {
	el := app.Window().GetElementByID("timeline-steps")
	if el.Truthy() && el.Get("scrollHeight").Int()-el.Get("scrollTop").Int()-el.Get("clientHeight").Int() > 48 {
		return
	}
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID("timeline-steps"); el.Truthy() {
			el.Set("scrollTop", el.Get("scrollHeight"))
		}
	})
}

// renderEdge shows one recorded action: the concrete tool call, the policy
// decision with its reason, and what the body answered, all as text.
func renderTimelineEdge(e *skill.Edge) app.UI {
	args, err := json.Marshal(e.Tool.Arguments)
	if err != nil {
		args = []byte(err.Error())
	}
	decision, reason, policyID := "none", "no authorization block", ""
	if a := e.Authorization; a != nil {
		decision, reason, policyID = a.Decision, a.Reason, a.PolicyID
	}
	decisionClass := "decision decision-deny"
	if decision == skill.DecisionAllow {
		decisionClass = "decision decision-allow"
	}
	return app.Div().Class("edge").Body(
		app.Dl().Class("facts").Body(
			app.Dt().Text("Edge"), app.Dd().Class("edge-index").Text(strconv.Itoa(e.Index)),
			app.Dt().Text("Tool"), app.Dd().Class("edge-tool").Body(app.Code().Text(e.Tool.Server+" · "+e.Tool.Name)),
			app.Dt().Text("Arguments"), app.Dd().Body(app.Code().Class("edge-args").Text(timelineClip(string(args)))),
			app.Dt().Text("Capability"), app.Dd().Class("edge-capability").Text(e.Capability),
			app.Dt().Text("Authorization"), app.Dd().Class("edge-auth").Body(
				app.Span().Class(decisionClass).Text(decision),
				app.Text(" · "+reason),
				app.If(policyID != "", func() app.UI { return app.Span().Class("muted").Text(" (" + policyID + ")") }),
			),
			app.Dt().Text("Outcome"), app.Dd().Class("edge-outcome").Text(e.OutcomeStatus),
			app.Dt().Text("State"), app.Dd().Class("edge-hashes").Body(
				app.Code().Text(e.StateBefore), app.Text(" → "), app.Code().Text(e.StateAfter)),
		),
		app.Pre().Class("edge-observed").TabIndex(0).Aria("label", "What the body answered").Text(timelineClip(timelineObserved(e.ObservedOutcome))),
	)
}

// observedText is what the body answered, as text.
func timelineObserved(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func timelineClip(s string) string {
	if len(s) <= timelineMaxShown {
		return s
	}
	n := timelineMaxShown
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes)", len(s)-n)
}

// renderTimelineEvents lists the PULSE events the run's recorder holds,
// the record the bundle will carry, beside the live steps.
func renderTimelineEvents(events []skill.Event) app.UI {
	items := make([]app.UI, 0, len(events))
	for _, ev := range events {
		items = append(items, app.Li().Body(app.Code().Text(ev.Type), app.Span().Class("muted").Text(" "+ev.Time)))
	}
	return app.Details().ID("pulse-events").Body(
		app.Summary().Text(strconv.Itoa(len(events))+" PULSE events recorded"),
		app.Ol().Class("pulse-events").Body(items...),
	)
}
