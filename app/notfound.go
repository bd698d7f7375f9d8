package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// notFoundPage is shown for a path that is no route of the app, inside the
// usual frame so the navigation still works.
type notFoundPage struct {
	app.Compo
	path string
}

func (p *notFoundPage) OnNav(ctx app.Context) {
	p.path = ctx.Page().URL().Path
	ctx.Page().SetTitle("Not found · Skill Workbench")
}

func (p *notFoundPage) Render() app.UI {
	return frame("",
		app.H1().Text("Page not found"),
		app.P().Body(
			app.Text("The workbench has no page at "),
			app.Code().Text(p.path),
			app.Text(". "),
			app.A().Href("/").Text("Go to the start page"),
			app.Text("."),
		),
	)
}
