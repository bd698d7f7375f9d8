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
