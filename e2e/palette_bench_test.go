package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/systeminfo"
	"github.com/chromedp/chromedp"

	"workbench/pkg/body"
	"workbench/pkg/capability"
)

// paletteBenchSize is the catalog the speed goal names: opening the
// palette and filtering as you type stay under 50 ms per keystroke with
// 500 capabilities.
const paletteBenchSize = 500

// paletteBenchQuery is typed one key at a time: a realistic search, whose
// first letters match most of the catalog and whose last few narrow it
// to a handful.
const paletteBenchQuery = "browser cl"

// toolServer is an MCP-like source of the benchmark's catalog: tools with
// real input schemas (the corpus of pkg/schemaform: Playwright MCP's and
// server-everything's tools), some degraded or unavailable with reasons,
// as a server's listing would be. It answers Describe; nothing invokes it.
type toolServer struct {
	source string
	tools  []capability.Capability
}

func (t *toolServer) Source() string { return t.source }

func (t *toolServer) List(ctx context.Context) ([]capability.Capability, error) {
	return t.tools, nil
}

func (t *toolServer) Describe(ctx context.Context, id string) (capability.Capability, error) {
	for _, c := range t.tools {
		if c.ID == id {
			return c, nil
		}
	}
	return capability.Capability{}, &capability.NotFoundError{ID: id}
}

func (t *toolServer) Invoke(ctx context.Context, id string, input json.RawMessage) (capability.Result, error) {
	return capability.Result{}, fmt.Errorf("%s: the benchmark's catalog is not invoked", id)
}

// benchServers spreads n capabilities over servers of the corpus's tools:
// eight servers each listing every corpus tool (Playwright's browser_*
// tools and server-everything's), cut at n.
func benchServers(tb testing.TB, n int) []capability.Provider {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(setup.root, "pkg", "schemaform", "testdata", "corpus", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no corpus schemas: %v", err)
	}
	type tool struct {
		name, desc string
		schema     json.RawMessage
	}
	var corpus []tool
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var head struct {
			Description string `json:"description"`
		}
		json.Unmarshal(b, &head)
		_, name, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".json"), ".")
		corpus = append(corpus, tool{name: name, desc: head.Description, schema: b})
	}
	hosts := []string{"browser-main", "browser-staging", "everything", "browser-ci", "lab", "browser-qa", "docs", "browser-eu"}
	yes := true
	var out []capability.Provider
	made := 0
	for h := 0; made < n; h++ {
		srv := &toolServer{source: capability.MCPSource(fmt.Sprintf("%s-%d", hosts[h%len(hosts)], h/len(hosts)+1))}
		for _, t := range corpus {
			if made == n {
				break
			}
			c := capability.Capability{
				ID: capability.ID(srv.source, t.name), Title: t.name, Source: srv.source, Name: t.name,
				Description: t.desc, InputSchema: t.schema, Effect: "read", Annotations: body.Annotations{ReadOnlyHint: &yes},
				Trusted: true, PolicyCapability: "&body.browser", RenderHint: capability.HintJSON, Availability: capability.Available,
			}
			switch {
			case made%11 == 3:
				c.Availability, c.Reasons, c.Missing = capability.Unavailable, []string{"the server is not connected"}, []string{"a running browser"}
			case made%7 == 5:
				c.Availability, c.Reasons = capability.Degraded, []string{"the server answers slowly"}
			}
			srv.tools = append(srv.tools, c)
			made++
		}
		out = append(out, srv)
	}
	return out
}

// palProbe measures inside the page, with performance.now(), from a
// keydown (heard first: a capture listener on window) until the frame
// after the DOM reflects it: a MutationObserver sees the condition hold
// at the end of the task that changed the DOM, then requestAnimationFrame
// waits for the next frame and a message posted from it runs after that
// frame's style, layout and paint. Each named condition is timed on its
// own.
const palProbe = `window.__palBench = (() => {
  let conds = null, t0 = 0, times = {}, resolve = null;
  const finished = () => {
    if (!conds) return null;
    for (const n of Object.keys(conds)) if (times[n] == null) return null;
    return times;
  };
  const check = () => {
    if (!conds || t0 === 0) return;
    for (const [name, cond] of Object.entries(conds)) {
      if (name in times || !cond()) continue;
      times[name] = null;
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => {
          times[name] = performance.now() - t0;
          if (resolve && finished()) { resolve(times); resolve = null; }
        };
        ch.port2.postMessage(0);
      });
    }
  };
  window.addEventListener("keydown", () => { if (conds && t0 === 0) { t0 = performance.now(); check(); } }, true);
  new MutationObserver(check).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  return {
    arm(c) { conds = c; t0 = 0; times = {}; resolve = null; },
    // wait resolves with the times once every condition was timed.
    wait() { return finished() || new Promise((r) => { resolve = r; }); },
  };
})(); true`

// chromiumCPU is the CPU time Chromium's processes have used so far, in
// milliseconds (SystemInfo.getProcessInfo, as cmd/benchapp reads it): it
// barely changes with other load on the machine.
func (s *session) chromiumCPU() float64 {
	s.t.Helper()
	var total float64
	s.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		c := chromedp.FromContext(ctx)
		res, err := cdp.Call(ctx, c.Browser, systeminfo.GetProcessInfo, cdp.Empty{})
		if err != nil {
			return fmt.Errorf("SystemInfo.getProcessInfo: %w", err)
		}
		for _, p := range res.ProcessInfo {
			total += p.CPUTime
		}
		return nil
	}))
	return total * 1000
}

// timeKey arms the probe with conditions (name → a JavaScript function
// body returning a boolean), sends key, and returns the milliseconds from
// its keydown to the frame after each condition held.
func (s *session) timeKey(key string, mod chromedp.Modifier, conds map[string]string) map[string]float64 {
	s.t.Helper()
	var js []string
	for name, c := range conds {
		js = append(js, jsQuote(name)+": () => { "+c+" }")
	}
	eval[bool](s, `(__palBench.arm({`+strings.Join(js, ", ")+`}), true)`)
	if mod != 0 {
		s.do(chromedp.KeyEvent(key, chromedp.KeyModifiers(mod)))
	} else {
		s.do(chromedp.KeyEvent(key))
	}
	// Awaited, not polled: polling would make the page and the browser
	// work while they are measured.
	wait, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	out, err := chromedp.Run(wait, chromedp.Evaluate[map[string]float64](`__palBench.wait()`, chromedp.EvalAwaitPromise))
	if err != nil {
		s.t.Fatalf("key %q: the page did not reach %v (%v): search %q, list for %q, count %q", key, conds, err,
			eval[string](s, `(document.querySelector("#pal-search")||{}).value || ""`),
			eval[string](s, `(document.querySelector("#pal-list")||{dataset:{}}).dataset.query || ""`),
			eval[string](s, `(document.querySelector("#pal-count")||{}).textContent || ""`))
	}
	return out
}

// BenchmarkPalette500: the capability workbench with 500 capabilities
// from the HTTP contract backend (the conformance server over a real
// Governor, eight servers of real tool schemas). Each iteration presses
// Ctrl+K (ms-open: until the list shows its entries and the count "500 of
// 500"; ms-open-fresh: until the catalog, read again on every opening, is
// shown), types "browser cl" one key at a time (ms-key: from each
// keydown until the frame after the list is filtered for the query so
// far; median and max over all keystrokes of all iterations), then
// clears the search and closes. cpu-ms-key is Chromium's CPU time per
// keystroke, cpu-ms-open per opening.
func BenchmarkPalette500(b *testing.B) {
	providers := benchServers(b, paletteBenchSize)
	cat, err := capability.NewCatalog(providers...)
	if err != nil {
		b.Fatal(err)
	}
	all := cat.List(context.Background())
	if len(all.Capabilities) != paletteBenchSize {
		b.Fatalf("the catalog has %d capabilities, want %d", len(all.Capabilities), paletteBenchSize)
	}
	ix := capability.NewIndex(all.Capabilities)

	s, _ := contractSessionWith(b, []option{withTimeout(30 * time.Minute)}, providers...)
	s.startContract()
	total := fmt.Sprint(paletteBenchSize)
	s.waitJS(`(document.querySelector("#pal-count")||{}).textContent === "` + total + ` of ` + total + ` capabilities (first 50 shown; type to narrow)"`)
	s.closePalette()
	b.Logf("GET /api/capabilities: %d bytes", eval[int](s, `fetch("/api/capabilities").then((r) => r.text()).then((t) => t.length)`))
	eval[bool](s, palProbe)

	var keys, opens, fresh, keyCPU, openCPU []float64
	perKey := make([][]float64, len(paletteBenchQuery))
	for b.Loop() {
		eval[bool](s, `(window.__palBusySeen = false, true)`)
		cpu0 := s.chromiumCPU()
		t := s.timeKey("k", chromedp.ModifierCtrl, map[string]string{
			"shown": `const l = document.querySelector("#pal-dialog[open] #pal-list"), c = document.querySelector("#pal-count");
  return !!l && l.children.length > 0 && !!c && c.textContent.startsWith("` + total + ` of ` + total + ` ");`,
			// The catalog is read again on every opening: aria-busy goes
			// true, then false when the new reading is shown.
			"fresh": `const l = document.querySelector("#pal-dialog[open] #pal-list");
  if (!l) return false;
  if (l.getAttribute("aria-busy") === "true") window.__palBusySeen = true;
  return !!window.__palBusySeen && l.getAttribute("aria-busy") === "false" && l.children.length > 0;`,
		})
		openCPU = append(openCPU, s.chromiumCPU()-cpu0)
		opens, fresh = append(opens, t["shown"]), append(fresh, t["fresh"])

		cpu0 = s.chromiumCPU()
		for i := range paletteBenchQuery {
			q := paletteBenchQuery[:i+1]
			want := len(ix.Filter(q))
			t := s.timeKey(paletteBenchQuery[i:i+1], 0, map[string]string{
				"filtered": `const l = document.querySelector("#pal-list"), c = document.querySelector("#pal-count");
  return !!l && l.dataset.query === JSON.stringify(` + jsQuote(q) + `) && c.textContent.startsWith("` + fmt.Sprintf("%d of %s ", want, total) + `");`,
			})
			keys = append(keys, t["filtered"])
			perKey[i] = append(perKey[i], t["filtered"])
		}
		keyCPU = append(keyCPU, (s.chromiumCPU()-cpu0)/float64(len(paletteBenchQuery)))
		if got := eval[string](s, `document.querySelector("#pal-search").value`); got != paletteBenchQuery {
			b.Fatalf("the search holds %q after typing %q", got, paletteBenchQuery)
		}

		b.StopTimer()
		s.setValue("#pal-search", "", "input")
		s.waitJS(`document.querySelector("#pal-list").dataset.query === '""'`)
		s.closePalette()
		b.StartTimer()
	}
	var keyLog strings.Builder
	for i, ts := range perKey {
		q := paletteBenchQuery[:i+1]
		fmt.Fprintf(&keyLog, "; key %d %q: median %.1f ms, max %.1f ms (%q: %d matches)", i+1, q[i:], median(ts), slices.Max(ts), q, len(ix.Filter(q)))
	}
	b.Logf("per keystroke, over %d iterations%s", len(opens), keyLog.String())
	b.ReportMetric(median(opens), "ms-open")
	b.ReportMetric(slices.Max(opens), "ms-open-max")
	b.ReportMetric(median(fresh), "ms-open-fresh")
	b.ReportMetric(median(keys), "ms-key")
	b.ReportMetric(slices.Max(keys), "ms-key-max")
	b.ReportMetric(median(openCPU), "cpu-ms-open")
	b.ReportMetric(median(keyCPU), "cpu-ms-key")
}

// median is the middle of xs (the mean of the two middle ones).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
