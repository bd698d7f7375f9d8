package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/pulse"
	"workbench/pkg/workbench"
)

// check validates the draft as it stands; called on every keystroke.
func (p *teachPage) check() {
	r := p.run
	if r == nil || r.draftErr != nil || r.draft.SkillID == "" || p.checker == nil {
		return
	}
	r.problems, r.checkErr = p.checker.CheckDraft(context.Background(), r.draft)
}

// editable says whether the draft's fields may still change: not while
// saving, and not once the bundle is sealed (a retry stores that bundle).
func (r *teachRun) editable() bool { return r.stage == stageFinished && r.sealed == nil }

func (p *teachPage) onDraftName(ctx app.Context, e app.Event) {
	if r := p.run; r != nil && r.editable() {
		r.draft = workbench.Rename(r.draft, recordTyped(ctx), r.slugEdited)
		p.check()
	}
}

func (p *teachPage) onDraftSlug(ctx app.Context, e app.Event) {
	if r := p.run; r != nil && r.editable() {
		r.draft.Slug, r.slugEdited = recordTyped(ctx), true
		p.check()
	}
}

func (p *teachPage) onDraftDescription(ctx app.Context, e app.Event) {
	if r := p.run; r != nil && r.editable() {
		r.draft.Description = recordTyped(ctx)
		p.check()
	}
}

// canSave: a draft with no schema problem, checked, and not being saved.
func (p *teachPage) canSave() bool {
	r := p.run
	return r != nil && r.stage == stageFinished && r.draftErr == nil && r.sealErr == nil &&
		p.checker != nil && r.checkErr == nil && r.problems.Valid()
}

// onSave seals the bundle with the manifest as edited and stores it in
// the library in one transaction (workbench.SealTaught, StoreTaught), and
// opens the stored skill. A failure is shown and the draft kept; a bundle
// sealed before a failed store is stored as it is on the next try.
func (p *teachPage) onSave(ctx app.Context, e app.Event) {
	e.PreventDefault()
	if !p.canSave() {
		return
	}
	r := p.run
	r.stage, r.saveErr, r.blocked = stageSaving, nil, false
	sealed, m := r.sealed, r.draft
	ctx.Async(func() {
		var err error
		if sealed == nil {
			sealed, err = p.env.flows.SealTaught(ctx, r.taught, m)
		}
		if err != nil {
			ctx.Dispatch(func(app.Context) { r.stage, r.sealErr = stageFinished, err })
			return
		}
		// Opened here first, to say when another tab blocks it; the flow
		// then stores into the library it finds open.
		_, err = p.env.store(ctx, func() {
			ctx.Dispatch(func(app.Context) { r.blocked = true })
		})
		if err == nil {
			err = p.env.flows.StoreTaught(ctx, sealed)
			p.env.dropStore(err)
		}
		ctx.Dispatch(func(ctx app.Context) {
			r.sealed = sealed
			r.reached[pulse.PhaseConsolidate] = true
			if err != nil {
				r.stage, r.saveErr = stageFinished, err
				return
			}
			ctx.Navigate("/skills/" + sealed.Skill.ID)
		})
	})
}

// renderOutcome is what follows a finished recording: why there is no
// draft, or the draft to edit and save.
func (p *teachPage) renderOutcome() app.UI {
	r := p.run
	again := app.Button().Type("button").ID("teach-again").Class("secondary").Text("Start again").OnClick(p.onAgain)
	if r.startErr != nil {
		return app.Section().ID("teach-outcome").Class("panel").Body(
			app.H2().Text("The demonstration could not start"),
			app.P().Class("status status-error").Role("alert").Body(app.Span().ID("teach-error").Class("error-text").Text(r.startErr.Error())),
			again,
		)
	}
	res := r.result
	summary := app.P().ID("teach-stopped").Text(stoppedText(res))
	var answer app.UI
	if res.Answer != "" {
		answer = app.Div().Body(
			app.P().Body(app.Strong().Text("The model's answer")),
			app.P().ID("teach-answer").Class("model-text").Text(res.Answer),
		)
	}
	var runErr app.UI
	if res.Err != nil {
		runErr = app.Div().Class("status status-error").Role("alert").Body(
			app.P().Text(modelErrorSummary(res.Err)),
			app.P().ID("teach-error").Class("error-text").Text(res.Err.Error()),
		)
	}
	if r.draftErr != nil {
		return app.Section().ID("teach-outcome").Class("panel").Body(
			app.H2().Text("No skill from this recording"),
			summary, runErr, answer,
			app.P().Class("status status-error").Body(
				app.Text("No draft: "), app.Span().ID("teach-draft-error").Class("error-text").Text(r.draftErr.Error())),
			app.P().Text("Nothing was saved."),
			again,
		)
	}
	return app.Section().ID("teach-outcome").Class("panel").Body(
		app.H2().Text("Recording finished"),
		summary, runErr, answer,
		p.renderSummary(),
		p.renderDraft(),
	)
}

func stoppedText(res *workbench.TeachResult) string {
	n := len(res.Trace.Edges)
	edges := strconv.Itoa(n) + " recorded actions"
	if n == 1 {
		edges = "1 recorded action"
	}
	switch res.Stopped {
	case workbench.TeachStopAnswer:
		return "The model finished with an answer after " + edges + "."
	case workbench.TeachStopUser:
		return "You stopped the recording after " + edges + "; they are kept."
	case workbench.TeachStopStepLimit:
		return "The demonstration reached its step limit after " + edges + "."
	case workbench.TeachStopCancelled:
		return "The demonstration was cancelled after " + edges + "."
	case workbench.TeachStopError:
		return "The demonstration stopped on an error after " + edges + "."
	}
	return "The demonstration ended (" + res.Stopped + ") after " + edges + "."
}

// renderDraft is the draft manifest: name, slug and description editable
// and checked against the schema on every keystroke, the rest read-only.
func (p *teachPage) renderDraft() app.UI {
	r := p.run
	m := r.draft
	locked := !r.editable()
	nameErr := strings.Join(r.problems["name"], "; ")
	slugErr := strings.Join(r.problems["slug"], "; ")
	if slugErr != "" {
		slugErr += " (lowercase letters and digits, in runs joined by single hyphens)"
	}
	descErr := strings.Join(r.problems["description"], "; ")
	var others []app.UI
	for member, msgs := range r.problems {
		if member == "name" || member == "slug" || member == "description" {
			continue
		}
		for _, msg := range msgs {
			others = append(others, app.Li().Text("/"+member+": "+msg))
		}
	}
	inputs := make([]app.UI, 0, len(m.Inputs))
	for _, in := range m.Inputs {
		inputs = append(inputs, app.Li().Body(app.Code().Text(in.Name), app.Text(" ("+in.Type+map[bool]string{true: ", required", false: ""}[in.Required]+")")))
	}
	slugDesc := "draft-slug-hint"
	if slugErr != "" {
		slugDesc += " draft-slug-error"
	}
	return app.Form().ID("teach-draft").OnSubmit(p.onSave).Body(
		app.H3().Text("Draft skill manifest"),
		app.If(p.checkerErr != nil, func() app.UI {
			return app.P().Class("status status-error").Role("alert").Body(app.Text("The schemas did not load: "),
				app.Span().Class("error-text").Text(teachErrText(p.checkerErr)))
		}),
		app.Div().Class("field").Body(
			app.Label().For("draft-name").Text("Name"),
			teachDescribedBy(app.Input().Type("text").ID("draft-name").Value(m.Name).Disabled(locked).OnInput(p.onDraftName), "draft-name-error", nameErr),
			teachFieldError("draft-name-error", nameErr),
		),
		app.Div().Class("field").Body(
			app.Label().For("draft-slug").Text("Slug"),
			app.Input().Type("text").ID("draft-slug").Value(m.Slug).Disabled(locked).Attr("spellcheck", "false").
				Aria("describedby", slugDesc).Aria("invalid", map[bool]string{true: "true", false: "false"}[slugErr != ""]).OnInput(p.onDraftSlug),
			app.P().ID("draft-slug-hint").Class("choice-note").Text("The file name of exports: <slug>.v<n>.skill.json."),
			teachFieldError("draft-slug-error", slugErr),
		),
		app.Div().Class("field").Body(
			app.Label().For("draft-description").Text("Description"),
			app.Textarea().ID("draft-description").Rows(3).Disabled(locked).Aria("describedby", "draft-description-error").
				Text(m.Description).OnInput(p.onDraftDescription),
			teachFieldError("draft-description-error", descErr),
		),
		app.If(len(others) > 0, func() app.UI {
			return app.Div().ID("draft-other-errors").Class("status status-error").Body(
				app.P().Text("The rest of the manifest does not satisfy the schema:"), app.Ul().Class("problems").Body(others...))
		}),
		app.If(r.checkErr != nil, func() app.UI {
			return app.P().Class("status status-error").Body(app.Span().Class("error-text").Text(teachErrText(r.checkErr)))
		}),
		app.Dl().ID("draft-facts").Class("facts").Body(
			app.Dt().Text("Skill id"), app.Dd().Body(app.Code().Text(m.SkillID)),
			app.Dt().Text("Version"), app.Dd().Text(strconv.Itoa(m.Version)),
			app.Dt().Text("Derived from trace"), app.Dd().Body(app.Code().ID("draft-trace").Text(m.DerivedFromTraceID)),
			app.Dt().Text("Body"), app.Dd().Text(m.BodyChoice),
			app.Dt().Text("Capabilities required"), app.Dd().ID("draft-capabilities").Text(teachList(m.CapabilitiesRequired, "none")),
			app.Dt().Text("Inputs"), app.Dd().Body(app.If(len(inputs) == 0, func() app.UI { return app.Text("none") }), app.Ul().Body(inputs...)),
			app.Dt().Text("Edges"), app.Dd().ID("draft-edges").Text(strconv.Itoa(len(r.result.Trace.Edges))),
			app.Dt().Text("Binding"), app.Dd().Text(m.Binding),
			app.Dt().Text("Fallback"), app.Dd().Text(m.FallbackBehavior),
			app.Dt().Text("Policy"), app.Dd().Text(m.DelegaticPolicyID),
		),
		app.If(locked && r.stage == stageFinished, func() app.UI {
			return app.P().Class("muted").Text("This draft is sealed into a bundle; saving again stores that bundle as it is.")
		}),
		app.If(r.blocked, func() app.UI {
			return app.P().Class("status status-pending").Role("status").Text("Another tab holds an older version of the library open; close it to let the save finish.")
		}),
		app.If(r.sealErr != nil, func() app.UI {
			return app.Div().Class("status status-error").Role("alert").Body(
				app.P().Text("The bundle could not be sealed, so nothing was saved:"),
				app.P().ID("teach-seal-error").Class("error-text").Text(teachErrText(r.sealErr)),
			)
		}),
		app.If(r.saveErr != nil, func() app.UI {
			return app.Div().Class("status status-error").Role("alert").Body(
				app.P().Text("The skill was not saved; the draft is kept:"),
				app.P().ID("teach-save-error").Class("error-text").Text(teachErrText(r.saveErr)),
			)
		}),
		app.Div().Class("field-row").Body(
			app.Button().Type("submit").ID("teach-save").Disabled(!p.canSave()).
				Text(map[bool]string{true: "Saving…", false: "Save skill"}[r.stage == stageSaving]),
			app.Button().Type("button").ID("teach-again").Class("secondary").Disabled(r.stage == stageSaving).
				Text("Start again").OnClick(p.onAgain),
		),
	)
}

func teachErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func teachList(s []string, none string) string {
	if len(s) == 0 {
		return none
	}
	return strings.Join(s, ", ")
}
