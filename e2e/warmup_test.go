package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// idleAsks records when the page asks for an idle period, before any page
// script runs.
const idleAsks = `window.__idleAsks = [];
{
  const ask = window.requestIdleCallback.bind(window);
  window.requestIdleCallback = (f, o) => { window.__idleAsks.push(performance.now()); return ask(f, o); };
}`

// The app's idle warm-up (app/warmup.go), which the other tests' pages run
// without (withIdleWarmup), runs in a page left alone and ends by itself:
// it asks for idle periods from the start, is still asking after its two
// seconds' wait (when it works in them), and then asks for none. The
// page is as it was: the library still empty, the key field usable, and
// no problem in the console (checkClean).
func TestIdleWarmup(t *testing.T) {
	t.Parallel()
	s := newSession(t, withIdleWarmup())
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: idleAsks})
		return err
	}))
	s.open("/")
	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
	defer cancel()
	// The warm-up asks again at least once a second while it waits (its
	// quiet time) and once per idle period while it works: three seconds
	// without an ask is its end.
	ended := `window.__idleAsks.length >= 3 && performance.now() - window.__idleAsks.at(-1) > 3000`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](ended, chromedp.WithPollingInterval(250*time.Millisecond), chromedp.WithPollingTimeout(0))); err != nil {
		asks := eval[[]float64](s, `window.__idleAsks`)
		if len(asks) == 0 {
			t.Fatalf("the page never asked for an idle period: the idle warm-up did not start (%v)", err)
		}
		t.Fatalf("the idle warm-up did not end within 2 minutes: %d asks for an idle period, the last %v ms after the start (%v)", len(asks), asks[len(asks)-1], err)
	}
	asks := eval[[]float64](s, `window.__idleAsks`)
	if asks[len(asks)-1] < 2000 {
		t.Errorf("the last ask for an idle period came %v ms after the page started: the warm-up ended before its two seconds' wait, without working", asks[len(asks)-1])
	}
	s.typeInto("#key", "sk-or-v1-typed")
	if got := eval[string](s, `document.querySelector("#key").value`); got != "sk-or-v1-typed" {
		t.Errorf("the key field holds %q after the warm-up, want what was typed", got)
	}
	s.open("/skills")
	s.waitVisible("#skills-empty")
}
