package e2e

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"workbench/internal/headless"
	"workbench/internal/interrupt"
)

// setup is what TestMain found: the module root, the built site, the
// workbench binary it built and the Chromium to drive.
var setup struct {
	root, site, workbench, chromium string
	// browser is the one Chromium all tests share; each test opens its
	// own browser context in it (separate storage, cache and cookies, like
	// a fresh profile).
	browser context.Context
	// measuring is true for a run of benchmarks (-test.bench): the
	// browser and the app then run as a person's do (startBrowser,
	// newSession).
	measuring bool
}

func TestMain(m *testing.M) {
	if os.Getenv("WORKBENCH_E2E") != "1" {
		fmt.Println("e2e: skipped; run `make test-e2e` (it builds the site and sets WORKBENCH_E2E=1)")
		os.Exit(0)
	}
	// wrangler dev (wrangler_test.go) runs in a process group of its own,
	// which a terminal's Ctrl+C does not reach; what the run writes to the
	// temporary directory (browser profiles, the servers' state) goes with
	// it.
	removeTemp, err := interrupt.TempDir("wb-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	stopHandling := interrupt.Handle(removeTemp)
	code, err := prepare()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		removeTemp()
		os.Exit(1)
	}
	flag.Parse()
	setup.measuring = flag.Lookup("test.bench").Value.String() != ""
	stop, err := startBrowser(!setup.measuring)
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		removeTemp()
		os.Exit(1)
	}
	code = m.Run()
	stop()
	os.RemoveAll(filepath.Dir(setup.workbench))
	stopHandling()
	removeTemp()
	os.Exit(code)
}

func prepare() (int, error) {
	wd, err := os.Getwd()
	if err != nil {
		return 1, err
	}
	setup.root = filepath.Dir(wd)
	setup.site = os.Getenv("WORKBENCH_SITE")
	if setup.site == "" {
		setup.site = filepath.Join(setup.root, "build", "site")
	}
	for _, f := range []string{"index.html", "web/app.wasm", "_headers"} {
		if _, err := os.Stat(filepath.Join(setup.site, f)); err != nil {
			return 1, fmt.Errorf("the site in %s is not built (%v); run make build", setup.site, err)
		}
	}
	setup.chromium = os.Getenv("CHROMIUM")
	if setup.chromium == "" {
		setup.chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(setup.chromium); err != nil {
		return 1, fmt.Errorf("no Chromium at %s (make chromium installs it): %v", setup.chromium, err)
	}
	dir, err := os.MkdirTemp("", "workbench-e2e-")
	if err != nil {
		return 1, err
	}
	setup.workbench = filepath.Join(dir, "workbench")
	build := exec.Command("go", "build", "-o", setup.workbench, "./cmd/workbench")
	build.Dir, build.Stdout, build.Stderr = setup.root, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return 1, fmt.Errorf("building cmd/workbench: %w", err)
	}
	return 0, nil
}

// startBrowser starts the shared Chromium with the project's switches
// (internal/headless) and none of its tabs throttled. For the tests
// (baseline true) V8 compiles WebAssembly with its baseline compiler
// only: every test loads the app in a fresh browser context, and the
// optimizing compiler's work on the hot functions of each load (a third
// of the layer's CPU) checks nothing the tests look at. The benchmarks
// keep V8's default tiering: they measure what a person's browser does.
func startBrowser(baseline bool) (stop func(), err error) {
	profile, err := os.MkdirTemp("", "workbench-e2e-profile-")
	if err != nil {
		return nil, err
	}
	opts := append(headless.Options(setup.chromium, profile),
		// The tests' tabs run side by side (t.Parallel): none of them is
		// a background tab whose timers and rendering are throttled.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.WindowSize(1280, 900),
	)
	if baseline {
		opts = append(opts, chromedp.Flag("js-flags", "--liftoff-only"))
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	stop = func() { cancelBrowser(); cancelAlloc(); os.RemoveAll(profile) }
	if err := chromedp.Do(browser); err != nil {
		stop()
		return nil, fmt.Errorf("starting Chromium: %w", err)
	}
	setup.browser = browser
	return stop, nil
}
