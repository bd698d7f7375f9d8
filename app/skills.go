package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// skillsPage is the local skill library (/skills).
type skillsPage struct {
	app.Compo
	env *env
}

func (p *skillsPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Skills · Skill Workbench")
}

func (p *skillsPage) Render() app.UI {
	return frame("/skills",
		app.H1().Text("Skills"),
	)
}
