package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// homePage is the landing page (/): what the workbench is, the OpenRouter
// key of this session and the body to work with.
type homePage struct {
	app.Compo
	env *env
}

func (p *homePage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Skill Workbench")
}

func (p *homePage) Render() app.UI {
	return frame("/",
		app.H1().Text("Skill Workbench"),
		app.P().Class("lead").Text("Show an agent a multi-step task once, get a portable skill back, and replay it against new inputs — with a proof of what the replay did, not a model's word that it worked."),
	)
}
