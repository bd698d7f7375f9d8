package main

import (
	"context"
	"errors"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/session"
	"workbench/pkg/teach"
	"workbench/pkg/workbench"
)

// freeformOption is the value of the task select's freeform entry; fixture
// scenario ids all start with "skill.".
const freeformOption = "freeform"

// teachForm is what the user typed before a demonstration: a fixture
// scenario and its inputs, or a freeform task with a world and a value for
// each {placeholder}, plus the model and the destructive-mode switch.
type teachForm struct {
	freeform bool
	scenario string
	fields   []teach.Field // the scenario's inputs as typed

	task   string
	world  string
	values map[string]string // freeform placeholder → typed value

	modelID     string
	destructive bool

	planErr error // why the last Start could not plan
}

// init starts the form on the first scenario with its examples, and the
// model the session remembers.
func (f *teachForm) init(ctx app.Context) {
	f.values = map[string]string{}
	if ws := fixtures.Worlds(); len(ws) > 0 {
		f.world = ws[0]
	}
	if ids := teach.ScenarioIDs(); len(ids) > 0 {
		f.pick(ids[0])
	}
	var m string
	if err := ctx.SessionStorage().Get(modelItem, &m); err == nil && m != "" {
		f.modelID = m
	} else {
		f.modelID = defaultModel
	}
}

// pick selects a scenario (or freeform) and resets the inputs to the
// scenario's examples.
func (f *teachForm) pick(id string) {
	f.planErr = nil
	if id == freeformOption {
		f.freeform, f.scenario, f.fields = true, "", nil
		return
	}
	fields, err := teach.ScenarioFields(id)
	if err != nil {
		f.planErr = err
		return
	}
	f.freeform, f.scenario, f.fields = false, id, fields
}

// plan makes the demonstration's plan from the form, for a body of
// choice (workbench.PlanTeach): a fixture scenario with its inputs as
// typed, or the freeform task with a value for each {placeholder} it
// mentions now. Scenarios and worlds are the simulator's; on an MCP body
// the task is freeform and starts wherever the body is.
func (f *teachForm) plan(ctx context.Context, choice body.Kind) (*teach.Plan, error) {
	r := workbench.TeachRequest{Body: choice, Model: f.modelID}
	if !f.freeform {
		r.Scenario = f.scenario
		for _, fl := range f.fields {
			r.Inputs = append(r.Inputs, teach.Value{Name: fl.Name, Raw: fl.Raw})
		}
		return workbench.PlanTeach(ctx, r)
	}
	r.Task = f.task
	if choice == body.KindSimulator {
		r.World = f.world
	}
	for _, name := range teach.Placeholders(f.task) {
		r.Inputs = append(r.Inputs, teach.Value{Name: name, Raw: f.values[name]})
	}
	return workbench.PlanTeach(ctx, r)
}

// errorFor returns the plan error that belongs beside a field, or "".
func (f *teachForm) errorFor(field, name string) string {
	var ie *teach.InputError
	if errors.As(f.planErr, &ie) && ie.Field == field && ie.Name == name {
		return ie.Msg
	}
	return ""
}

// otherError is a plan error that no field shows.
func (f *teachForm) otherError() string {
	if f.planErr == nil {
		return ""
	}
	var ie *teach.InputError
	if errors.As(f.planErr, &ie) {
		switch {
		case ie.Field == workbench.FieldModel, ie.Field == teach.FieldTask && f.freeform, ie.Field == teach.FieldWorld && f.freeform:
			return ""
		case ie.Field == teach.FieldInput && f.hasInput(ie.Name):
			return ""
		}
	}
	return f.planErr.Error()
}

func (f *teachForm) hasInput(name string) bool {
	if f.freeform {
		for _, n := range teach.Placeholders(f.task) {
			if n == name {
				return true
			}
		}
		return false
	}
	for _, fl := range f.fields {
		if fl.Name == name {
			return true
		}
	}
	return false
}

func (p *teachPage) onScenario(ctx app.Context, e app.Event) {
	p.form.pick(recordTyped(ctx))
}

// onField and onPlaceholder find their input from the element's id, not
// from a value captured in a closure: go-app keeps an element's first
// handler when a new one comes from the same closure code, so a captured
// index or name would go stale when the list of inputs changes.
func (p *teachPage) onField(ctx app.Context, e app.Event) {
	name := strings.TrimPrefix(ctx.JSSrc().Get("id").String(), "teach-input-")
	for i := range p.form.fields {
		if p.form.fields[i].Name == name {
			p.form.fields[i].Raw = recordTyped(ctx)
		}
	}
}

func (p *teachPage) onTask(ctx app.Context, e app.Event) {
	p.form.task = recordTyped(ctx)
}

func (p *teachPage) onWorld(ctx app.Context, e app.Event) {
	p.form.world = recordTyped(ctx)
}

func (p *teachPage) onPlaceholder(ctx app.Context, e app.Event) {
	name := strings.TrimPrefix(ctx.JSSrc().Get("id").String(), "teach-value-")
	p.form.values[name] = recordTyped(ctx)
}

func (p *teachPage) onModel(ctx app.Context, e app.Event) {
	p.form.modelID = strings.TrimSpace(recordTyped(ctx))
}

func (p *teachPage) onDestructive(ctx app.Context, e app.Event) {
	p.form.destructive = ctx.JSSrc().Get("checked").Bool()
}

// fieldError is the error line shown under a field, tied to it by id.
func teachFieldError(id, msg string) app.UI {
	return app.If(msg != "", func() app.UI {
		return app.P().ID(id).Class("field-error").Role("alert").Text(msg)
	})
}

// describedBy ties a control to its error line when there is one.
func teachDescribedBy(c app.HTMLInput, id, msg string) app.HTMLInput {
	if msg != "" {
		return c.Aria("describedby", id).Aria("invalid", "true")
	}
	return c
}

func (p *teachPage) renderForm() app.UI {
	f := &p.form
	options := []app.UI{}
	for _, id := range teach.ScenarioIDs() {
		options = append(options, app.Option().Value(id).Selected(!f.freeform && f.scenario == id).Text(id))
	}
	options = append(options, app.Option().Value(freeformOption).Selected(f.freeform).Text("Freeform: describe your own task"))

	var task app.UI
	if f.freeform {
		task = p.renderFreeform()
	} else {
		task = p.renderScenario()
	}
	modelErr := f.errorFor(workbench.FieldModel, "")
	startDisabled := p.keyState != session.KeyAccepted || p.bodyErr != nil || p.checking || p.starting
	return app.Form().ID("teach-form").Class("panel").OnSubmit(p.onStart).Body(
		app.H2().Text("Task"),
		app.Div().Class("field").Body(
			app.Label().For("teach-scenario").Text("Scenario"),
			app.Select().ID("teach-scenario").OnChange(p.onScenario).Body(options...),
		),
		task,
		app.H2().Text("Model and body"),
		renderKeyState("teach-key", p.keyState, p.keyChecking, p.keyErr, true),
		app.Div().Class("field").Body(
			app.Label().For("teach-model").Text("OpenRouter model id"),
			teachDescribedBy(app.Input().Type("text").ID("teach-model").Value(f.modelID).
				Attr("spellcheck", "false").Placeholder(defaultModel).OnInput(p.onModel), "teach-model-error", modelErr),
			teachFieldError("teach-model-error", modelErr),
		),
		app.Div().Class("choice").Body(
			app.Input().Type("checkbox").ID("teach-destructive").Checked(f.destructive).
				Aria("describedby", "teach-destructive-note").OnChange(p.onDestructive),
			app.Label().For("teach-destructive").Text("Destructive mode"),
			app.Span().ID("teach-destructive-note").Class("choice-note").Text("Off: the policy refuses host writes and deletions. On: it allows them for this demonstration."),
		),
		p.renderBodyChoice(),
		app.If(f.otherError() != "", func() app.UI {
			return app.P().ID("teach-plan-error").Class("status status-error").Role("alert").Body(
				app.Span().Class("error-text").Text(f.otherError()))
		}),
		app.If(p.keyState != session.KeyAccepted, func() app.UI { return p.renderKeyMissing() }),
		app.Div().Class("field-row").Body(
			app.Button().Type("submit").ID("teach-start").Disabled(startDisabled).Text("Start recording"),
		),
	)
}

// renderKeyMissing says, beside Start, what Start recording is waiting
// for: a key, a key OpenRouter accepts, or the check of the one kept.
func (p *teachPage) renderKeyMissing() app.UI {
	var why string
	switch {
	case p.keyState == session.KeyRefused:
		why = "OpenRouter refused the key entered last, so this tab keeps none. "
	case p.keyState == session.KeyNone:
		why = "No OpenRouter key in this tab. "
	case p.keyChecking:
		return app.P().ID("teach-no-key").Class("status status-pending").Role("status").
			Text("Start recording waits for OpenRouter to accept the key kept in this tab…")
	default:
		return app.Div().ID("teach-no-key").Class("status status-error").Body(
			app.P().Text("Start recording needs a key OpenRouter has accepted, and the key kept in this tab could not be checked."),
			app.If(p.keyErr != nil, func() app.UI { return app.P().Class("error-text").Text(p.keyErr.Error()) }),
			app.Button().Type("button").ID("teach-key-check").Class("secondary").Text("Check the key again").OnClick(p.onCheckKey),
		)
	}
	return app.P().ID("teach-no-key").Class("status status-error").Body(
		app.Text(why),
		app.A().Href("/").Text("Enter your key on the home page"),
		app.Text(" to demonstrate with a model."),
	)
}

func (p *teachPage) renderBodyChoice() app.UI {
	labels := map[body.Kind]string{body.KindSimulator: "the simulator (in this page)", body.KindBrowser: "a browser over MCP", body.KindHost: "a host shell over MCP"}
	return app.Div().ID("teach-body").Class("field").Body(
		app.P().Body(
			app.Text("Body: "+labels[p.choice]+" · "),
			app.A().Href("/").Text("change on the home page"),
		),
		app.If(p.checking, func() app.UI {
			return app.P().ID("teach-body-checking").Class("status status-pending").Text("Asking the MCP relay whether this body is configured…")
		}),
		app.If(p.starting, func() app.UI {
			return app.P().ID("teach-starting").Class("status status-pending").Role("status").Text("Connecting to the body and the authorizer…")
		}),
		app.If(p.bodyErr != nil, func() app.UI {
			return app.P().ID("teach-body-error").Class("status status-error").Role("alert").Body(
				app.Span().Class("error-text").Text(p.bodyErr.Error()))
		}),
		app.If(p.authErr != nil, func() app.UI { return p.renderAuthFallback() }),
		&localPolicyPanel{env: p.env, Kind: p.choice, Force: p.authErr != nil, OnAnswer: p.onPolicyAnswer},
	)
}

// renderAuthFallback shows why delegatic-mcp could not authorize the run;
// the panel beside it asks the tab's question (spec OQ-2,
// docs/services.md): the local engine is never taken silently, and every
// authorization block it writes names it.
func (p *teachPage) renderAuthFallback() app.UI {
	return app.Div().ID("teach-auth-error").Class("status status-error").Role("alert").Body(
		app.P().Text("delegatic-mcp cannot authorize this run, and this tab has not accepted the local policy engine, so it did not start."),
		app.P().Class("error-text").ID("teach-auth-error-text").Text(p.authErr.Error()),
	)
}

// onPolicyAnswer clears the refusal an answer settles: with a yes, Start
// recording starts.
func (p *teachPage) onPolicyAnswer(ctx app.Context, a session.LocalPolicy) {
	if a == session.LocalPolicyAccepted {
		p.authErr = nil
	}
}

func (p *teachPage) renderScenario() app.UI {
	f := &p.form
	sc, err := fixtures.ScenarioByID(f.scenario)
	if err != nil {
		return app.P().Class("status status-error").Text(err.Error())
	}
	items := []app.UI{
		app.P().ID("teach-purpose").Class("muted").Text(sc.Purpose),
		app.P().Body(app.Strong().Text("Task: "), app.Span().ID("teach-prompt").Text(sc.TaskPrompt)),
	}
	for _, fl := range f.fields {
		id := "teach-input-" + fl.Name
		msg := f.errorFor(teach.FieldInput, fl.Name)
		items = append(items, app.Div().Class("field").Body(
			app.Label().For(id).Text(fl.Name+" ("+fl.Type+")"),
			teachDescribedBy(app.Input().Type("text").ID(id).Value(fl.Raw).Attr("spellcheck", "false").OnInput(p.onField), id+"-error", msg),
			teachFieldError(id+"-error", msg),
		))
	}
	return app.Div().ID("teach-scenario-inputs").Body(items...)
}

func (p *teachPage) renderFreeform() app.UI {
	f := &p.form
	taskErr := f.errorFor(teach.FieldTask, "")
	worldErr := f.errorFor(teach.FieldWorld, "")
	if worldErr == "" {
		worldErr = f.errorFor(teach.FieldWorld, f.world)
	}
	worlds := []app.UI{}
	for _, w := range fixtures.Worlds() {
		worlds = append(worlds, app.Option().Value(w).Selected(f.world == w).Text(w))
	}
	items := []app.UI{
		app.Div().Class("field").Body(
			app.Label().For("teach-task").Text("Task (write {name} for an input)"),
			app.Textarea().ID("teach-task").Rows(4).Aria("describedby", "teach-task-error").
				Placeholder("Open the page at {page_url} and report its main heading.").Text(f.task).OnInput(p.onTask),
			teachFieldError("teach-task-error", taskErr),
		),
	}
	if p.choice == body.KindSimulator {
		items = append(items, app.Div().Class("field").Body(
			app.Label().For("teach-world").Text("Simulator world"),
			app.Select().ID("teach-world").OnChange(p.onWorld).Body(worlds...),
			teachFieldError("teach-world-error", worldErr),
		))
	}
	for _, name := range teach.Placeholders(f.task) {
		id := "teach-value-" + name
		msg := f.errorFor(teach.FieldInput, name)
		items = append(items, app.Div().Class("field").Body(
			app.Label().For(id).Text(name),
			teachDescribedBy(app.Input().Type("text").ID(id).Value(f.values[name]).Attr("spellcheck", "false").OnInput(p.onPlaceholder), id+"-error", msg),
			teachFieldError(id+"-error", msg),
		))
	}
	return app.Div().ID("teach-freeform").Body(items...)
}

func runBodyText(c body.Kind, world string) string {
	if c == body.KindSimulator {
		return string(c) + " · world " + world
	}
	return string(c) + " over MCP (relay server " + bodyServer(c) + ")"
}

// renderTask shows the task of the running or finished demonstration.
func (p *teachPage) renderTask() app.UI {
	r := p.run
	running := r.stage == stageRunning
	return app.Section().Class("panel").Aria("labelledby", "teach-task-heading").Body(
		app.H2().ID("teach-task-heading").Text("Task"),
		app.P().ID("teach-goal").Text(r.plan.Task.Description),
		app.Dl().Class("facts").Body(
			app.Dt().Text("Model"), app.Dd().Text(r.modelID),
			app.Dt().Text("Body"), app.Dd().ID("teach-run-body").Text(runBodyText(p.choice, r.plan.WorldName)),
			app.Dt().Text("Authorizer"), app.Dd().ID("teach-authorizer").Body(
				app.Code().Text(r.authName),
				app.If(r.fallback, func() app.UI {
					return app.Span().Text(" — this tab accepted it because delegatic-mcp could not be used: " + errText(r.authErr))
				}),
			),
			app.Dt().Text("Capabilities granted"), app.Dd().Text(strings.Join(r.plan.Declared, ", ")),
			app.Dt().Text("Destructive mode"), app.Dd().Text(map[bool]string{true: "on", false: "off"}[p.form.destructive]),
		),
		app.Div().Class("field-row").Body(
			app.If(running, func() app.UI {
				return app.Button().Type("button").ID("teach-stop").Class("danger").Disabled(r.stopping).
					Text("Stop recording").OnClick(p.onStop)
			}),
			app.If(running && r.stopping, func() app.UI {
				return app.Span().ID("teach-stopping").Role("status").Text("Stopping after the current step; what was recorded is kept.")
			}),
		),
	)
}
