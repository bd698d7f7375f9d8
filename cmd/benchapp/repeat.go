package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// repeatResult is a person's first visit to a route, some time spent on
// it, and their return to / in the same browser profile.
type repeatResult struct {
	// FirstTTI is the first visit's time to interactive when it was to /
	// (ms from navigation start), else 0.
	FirstTTI float64
	// CacheBytes is the size of the compiled module Chromium kept in the
	// profile's WebAssembly code cache by the time the person left; 0:
	// none. CacheAt is when it was first seen, in seconds after the first
	// page was shown.
	CacheBytes int64
	CacheAt    float64
	// DwellCPU is the CPU time Chromium used while the person stayed on
	// the first page (ms), DwellMain the part on the page's main thread:
	// what the idle warm-up costs.
	DwellCPU, DwellMain float64
	// LongestTask is the longest task on the page's main thread while
	// the person stayed (ms, the Long Tasks API, which reports tasks over
	// 50 ms; 0: none), LongTasks how many there were.
	LongestTask float64
	LongTasks   int
	// Repeat is the return visit to /, timed by ttiProbe.
	Repeat ttiResult
	// FromCache says V8 deserialized app.wasm from the code cache on the
	// return visit (its wasm.Deserialize trace event) instead of
	// compiling it; CachedFunctions is how many compiled functions came
	// with it.
	FromCache       bool
	CachedFunctions float64
	// Lazy is how many functions V8 compiled on first call during the
	// return visit (wasm.CompileLazy, on the main thread), LazyMS the
	// time that took.
	Lazy   int
	LazyMS float64
}

// measureRepeat is one run of the repeat-visit measurement: in a fresh
// profile, open first, stay dwell on it (with until, stay until the code
// cache holds the module, at most dwell), leave for about:blank, come
// back to / and time it, tracing V8's WebAssembly events.
func measureRepeat(ctx context.Context, cfg config, base string) (repeatResult, error) {
	var r repeatResult
	b, err := newBrowser(ctx, cfg.chromium)
	if err != nil {
		return r, err
	}
	defer b.close()
	// The time-to-interactive probe runs a frame loop until it has
	// answered the key form, which only / has: on another first page it
	// would keep the browser drawing frames, with no idle time left.
	probe := func() error { return b.addInitScript(ttiProbe) }
	if cfg.first == "/" {
		if err := probe(); err != nil {
			return r, err
		}
	}
	if err := b.addInitScript(longTaskProbe); err != nil {
		return r, err
	}
	if err := b.open(base, cfg.first); err != nil {
		return r, fmt.Errorf("first visit to %s: %w", cfg.first, err)
	}
	if cfg.first == "/" {
		if err := b.waitFor(`!!(window.__tti && window.__tti.interactive)`, time.Minute); err != nil {
			return r, fmt.Errorf("first visit: the app never answered the key form: %w", err)
		}
		first, err := eval[ttiResult](b, `window.__tti`)
		if err != nil {
			return r, err
		}
		r.FirstTTI = first.Interactive
	}
	cpu0, err := b.cpuTime()
	if err != nil {
		return r, err
	}
	main0, err := b.mainThreadCPU()
	if err != nil {
		return r, err
	}
	shownAt, err := eval[float64](b, `performance.now()`)
	if err != nil {
		return r, err
	}
	shown := time.Now()
	for time.Since(shown) < cfg.dwell {
		n, err := b.wasmCacheBytes()
		if err != nil {
			return r, err
		}
		if n > 0 && r.CacheBytes == 0 {
			r.CacheAt = time.Since(shown).Seconds()
		}
		r.CacheBytes = n
		if n > 0 && cfg.check {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	cpu1, err := b.cpuTime()
	if err != nil {
		return r, err
	}
	main1, err := b.mainThreadCPU()
	if err != nil {
		return r, err
	}
	r.DwellCPU, r.DwellMain = cpu1-cpu0, mainThreadDelta(main0, main1)
	long, err := eval[[]float64](b, fmt.Sprintf(`window.__longTasks.filter((t) => t.startTime >= %f).map((t) => t.duration)`, shownAt))
	if err != nil {
		return r, err
	}
	r.LongTasks = len(long)
	for _, d := range long {
		r.LongestTask = max(r.LongestTask, d)
	}
	if err := b.navigate("about:blank"); err != nil {
		return r, err
	}
	if cfg.first != "/" {
		if err := probe(); err != nil {
			return r, err
		}
	}

	stop, err := b.startTrace("v8.wasm")
	if err != nil {
		return r, err
	}
	if cpu0, err = b.cpuTime(); err != nil {
		return r, err
	}
	if main0, err = b.mainThreadCPU(); err != nil {
		return r, err
	}
	if err := b.navigate(base + "/"); err != nil {
		return r, err
	}
	if err := b.waitFor(`!!(window.__tti && window.__tti.interactive)`, 2*time.Minute); err != nil {
		return r, fmt.Errorf("return visit: the app never answered the key form: %w", err)
	}
	if r.Repeat, err = eval[ttiResult](b, `window.__tti`); err != nil {
		return r, err
	}
	if cpu1, err = b.cpuTime(); err != nil {
		return r, err
	}
	if main1, err = b.mainThreadCPU(); err != nil {
		return r, err
	}
	r.Repeat.CPU, r.Repeat.MainCPU = cpu1-cpu0, mainThreadDelta(main0, main1)
	events, err := stop()
	if err != nil {
		return r, err
	}
	r.readTrace(events)
	return r, nil
}

// longTaskProbe keeps the page's long tasks (over 50 ms on the main
// thread, the Long Tasks API) in window.__longTasks.
const longTaskProbe = `(() => {
  const tasks = window.__longTasks = [];
  new PerformanceObserver((list) => tasks.push(...list.getEntries())).observe({type: "longtask"});
})();`

// readTrace fills in what V8's WebAssembly trace events say about the
// return visit.
func (r *repeatResult) readTrace(events []traceEvent) {
	for _, e := range events {
		switch e.Name {
		case "wasm.Deserialize":
			r.FromCache = true
		case "wasm.CompilationAfterDeserialization":
			if n, ok := e.Args["num_eager_functions"].(float64); ok {
				r.CachedFunctions = n
			}
		case "wasm.CompileLazy":
			r.Lazy++
			r.LazyMS += e.Dur / 1000
		}
	}
}

// wasmCacheBytes is the size of the entries in the profile's WebAssembly
// code cache (Default/Code Cache/wasm), its index files left out: 0
// until Chromium keeps a compiled module there.
func (b *browser) wasmCacheBytes() (int64, error) {
	var n int64
	root := filepath.Join(b.dir, "Default", "Code Cache", "wasm")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "index-dir":
			return filepath.SkipDir
		case !d.Type().IsRegular() || d.Name() == "index":
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	if os.IsNotExist(err) {
		return 0, nil
	}
	return n, err
}

// traceEvent is one event of a Chromium trace, as far as benchapp reads it.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Dur  float64        `json:"dur"` // µs
	Args map[string]any `json:"args"`
}

// startTrace starts recording the trace events of the given categories
// (and no others); stop ends the recording and returns them.
func (b *browser) startTrace(categories ...string) (stop func() ([]traceEvent, error), err error) {
	var (
		mu     sync.Mutex
		events []traceEvent
		bad    error
		done   = make(chan struct{})
	)
	lctx, cancel := context.WithCancel(b.tab)
	if err := chromedp.Listen(lctx, func(ev any) {
		switch ev := ev.(type) {
		case *tracing.EventDataCollected:
			mu.Lock()
			defer mu.Unlock()
			for _, v := range ev.Value {
				var e traceEvent
				if err := json.Unmarshal(v, &e); err != nil && bad == nil {
					bad = fmt.Errorf("a trace event: %w", err)
				}
				events = append(events, e)
			}
		case *tracing.EventTracingComplete:
			close(done)
		}
	}); err != nil {
		cancel()
		return nil, err
	}
	err = chromedp.Do(b.tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, tracing.Start, tracing.StartParams{
			TransferMode: tracing.StartTransferModeReportEvents,
			TraceConfig:  &tracing.TraceConfig{IncludedCategories: categories, ExcludedCategories: []string{"*"}},
		})
		return err
	}))
	if err != nil {
		cancel()
		return nil, fmt.Errorf("Tracing.start: %w", err)
	}
	return func() ([]traceEvent, error) {
		defer cancel()
		err := chromedp.Do(b.tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, tracing.End, cdp.Empty{})
			return err
		}))
		if err != nil {
			return nil, fmt.Errorf("Tracing.end: %w", err)
		}
		select {
		case <-done:
		case <-time.After(time.Minute):
			return nil, fmt.Errorf("the trace never completed")
		}
		mu.Lock()
		defer mu.Unlock()
		return events, bad
	}, nil
}

// reportRepeat takes cfg.runs repeat visits and reports them. In -check
// mode a return visit that did not start from the code cache is an
// error: the first visit's idle warm-up (app/warmup.go) is what puts the
// module there.
func reportRepeat(ctx context.Context, cfg config, base string, report func(row)) error {
	var firstTTI, dwellCPU, dwellMain, longest, longCount, cacheAt, cacheKB, tti, cpu, mainCPU, lazy, lazyMS, cachedFns []float64
	var requested, read, instantiated, content []float64
	written, fromCache := 0, 0
	for range cfg.runs {
		r, err := measureRepeat(ctx, cfg, base)
		if err != nil {
			return fmt.Errorf("repeat visit: %w", err)
		}
		if cfg.check && !r.FromCache {
			return fmt.Errorf("repeat visit: app.wasm was compiled again, not taken from the code cache (after the first visit, %d bytes in the profile's wasm code cache)", r.CacheBytes)
		}
		if r.FirstTTI > 0 {
			firstTTI = append(firstTTI, r.FirstTTI)
		}
		dwellCPU, dwellMain = append(dwellCPU, r.DwellCPU), append(dwellMain, r.DwellMain)
		longest, longCount = append(longest, r.LongestTask), append(longCount, float64(r.LongTasks))
		if r.CacheBytes > 0 {
			written++
			cacheAt, cacheKB = append(cacheAt, r.CacheAt*1000), append(cacheKB, float64(r.CacheBytes)/1000)
		}
		if r.FromCache {
			fromCache++
			cachedFns = append(cachedFns, r.CachedFunctions)
		}
		tti, cpu, mainCPU = append(tti, r.Repeat.Interactive), append(cpu, r.Repeat.CPU), append(mainCPU, r.Repeat.MainCPU)
		requested, read = append(requested, r.Repeat.Requested), append(read, r.Repeat.Wasm)
		instantiated, content = append(instantiated, r.Repeat.Instantiated), append(content, r.Repeat.Content)
		lazy, lazyMS = append(lazy, float64(r.Lazy)), append(lazyMS, r.LazyMS)
	}
	stay := fmt.Sprintf("%s, %s on it", cfg.first, cfg.dwell)
	if cfg.check {
		stay = fmt.Sprintf("%s, until the code cache held app.wasm", cfg.first)
	}
	if len(firstTTI) > 0 {
		report(row{what: "first visit to /: time to interactive", result: spread(firstTTI)})
	}
	report(row{what: "first visit: Chromium CPU time while the person stays", result: spread(dwellCPU)})
	report(row{what: "first visit: of which the page's main thread", result: spread(dwellMain)})
	report(row{what: "first visit: tasks over 50 ms while the person stays", result: countSpread(longCount)})
	report(row{what: "first visit: the longest of them", result: spread(longest)})
	report(row{what: fmt.Sprintf("first visit to %s: compiled app.wasm kept in the code cache", stay),
		result: fmt.Sprintf("%d of %d runs", written, cfg.runs)})
	if written > 0 {
		report(row{what: "first visit: code cache entry written, after the page was shown", result: spread(cacheAt)})
		report(row{what: "first visit: code cache entry, kB", result: countSpread(cacheKB)})
	}
	report(row{what: "return to /: app.wasm taken from the code cache", result: fmt.Sprintf("%d of %d runs", fromCache, cfg.runs)})
	if fromCache > 0 {
		report(row{what: "return to /: compiled functions in the cache entry", result: countSpread(cachedFns)})
	}
	// Where the return's time goes: the page before it asks for the
	// module, reading the module, V8 finishing and instantiating it
	// (deserializing when it came from the code cache), Go's start and
	// first render, then the probe's answer.
	report(row{what: "return to /: app.wasm asked for", result: spread(requested)})
	report(row{what: "return to /: app.wasm read", result: spread(read)})
	report(row{what: "return to /: app.wasm instantiated", result: spread(instantiated)})
	report(row{what: "return to /: main content rendered", result: spread(content)})
	report(row{what: "return to /: time to interactive", result: spread(tti), goal: "≤ 0.5 s",
		met: median(tti) <= goalRepeatLocal, judged: !cfg.check})
	report(row{what: "return to /: Chromium CPU time, navigation to interactive", result: spread(cpu)})
	report(row{what: "return to /: of which the page's main thread", result: spread(mainCPU)})
	report(row{what: "return to /: functions compiled on first call (wasm.CompileLazy)", result: countSpread(lazy)})
	report(row{what: "return to /: time in those compiles", result: spread(lazyMS)})
	return nil
}

// countSpread is "median (min–max)" of counts.
func countSpread(xs []float64) string {
	if len(xs) == 1 {
		return fmt.Sprintf("%.0f", xs[0])
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", median(xs), minOf(xs), maxOf(xs))
}
