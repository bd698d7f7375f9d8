package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// Footer is the text at the foot of every page (spec §2).
const footerText = "Workbench v0.1.0 · [&] Protocol v0.1.0 · PULSE v0.1.1"

// navLinks are the navigation bar's entries, in order.
var navLinks = [...]struct{ path, label string }{
	{"/", "Home"},
	{"/teach", "Teach"},
	{"/skills", "Skills"},
	{"/import", "Import"},
}

// openPaletteAction is the action the navigation bar's launcher posts;
// the capability workbench (palette), mounted beside every page, handles
// it by opening.
const openPaletteAction = "palette/open"

// frame wraps a page's content in what every page has: a skip link, the
// navigation bar (the current section marked with aria-current, and the
// capability workbench's launcher at its end, where it covers nothing),
// the main region and the footer.
//
// Rendered off the browser (the static pages, which the host also serves
// for deep links it has no file for), the main region is a neutral
// "loading" line instead of content: the same HTML then fits every route,
// and no page's text flashes on another's URL while the app loads.
func frame(current string, content ...app.UI) app.UI {
	if app.IsServer {
		content = []app.UI{app.P().Class("wb-shell").Text("Loading the workbench…")}
	}
	items := make([]app.UI, 0, len(navLinks))
	for _, l := range navLinks {
		a := app.A().Class("wb-navlink").Href(l.path).Text(l.label)
		if !app.IsServer && l.path == current {
			a = a.Aria("current", "page")
		}
		items = append(items, app.Li().Body(a))
	}
	return app.Div().Class("wb-page").Body(
		app.A().Class("skip-link").Href("#main").Text("Skip to content"),
		app.Header().Body(
			app.Nav().Class("wb-nav").Aria("label", "Main").Body(
				app.A().Class("wb-brand").Href("/").Body(
					app.Img().Src("/web/icon.svg").Alt(""),
					app.Span().Text("Skill Workbench"),
				),
				app.Ul().Body(items...),
				app.Button().Type("button").ID("pal-launcher").Class("pal-launcher").
					Aria("keyshortcuts", "Control+K Meta+K").OnClick(onLauncher).Body(
					app.Text("Capabilities"),
					app.Span().Class("pal-launcher-keys").Text(" (Ctrl/⌘ K)"),
				),
			),
		),
		app.Main().ID("main").Class("wb-main").Body(content...),
		app.Footer().Class("wb-footer").Body(app.Text(footerText)),
	)
}

// onLauncher asks the capability workbench to open.
func onLauncher(ctx app.Context, e app.Event) { ctx.NewAction(openPaletteAction) }
