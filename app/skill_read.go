package main

import (
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/store"
)

// skillRead is what a page of one skill (the skill page, its replay
// page) knows of reading that skill from the library.
type skillRead struct {
	id      string
	loadErr error
	missing bool // no skill with this id in the library
	blocked bool // another tab holds an older version of the library open
}

// readFailed records err, the answer of reading the skill, and reports
// whether there is nothing to show: no such skill, or the read failed.
func (r *skillRead) readFailed(ctx app.Context, err error) bool {
	switch {
	case errors.Is(err, store.ErrNotFound):
		r.missing = true
		ctx.Page().SetTitle("No such skill · Skill Workbench")
	case err != nil:
		r.loadErr = err
	}
	return err != nil
}

// renderUnread is the page until the skill is read (read false), under
// heading title: that there is no such skill (missingWhy says what that
// means on this page), that reading failed, or reading (what is being
// done) and whether another tab blocks it. It is nil once the skill is
// read.
func (r *skillRead) renderUnread(title string, read bool, missingWhy, reading string) app.UI {
	switch {
	case r.missing:
		return frame("/skills",
			app.H1().Text("No such skill"),
			app.P().ID("skill-missing").Body(
				app.Text("There is no skill with id "), app.Code().Text(r.id),
				app.Text(" in this browser's library"+missingWhy),
				app.A().Href("/import").Text("import its bundle file"),
				app.Text(" or see "), app.A().Href("/skills").Text("the skills you have"), app.Text("."),
			),
		)
	case r.loadErr != nil:
		return frame("/skills",
			app.H1().Text(title),
			app.Div().Class("status status-error").Role("alert").ID("skill-error").Body(
				app.P().Text("The skill could not be read from this browser's library."),
				app.P().Class("error-text").Text(r.loadErr.Error()),
			),
		)
	case !read:
		return frame("/skills",
			app.H1().Text(title),
			app.If(r.blocked, func() app.UI {
				return app.P().Class("status status-error").Role("alert").Text("Another tab of the workbench holds an older version of the library open. Close it to continue.")
			}),
			app.P().Class("status status-pending").ID("skill-loading").Text(reading),
		)
	}
	return nil
}
