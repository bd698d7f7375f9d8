package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// importPage takes skill bundles from disk into the library (/import).
type importPage struct {
	app.Compo
	env *env
}

func (p *importPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Import · Skill Workbench")
}

func (p *importPage) Render() app.UI {
	return frame("/import",
		app.H1().Text("Import skill bundles"),
	)
}
