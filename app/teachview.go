package main

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/teach"
)

// renderView shows the body as the model sees it after its latest action:
// for the simulator, the browser's page (text, links, forms with their
// values) and the host's files; for another body, its state as JSON. All
// of it is data from the body, shown as text.
func (p *teachPage) renderView() app.UI {
	r := p.run
	content := []app.UI{app.H2().ID("view-heading").Text("The body's view")}
	if r.viewErr != nil {
		content = append(content, app.P().Class("status status-error").Body(
			app.Span().Class("error-text").Text(r.viewErr.Error())))
	}
	v := r.view
	switch {
	case v.Raw != "":
		content = append(content, app.Pre().Class("body-raw").TabIndex(0).Aria("label", "The body's state").Text(timelineClip(v.Raw)))
	case v.Kind != "":
		content = append(content, renderBrowserView(v), renderHostView(v))
	}
	return app.Section().ID("teach-view").Class("panel body-view").Aria("labelledby", "view-heading").Body(content...)
}

func renderBrowserView(v teach.View) app.UI {
	if v.Page == nil {
		return app.Div().ID("view-browser").Body(
			app.H3().Text("Browser"),
			app.P().Class("muted").Text("No page is open."),
		)
	}
	pg := v.Page
	blocks := make([]app.UI, 0, len(pg.Blocks))
	for _, b := range pg.Blocks {
		var el app.UI
		switch b.Kind {
		case "h1", "h2", "h3":
			el = app.P().Class("view-heading view-" + b.Kind).Text(b.Text)
		case "li":
			el = app.P().Class("view-li").Text("• " + b.Text)
		case "code":
			el = app.Pre().Class("view-code").TabIndex(0).Text(b.Text)
		default:
			el = app.P().Text(b.Text)
		}
		blocks = append(blocks, el)
	}
	links := make([]app.UI, 0, len(pg.Links))
	for _, l := range pg.Links {
		// Links of the simulated web are not followed from here: they are
		// shown as text, since they name pages of the world, not the web.
		links = append(links, app.Li().Body(app.Span().Class("view-link").Text(l.Name), app.Text(" → "), app.Code().Text(l.Href)))
	}
	forms := make([]app.UI, 0, len(pg.Forms))
	for _, f := range pg.Forms {
		fields := make([]app.UI, 0, len(f.Fields))
		for _, fl := range f.Fields {
			fields = append(fields, app.Li().Text(fl.Label+" ("+fl.Type+"): "+strconv.Quote(fl.Value)))
		}
		for _, b := range f.Buttons {
			fields = append(fields, app.Li().Text("button "+strconv.Quote(b)))
		}
		forms = append(forms, app.Div().Class("view-form").Body(
			app.P().Text("Form "+strconv.Quote(f.Name)),
			app.Ul().Body(fields...),
		))
	}
	return app.Div().ID("view-browser").Body(
		app.H3().Text("Browser"),
		app.P().Body(app.Code().ID("view-url").Text(v.URL)),
		app.P().Body(app.Strong().Text("Title: "), app.Span().ID("view-title").Text(pg.Title)),
		app.Div().ID("view-page").Class("view-page").Body(blocks...),
		app.If(len(links) > 0, func() app.UI {
			return app.Div().Body(app.P().Class("muted").Text("Links"), app.Ul().ID("view-links").Body(links...))
		}),
		app.Div().Body(forms...),
	)
}

func renderHostView(v teach.View) app.UI {
	files := make([]app.UI, 0, len(v.Files))
	for _, f := range v.Files {
		files = append(files, app.Li().Body(app.Code().Text(f.Path), app.Text(" · "+strconv.Itoa(f.Size)+" bytes")))
	}
	return app.Div().ID("view-host").Body(
		app.H3().Text("Host"),
		app.P().Body(app.Text("Working directory "), app.Code().Text(v.Cwd)),
		app.If(len(files) == 0, func() app.UI { return app.P().Class("muted").Text("No files.") }),
		app.If(len(files) > 0, func() app.UI { return app.Ul().ID("view-files").Body(files...) }),
	)
}
