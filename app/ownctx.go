package main

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// ownContext is a component's own context: the one go-app hands its
// OnMount or OnNav, kept for work that outlives an event.
//
// An event handler's context belongs to the element that fired the event,
// and a re-render may replace that element (the delete dialog's button is
// replaced when the message above the library's table appears). go-app
// drops what is dispatched through the context of an element no longer
// mounted, so the answer of asynchronous work started by an event would be
// lost. Such work runs on the component's own context instead:
//
//	ctx = p.own()
//	ctx.Async(func() { …; ctx.Dispatch(func(app.Context) { … }) })
//
// A component embeds it and calls keep from its OnMount or OnNav.
type ownContext struct{ kept app.Context }

// keep records ctx as the component's own context.
func (o *ownContext) keep(ctx app.Context) { o.kept = ctx }

// own is the context kept last.
func (o *ownContext) own() app.Context { return o.kept }

// hasOwn reports whether a context was kept: go-app queues OnMount after
// mounting, so a component is mounted a moment before it has one.
func (o *ownContext) hasOwn() bool { return o.kept.Context != nil }

// pageTab is a tab a page makes once for the thing it shows and renders
// again each time the tab is opened (the skill page's Manifest, Memory,
// Audit and History tabs), so what the tab holds stays while another tab
// is open. It has its own context (kept from OnMount) and the page's.
type pageTab struct {
	ownContext
	// page is the page's own context. Answers are applied through it
	// (settle): another tab may be open when one comes, and go-app drops
	// what is dispatched through a component no longer mounted.
	page app.Context
}

// settle applies f, the answer to the tab's asynchronous work, on the UI
// goroutine whether or not the tab c is open, and shows it when it is.
// The page renders the same tab again, which go-app takes for no change,
// so an open tab is re-rendered here. A tab mounted so recently that its
// queued OnMount has not run yet has no context of its own to update
// through (updating through the zero one panics); go-app renders it
// again after that OnMount, with what f changed.
func (t *pageTab) settle(c app.Composer, f func()) {
	t.page.Dispatch(func(app.Context) {
		f()
		if c.Mounted() && t.hasOwn() {
			t.own().Update()
		}
	})
}
