package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// manifestTab is the skill page's Manifest tab, a component of its own:
// the manifest as stored, and the form for the name, slug and description
// a user may change (spec §2.1, §4.4), with the schema's verdict on every
// keystroke and the save of the edit as a new version
// (workbench.Flows.SaveManifest).
//
// The page makes one per version it shows and renders that same one each
// time the tab is opened, so an edit stays while another tab is open. The
// verifier that checks an edit (workbench.CheckDraft) is ready after the
// page is shown; the page hands it over with setVerifier.
type manifestTab struct {
	app.Compo
	pageTab
	env    *env
	bundle *skill.Bundle
	// newest says the version shown is the skill's newest, the only one
	// an edit may be saved onto.
	newest bool
	// onSaved is told the message about the version an edit was saved
	// as; the page then reads the skill again.
	onSaved func(msg string)

	checker   *workbench.Flows // checks an edit; nil until the verifier is ready
	schemaErr error            // the verifier could not be made

	edit     workbench.ManifestEdit
	edited   bool // the user changed a field
	problems workbench.DraftProblems
	checkErr error
	saving   bool
	saveErr  error
}

func newManifestTab(e *env, page app.Context, b *skill.Bundle, newest bool, onSaved func(string)) *manifestTab {
	return &manifestTab{pageTab: pageTab{page: page}, env: e, bundle: b, newest: newest, onSaved: onSaved, edit: workbench.EditOf(b.Manifest)}
}

func (f *manifestTab) OnMount(ctx app.Context) { f.keep(ctx) }

// setVerifier hands over the tab's verifier (or why there is none); an
// edit made meanwhile is checked now, and could not be saved before.
func (f *manifestTab) setVerifier(v *verify.Verifier, err error) {
	f.settle(f, func() {
		if f.schemaErr = err; err == nil {
			f.checker = f.env.flows
		}
		if f.edited {
			f.check()
		}
	})
}

// changed reports whether the form differs from the stored manifest.
func (f *manifestTab) changed() bool {
	m := f.bundle.Manifest
	return f.edit.Name != m.Name || f.edit.Slug != m.Slug || f.edit.Description != m.Description
}

// check checks the edited manifest through the flow layer
// (workbench.CheckDraft).
func (f *manifestTab) check() {
	m := f.bundle.Manifest
	m.Name, m.Slug, m.Description = f.edit.Name, f.edit.Slug, f.edit.Description
	if f.checker == nil {
		f.problems, f.checkErr = nil, f.schemaErr
		return
	}
	f.problems, f.checkErr = f.checker.CheckDraft(context.Background(), m)
}

func (f *manifestTab) onField(field string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		v := recordTyped(ctx)
		switch field {
		case "name":
			f.edit.Name = v
		case "slug":
			f.edit.Slug = v
		case "description":
			f.edit.Description = v
		}
		f.saveErr, f.edited = nil, true
		f.check()
	}
}

func (f *manifestTab) onSave(ctx app.Context, e app.Event) {
	e.PreventDefault()
	ctx = f.own()
	f.check()
	if !f.newest || f.checker == nil || !f.problems.Valid() || f.checkErr != nil || f.saving {
		return
	}
	f.saving, f.saveErr = true, nil
	b, edit := f.bundle, f.edit
	ctx.Async(func() {
		nb, err := f.env.flows.SaveManifest(ctx, b, edit)
		f.env.dropStore(err)
		f.settle(f, func() {
			f.saving = false
			if err != nil {
				f.saveErr = err
				return
			}
			f.onSaved("Saved the edited manifest as version " + strconv.Itoa(nb.SkillVersion) + ".")
		})
	})
}

func (f *manifestTab) Render() app.UI {
	m := f.bundle.Manifest
	// & and < as written, not \u0026: the text is shown as text.
	text, err := words.JSON(m)
	if err != nil {
		text = "the manifest cannot be shown: " + err.Error()
	}
	canSave := f.newest && f.checker != nil && f.changed() && f.problems.Valid() && f.checkErr == nil && !f.saving
	return app.Div().Body(
		app.H2().Text("Manifest"),
		app.Form().ID("manifest-form").OnSubmit(f.onSave).Body(
			app.P().Class("muted").Text("Name, slug and description are yours to change; every other member comes from the recording. Saving makes a new version with a re-derived proof; the old version stays in the library."),
			f.field("name", "Name", false, f.edit.Name),
			f.field("slug", "Slug (kebab-case: a-z, 0-9 and hyphens)", false, f.edit.Slug),
			f.field("description", "Description", true, f.edit.Description),
			app.If(len(f.problems[""]) > 0, func() app.UI {
				return app.P().Class("field-error").Role("alert").Text("Manifest: " + strings.Join(f.problems[""], "; "))
			}),
			app.If(f.checker == nil && f.schemaErr == nil, func() app.UI {
				return app.P().Class("muted").ID("manifest-schema-loading").Text("Loading the manifest schema; edits are checked as soon as it is ready.")
			}),
			app.If(f.checkErr != nil, func() app.UI {
				return app.P().Class("status status-error").Role("alert").Text("The manifest could not be checked: " + f.checkErr.Error())
			}),
			app.Div().Class("field-row").Body(
				app.Button().Type("submit").ID("manifest-save").Disabled(!canSave).Text("Save as new version"),
				app.If(f.saving, func() app.UI { return app.Span().Class("status status-pending").Text("Saving…") }),
			),
			app.If(f.saveErr != nil, func() app.UI {
				return app.Div().Class("status status-error").Role("alert").ID("manifest-save-error").Body(
					app.P().Text("Not saved; the library is as it was."),
					app.P().Class("error-text").Text(f.saveErr.Error()),
				)
			}),
		),
		app.H3().Text("Manifest JSON (version "+strconv.Itoa(f.bundle.SkillVersion)+", as stored)"),
		// Focusable, so a keyboard user can scroll a manifest wider or
		// taller than its box.
		app.Pre().Class("json").ID("manifest-json").TabIndex(0).Text(text),
	)
}

// field is one input of the manifest form, its schema errors beside it.
func (f *manifestTab) field(field, label string, multiline bool, value string) app.UI {
	id := "edit-" + field
	msgs := f.problems[field]
	errID := id + "-error"
	var input app.UI
	if multiline {
		ta := app.Textarea().ID(id).Name(field).Rows(3).Text(value).OnInput(f.onField(field))
		if len(msgs) > 0 {
			ta = ta.Aria("invalid", "true").Aria("describedby", errID)
		}
		input = ta
	} else {
		in := app.Input().Type("text").ID(id).Name(field).Value(value).OnInput(f.onField(field))
		if len(msgs) > 0 {
			in = in.Aria("invalid", "true").Aria("describedby", errID)
		}
		input = in
	}
	return app.Div().Class("field").Body(
		app.Label().For(id).Text(label),
		input,
		app.If(len(msgs) > 0, func() app.UI {
			return app.P().Class("field-error").ID(errID).Text(strings.Join(msgs, "; "))
		}),
	)
}
