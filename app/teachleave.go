package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// The leave guard keeps a recording from being lost by navigating away
// (docs/decisions.md, "/teach asks before leaving"). While a demonstration
// runs, or its draft is not yet saved, the page
//
//   - catches clicks on same-origin links to another route in the capture
//     phase, before go-app's own window click handler navigates, and asks
//     in an in-page dialog whether to stay or to leave and discard;
//   - answers the browser's beforeunload, so closing or reloading the tab
//     and following a link out of the site ask through the browser.
//
// Both listeners are added once when the page mounts and only act while
// p.guarding is set; Render keeps that flag in step with what the page
// shows.

// unsaved says whether navigating away would lose something: a running
// demonstration, or a draft that has not been stored.
func (p *teachPage) unsaved() bool {
	r := p.run
	if r == nil {
		return false
	}
	switch r.stage {
	case stageRunning, stageSaving:
		return true
	}
	return r.startErr == nil && r.draftErr == nil && r.result != nil
}

// listenLeave adds the window listeners of the leave guard.
func (p *teachPage) listenLeave() {
	if p.clickFn != nil {
		return
	}
	p.clickFn = app.FuncOf(func(this app.Value, args []app.Value) any {
		if !p.guarding.Load() {
			return nil
		}
		ev := args[0]
		if ev.Get("defaultPrevented").Bool() || ev.Get("button").Int() != 0 ||
			ev.Get("metaKey").Bool() || ev.Get("ctrlKey").Bool() || ev.Get("shiftKey").Bool() || ev.Get("altKey").Bool() {
			return nil // a new tab or window keeps this one as it is
		}
		t := ev.Get("target")
		if !t.Truthy() || t.Get("closest").IsUndefined() {
			return nil
		}
		a := t.Call("closest", "a[href]")
		if !a.Truthy() || a.Get("target").String() == "_blank" || a.Call("hasAttribute", "download").Bool() {
			return nil
		}
		loc := app.Window().Get("location")
		if a.Get("origin").String() != loc.Get("origin").String() || a.Get("pathname").String() == loc.Get("pathname").String() {
			// Out of the site beforeunload asks; within this route
			// (the skip link) nothing is lost.
			return nil
		}
		ev.Call("preventDefault")
		ev.Call("stopPropagation")
		href := a.Get("href").String()
		p.own().Dispatch(func(ctx app.Context) { p.askLeave(href) })
		return nil
	})
	p.unloadFn = app.FuncOf(func(this app.Value, args []app.Value) any {
		if p.guarding.Load() {
			args[0].Call("preventDefault")
			args[0].Set("returnValue", "")
		}
		return nil
	})
	app.Window().Call("addEventListener", "click", p.clickFn, true)
	app.Window().Call("addEventListener", "beforeunload", p.unloadFn)
}

// unlistenLeave removes them.
func (p *teachPage) unlistenLeave() {
	if p.clickFn == nil {
		return
	}
	app.Window().Call("removeEventListener", "click", p.clickFn, true)
	app.Window().Call("removeEventListener", "beforeunload", p.unloadFn)
	p.clickFn.Release()
	p.unloadFn.Release()
	p.clickFn, p.unloadFn = nil, nil
}

// askLeave opens the dialog asking whether to leave for href.
func (p *teachPage) askLeave(href string) {
	p.leaveTo = href
	if d := app.Window().GetElementByID("teach-leave"); d.Truthy() && !d.Get("open").Bool() {
		d.Call("showModal")
	}
}

// onStay closes the dialog; the recording goes on.
func (p *teachPage) onStay(ctx app.Context, e app.Event) {
	if d := app.Window().GetElementByID("teach-leave"); d.Truthy() && d.Get("open").Bool() {
		d.Call("close")
	}
	p.leaveTo = ""
}

// onLeaveClosed follows the dialog closed by Escape.
func (p *teachPage) onLeaveClosed(ctx app.Context, e app.Event) { p.leaveTo = "" }

// onLeave discards the recording and goes where the link pointed.
func (p *teachPage) onLeave(ctx app.Context, e app.Event) {
	to := p.leaveTo
	p.onStay(ctx, e)
	if to == "" {
		return
	}
	p.guarding.Store(false)
	if r := p.run; r != nil && r.cancel != nil {
		r.cancel()
	}
	ctx.Navigate(to)
}

// renderLeave is the dialog; it is always in the page, closed, so that
// showModal can open it at once from a click.
func (p *teachPage) renderLeave() app.UI {
	what := "The draft is not saved. Leaving discards it."
	if p.run != nil && p.run.stage == stageRunning {
		what = "A recording is running. Leaving stops it, and what it recorded is lost."
	}
	return app.Dialog().ID("teach-leave").Class("teach-leave").Aria("labelledby", "teach-leave-heading").
		Aria("describedby", "teach-leave-text").On("close", p.onLeaveClosed).Body(
		app.H2().ID("teach-leave-heading").Text("Leave this page?"),
		app.P().ID("teach-leave-text").Text(what),
		app.Div().Class("field-row").Body(
			app.Button().Type("button").ID("teach-leave-stay").Text("Stay on this page").OnClick(p.onStay),
			app.Button().Type("button").ID("teach-leave-go").Class("danger").Text("Leave and discard").OnClick(p.onLeave),
		),
	)
}
