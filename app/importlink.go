package main

import (
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/fetch"
	"workbench/pkg/library"
	"workbench/pkg/registry"
	"workbench/pkg/workbench"
)

// linkState is /import?from=<link>: a bundle to import from a registry by
// its link (registry.ParseLink), through the same import flow as a dropped
// file (workbench.ImportLink). The link is fetched only when its registry
// is this workbench's own or one the person added, and only when the
// person presses Import: opening a link imports nothing by itself.
type linkState struct {
	raw     string
	link    registry.Link
	err     error    // the link cannot be read
	allowed []string // the registries this browser fetches from; nil until read
	busy    bool
}

// readLink reads ?from= and the registries the link may come from.
func (p *importPage) readLink(ctx app.Context) {
	from := ctx.Page().URL().Query().Get("from")
	p.link = linkState{raw: from}
	if from == "" {
		return
	}
	p.link.link, p.link.err = registry.ParseLink(from)
	ctx.Async(func() {
		allowed, err := p.env.registries(ctx)
		ctx.Dispatch(func(app.Context) {
			p.link.allowed = allowed
			if err != nil && p.link.err == nil {
				p.link.err = err
			}
		})
	})
}

// linkAllowed reports whether the link's registry may be fetched.
func (s linkState) linkAllowed() bool {
	for _, o := range s.allowed {
		if o == s.link.Registry {
			return true
		}
	}
	return false
}

func (p *importPage) onLinkImport(ctx app.Context, e app.Event) {
	if p.link.busy || p.link.err != nil {
		return
	}
	p.link.busy = true
	p.busy++
	raw, allowed := p.link.raw, p.link.allowed
	ctx.Async(func() {
		r := importResult{res: library.Result{Name: raw}}
		// Opened here first, to say when another tab blocks it.
		_, err := p.env.store(ctx, func() { ctx.Dispatch(func(app.Context) { p.blocked = true }) })
		if err == nil {
			var li workbench.LinkImport
			li, err = p.env.flows.ImportLink(ctx, raw, allowed, fetch.Default())
			p.env.dropStore(err)
			p.keepVerdict(li.Result)
			r.res, r.linked = li.Result, &li
			if r.res.Name == "" {
				r.res.Name = raw
			}
			r.data = li.Data // a collision waits for the person's choice
		}
		r.err = err
		ctx.Dispatch(func(app.Context) {
			p.link.busy = false
			p.busy--
			p.results = append(p.results, r)
		})
	})
}

// renderLink is the panel of a ?from= link: which registry and which
// bundle, and Import; or why it cannot be imported.
func (p *importPage) renderLink() app.UI {
	s := p.link
	if s.raw == "" {
		return nil
	}
	var body app.UI
	switch {
	case s.err != nil && errors.Is(s.err, registry.ErrNotALink):
		body = app.P().Class("status status-error").ID("link-error").Role("alert").Text("This is not a registry link: " + s.err.Error() + ".")
	case s.err != nil:
		body = app.P().Class("status status-error").ID("link-error").Role("alert").Text(s.err.Error())
	case s.allowed == nil:
		body = app.P().Class("muted").Text("Reading your registries…")
	case !s.linkAllowed():
		body = app.Div().ID("link-not-allowed").Class("status status-error").Role("alert").Body(
			app.P().Text((&workbench.NotAllowedError{Registry: s.link.Registry}).Error()+". Nothing was fetched."),
			app.P().Body(app.Text("If you trust that registry, add it by hand under Registries on the "),
				app.A().Href("/registry").Text("Registry page"), app.Text(", then open the link again.")),
		)
	default:
		body = app.Div().Body(
			app.P().Text("Importing fetches the bundle's index entry and its bytes from this registry, checks that the bytes are the bundle the link names, and imports them as a dropped file is imported. Nothing in the bundle is fetched or run."),
			app.Button().Type("button").ID("link-import").Disabled(s.busy).Text("Import this bundle").OnClick(p.onLinkImport),
		)
	}
	facts := app.Dl().Class("facts").Body(
		app.Dt().Text("Registry"), app.Dd().ID("link-registry").Text(orText(s.link.Registry, "—")),
		app.Dt().Text("Bundle"), app.Dd().Body(app.Code().Class("hash").ID("link-hash").Text(orText(s.link.ContentHash, "—"))),
	)
	if s.err != nil {
		facts = nil
	}
	return app.Section().Class("panel").ID("link-panel").Aria("labelledby", "link-heading").Body(
		app.H2().ID("link-heading").Text("Import from a link"),
		facts,
		body,
	)
}

// renderLinked is what a bundle imported by link carries besides a file's
// line: the registry it came from, what that registry says of it —
// labelled as the registry's — and whether its signer withdrew it.
func renderLinked(li *workbench.LinkImport) app.UI {
	if li == nil || li.Entry.ContentHash == "" {
		return nil
	}
	e := li.Entry
	return app.Div().Class("import-linked").Body(
		app.P().Class("muted").Body(
			app.Text("From the registry at "), app.Span().Class("linked-registry").Text(li.Link.Registry),
			app.Text(", published "+e.PublishedAt+". The registry's own verdict when it was published: "),
			verdictBadge(e.Verdict),
			app.Text(" (the re-verified verdict above is this browser's)."),
		),
		app.If(e.Withdrawn(), func() app.UI {
			return app.P().Class("status status-error linked-withdrawn").Role("status").Text(
				"Withdrawn by its signer at " + *e.WithdrawnAt + ": the signer no longer offers this version.")
		}),
	)
}

// onTrustOpen opens the trust dialog on a key.
func (p *importPage) onTrustOpen(keyID, publicKey string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.pin = newPinning(keyID, publicKey)
		ctx.Defer(func(app.Context) { showTrustDialog() })
	}
}

// onPinConfirm pins the key, then checks every result's signature again
// against the trusted signers, so each line says what it now is.
func (p *importPage) onPinConfirm(ctx app.Context, e app.Event) {
	p.pin.confirm(ctx, p.env, func(ctx app.Context) {
		p.recheck(ctx)
		p.reloadSigning(ctx)
	})
}

// recheck checks the signature of every result shown again.
func (p *importPage) recheck(ctx app.Context) {
	results := p.results
	ctx.Async(func() {
		for _, r := range results {
			if r.res.Report != nil {
				p.env.flows.CheckSignature(ctx, r.res.Report)
			}
		}
		ctx.Dispatch(func(app.Context) {})
	})
}
