package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/body"
	"workbench/pkg/schemaform"
	"workbench/pkg/session"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/teach"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// replayPage replays a stored skill against a new input
// (/skills/{id}/replay, spec §3 step 3): a form from the manifest's
// inputs, the recorded edges beside the replayed ones as they run, the
// surprises with their predicted and actual hashes, the status, fidelity
// and level, and "Save as new bundle".
//
// The body is the simulator world the skill was taught in; every action
// is re-authorized under the skill's policy, and parameters a model chose
// are chosen again, live, through the proxy with the tab's key.
type replayPage struct {
	app.Compo
	env *env

	ownContext
	skillRead
	bundle *skill.Bundle

	keyState session.KeyState // the session's OpenRouter key, shown with the form

	fields    []replayField
	fieldErrs map[string]string
	formErr   error
	model     string

	running bool
	edges   []skill.ReplayEdge
	result  *workbench.ReplayResult
	runErr  error

	// Authorization (spec OQ-2) and the opt-in judge (replay_mcp.go).
	outcome     replayOutcome // the last run, or why delegatic-mcp could not authorize it
	prism       bool          // the relay names prism-eval
	prismErr    error         // the relay could not be asked
	judgeWanted bool          // "judge with PRISM" is ticked

	saving  bool
	saveErr error
	saved   *store.Skill
}

// replayField is one input of the form: the manifest's declaration and
// the text in the field.
type replayField struct {
	spec skill.InputSpec
	raw  string
}

func (p *replayPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Replay · Skill Workbench")
	*p = replayPage{Compo: p.Compo, ownContext: ownContext{ctx}, env: p.env, skillRead: skillRead{id: skillIDOf(ctx.Page().URL().Path)}}
	id := p.id
	p.publishContext()
	if st, err := p.env.sessionStorage(); err == nil {
		p.keyState, _ = st.KeyState()
	}
	ctx.Async(func() {
		ok, err := p.env.prismConfigured(ctx)
		ctx.Dispatch(func(app.Context) { p.prism, p.prismErr = ok, err })
	})
	ctx.Async(func() {
		l, err := p.env.loadSkill(ctx, id, 0, func() { ctx.Dispatch(func(app.Context) { p.blocked = true }) })
		ctx.Dispatch(func(ctx app.Context) {
			if p.readFailed(ctx, err) {
				return
			}
			p.bundle = l.bundle
			for _, in := range l.bundle.Manifest.Inputs {
				raw := ""
				if v, ok := l.bundle.Evidence.Scenario.Inputs[in.Name]; ok {
					raw = teach.ExampleText(v)
				}
				p.fields = append(p.fields, replayField{spec: in, raw: raw})
			}
			p.model = l.bundle.Evidence.System.Model
			ctx.Page().SetTitle("Replay " + l.bundle.Manifest.Name + " · Skill Workbench")
			p.publishContext()
		})
	})
}

// publishContext tells the capability palette (Ctrl/Cmd+K) what the
// page replays, for it to prefill forms with: the skill, and once the
// bundle is read the interaction trace being replayed and the bundle's
// content hash. The shell forgets it on the next navigation.
func (p *replayPage) publishContext() {
	c := schemaform.Context{SkillID: p.id}
	if p.bundle != nil {
		c.TraceID, c.ContentHash = p.bundle.Trace.TraceID, p.bundle.ContentHash
	}
	p.env.setPageContext(p.own(), c)
}

func (p *replayPage) onField(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.fields[i].raw = recordTyped(ctx)
		delete(p.fieldErrs, p.fields[i].spec.Name)
	}
}

func (p *replayPage) onModel(ctx app.Context, e app.Event) {
	p.model = recordTyped(ctx)
}

func (p *replayPage) onRun(ctx app.Context, e app.Event) {
	e.PreventDefault()
	ctx = p.own()
	if p.running {
		return
	}
	p.fieldErrs, p.formErr, p.runErr, p.result, p.edges, p.saved, p.saveErr = map[string]string{}, nil, nil, nil, nil, nil, nil
	var given []teach.Value
	// A field left empty is not given: the flow replays it with the
	// value the skill was taught with, or says it is required.
	for _, f := range p.fields {
		if f.raw != "" {
			given = append(given, teach.Value{Name: f.spec.Name, Raw: f.raw})
		}
	}
	b := p.bundle
	flows := p.env.flows
	runCtx := withMCPSettings(ctx, readMCPSettings(ctx))
	req := workbench.ReplayRequest{Bundle: b, Values: given, Model: strings.TrimSpace(p.model),
		Judge: p.judgeWanted && p.prism,
		Progress: func(edge skill.ReplayEdge) {
			ctx.Dispatch(func(app.Context) { p.edges = append(p.edges, edge) })
		},
	}
	setup, err := flows.PrepareReplay(req)
	if err != nil {
		var ie *teach.InputError
		if errors.As(err, &ie) && ie.Field == teach.FieldInput && ie.Name != "" {
			p.fieldErrs[ie.Name] = ie.Msg
		} else {
			p.formErr = err
		}
		return
	}
	if _, _, err := flows.ModelFor(ctx, setup, req.Model); err != nil {
		var me *workbench.MissingModelError
		var ke *workbench.MissingKeyError
		switch {
		case errors.As(err, &me):
			p.fieldErrs["model"] = me.Error()
		case errors.As(err, &ke):
			p.formErr = errors.New("this skill has parameters a model chooses on replay, and this tab keeps no OpenRouter key: enter one on the start page")
		default:
			p.formErr = err
		}
		return
	}
	p.running, p.outcome = true, replayOutcome{}
	ctx.Async(func() {
		var out replayOutcome
		r, err := flows.Replay(runCtx, req)
		var ae *workbench.AuthorizerUnavailableError
		if errors.As(err, &ae) {
			out.authErr, err = ae.Err, nil // the tab has not accepted the local engine
		}
		out.result = r
		ctx.Dispatch(func(app.Context) {
			p.running, p.runErr, p.outcome = false, err, out
			if r != nil {
				p.result = r
				if r.Record != nil {
					p.edges = r.Record.Edges
				}
			}
		})
	})
}

func (p *replayPage) onSave(ctx app.Context, e app.Event) {
	r := p.result
	if r == nil || r.Record == nil || p.saving || p.saved != nil {
		return
	}
	p.saving, p.saveErr = true, nil
	ctx = p.own()
	ctx.Async(func() {
		sk, err := p.env.flows.SaveReplay(ctx, r)
		p.env.dropStore(err)
		ctx.Dispatch(func(app.Context) {
			p.saving, p.saveErr = false, err
			if err == nil {
				p.saved = &sk
			}
		})
	})
}

func (p *replayPage) Render() app.UI {
	if ui := p.renderUnread("Replay", p.bundle != nil, ", so there is nothing to replay: ", "Reading the skill from this browser's library…"); ui != nil {
		return ui
	}
	b := p.bundle
	return frame("/skills",
		app.H1().Body(app.Text("Replay "), app.Span().ID("replay-skill-name").Text(b.Manifest.Name)),
		app.P().Body(
			app.A().Href("/skills/"+p.id).Text("Back to the skill"),
			app.Text(fmt.Sprintf(" · version %d · %s recorded · on a surprise: ", b.SkillVersion, words.Count(len(b.Trace.Edges), "edge"))),
			app.Span().Title(orText(b.Manifest.FallbackBehavior, skill.FallbackHalt)).Text(words.Fallback(b.Manifest.FallbackBehavior)),
		),
		p.renderNeeds(),
		p.renderForm(),
		p.renderRun(),
	)
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (p *replayPage) renderForm() app.UI {
	b := p.bundle
	bound := b.Trace.ModelBound()
	fields := make([]app.UI, 0, len(p.fields)+1)
	given := make(map[string]string, len(p.fields))
	for _, f := range p.fields {
		given[f.spec.Name] = f.raw
	}
	rows := workbench.InputRows(b, given)
	for i, f := range p.fields {
		fields = append(fields, p.inputField(i, f, rows[i]))
	}
	if len(p.fields) == 0 {
		fields = append(fields, app.P().Class("muted").Text("This skill declares no inputs: it replays as recorded."))
	}
	if bound {
		msg := p.fieldErrs["model"]
		in := app.Input().Type("text").ID("replay-model").Value(p.model).Attr("spellcheck", "false").OnInput(p.onModel)
		if msg != "" {
			in = in.Aria("invalid", "true").Aria("describedby", "replay-model-error")
		}
		fields = append(fields, app.Div().Class("field").Body(
			app.Label().For("replay-model").Text("Model (chooses again the parameters the teaching model chose)"),
			in,
			app.If(msg != "", func() app.UI { return app.P().Class("field-error").ID("replay-model-error").Text(msg) }),
		))
	}
	return app.Section().Class("panel").Aria("labelledby", "replay-input-heading").Body(
		app.H2().ID("replay-input-heading").Text("New input"),
		app.Form().ID("replay-form").OnSubmit(p.onRun).Body(
			app.Div().Body(fields...),
			app.If(p.formErr != nil, func() app.UI {
				return app.Div().Class("status status-error").Role("alert").ID("replay-form-error").Body(app.P().Class("error-text").Text(errText(p.formErr)))
			}),
			p.renderJudgeChoice(),
			app.If(p.outcome.authErr != nil && p.outcome.result == nil, func() app.UI { return p.renderAuthFallback() }),
			&localPolicyPanel{env: p.env, Kind: p.bundle.Manifest.BodyChoice, Force: p.outcome.authErr != nil, OnAnswer: p.onPolicyAnswer},
			app.Button().Type("submit").ID("replay-run").Disabled(p.running || p.keyMissing(bound)).
				Aria("describedby", "replay-needs-heading").Text("Run replay"),
			app.If(p.keyMissing(bound), func() app.UI {
				return app.P().Class("field-error").ID("replay-run-blocked").Text("Run replay needs an OpenRouter key in this tab: this skill asks a model again (see What this replay needs).")
			}),
		),
	)
}

// inputField is one manifest input as a form control of its type, its
// error beside it, and the value the skill was taught with beside the
// new one.
func (p *replayPage) inputField(i int, f replayField, row workbench.InputRow) app.UI {
	id := "replay-input-" + f.spec.Name
	errID := id + "-error"
	msg := p.fieldErrs[f.spec.Name]
	label := inputLabel(f.spec)
	control := inputControl(id, f.spec, f.raw, msg, 4, p.onField(i))
	return app.Div().Class("field").Body(
		app.Label().For(id).Text(label),
		app.If(f.spec.Description != "", func() app.UI { return app.Span().Class("choice-note").Text(f.spec.Description) }),
		control,
		app.If(msg != "", func() app.UI { return app.P().Class("field-error").ID(errID).Text(msg) }),
		recordedBeside(id+"-recorded", row),
	)
}

// recordedBeside is the value an input had in the recording, beside the
// field holding the replay's, and whether the two differ.
func recordedBeside(id string, row workbench.InputRow) app.UI {
	rec := app.UI(app.Code().Class("recorded-value").Text(row.Recorded))
	if row.Recorded == "" {
		rec = app.Span().Class("muted").Text("(none recorded)")
	}
	same, class := "same as recorded", "input-same"
	if row.Changed {
		same, class = "new input", "input-changed"
	}
	return app.P().ID(id).Class("recorded-beside "+class).Body(
		app.Text("Recorded: "), rec,
		app.Text(" · "), app.Strong().Class("input-change").Text(same),
	)
}

// keyMissing says the replay needs a model and the tab keeps no key it
// could use: none, or the one entered last was refused.
func (p *replayPage) keyMissing(bound bool) bool {
	return bound && (p.keyState == session.KeyNone || p.keyState == session.KeyRefused)
}

// renderNeeds says, before anything runs, what a replay of this skill
// needs: its inputs, a model and a key when a model chose some
// parameters (and which), the body, and the policy.
func (p *replayPage) renderNeeds() app.UI {
	n := workbench.NeedsOf(p.bundle)
	inputs := "none: it replays as recorded"
	if len(n.Inputs) > 0 {
		names := make([]string, len(n.Inputs))
		for i, in := range n.Inputs {
			names[i] = in.Name + " (" + in.Type + ")"
		}
		inputs = words.Count(len(n.Inputs), "input") + ": " + strings.Join(names, ", ")
	}
	var model app.UI
	if p.bundle.Trace.ModelBound() {
		choices := make([]app.UI, len(n.ModelChoices))
		for i, c := range n.ModelChoices {
			choices[i] = app.Li().Body(app.Text(fmt.Sprintf("edge %d, %s: ", c.Edge, c.Tool)), app.Code().Text(c.Param))
		}
		model = app.Div().ID("replay-needs-model").Body(
			app.P().Text("A model and this tab's OpenRouter key. During the demonstration the model chose "+
				words.Count(len(n.ModelChoices), "parameter")+"; a replay asks a model to choose "+
				map[bool]string{true: "it", false: "them"}[len(n.ModelChoices) == 1]+" again, through this workbench's proxy:"),
			app.Ul().Body(choices...),
			renderKeyState("replay-key", p.keyState, false, nil, true),
		)
	} else {
		model = app.Div().ID("replay-needs-model").Body(
			app.P().Text("No model and no key: every parameter is literal or bound to an input, so a replay makes no model call."),
			renderKeyState("replay-key", p.keyState, false, nil, false),
		)
	}
	on := "the simulator world the recording started in"
	if n.Body != body.KindSimulator {
		on = "the " + string(n.Body) + " body it was taught on (an MCP server configured on the relay)"
	}
	return app.Section().Class("panel").ID("replay-needs").Aria("labelledby", "replay-needs-heading").Body(
		app.H2().ID("replay-needs-heading").Text("What this replay needs"),
		app.Dl().Class("facts").Body(
			app.Dt().Text("Inputs"), app.Dd().ID("replay-needs-inputs").Text(inputs),
			app.Dt().Text("Model"), app.Dd().Body(model),
			app.Dt().Text("Body"), app.Dd().Text(on),
			app.Dt().Text("Policy"), app.Dd().Body(app.Text("every action is authorized again under "), app.Code().Text(orText(n.Policy, "(none named)"))),
		),
	)
}

func (p *replayPage) renderRun() app.UI {
	if !p.running && p.result == nil && p.runErr == nil {
		return app.Text("")
	}
	b := p.bundle
	var surprises []skill.SurpriseSignal
	if p.result != nil && p.result.Record != nil {
		surprises = p.result.Record.Report.SurpriseSignals
	}
	rows := workbench.EdgeRows(b, p.edges, surprises)
	return app.Section().Class("panel").ID("replay-run-panel").Aria("labelledby", "replay-run-heading").Body(
		app.H2().ID("replay-run-heading").Text("Replay"),
		app.Div().ID("replay-progress").Aria("live", "polite").Body(
			app.If(p.running, func() app.UI {
				return app.P().Class("status status-pending").Text(fmt.Sprintf("Replaying… %d of %s done.", len(p.edges), words.Count(len(b.Trace.Edges), "edge")))
			}),
		),
		app.If(p.runErr != nil, func() app.UI {
			return app.Div().Class("status status-error").Role("alert").ID("replay-error").Body(
				app.P().Text("The replay could not run."),
				app.P().Class("error-text").Text(errText(p.runErr)),
			)
		}),
		app.If(p.result != nil, func() app.UI { return p.renderOutcome() }),
		renderDifferences(rows),
		renderSteps(rows),
		app.If(p.result != nil, func() app.UI { return p.renderSave() }),
		app.H3().Text("State hashes, edge by edge"),
		renderEdgeTable(rows),
	)
}

func (p *replayPage) renderOutcome() app.UI {
	r := p.result
	if r.Record == nil {
		return app.Div().Class("status status-error").Role("alert").ID("replay-outcome").Body(
			app.P().Body(app.Span().Class("verdict verdict-fail").Text("no result"), app.Text(" The model call failed, so nothing was recorded and nothing can be saved.")),
			app.P().Class("error-text").Text(errText(r.Err)),
		)
	}
	rep := r.Record.Report
	return app.Div().ID("replay-outcome").Body(
		app.Dl().Class("facts").Body(
			app.Dt().Text("Status"), app.Dd().Body(app.Span().ID("replay-status").Class("replay-status replay-status-"+statusClass(rep.Status)).
				Title(rep.Status).Attr("data-value", rep.Status).Text(words.Status(rep.Status, rep.HaltedAtEdge))),
			app.Dt().Text("Fidelity"), app.Dd().ID("replay-fidelity").Text(words.Fidelity(rep.Fidelity, rep.EdgesCommitted, rep.EdgesAttempted, len(p.bundle.Trace.Edges))),
			app.Dt().Text("Fidelity level"), app.Dd().ID("replay-level").Body(levelBadge(rep.FidelityLevel)),
			app.Dt().Text("Expected level"), app.Dd().Text(r.Record.ExpectedLevel),
			app.If(r.Judged, func() app.UI {
				return app.Dt().Text("Judge (PRISM)")
			}),
			app.If(r.Judged, func() app.UI {
				return app.Dd().ID("replay-judge").Text(orText(r.JudgeNote, "(no answer)"))
			}),
			app.Dt().Text("Authorizer"), app.Dd().ID("replay-authorizer").Body(
				app.Code().Text(r.Authority),
				app.If(r.Fallback, func() app.UI {
					return app.Span().Text(" — this tab accepted it because delegatic-mcp could not be used: " + errText(r.Unavailable))
				}),
			),
			app.Dt().Text("Verdict of the new version"), app.Dd().ID("replay-verdict").Body(verdictBadge(r.Verdict())),
			app.Dt().Text("Model used"), app.Dd().Text(modelUsedText(rep.ModelUsed)),
			app.Dt().Text("Model calls"), app.Dd().ID("replay-calls").Text(words.Count(r.ModelCalls, "model call")),
			app.Dt().Text("Cost"), app.Dd().ID("replay-cost").Text(words.Cost(r.CostUSD, r.CostKnown)),
			app.Dt().Text("Replay id"), app.Dd().Body(app.Code().Text(rep.ReplayID)),
		),
		app.If(len(rep.SurpriseSignals) > 0, func() app.UI {
			items := make([]app.UI, len(rep.SurpriseSignals))
			for i, s := range rep.SurpriseSignals {
				items[i] = app.Li().Class("surprise").Body(renderSurprise(s))
			}
			return app.Div().Class("status status-error").ID("replay-surprises").Body(
				app.P().Text(words.Count(len(rep.SurpriseSignals), "surprise signal")+":"),
				app.Ul().Body(items...),
			)
		}),
	)
}

// renderSave offers to keep the replay as the skill's next version.
func (p *replayPage) renderSave() app.UI {
	r := p.result
	if r.Record == nil {
		return app.If(false, nil)
	}
	return app.Div().ID("replay-save-panel").Body(
		app.Div().Class("field-row").Body(
			app.Button().Type("button").ID("replay-save").Disabled(p.saving || p.saved != nil).
				Text("Save as new bundle (version "+strconv.Itoa(r.Bundle.SkillVersion)+")").OnClick(p.onSave),
			app.If(p.saving, func() app.UI { return app.Span().Class("status status-pending").Text("Saving…") }),
		),
		app.If(p.saved != nil, func() app.UI {
			return app.P().Class("status status-ok").ID("replay-saved").Role("status").Body(
				app.Text(fmt.Sprintf("Saved: the replay and version %d are in the library (%s of this skill). ", r.Bundle.SkillVersion, words.Count(p.saved.ReplayCount, "replay"))),
				app.A().Href("/skills/"+p.id).Text("Open the skill"),
			)
		}),
		app.If(p.saveErr != nil, func() app.UI {
			return app.Div().Class("status status-error").Role("alert").ID("replay-save-error").Body(
				app.P().Text("Not saved; the library is as it was."),
				app.P().Class("error-text").Text(errText(p.saveErr)),
			)
		}),
	)
}

func statusClass(s string) string {
	switch s {
	case skill.StatusSuccess:
		return "success"
	case skill.StatusCompletedWithSurprises:
		return "surprises"
	case skill.StatusHalted:
		return "halted"
	}
	return "unknown"
}

// renderSurprise shows one surprise signal: where, which kind in both
// vocabularies, and the predicted and actual state hashes.
func renderSurprise(s skill.SurpriseSignal) app.UI {
	// Both vocabularies (DESIGN §12): the ReplayReport's kind in words,
	// then OS-011's surprise_kind as recorded.
	kind := words.SurpriseKind(s.Kind)
	if s.SurpriseKind != "" {
		kind += " (" + s.SurpriseKind + ")"
	}
	return app.Div().Body(
		app.Strong().Text(fmt.Sprintf("Edge %d: %s", s.EdgeIndex, kind)),
		app.If(s.Detail != "", func() app.UI { return app.Span().Text(" — " + s.Detail) }),
		app.Dl().Class("facts surprise-hashes").Body(
			app.Dt().Text("Predicted"), app.Dd().Body(app.Code().Class("hash surprise-predicted").Text(orText(s.PredictedStateHash, "(none)"))),
			app.Dt().Text("Actual"), app.Dd().Body(app.Code().Class("hash surprise-actual").Text(orText(s.ActualStateHash, "(none)"))),
		),
	)
}

// renderEdgeTable sets the recorded edges beside the replayed ones.
func renderEdgeTable(rows []workbench.EdgeRow) app.UI {
	trs := make([]app.UI, 0, len(rows))
	for _, r := range rows {
		match := app.UI(app.Span().Class("muted").Text("pending"))
		if r.Replayed {
			match = app.Span().Class("match match-"+r.Match).Attr("data-value", r.Match).Text(words.Match(r.Match))
		}
		committed := ""
		if r.Replayed {
			committed = words.YesNo(r.Committed)
		}
		tr := app.Tr().ID("edge-row-"+strconv.Itoa(r.Index)).Class("edge-row").Body(
			app.Th().Scope("row").Text(strconv.Itoa(r.Index)),
			app.Td().Body(app.Code().Text(r.Tool)),
			app.Td().Body(hashPair(r.RecordedBefore, r.RecordedAfter)),
			app.Td().Body(app.If(r.Replayed, func() app.UI { return hashPair(r.ObservedBefore, r.ObservedAfter) })),
			app.Td().Class("edge-match").Body(match),
			app.Td().Text(committed),
			app.Td().Title(r.Decision).Text(words.Decision(r.Decision)),
		)
		if len(r.Surprises) > 0 {
			tr = tr.Class("surprise")
		}
		trs = append(trs, tr)
		for _, s := range r.Surprises {
			trs = append(trs, app.Tr().Class("surprise surprise-detail").Body(
				app.Td().ColSpan(7).Body(renderSurprise(s)),
			))
		}
	}
	return app.Div().Class("table-scroll").TabIndex(0).Role("region").Aria("label", "Recorded edges beside replayed edges").Body(
		app.Table().Class("list edges").ID("replay-edges").Body(
			app.Caption().Text("Recorded edges beside replayed edges"),
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Edge"), app.Th().Scope("col").Text("Tool"),
				app.Th().Scope("col").Text("Recorded state before → after"),
				app.Th().Scope("col").Text("Replayed state before → after"),
				app.Th().Scope("col").Text("Match"), app.Th().Scope("col").Text("Committed"),
				app.Th().Scope("col").Text("Authorization"),
			)),
			app.TBody().Body(trs...),
		),
	)
}

func hashPair(before, after string) app.UI {
	return app.Span().Body(
		app.Code().Class("hash").Text(orText(before, "–")),
		app.Text(" → "),
		app.Code().Class("hash").Text(orText(after, "–")),
	)
}

// modelUsedText is a report's model_used: "none (no model call)" for a
// replay that bound every parameter from the recording and the input.
func modelUsedText(m string) string {
	if m == skill.NoModel {
		return "none (no model call was needed)"
	}
	return m
}
