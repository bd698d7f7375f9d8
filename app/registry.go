package main

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/registry"
	"workbench/pkg/signature"
)

// registryPage is /registry: the bundles published to this workbench's
// registry (or to one the person added by hand), searched and paged, each
// with the link that imports it; Withdraw for the bundles this browser's
// key signed; and the registries the person added. A listing says who
// signed each bundle and the verdict the registry re-derived when it was
// published, labelled as the registry's; it never says a signer is
// trusted: that is the person's trusted signers' to say, on import.
type registryPage struct {
	app.Compo
	env *env
	ownContext

	registries []string // own origin first, then those added
	current    string   // the registry listed
	ownKey     string   // this browser's signing key's id; "" when it has none

	q, signer string
	cursors   []string // the cursor of each page shown before this one
	// status is what each registry listed said of itself
	// (registry.Status), asked once per visit before its first listing.
	status  map[string]registry.Status
	page    registry.Page
	loading bool
	loaded  bool
	err     error

	withdraw  registry.Entry // the entry the withdraw dialog asks about
	wBusy     bool
	wErr      error
	withdrawn string // the content hash withdrawn last, for the message

	newOrigin string
	addErr    error
}

func (p *registryPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Registry · Skill Workbench")
	p.keep(ctx)
	p.current, p.cursors, p.status = p.env.origin(), nil, map[string]registry.Status{}
	p.reload(ctx)
}

// reload reads the registries and this browser's key, then lists.
func (p *registryPage) reload(ctx app.Context) {
	ctx.Async(func() {
		regs, err := p.env.registries(ctx)
		own := ""
		if st, serr := p.env.store(ctx, nil); serr == nil {
			if k, kerr := signingKey(ctx, st); kerr == nil {
				own = signature.KeyID(k.Public())
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.registries, p.ownKey, p.addErr = regs, own, err
			if !slices.Contains(regs, p.current) {
				p.current, p.cursors = p.env.origin(), nil
			}
			p.list(ctx, "")
		})
	})
}

// list reads the page of the listing after cursor, once the registry
// has said it is there: a deployment without one is asked nothing more.
func (p *registryPage) list(ctx app.Context, cursor string) {
	p.loading = true
	origin, q, signer := p.current, p.q, p.signer
	st, known := p.status[origin]
	ctx.Async(func() {
		var page registry.Page
		c, err := p.env.registryClient(origin)
		if err == nil && !known {
			st, err = c.Status(ctx)
		}
		if err == nil && st.Available {
			page, err = c.List(ctx, q, signer, cursor, 0)
		}
		ctx.Dispatch(func(app.Context) {
			if err == nil {
				p.status[origin] = st
			}
			p.loading, p.loaded, p.page, p.err = false, true, page, err
		})
	})
}

func (p *registryPage) onQuery(ctx app.Context, e app.Event) {
	p.q = recordTyped(ctx)
}

func (p *registryPage) onSigner(ctx app.Context, e app.Event) {
	p.signer = strings.TrimSpace(recordTyped(ctx))
}

func (p *registryPage) onSearch(ctx app.Context, e app.Event) {
	e.PreventDefault()
	p.cursors = nil
	p.list(ctx, "")
}

func (p *registryPage) onRegistry(ctx app.Context, e app.Event) {
	p.current, p.cursors = recordTyped(ctx), nil
	p.list(ctx, "")
}

func (p *registryPage) onNext(ctx app.Context, e app.Event) {
	if p.page.NextCursor == nil {
		return
	}
	p.cursors = append(p.cursors, *p.page.NextCursor)
	p.list(ctx, *p.page.NextCursor)
}

func (p *registryPage) onFirst(ctx app.Context, e app.Event) {
	p.cursors = nil
	p.list(ctx, "")
}

func (p *registryPage) onAskWithdraw(entry registry.Entry) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.withdraw, p.wErr, p.withdrawn = entry, nil, ""
		ctx.Defer(func(app.Context) {
			if d := app.Window().GetElementByID("withdraw-dialog"); d.Truthy() && !d.Get("open").Bool() {
				d.Call("showModal")
			}
		})
	}
}

func closeWithdrawDialog() {
	if d := app.Window().GetElementByID("withdraw-dialog"); d.Truthy() && d.Get("open").Bool() {
		d.Call("close")
	}
}

func (p *registryPage) onCancelWithdraw(ctx app.Context, e app.Event) {
	p.withdraw = registry.Entry{}
	closeWithdrawDialog()
}

func (p *registryPage) onConfirmWithdraw(ctx app.Context, e app.Event) {
	if p.wBusy || p.withdraw.ContentHash == "" {
		return
	}
	ctx = p.own()
	p.wBusy, p.wErr = true, nil
	hash, origin := p.withdraw.ContentHash, p.current
	ctx.Async(func() {
		c, err := p.env.registryClient(origin)
		if err == nil {
			if k, kerr := p.env.signer(ctx); kerr != nil {
				err = kerr
			} else {
				_, err = p.env.flows.Withdraw(ctx, c, k, hash)
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.wBusy, p.wErr = false, err
			if err != nil {
				return
			}
			p.withdraw, p.withdrawn = registry.Entry{}, hash
			closeWithdrawDialog()
			p.cursors = nil
			p.list(ctx, "")
		})
	})
}

func (p *registryPage) onNewOrigin(ctx app.Context, e app.Event) {
	p.newOrigin = recordTyped(ctx)
	p.addErr = nil
}

// onAddRegistry adds the registry the person typed, after checking that
// this page may connect to it at all.
func (p *registryPage) onAddRegistry(ctx app.Context, e app.Event) {
	e.PreventDefault()
	origin, err := registry.Origin(p.newOrigin)
	if err == nil && !connectAllowed(origin, p.env.origin()) {
		err = errors.New("this workbench's Content-Security-Policy lets its pages connect to their own origin and to this computer's loopback addresses only, so the browser would refuse every request to " + origin +
			". Open that registry's own workbench to import from it, or download a bundle from its link and drop the file on the Import page")
	}
	if err != nil {
		p.addErr = err
		return
	}
	ctx.Async(func() {
		err := p.env.withKeyring(ctx, func(kr keyring) error { return kr.AddRegistry(ctx, origin) })
		ctx.Dispatch(func(ctx app.Context) {
			p.addErr = err
			if err == nil {
				p.newOrigin = ""
				p.reload(ctx)
			}
		})
	})
}

func (p *registryPage) onRemoveRegistry(origin string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		ctx.Async(func() {
			err := p.env.withKeyring(ctx, func(kr keyring) error { return kr.RemoveRegistry(ctx, origin) })
			ctx.Dispatch(func(ctx app.Context) {
				p.addErr = err
				p.reload(ctx)
			})
		})
	}
}

// connectAllowed reports whether the site's CSP (contentSecurityPolicy,
// site.go) lets a page of own connect to origin: its own origin, or a
// loopback address (loopbackSources) on any port.
func connectAllowed(origin, own string) bool {
	if origin == own {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" {
		return false
	}
	h := u.Hostname()
	return h == "127.0.0.1" || h == "localhost"
}

func (p *registryPage) Render() app.UI {
	return frame("/registry",
		app.H1().Text("Registry"),
		app.P().Text("Skills published to this workbench's registry, each signed by its publisher's key and kept under its content hash. The registry says who signed a bundle and the verdict it re-derived when the bundle was published; it never says whom to trust. Importing verifies the bundle again in this browser and checks its signer against your trusted signers."),
		p.renderSearch(),
		p.renderListing(),
		renderWithdrawDialog(p.withdraw, p.wBusy, p.wErr, p.onCancelWithdraw, p.onConfirmWithdraw),
		p.renderRegistries(),
	)
}

func (p *registryPage) renderSearch() app.UI {
	var choose app.UI
	if len(p.registries) > 1 {
		opts := make([]app.UI, 0, len(p.registries))
		for i, o := range p.registries {
			label := o
			if i == 0 {
				label += " (this workbench)"
			}
			opts = append(opts, app.Option().Value(o).Selected(o == p.current).Text(label))
		}
		choose = app.Div().Class("field").Body(
			app.Label().For("registry-choice").Text("Registry"),
			app.Select().ID("registry-choice").OnChange(p.onRegistry).Body(opts...),
		)
	}
	return app.Form().ID("registry-search").Class("field-row").OnSubmit(p.onSearch).Body(
		choose,
		app.Div().Class("field").Body(
			app.Label().For("registry-q").Text("Search"),
			app.Input().Type("search").ID("registry-q").Value(p.q).MaxLength(registry.MaxQueryText).
				Placeholder("name, slug or description").OnInput(p.onQuery),
		),
		app.Div().Class("field").Body(
			app.Label().For("registry-signer").Text("Signer's key id"),
			app.Input().Type("text").ID("registry-signer").Value(p.signer).Placeholder("sha256:…").OnInput(p.onSigner),
		),
		app.Button().Type("submit").ID("registry-search-go").Text("Search"),
	)
}

func (p *registryPage) renderListing() app.UI {
	var ae *registry.APIError
	st, known := p.status[p.current]
	switch {
	case known && !st.Available:
		return app.P().ID("registry-none").Class("status").Text("No registry at " + p.current + ": " + st.Reason + ".")
	case p.err != nil && errors.As(p.err, &ae) && ae.Code == registry.CodeUnavailable:
		return app.P().ID("registry-none").Class("status").Text("This workbench has no registry: " + ae.Message + ".")
	case p.err != nil:
		return app.P().ID("registry-error").Class("status status-error").Role("alert").Text("The registry could not be listed: " + p.err.Error())
	case !p.loaded:
		return app.P().Class("status status-pending").Text("Reading the registry…")
	case len(p.page.Skills) == 0 && len(p.cursors) == 0:
		return app.P().ID("registry-empty").Class("status").Text("Nothing published here matches. Publish a skill from its page: Export, then Sign and publish.")
	}
	rows := make([]app.UI, 0, len(p.page.Skills))
	for _, e := range p.page.Skills {
		rows = append(rows, p.renderEntry(e))
	}
	return app.Div().Body(
		app.If(p.withdrawn != "", func() app.UI {
			return app.P().ID("withdraw-done").Class("status status-ok").Role("status").Text("Withdrawn: " + p.withdrawn + ". Its link still serves the bytes, marked withdrawn by its signer.")
		}),
		app.Div().Class("table-scroll").TabIndex(0).Role("region").Aria("label", "Published skills").Body(
			app.Table().ID("registry-table").Class("list").Body(
				app.Caption().Text("Published in "+p.current+", newest first. The verdict is the registry's, re-derived when each was published."),
				app.THead().Body(app.Tr().Body(
					app.Th().Scope("col").Text("Skill"),
					app.Th().Scope("col").Text("Description"),
					app.Th().Scope("col").Text("Signed by key"),
					app.Th().Scope("col").Text("Registry's verdict at publish"),
					app.Th().Scope("col").Text("Published"),
					app.Th().Scope("col").Text("Link"),
				)),
				app.TBody().Body(rows...),
			),
		),
		app.Div().Class("field-row").Body(
			app.If(len(p.cursors) > 0, func() app.UI {
				return app.Button().Type("button").Class("secondary").ID("registry-first").Text("First page").OnClick(p.onFirst)
			}),
			app.If(p.page.NextCursor != nil, func() app.UI {
				return app.Button().Type("button").Class("secondary").ID("registry-next").Text("Next page").OnClick(p.onNext)
			}),
		),
	)
}

func (p *registryPage) renderEntry(e registry.Entry) app.UI {
	l := registry.Link{Registry: p.current, ContentHash: e.ContentHash}
	// Imported on this workbench's own page, whichever registry lists it.
	importHref := "/import?" + url.Values{"from": {l.String()}}.Encode()
	signer := app.Div().Body(app.Code().Class("hash registry-signer").Text(e.SignerKeyID))
	if e.SignerKeyID == p.ownKey {
		signer = app.Div().Body(app.Code().Class("hash registry-signer").Text(e.SignerKeyID), app.Div().Class("muted").Text("this browser's key"))
	}
	status := app.Div().Class("muted").Text(e.Slug + " · v" + strconv.Itoa(e.Version) + " · " + e.RedactionProfile)
	var withdrawn app.UI
	if e.Withdrawn() {
		withdrawn = app.Div().Class("status-error registry-withdrawn").Text("withdrawn by its signer " + *e.WithdrawnAt)
	}
	var action app.UI
	// Only this workbench's own registry takes a write from its page.
	if e.SignerKeyID == p.ownKey && p.ownKey != "" && !e.Withdrawn() && p.current == p.env.origin() {
		action = app.Button().Type("button").Class("link-button registry-withdraw").
			Aria("label", "Withdraw "+e.Name+"…").Text("Withdraw…").OnClick(p.onAskWithdraw(e))
	}
	return app.Tr().Class("registry-row").DataSet("hash", e.ContentHash).Body(
		app.Td().Body(app.Strong().Class("registry-name").Text(e.Name), status, withdrawn),
		app.Td().Class("registry-description").Text(e.Description),
		app.Td().Body(signer),
		app.Td().Body(verdictBadge(e.Verdict)),
		app.Td().Class("registry-published").Text(e.PublishedAt),
		app.Td().Body(app.A().Class("registry-import").Href(importHref).Aria("label", "Import "+e.Name).Text("Import"), app.Text(" "), action),
	)
}

// renderWithdrawDialog asks before a withdrawal: it cannot be undone.
func renderWithdrawDialog(e registry.Entry, busy bool, err error, onCancel, onConfirm app.EventHandler) app.UI {
	return app.Dialog().ID("withdraw-dialog").Aria("labelledby", "withdraw-dialog-title").Aria("describedby", "withdraw-dialog-text").Body(
		app.H2().ID("withdraw-dialog-title").Text("Withdraw this version?"),
		app.P().ID("withdraw-dialog-text").Body(
			app.Strong().Text(e.Name+" v"+strconv.Itoa(e.Version)),
			app.Text(" will be listed as withdrawn by its signer, signed with this browser's key. It cannot be undone. Its link keeps serving the bytes, marked withdrawn, for those who already hold it."),
		),
		app.If(err != nil, func() app.UI {
			return app.P().Class("status status-error").Role("alert").ID("withdraw-error").Body(
				app.Text("Not withdrawn: "), app.Span().Class("error-text").Text(errText(err)))
		}),
		app.Div().Class("dialog-actions").Body(
			app.Button().Type("button").ID("withdraw-cancel").Class("secondary").Text("Cancel").OnClick(onCancel),
			app.Button().Type("button").ID("withdraw-confirm").Class("danger").Disabled(busy).Text("Withdraw").OnClick(onConfirm),
		),
	)
}

// renderRegistries lists the registries the person added and adds one.
func (p *registryPage) renderRegistries() app.UI {
	var list app.UI = app.P().ID("registries-none").Class("muted").Text("None added: links are fetched from this workbench's own registry only.")
	if len(p.registries) > 1 {
		items := make([]app.UI, 0, len(p.registries)-1)
		for _, o := range p.registries[1:] {
			items = append(items, app.Li().Class("registry-added").Body(
				app.Code().Text(o), app.Text(" "),
				app.Button().Type("button").Class("secondary").Aria("label", "Remove "+o).Text("Remove").OnClick(p.onRemoveRegistry(o)),
			))
		}
		list = app.Ul().ID("registries").Body(items...)
	}
	return app.Section().Class("panel").ID("registries-section").Aria("labelledby", "registries-heading").Body(
		app.H2().ID("registries-heading").Text("Registries"),
		app.P().Text("A link is imported only from this workbench's own registry and from the registries you add here by hand — never from an address a bundle or a link names on its own."),
		list,
		app.Form().ID("registry-add-form").OnSubmit(p.onAddRegistry).Body(
			app.Div().Class("field").Body(
				app.Label().For("registry-add-origin").Text("Registry origin"),
				app.Input().Type("url").ID("registry-add-origin").Value(p.newOrigin).Placeholder("https://workbench.example.org").OnInput(p.onNewOrigin),
			),
			app.Button().Type("submit").ID("registry-add").Text("Add registry"),
		),
		app.If(p.addErr != nil, func() app.UI {
			return app.P().Class("status status-error").ID("registry-add-error").Role("alert").Text("Not added: " + errText(p.addErr))
		}),
	)
}
