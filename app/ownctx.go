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
