package main

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// What the capability palette's dialog does to the page around it:
// focus, scrolling, the focus trap, and waiting for a paint.

func focusID(id string) {
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Call("focus")
	}
}

// focusSearch focuses the search with its query selected, so that typing
// starts a fresh search, and brings it into view: the dialog may have
// been scrolled to a result when it was last open.
func focusSearch() {
	el := app.Window().GetElementByID("pal-search")
	if !el.Truthy() {
		return
	}
	el.Call("focus")
	el.Call("select")
	if d := app.Window().GetElementByID("pal-dialog"); d.Truthy() {
		d.Set("scrollTop", 0)
	}
	revealNearest("#pal-search")
}

// revealNearest scrolls the first element matching sel, if any, the
// least that brings it into view (in every scrolled box around it), and
// reports whether there was one.
func revealNearest(sel string) bool {
	el := app.Window().Get("document").Call("querySelector", sel)
	if !el.Truthy() {
		return false
	}
	opts := app.Window().Get("Object").New()
	opts.Set("block", "nearest")
	el.Call("scrollIntoView", opts)
	return true
}

// afterPaint runs f on the UI goroutine after the browser has painted
// its next frame: a requestAnimationFrame callback runs before that
// frame's paint, and a task it posts runs after it.
func afterPaint(ctx app.Context, f func(app.Context)) {
	var frame, after app.Func
	after = app.FuncOf(func(app.Value, []app.Value) any {
		after.Release()
		ctx.Dispatch(f)
		return nil
	})
	frame = app.FuncOf(func(app.Value, []app.Value) any {
		frame.Release()
		app.Window().Call("setTimeout", after, 0)
		return nil
	})
	app.Window().Call("requestAnimationFrame", frame)
}

// trapTab keeps Tab and Shift+Tab inside the open dialog d: from its
// last focusable element to its first, and back.
func trapTab(d app.Value, ev app.Value) {
	list := d.Call("querySelectorAll", `button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex="0"]`)
	n := list.Length()
	if n == 0 {
		return
	}
	first, last := list.Index(0), list.Index(n-1)
	active := app.Window().Get("document").Get("activeElement")
	inside := d.Call("contains", active).Bool()
	if ev.Get("shiftKey").Bool() {
		if active.Equal(first) || !inside {
			ev.Call("preventDefault")
			last.Call("focus")
		}
		return
	}
	if active.Equal(last) || !inside {
		ev.Call("preventDefault")
		first.Call("focus")
	}
}
