package main

import (
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/capability"
	"workbench/pkg/runs"
)

// palette is the capability palette (spec/capability-workbench.txt,
// DESIGN §8), mounted beside every page by the shell. Ctrl/Cmd+K opens it
// as a modal dialog without navigating; Esc closes it and gives focus back
// to where it was; Tab stays inside while it is open.
//
// It is the dialog and what connects its parts: the backend it talks to,
// the search and list (paletteSearch), the form of the capability opened
// (paletteForm), and the approvals and runs panels. Each part fails on its
// own and shows its failure in its own place. It holds no result of its
// own making: every decision, run and result shown came from the backend.
type palette struct {
	app.Compo

	env *env
	ownContext

	open        bool
	panels      bool // the approvals and runs panels are mounted (after the opened dialog was painted)
	returnFocus app.Value
	keyFn       app.Func
	path        string

	// The backend: gen changes when the user switches, so that answers
	// for the previous backend are dropped.
	gen        int
	backendURL string
	backendErr string

	search       searchState
	catalogNonce int // changed to have the search read the catalog again

	form formState
	// openID is the capability the form is asked to open; openSeq changes
	// with every such request, also for the same id.
	openID      string
	openSeq     int
	openFocus   bool
	refresh     int // changed to have the form brought up to date with the page
	formVersion int // changed after the palette changed form itself

	runSelect      string
	approvalsNonce int
	// autoFile is the run just invoked from the dialog, whose file (an
	// export's) is downloaded as soon as the run view sees it.
	autoFile string
}

func (p *palette) OnMount(ctx app.Context) {
	p.keep(ctx)
	p.path = ctx.Page().URL().Path
	// One window listener, run synchronously by the browser, so that
	// preventDefault takes effect: Ctrl/Cmd+K opens, and while the dialog
	// is open Esc closes it and Tab wraps inside it (the focus trap).
	p.keyFn = app.FuncOf(func(this app.Value, args []app.Value) any {
		ev := args[0]
		key := ev.Get("key").String()
		if strings.ToLower(key) == "k" && (ev.Get("ctrlKey").Bool() || ev.Get("metaKey").Bool()) && !ev.Get("altKey").Bool() {
			ev.Call("preventDefault")
			ctx.Dispatch(func(ctx app.Context) {
				if p.open {
					focusSearch()
					return
				}
				p.show(ctx)
			})
			return nil
		}
		d := app.Window().GetElementByID("pal-dialog")
		if !d.Truthy() || !d.Get("open").Bool() {
			return nil
		}
		switch key {
		case "Escape":
			ev.Call("preventDefault")
			ctx.Dispatch(p.hide)
		case "Tab":
			trapTab(d, ev)
		}
		return nil
	})
	app.Window().Call("addEventListener", "keydown", p.keyFn)
	// The launcher is in the navigation bar (frame), which the page
	// renders; it asks for the dialog by an action.
	ctx.Handle(openPaletteAction, func(ctx app.Context, a app.Action) {
		if !p.open {
			p.show(ctx)
		}
	})
	// The page published what it knows: an open form follows it.
	ctx.Handle(pageContextAction, func(ctx app.Context, a app.Action) {
		if p.open {
			p.refresh++
		}
	})
}

func (p *palette) OnDismount() {
	if p.keyFn != nil {
		app.Window().Call("removeEventListener", "keydown", p.keyFn)
		p.keyFn.Release()
		p.keyFn = nil
	}
}

func (p *palette) OnNav(ctx app.Context) {
	p.path = ctx.Page().URL().Path
}

// show opens the dialog: it remembers the focused element, shows the
// dialog modally, focuses the search with the last query selected, reads
// the catalog again (it is live: availability changes) and brings the
// open form up to date with the page.
//
// showModal is called at once, not after the render: the native dialog
// must be open before any close event still queued from an earlier hide
// is handled, or onNativeClose would take that stale event for a close of
// this opening and the state and the dialog would disagree.
func (p *palette) show(ctx app.Context) {
	ctx = p.own()
	p.open = true
	p.returnFocus = app.Window().Get("document").Get("activeElement")
	if d := app.Window().GetElementByID("pal-dialog"); d.Truthy() && !d.Get("open").Bool() {
		d.Call("showModal")
	}
	focusSearch()
	ctx.Defer(func(ctx app.Context) {
		if p.open {
			focusSearch()
		}
	})
	// The page beside may be re-rendering as the dialog opens; make sure
	// the focus did land inside.
	ctx.After(150*time.Millisecond, func(ctx app.Context) {
		d := app.Window().GetElementByID("pal-dialog")
		if p.open && d.Truthy() && !d.Call("contains", app.Window().Get("document").Get("activeElement")).Bool() {
			focusSearch()
		}
	})
	// The catalog is read again, and the approvals and runs panels are
	// mounted (which reads their lists), after the opened dialog is
	// painted: decoding a large listing holds the page's one thread, and
	// the search and list must show first (with the entries of the last
	// reading).
	afterPaint(ctx, func(ctx app.Context) {
		if p.open {
			p.panels = true
			p.catalogNonce++
		}
	})
	p.refresh++
}

// hide closes the dialog and gives focus back.
func (p *palette) hide(ctx app.Context) {
	if !p.open {
		return
	}
	p.open, p.panels = false, false
	if d := app.Window().GetElementByID("pal-dialog"); d.Truthy() && d.Get("open").Bool() {
		d.Call("close")
	}
	if f := p.returnFocus; f != nil && f.Truthy() && f.Get("isConnected").Bool() {
		f.Call("focus")
	} else {
		focusID("pal-launcher")
	}
	p.returnFocus = nil
}

func (p *palette) onClose(ctx app.Context, e app.Event) { p.hide(ctx) }

// onNativeClose keeps the state right when the browser closed the dialog
// itself (its own Esc handling). A close event handled after the dialog
// was opened again is stale — the dialog is open — and changes nothing.
func (p *palette) onNativeClose(ctx app.Context, e app.Event) {
	if d := app.Window().GetElementByID("pal-dialog"); d.Truthy() && d.Get("open").Bool() {
		return
	}
	p.hide(ctx)
}

// --- what the parts tell the palette -------------------------------------

// openCap asks the form to open the capability id ("" closes it). The
// search calls it from its own handlers, which render the search only.
func (p *palette) openCap(id string, focus bool) {
	p.own().Dispatch(func(app.Context) {
		p.openID, p.openFocus = id, focus
		p.openSeq++
	})
}

// queried hears a new query: a form whose capability no longer matches
// it closes (stale), so that what is shown is what the user searched for.
func (p *palette) queried(matches func(id string) bool) {
	if p.stale(matches) {
		p.openCap("", false)
	}
}

// stale reports whether the form shows a capability the query no longer
// matches.
func (p *palette) stale(matches func(id string) bool) bool {
	return p.form.id != "" && !matches(p.form.id)
}

// answered hears that an invocation was answered: the approvals may have
// changed, and its run, if any, is selected in the runs panel.
func (p *palette) answered(run string) {
	p.own().Dispatch(func(app.Context) {
		p.approvalsNonce++
		if run != "" {
			p.runSelect, p.autoFile = run, run
		}
	})
}

// claimFile reports, once, whether run is the one just invoked from the
// dialog: its file is then downloaded without asking again.
func (p *palette) claimFile(run runs.RunID) bool {
	if p.autoFile == "" || p.autoFile != string(run) {
		return false
	}
	p.autoFile = ""
	return true
}

// onDecided hears the approvals panel: a decision on the pending
// approval changes what the invoke button offers. It is called on that
// panel's context: the change is dispatched on the palette's own.
func (p *palette) onDecided(_ app.Context, a capability.Approval) {
	p.own().Dispatch(func(app.Context) {
		p.form.req.Decided(a)
		p.formVersion++
	})
}

// --- backend -------------------------------------------------------------

func (p *palette) onBackendURL(ctx app.Context, e app.Event) {
	p.backendURL = recordTyped(ctx)
}

func (p *palette) switchBackend(ctx app.Context, raw string) {
	if err := p.env.connectBackend(raw); err != nil {
		p.backendErr = "Not connected: " + err.Error()
		return
	}
	p.backendErr = ""
	// Another backend: its answers only from now on, and nothing of the
	// previous one — its catalog, its form, the approvals requested from
	// it — is kept.
	p.gen++
	p.form.req.Reset()
	p.openID, p.openFocus = "", false
	p.openSeq++
}

func (p *palette) onBackendKey(ctx app.Context, e app.Event) {
	if e.Get("key").String() == "Enter" {
		p.backendURL = recordTyped(ctx)
		p.onConnect(ctx, e)
	}
}

func (p *palette) onConnect(ctx app.Context, e app.Event) {
	raw := strings.TrimSpace(p.backendURL)
	if raw == "" {
		p.backendErr = "Enter the backend's URL (this site's origin)."
		return
	}
	p.switchBackend(ctx, raw)
}

func (p *palette) onLocal(ctx app.Context, e app.Event) { p.switchBackend(ctx, "") }

// --- rendering -------------------------------------------------------------

func (p *palette) Render() app.UI {
	// The search, the list and the form stay mounted while the dialog is
	// closed (a closed dialog is not rendered, so they cost nothing
	// then): opening shows them as they were instead of building some
	// 500 elements, and showModal focuses the search (autofocus) at once.
	// The approvals and runs panels are mounted while it is open only
	// (from just after it is painted: see show): mounting reads their
	// lists again, and a run is followed while they are shown.
	dialog := app.Dialog().ID("pal-dialog").Class("pal-dialog").Aria("labelledby", "pal-title").
		On("close", p.onNativeClose)
	return app.Div().Class("pal-mount").Body(dialog.Body(
		app.Div().Class("pal-top").Body(
			app.H2().ID("pal-title").Text("Capability palette"),
			p.renderBackend(),
			app.Button().ID("pal-close").Class("secondary pal-close").Aria("label", "Close the capability palette").OnClick(p.onClose).Text("Close"),
		),
		app.Div().Class("pal-body").Body(
			&paletteSearch{env: p.env, st: &p.search, open: p.openCap, queried: p.queried, Nonce: p.catalogNonce, Gen: p.gen},
			&paletteForm{env: p.env, st: &p.form, answered: p.answered, Open: p.openID, OpenSeq: p.openSeq, Focus: p.openFocus,
				Path: p.path, Gen: p.gen, Refresh: p.refresh, Version: p.formVersion},
		),
		app.If(p.open && p.panels, func() app.UI {
			return app.Div().Class("pal-panels").Body(
				&approvalsPanel{env: p.env, Nonce: p.approvalsNonce, Gen: p.gen, OnDecided: p.onDecided, Withheld: p.form.req.Withheld()},
				&runsPanel{env: p.env, claimFile: p.claimFile, Select: p.runSelect, Gen: p.gen},
			)
		}),
	))
}

func (p *palette) renderBackend() app.UI {
	// Not a <form>: go-app runs handlers on its own goroutine, so a
	// submit's preventDefault could come too late and reload the page.
	// The name comes after the controls: it changes as the catalog loads,
	// and text that changes width must not move a button under the
	// pointer.
	return app.Div().Class("pal-backend").Role("group").Aria("label", "Backend").Body(
		app.Label().For("pal-backend-url").Text("HTTP backend"),
		app.Input().ID("pal-backend-url").Type("url").Placeholder(p.env.origin()).Value(p.backendURL).OnInput(p.onBackendURL).OnKeyDown(p.onBackendKey),
		app.Button().Type("button").Class("secondary").ID("pal-connect").OnClick(p.onConnect).Text("Connect"),
		app.Button().Type("button").Class("secondary").ID("pal-local").OnClick(p.onLocal).Text("Use local"),
		app.Span().ID("pal-backend-name").Text("Backend: "+p.env.backendName()),
		app.If(p.backendErr != "", func() app.UI {
			return app.P().Class("pal-error").ID("pal-backend-error").Role("alert").Text(p.backendErr)
		}),
	)
}
