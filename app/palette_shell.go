package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// shell is the root of every route: the page, and beside it the capability
// workbench (palette), which therefore exists on every route and stays
// mounted across navigation — its runs and approvals with it. main wraps
// each route's component in one.
//
// On each navigation it forgets the page context the previous page
// published (env.setPageContext), before the new page's OnNav runs, so no
// value of another page prefills a form.
type shell struct {
	app.Compo

	env *env
	// Page is the route's own component.
	Page app.UI
}

func (s *shell) OnNav(ctx app.Context) { s.env.clearPageContext() }

func (s *shell) Render() app.UI {
	return app.Div().Class("wb-app").Body(s.Page, &palette{env: s.env})
}
