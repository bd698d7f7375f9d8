package main

import (
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// manifestEdit is the Manifest tab's form: the name, slug and description
// a user may change (spec §2.1, §4.4), the schema's verdict on every
// keystroke, and the save of the edit as a new version.
type manifestEdit struct {
	edit      workbench.ManifestEdit
	edited    bool  // the user changed a field
	schemaErr error // the manifest schema could not be compiled
	problems  workbench.DraftProblems
	checkErr  error
	saving    bool
	saveErr   error
}

func newManifestEdit(m skill.Manifest) manifestEdit {
	return manifestEdit{edit: workbench.EditOf(m)}
}

// changed reports whether the form differs from the stored manifest.
func (f manifestEdit) changed(m skill.Manifest) bool {
	return f.edit.Name != m.Name || f.edit.Slug != m.Slug || f.edit.Description != m.Description
}

// checkEdit checks the edited manifest through the flow layer
// (workbench.CheckDraft).
func (p *skillPage) checkEdit() {
	m := p.bundle.Manifest
	m.Name, m.Slug, m.Description = p.edit.edit.Name, p.edit.edit.Slug, p.edit.edit.Description
	if p.checker == nil {
		p.edit.problems, p.edit.checkErr = nil, p.edit.schemaErr
		return
	}
	p.edit.problems, p.edit.checkErr = p.checker.CheckDraft(m)
}

func (p *skillPage) onEditField(field string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		v := ctx.JSSrc().Get("value").String()
		switch field {
		case "name":
			p.edit.edit.Name = v
		case "slug":
			p.edit.edit.Slug = v
		case "description":
			p.edit.edit.Description = v
		}
		p.edit.saveErr, p.edit.edited = nil, true
		p.checkEdit()
	}
}

func (p *skillPage) onEditSave(ctx app.Context, e app.Event) {
	e.PreventDefault()
	ctx = p.own()
	p.checkEdit()
	if !p.newest() || p.checker == nil || !p.edit.problems.Valid() || p.edit.checkErr != nil || p.edit.saving {
		return
	}
	p.edit.saving, p.edit.saveErr = true, nil
	b, edit := p.bundle, p.edit.edit
	ctx.Async(func() {
		var nb *skill.Bundle
		v, err := p.env.verify()
		if err == nil {
			var st store.Store
			if st, err = p.env.store(ctx, nil); err == nil {
				nb, err = (&workbench.Workbench{Verifier: v, Store: st}).SaveManifest(ctx, b, edit)
				p.env.dropStore(err)
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.edit.saving = false
			if err != nil {
				p.edit.saveErr = err
				return
			}
			p.reload(ctx, "Saved the edited manifest as version "+strconv.Itoa(nb.SkillVersion)+".")
		})
	})
}

func (p *skillPage) renderManifest() app.UI {
	m := p.bundle.Manifest
	// & and < as written, not \u0026: the text is shown as text.
	text, err := words.JSON(m)
	if err != nil {
		text = "the manifest cannot be shown: " + err.Error()
	}
	f := p.edit
	canSave := p.newest() && p.checker != nil && f.changed(m) && f.problems.Valid() && f.checkErr == nil && !f.saving
	return app.Div().Body(
		app.H2().Text("Manifest"),
		app.Form().ID("manifest-form").OnSubmit(p.onEditSave).Body(
			app.P().Class("muted").Text("Name, slug and description are yours to change; every other member comes from the recording. Saving makes a new version with a re-derived proof; the old version stays in the library."),
			p.editField("name", "Name", false, f.edit.Name),
			p.editField("slug", "Slug (kebab-case: a-z, 0-9 and hyphens)", false, f.edit.Slug),
			p.editField("description", "Description", true, f.edit.Description),
			app.If(len(f.problems[""]) > 0, func() app.UI {
				return app.P().Class("field-error").Role("alert").Text("Manifest: " + strings.Join(f.problems[""], "; "))
			}),
			app.If(p.checker == nil && f.schemaErr == nil, func() app.UI {
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
		app.H3().Text("Manifest JSON (version "+strconv.Itoa(p.bundle.SkillVersion)+", as stored)"),
		// Focusable, so a keyboard user can scroll a manifest wider or
		// taller than its box.
		app.Pre().Class("json").ID("manifest-json").TabIndex(0).Text(text),
	)
}

// editField is one input of the manifest form, its schema errors beside it.
func (p *skillPage) editField(field, label string, multiline bool, value string) app.UI {
	id := "edit-" + field
	msgs := p.edit.problems[field]
	errID := id + "-error"
	var input app.UI
	if multiline {
		ta := app.Textarea().ID(id).Name(field).Rows(3).Text(value).OnInput(p.onEditField(field))
		if len(msgs) > 0 {
			ta = ta.Aria("invalid", "true").Aria("describedby", errID)
		}
		input = ta
	} else {
		in := app.Input().Type("text").ID(id).Name(field).Value(value).OnInput(p.onEditField(field))
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
