//go:build wasm

package main

import (
	"syscall/js"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// settleTab is a tab whose answer settle applies.
type settleTab struct {
	app.Compo
	pageTab
	answer string
}

func (c *settleTab) OnMount(ctx app.Context) { c.keep(ctx) }

func (c *settleTab) Render() app.UI { return app.P().ID("settle-answer").Text(c.answer) }

// settlePage shows its tab once asked to.
type settlePage struct {
	app.Compo
	ownContext
	tab  *settleTab
	show bool
}

func (p *settlePage) OnMount(ctx app.Context) { p.keep(ctx) }

func (p *settlePage) Render() app.UI {
	if !p.show {
		return app.Div()
	}
	return app.Div().Body(p.tab)
}

// An answer that arrives after its tab is mounted but before go-app ran
// the tab's queued OnMount is applied and shown, without updating through
// a context the tab does not have yet. That update panicked: the Go
// program stopped on the skill page when the manifest tab's verifier was
// ready that early (seen in an e2e run of TestLayoutEveryRouteEverySize).
func TestSettleBeforeTheTabsOnMount(t *testing.T) {
	p := &settlePage{}
	e := load(t, p)
	if !p.hasOwn() {
		t.Fatal("the page has no context of its own after its OnMount")
	}
	page := p.own()
	tab := &settleTab{pageTab: pageTab{page: page}}
	// The page shows the tab (go-app mounts it and queues its OnMount),
	// and an answer is queued before that OnMount: the order the skill
	// page's load and its verifier produced.
	page.Dispatch(func(app.Context) { p.tab, p.show = tab, true })
	tab.settle(tab, func() { tab.answer = "settled" })
	e.ConsumeNext() // shows the tab
	if !tab.Mounted() || tab.hasOwn() {
		t.Fatalf("after the first dispatch the tab is mounted %v and has its own context %v; the test needs mounted without one", tab.Mounted(), tab.hasOwn())
	}
	e.ConsumeNext() // the answer
	e.ConsumeAll()  // the tab's OnMount, and the render after it
	if tab.answer != "settled" {
		t.Errorf("the answer was not applied: %q", tab.answer)
	}
	if got := js.Global().Get("document").Call("getElementById", "settle-answer"); got.IsNull() || got.Get("textContent").String() != "settled" {
		t.Errorf("the tab does not show the answer")
	}
}
