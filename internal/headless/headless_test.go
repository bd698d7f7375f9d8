package headless

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func chromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no Chromium at %s (make chromium installs it)", path)
	}
	return path
}

// omniboxRenderers counts the running processes of the browser whose
// profile is dir that render Chromium's own top-chrome pages.
func omniboxRenderers(t *testing.T, dir string) int {
	t.Helper()
	procs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the process has gone
		}
		// Chromium rewrites its child processes' argv into one string:
		// split on spaces as well as NULs.
		args := strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 || r == ' ' })
		if slices.Contains(args, "--user-data-dir="+dir) && slices.Contains(args, "--top-chrome-webui") {
			n++
		}
	}
	return n
}

// startWindow starts Chromium with opts and opens a window on a blank page.
func startWindow(t *testing.T, opts []chromedp.ExecAllocatorOption) {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
}

// The browser the tests and benchmarks start runs no renderers for the
// omnibox popup, which a headless window never shows. Without the
// switch the same Chromium does start them: if a new Chromium stops
// (or renames the features), this test says so rather than the switch
// silently doing nothing.
func TestNoOmniboxPopupRenderers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium twice")
	}
	path := chromium(t)

	without := t.TempDir()
	startWindow(t, options(path, without, "")) // the control

	start, seen := time.Now(), 0
	for deadline := start.Add(20 * time.Second); seen == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		seen = omniboxRenderers(t, without)
	}
	took := time.Since(start)
	if seen == 0 {
		t.Fatalf("Chromium at %s started no omnibox popup renderers without --disable-features=%s: the switch may no longer be needed (docs/perf/tests.md)", path, DisabledFeatures)
	}

	dir := t.TempDir()
	startWindow(t, Options(path, dir))
	// Twice as long as the control took to start them, and at least 3 s.
	time.Sleep(max(2*took, 3*time.Second))
	if n := omniboxRenderers(t, dir); n != 0 {
		t.Errorf("%d omnibox popup renderers with --disable-features=%s: Chromium has other names for them now", n, DisabledFeatures)
	}
}
