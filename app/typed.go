package main

import "github.com/maxence-charriere/go-app/v10/pkg/app"

// recordTyped returns what the input or textarea that fired the event
// holds, and records it as the value the page last gave that element.
//
// go-app writes an element's value only when the value rendered differs
// from the one it rendered before. An input event's handler runs on the
// app's own goroutine and the render that follows it comes a frame later;
// a key pressed in between lands in the element, and without this record
// that render would write the value read before the key over it, and the
// next handler would read the older text: a character lost. With it, the
// render finds the value it would write already there and leaves the
// element alone, unless the page's state now holds something else (the
// page cleared or rewrote the field), which it writes as before. Other
// elements (a select, a checkbox) are left as they are.
func recordTyped(ctx app.Context) string {
	v := ctx.JSSrc().Get("value").String()
	switch e := ctx.Src().(type) {
	case app.HTMLInput:
		e.Value(v)
	case app.HTMLTextarea:
		e.Text(v)
	}
	return v
}
