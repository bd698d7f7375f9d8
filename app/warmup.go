package main

import (
	"context"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/verify"
	"workbench/schemas"
)

// The idle warm-up: after the first page has started, in the browser's
// idle time, the app compiles the verifier's schemas, a part per idle
// period, and runs the verifier over the spec's valid fixture bundle, one
// run per idle period, until it has run for verify.WarmBudget. The
// verifier is what /skills, a skill's page, teaching, replay, the palette
// and an import run next, and running it hot makes the browser optimize
// enough of app.wasm's code to keep the compiled module in its code cache:
// a person's next visit, to any route, then starts from that compiled code
// instead of compiling the module again (docs/perf/app-repeat.md).
//
// It changes nothing a person sees, writes nothing to the library and
// makes no request. It starts two seconds after the app, works only in
// idle periods of at least 20 ms (none while the page keeps drawing
// frames), waits while the tab is hidden and for a second after each key
// press or pointer press (the browser's own event counts,
// performance.eventCounts) and while the import page is open (its worker
// is compiling or importing on the other core, and a person's file
// should not wait for the page's warm-up), and stops for good once the
// person has pressed keys or the pointer 30 times on the page.

// warmPolicy is what the idle warm-up is allowed to do.
type warmPolicy struct {
	// budget is how long the verifier runs in all; then the warm-up is
	// done.
	budget time.Duration
	// wait is how long after the app started no work starts: the page
	// has been drawn and answers, and a person who came to click
	// something at once has done so.
	wait time.Duration
	// minIdle is the shortest idle period the warm-up uses; a shorter one
	// is left to the browser.
	minIdle time.Duration
	// quiet is how long after an input event no work starts, and how
	// long the warm-up waits before it looks again at a hidden tab.
	quiet time.Duration
	// maxInputs input events mean the person is using the page: the
	// warm-up stops for good.
	maxInputs int
}

// idleWarmPolicy is the policy the app runs with.
func idleWarmPolicy() warmPolicy {
	return warmPolicy{
		budget:    verify.WarmBudget,
		wait:      2 * time.Second,
		minIdle:   20 * time.Millisecond,
		quiet:     time.Second,
		maxInputs: 30,
	}
}

// warmSeen is what the page shows the warm-up at one idle period.
type warmSeen struct {
	idleLeft   time.Duration // what is left of this idle period
	sinceStart time.Duration // since the warm-up started
	hidden     bool          // the tab is hidden
	importing  bool          // the import page is open
	inputs     int           // key and pointer presses on the page so far
	sinceInput time.Duration // since the last of them; ignored when inputs is 0
}

// warmAction is what the warm-up does next.
type warmAction int

const (
	warmWork  warmAction = iota // run one piece of work now
	warmIdle                    // wait for the next idle period
	warmLater                   // wait the policy's quiet time, then for an idle period
	warmStop                    // stop for good
)

// warmState is the warm-up's progress under its policy.
type warmState struct {
	policy warmPolicy
	worked time.Duration // time the verifier has run
}

// next says what to do at an idle period the page describes as seen.
func (w warmState) next(seen warmSeen) warmAction {
	p := w.policy
	switch {
	case w.worked >= p.budget, seen.inputs >= p.maxInputs:
		return warmStop
	case seen.hidden, seen.importing, seen.sinceStart < p.wait, seen.inputs > 0 && seen.sinceInput < p.quiet:
		return warmLater
	case seen.idleLeft < p.minIdle:
		return warmIdle
	}
	return warmWork
}

// startIdleWarmup starts the idle warm-up in the browser, where it runs
// once per page load; elsewhere it does nothing. A browser without
// requestIdleCallback or performance.eventCounts (which tells it the
// person is typing or clicking) is left without it.
func startIdleWarmup(e *env) {
	if !app.IsClient || !app.Window().Get("requestIdleCallback").Truthy() ||
		!app.Window().Get("performance").Get("eventCounts").Truthy() {
		return
	}
	go e.idleWarmup(idleWarmPolicy())
}

// idleWarmup runs the warm-up under policy p (see the top of this file).
// The first pieces of work compile the schemas, a part each
// (schemas.Prepare: all at once they would hold the page for a few hundred
// milliseconds), each later one verifies the fixture once; only the
// verifying counts toward the budget.
func (e *env) idleWarmup(p warmPolicy) {
	win := app.Window()
	idle := make(chan int, 1)
	onIdle := app.FuncOf(func(_ app.Value, args []app.Value) any {
		idle <- args[0].Call("timeRemaining").Int()
		return nil
	})
	defer onIdle.Release()
	w := warmState{policy: p}
	start, lastInput := time.Now(), time.Time{}
	inputs, prepared := 0, false
	for {
		win.Call("requestIdleCallback", onIdle)
		seen := warmSeen{
			idleLeft:  time.Duration(<-idle) * time.Millisecond,
			hidden:    win.Get("document").Get("visibilityState").String() == "hidden",
			importing: win.Get("location").Get("pathname").String() == "/import",
		}
		counts := win.Get("performance").Get("eventCounts")
		for _, ev := range [...]string{"keydown", "pointerdown"} {
			// A count the browser does not keep is undefined, which Int
			// would panic on.
			if n := counts.Call("get", ev); n.Truthy() {
				seen.inputs += n.Int()
			}
		}
		if seen.inputs != inputs {
			inputs, lastInput = seen.inputs, time.Now()
		}
		seen.sinceStart, seen.sinceInput = time.Since(start), time.Since(lastInput)
		switch w.next(seen) {
		case warmStop:
			return
		case warmLater:
			time.Sleep(p.quiet)
		case warmWork:
			if !prepared {
				prepared = !schemas.Prepare()
				continue
			}
			began := time.Now()
			v, err := e.verify()
			if err != nil {
				return // the schemas do not compile: every verification says so
			}
			// A sample the verifier refuses leaves only the warm-up undone;
			// a real file's verification says what is wrong.
			if _, err := v.Warm(context.Background(), 0); err != nil {
				return
			}
			w.worked += time.Since(began)
		}
	}
}
