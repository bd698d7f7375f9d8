package main

import (
	"context"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// deletion is a skill the user asked to delete, waiting for the
// confirmation dialog (#delete-dialog) shared by /skills and the skill
// page.
type deletion struct {
	id, name string
	busy     bool
	err      error
}

// deleteSkill deletes one skill from the library (store.Store.DeleteSkill:
// one transaction). It blocks: call it from a goroutine.
func (e *env) deleteSkill(ctx context.Context, id string) error {
	st, err := e.store(ctx, nil)
	if err != nil {
		return err
	}
	err = st.DeleteSkill(ctx, id)
	e.dropStore(err)
	return err
}

// confirm deletes the skill d names, on the page ctx: Delete was
// pressed. On success it closes the dialog, forgets d and calls deleted
// with the skill's name; on failure the dialog stays open and says why.
// An answer that comes after the dialog was closed is dropped.
func (d *deletion) confirm(ctx app.Context, e *env, deleted func(ctx app.Context, name string)) {
	if d.id == "" || d.busy {
		return
	}
	d.busy, d.err = true, nil
	asked := *d
	ctx.Async(func() {
		err := e.deleteSkill(ctx, asked.id)
		ctx.Dispatch(func(ctx app.Context) {
			if d.id != asked.id {
				return // the dialog was closed meanwhile
			}
			d.busy, d.err = false, err
			if err != nil {
				return
			}
			closeDeleteDialog()
			*d = deletion{}
			deleted(ctx, asked.name)
		})
	})
}

// showDeleteDialog opens the confirmation dialog.
func showDeleteDialog() {
	if d := app.Window().GetElementByID("delete-dialog"); d.Truthy() && !d.Get("open").Bool() {
		d.Call("showModal")
	}
}

// closeDeleteDialog closes it.
func closeDeleteDialog() {
	if d := app.Window().GetElementByID("delete-dialog"); d.Truthy() && d.Get("open").Bool() {
		d.Call("close")
	}
}

// renderDeleteDialog is the confirmation dialog for d. It names the skill
// and what goes with it; nothing is deleted until Delete is pressed.
func renderDeleteDialog(d deletion, onCancel, onConfirm app.EventHandler) app.UI {
	return app.Dialog().ID("delete-dialog").Aria("labelledby", "delete-dialog-title").Aria("describedby", "delete-dialog-text").Body(
		app.H2().ID("delete-dialog-title").Text("Delete this skill?"),
		app.P().ID("delete-dialog-text").Body(
			app.Strong().ID("delete-dialog-name").Text(d.name),
			app.Text(" and every one of its stored versions, its traces and its replays are deleted from this browser. It cannot be undone; export the bundles you want to keep first."),
		),
		app.If(d.err != nil, func() app.UI {
			return app.P().Class("status status-error").Role("alert").ID("delete-error").Body(
				app.Text("Nothing was deleted: "), app.Span().Class("error-text").Text(errText(d.err)))
		}),
		app.Div().Class("dialog-actions").Body(
			app.Button().Type("button").ID("delete-cancel").Class("secondary").Text("Cancel").OnClick(onCancel),
			app.Button().Type("button").ID("delete-confirm").Class("danger").Disabled(d.busy).Text("Delete skill").OnClick(onConfirm),
		),
	)
}
