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
	{"/registry", "Registry"},
}

// openPaletteAction is the action the navigation bar's launcher posts;
// the capability palette, mounted beside every page, handles
// it by opening.
const openPaletteAction = "palette/open"

// frame wraps a page's content in what every page has: a skip link, the
// navigation bar (the current section marked with aria-current, and the
// capability palette's launcher at its end, where it covers nothing),
// the main region and the footer.
//
// Rendered off the browser (the static pages), the main region holds the
// page's heading and explanatory text — its leading h1 and p elements —
// and then a "loading" line in place of everything the app must run to
// show (forms, lists, results): a person reads what the page is for while
// app.wasm arrives. The neutral shell the host serves for deep links
// (loadingPage) has no content, so it shows the loading line alone and no
// page's text flashes on another's URL.
func frame(current string, content ...app.UI) app.UI {
	if app.IsServer {
		content = append(staticIntro(content), app.P().Class("wb-shell").Text("Loading the workbench…"))
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

// staticIntro returns the leading headings and paragraphs of a page's
// content: what it says before its first control or dynamic part.
func staticIntro(content []app.UI) []app.UI {
	for i, c := range content {
		switch c.(type) {
		case app.HTMLH1, app.HTMLP:
		default:
			return content[:i:i]
		}
	}
	return content[:len(content):len(content)]
}

// onLauncher asks the capability palette to open.
func onLauncher(ctx app.Context, e app.Event) { ctx.NewAction(openPaletteAction) }
