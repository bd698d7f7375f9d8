package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// The speed goals of the browser app, measured in real Chromium against
// `workbench serve` on loopback (make bench-app). Each reports ms/op as
// wall time seen from the test, which includes chromedp's polling (a few
// milliseconds).

// BenchmarkColdLoad: from navigation to the landing page rendered by the
// app (wasm fetched, compiled and run, loader gone), each time in a fresh
// browser context, so with an empty HTTP cache.
func BenchmarkColdLoad(b *testing.B) {
	s := newSession(b)
	s.open("/")
	for b.Loop() {
		ctx, cancel := chromedp.NewContext(s.ctx, chromedp.WithNewBrowserContext())
		start := time.Now()
		err := chromedp.Do(ctx,
			chromedp.Navigate(s.base+"/"),
			chromedp.WaitNotPresent(chromedp.ID("app-wasm-loader")),
			chromedp.WaitVisible(chromedp.ID("key")),
		)
		elapsed := time.Since(start)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(elapsed.Milliseconds()), "ms-interactive")
	}
}

// BenchmarkImport10MB: one ~10 MB bundle picked on /import until its
// result is shown (read, strict parse, schema, proof, IndexedDB write).
func BenchmarkImport10MB(b *testing.B) {
	v := appVerifier(b)
	s := newSession(b)
	s.open("/import")
	dir := b.TempDir()
	n := 0
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(dir, fmt.Sprintf("big-%d.skill.json", n))
		size := writeBundle(b, v, path, 10<<20)
		n++
		b.StartTimer()
		s.upload("#import-files", path)
		s.waitVisible(fmt.Sprintf("#import-results > li:nth-child(%d)", n))
		b.StopTimer()
		if got := s.text(fmt.Sprintf("#import-results > li:nth-child(%d) .import-status", n)); got != "accepted" {
			b.Fatalf("status %q", got)
		}
		b.ReportMetric(float64(size)/(1<<20), "MB")
		b.StartTimer()
	}
}

// BenchmarkSkills1000: with 1,000 skills stored, from clicking "Skills"
// in the navigation to the page shown (the newest 100 rows and the count
// of all 1,000), and then (ms-all) to all 1,000 rows after "Show more" is
// pressed nine times.
func BenchmarkSkills1000(b *testing.B) {
	const count = 1000
	v := appVerifier(b)
	s := newSession(b, withTimeout(30*time.Minute))
	dir := b.TempDir()
	paths := make([]string, count)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("s%04d.skill.json", i))
		writeBundle(b, v, paths[i], 0)
	}
	s.open("/import")
	s.upload("#import-files", paths...)
	s.do(chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelectorAll("#import-results > li.import-accepted").length === %d`, count),
		chromedp.WithPollingTimeout(10*time.Minute)))
	for b.Loop() {
		b.StopTimer()
		s.click(`nav a[href="/import"]`)
		s.waitText("main h1", "Import")
		b.StartTimer()
		s.click(`nav a[href="/skills"]`)
		s.do(chromedp.WaitReady(chromedp.CSS("#skills-table tbody tr:nth-child(100)")))
		s.waitText("#skills-count", fmt.Sprintf("of %d skills", count))
		b.StopTimer()
		start := time.Now()
		for i := 0; i < 9; i++ {
			s.click("#skills-more")
			s.do(chromedp.WaitReady(chromedp.CSS(fmt.Sprintf("#skills-table tbody tr:nth-child(%d)", 100*(i+2)))))
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms-all")
		b.StartTimer()
	}
}

// writeBundle writes a new skill (its own id) made from the valid fixture,
// padded to about size bytes with notes in the scenario (an open object),
// sealed with its proof. It returns the file's size.
func writeBundle(tb testing.TB, v *verify.Verifier, path string, size int) int {
	tb.Helper()
	data, err := os.ReadFile(fixturePath("valid-skill-bundle.v0.json"))
	if err != nil {
		tb.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		tb.Fatal(err)
	}
	id := skill.NewID()
	b.SkillID, b.Manifest.SkillID, b.BundleID = id, id, skill.NewID()
	b.Manifest.Name = "Skill " + id[len(id)-8:]
	if size > len(data) {
		type note struct {
			I    int    `json:"i"`
			Text string `json:"text"`
		}
		text := strings.Repeat("observed text of a page the agent read; ", 5)
		notes := make([]note, 0, (size-len(data))/(len(text)+20))
		for i := 0; i < cap(notes); i++ {
			notes = append(notes, note{I: i, Text: text})
		}
		raw, err := json.Marshal(notes)
		if err != nil {
			tb.Fatal(err)
		}
		if b.Evidence.Scenario.Extra == nil {
			b.Evidence.Scenario.Extra = map[string]json.RawMessage{}
		}
		b.Evidence.Scenario.Extra["x_notes"] = raw
	}
	if err := v.SealWithProof(b); err != nil {
		tb.Fatal(err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, f.Data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return len(f.Data)
}

// BenchmarkAudit20MB: a ~20 MB bundle whose trace has some 2,000 steps,
// each answered with a page of snapshot text. From the click on the
// Audit tab to the frame after its step list shows a full page
// (ms-first-paint), and from the click on a step to the frame after its
// detail (ms-detail); ms-longest-task is the longest main-thread task
// Chromium reported (longtask entries, 50 ms and over; 0 when none) from
// the first click to the end. Loading the skill page itself (reading and
// re-verifying the bundle) is outside both.
func BenchmarkAudit20MB(b *testing.B) {
	v := appVerifier(b)
	s := newSession(b, withTimeout(30*time.Minute))
	path := filepath.Join(b.TempDir(), "trace.skill.json")
	id, size := writeTraceBundle(b, v, path, 20<<20)
	s.open("/import")
	s.upload("#import-files", path)
	s.do(chromedp.Poll[chromedp.Void](`!!document.querySelector("#import-results > li.import-accepted")`,
		chromedp.WithPollingTimeout(10*time.Minute)))
	for b.Loop() {
		b.StopTimer()
		b.ReportMetric(float64(size)/(1<<20), "MB")
		s.open("/skills/" + id)
		s.do(chromedp.Poll[chromedp.Void](`!!document.querySelector("#tab-audit")`, chromedp.WithPollingTimeout(10*time.Minute)))
		b.StartTimer()
		m := eval[map[string]float64](s, auditProbe)
		b.ReportMetric(m["paint"], "ms-first-paint")
		b.ReportMetric(m["detail"], "ms-detail")
		b.ReportMetric(m["longest"], "ms-longest-task")
	}
}

// auditProbe clicks the Audit tab, then step 30, each time waiting for
// the DOM to show the result (a MutationObserver) and for the frame after
// it (requestAnimationFrame, then a task posted from it), and collects
// the long tasks seen meanwhile.
const auditProbe = `(async () => {
  const long = [];
  const po = new PerformanceObserver((l) => { for (const e of l.getEntries()) long.push(e.duration); });
  po.observe({ type: "longtask" });
  const shown = (sel, act) => new Promise((resolve) => {
    const t0 = performance.now();
    const done = () => requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
    const mo = new MutationObserver(() => { if (document.querySelector(sel)) { mo.disconnect(); done(); } });
    mo.observe(document.body, { childList: true, subtree: true, characterData: true });
    act();
  });
  const paint = await shown("#audit-edges > li:nth-child(50)", () => document.querySelector("#tab-audit").click());
  const detail = await shown("#audit-detail-heading", () => document.querySelector("#audit-edge-30 .audit-edge-select").click());
  for (const e of po.takeRecords()) long.push(e.duration);
  po.disconnect();
  return { paint, detail, longest: long.length ? Math.max(...long) : 0 };
})()`

// writeTraceBundle writes a new skill made from the valid fixture whose
// trace is grown to about size bytes: copies of its first edge, each
// answering with about 10 KB of snapshot text, as a long browser session
// records, each with its tool call's hashes. It returns the skill's id
// and the file's size.
func writeTraceBundle(tb testing.TB, v *verify.Verifier, path string, size int) (string, int) {
	tb.Helper()
	data, err := os.ReadFile(fixturePath("valid-skill-bundle.v0.json"))
	if err != nil {
		tb.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		tb.Fatal(err)
	}
	id := skill.NewID()
	b.SkillID, b.Manifest.SkillID, b.BundleID = id, id, skill.NewID()
	b.Manifest.Name = "Long trace " + id[len(id)-8:]
	page := strings.Repeat("- link \"Release notes of the widget, version by version\" [ref=e12]\n", 150)
	proto, call := b.Trace.Edges[0], b.Evidence.ToolCalls[0]
	var edges []skill.Edge
	var calls []skill.ToolCallHash
	for i := 0; len(edges)*len(page) < size; i++ {
		e := proto
		e.Index, e.EdgeID, e.ObservedOutcome = i, skill.NewID(), page
		edges = append(edges, e)
		c := call
		idx := i
		c.EdgeIndex, c.SpanID = &idx, fmt.Sprintf("%016x", 0x100000+i)
		calls = append(calls, c)
	}
	b.Trace.Edges, b.Evidence.ToolCalls = edges, calls
	if err := v.SealWithProof(b); err != nil {
		tb.Fatal(err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, f.Data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return id, len(f.Data)
}
