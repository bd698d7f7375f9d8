package main

import (
	"context"
	"fmt"
	"time"
)

// ttiProbe runs in the page before any of its scripts. Time zero is the
// navigation start (performance.now() of the new document). It records:
//
//   - wasm: when app.wasm finished arriving (resource timing);
//   - instantiated: when WebAssembly.instantiateStreaming resolved, i.e.
//     the module was compiled (streaming, while it arrived) and
//     instantiated, and Go's runtime is about to start;
//   - content: the first moment the route's main content is in the DOM —
//     the wasm loader and the static shell gone, main#main holding its h1;
//   - interactive: the first moment the app answered an input. From
//     content on, the probe submits the key form with the field empty
//     (every 10 ms until answered); the app's Go handler answers with
//     the "enter a key" error in #key-error. That error appearing is
//     the app having handled an event and re-rendered.
//
// The probe cancels the form's default submission itself, so a submit
// before the app's handler is attached cannot reload the page.
const ttiProbe = `(() => {
  const t = window.__tti = {};
  const streaming = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = async (...args) => {
    const r = await streaming.apply(WebAssembly, args);
    t.instantiated = performance.now();
    return r;
  };
  document.addEventListener("submit", (e) => e.preventDefault(), true);
  let last = -1, looping = false;
  const tick = () => {
    if (t.interactive) return;
    const now = performance.now();
    if (!t.content && !document.getElementById("app-wasm-loader") && !document.querySelector(".wb-shell") && document.querySelector("main#main h1")) {
      t.content = now;
    }
    if (t.content && document.getElementById("key-error")) {
      t.interactive = now;
      const w = performance.getEntriesByType("resource").find((e) => new URL(e.name).pathname === "/web/app.wasm");
      if (w) { t.requested = w.startTime; t.wasm = w.responseEnd; }
      return;
    }
    const f = document.getElementById("key-form");
    if (t.content && f && now - last >= 10) { last = now; f.requestSubmit(); }
    // Until the content is there, DOM mutations alone drive the probe: a
    // frame loop during the load would make the page draw frames it
    // otherwise would not, on the threads the load needs.
    if (t.content && !looping) {
      looping = true;
      const loop = () => { tick(); if (!t.interactive) requestAnimationFrame(loop); };
      requestAnimationFrame(loop);
    }
  };
  new MutationObserver(tick).observe(document, {subtree: true, childList: true, attributes: true});
})();`

// ttiResult is one cold load of /, in milliseconds from navigation start.
type ttiResult struct {
	Requested    float64 `json:"requested"` // the page asked for app.wasm
	Wasm         float64 `json:"wasm"`      // its last byte was read
	Instantiated float64 `json:"instantiated"`
	Content      float64 `json:"content"`
	Interactive  float64 `json:"interactive"`
	// CPU is the CPU time Chromium used from before the navigation to
	// interactive.
	CPU float64 `json:"-"`
	// MainCPU is the part of it on the renderers' main threads, where
	// the page, go-app and Go run: unlike wall time, it hardly grows
	// when other programs load the machine.
	MainCPU float64 `json:"-"`
}

// measureTTI loads / in a fresh browser profile and returns the probe's
// times.
func measureTTI(ctx context.Context, cfg config, base string) (ttiResult, error) {
	b, err := newBrowser(ctx, cfg.chromium)
	if err != nil {
		return ttiResult{}, err
	}
	defer b.close()
	if err := b.addInitScript(ttiProbe); err != nil {
		return ttiResult{}, err
	}
	cpu0, err := b.cpuTime()
	if err != nil {
		return ttiResult{}, err
	}
	main0, err := b.mainThreadCPU()
	if err != nil {
		return ttiResult{}, err
	}
	if err := b.open(base, "/"); err != nil {
		return ttiResult{}, err
	}
	if err := b.waitFor(`!!(window.__tti && window.__tti.interactive)`, time.Minute); err != nil {
		return ttiResult{}, fmt.Errorf("the app never answered the key form: %w", err)
	}
	r, err := eval[ttiResult](b, `window.__tti`)
	if err != nil {
		return r, err
	}
	cpu1, err := b.cpuTime()
	if err != nil {
		return r, err
	}
	main1, err := b.mainThreadCPU()
	r.CPU, r.MainCPU = cpu1-cpu0, mainThreadDelta(main0, main1)
	return r, err
}

// importProbe times one import on /import: from the drop event (capture
// phase, before the app sees it) to the first animation frame after the
// file's result row says "accepted" — or anything else, which fails the
// run.
const importProbe = `(() => {
  const t = window.__import = {longest: 0};
  document.addEventListener("drop", () => { t.start = performance.now(); }, true);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (t.start !== undefined && t.end === undefined && e.startTime + e.duration >= t.start) {
        t.longest = Math.max(t.longest, e.duration);
      }
    }
  }).observe({type: "longtask"});
  const obs = new MutationObserver(() => {
    const s = document.querySelector("#import-results > li .import-status");
    if (!s || t.end) return;
    t.status = s.textContent;
    t.row = s.closest("li").textContent;
    requestAnimationFrame(() => { t.end = performance.now(); });
    obs.disconnect();
  });
  obs.observe(document.querySelector("main#main"), {subtree: true, childList: true, characterData: true});
  return true;
})()`

type importResult struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// Longest is the page's longest task (over 50 ms, the browser's
	// long tasks) between the drop and the row, in milliseconds: how
	// long the page could not answer a key or a click.
	Longest float64 `json:"longest"`
	Status  string  `json:"status"`
	Row     string  `json:"row"`
}

// timing is one measured interval: wall time and Chromium's CPU time in
// it, in milliseconds, and the page's longest task in it where measured.
type timing struct{ wall, cpu, longest float64 }

// measureImport drops file on /import in a fresh profile, pause after the
// app has rendered the page, and returns the time until its row is shown
// accepted. A pause of 0 is the worst case, a drop the moment the page
// answers; a person takes a few seconds to find and drag a file, during
// which the page finishes its own start (the verifier's schemas and its
// warm-up, docs/perf/app-import.md).
func measureImport(ctx context.Context, cfg config, base, file string, pause time.Duration) (timing, error) {
	b, err := newBrowser(ctx, cfg.chromium)
	if err != nil {
		return timing{}, err
	}
	defer b.close()
	if err := b.open(base, "/import"); err != nil {
		return timing{}, err
	}
	if _, err := eval[bool](b, importProbe); err != nil {
		return timing{}, err
	}
	select {
	case <-time.After(pause):
	case <-ctx.Done():
		return timing{}, ctx.Err()
	}
	cpu0, err := b.cpuTime()
	if err != nil {
		return timing{}, err
	}
	if err := b.drop("#dropzone", file); err != nil {
		return timing{}, err
	}
	if err := b.waitFor(`!!window.__import.end`, 5*time.Minute); err != nil {
		return timing{}, fmt.Errorf("no result row: %w", err)
	}
	cpu1, err := b.cpuTime()
	if err != nil {
		return timing{}, err
	}
	r, err := eval[importResult](b, `window.__import`)
	if err != nil {
		return timing{}, err
	}
	if r.Status != "accepted" {
		return timing{}, fmt.Errorf("the bundle was not accepted: %s", r.Row)
	}
	return timing{wall: r.End - r.Start, cpu: cpu1 - cpu0, longest: r.Longest}, nil
}

// listProbe times one navigation to /skills from another page of the
// app: from the click on the nav link (capture phase) to the first
// animation frame after the page shows the whole library — its count
// reads "<n> of <n> skills" and the table holds every row the page shows
// (all of them, or the newest page of them when it says "newest k
// shown").
const listProbe = `((want) => {
  const t = window.__list = {};
  const rows = document.getElementsByClassName("skill-row");
  document.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest('a[href="/skills"]')) t.start = performance.now();
  }, {capture: true, once: true});
  const obs = new MutationObserver(() => {
    if (t.start === undefined || t.seen) return;
    const count = document.getElementById("skills-count");
    if (!count || !count.textContent.startsWith(want + " of " + want + " skills")) return;
    const m = count.textContent.match(/newest (\d+) shown/);
    if (rows.length < (m ? +m[1] : want)) return;
    t.seen = true;
    t.rows = rows.length;
    obs.disconnect();
    requestAnimationFrame(() => { t.end = performance.now(); });
  });
  obs.observe(document.body, {subtree: true, childList: true, characterData: true});
  return true;
})`

type listResult struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Rows  int     `json:"rows"`
}

// measureList navigates from /import to /skills through the nav bar and
// returns the time until the library of n skills is shown, and how many
// rows the page shows. The CPU time runs to
// the end of the measurement, so it also holds whatever re-verification
// of the listed bundles ran meanwhile.
func measureList(b *browser, base string, n int) (timing, int, error) {
	if err := b.open(base, "/import"); err != nil {
		return timing{}, 0, err
	}
	if _, err := eval[bool](b, fmt.Sprintf("%s(%d)", listProbe, n)); err != nil {
		return timing{}, 0, err
	}
	cpu0, err := b.cpuTime()
	if err != nil {
		return timing{}, 0, err
	}
	if _, err := eval[bool](b, `document.querySelector('nav a[href="/skills"]').click(), true`); err != nil {
		return timing{}, 0, err
	}
	if err := b.waitFor(`!!window.__list.end`, time.Minute); err != nil {
		return timing{}, 0, fmt.Errorf("the page never showed the library of %d skills: %w", n, err)
	}
	cpu1, err := b.cpuTime()
	if err != nil {
		return timing{}, 0, err
	}
	r, err := eval[listResult](b, `window.__list`)
	if err != nil {
		return timing{}, 0, err
	}
	if r.Rows < 1 || r.Rows > n {
		return timing{}, 0, fmt.Errorf("%d rows listed of %d skills", r.Rows, n)
	}
	return timing{wall: r.End - r.Start, cpu: cpu1 - cpu0}, r.Rows, nil
}
