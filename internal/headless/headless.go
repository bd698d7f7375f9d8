// Package headless gives the switches with which the project's tests and
// measuring programs start Debian's headless Chromium through chromedp,
// so that every one of them starts the same browser.
//
// The switches keep the browser from calling home on the closed network
// (no component or sync updates) and from starting Chromium's own omnibox
// popup pages. A headless window never shows that popup, yet for every
// window Chromium starts renderers for it, which run beside the page
// being tested or timed: measured, about a tenth of the e2e layer's CPU
// and half a second of a timed cold start (docs/perf/tests.md,
// docs/perf/app-tti.md).
package headless

import "github.com/chromedp/chromedp"

// DisabledFeatures are the Chromium features the browser starts without:
// the omnibox popup's WebUI pages, each of which starts renderers of its
// own for every browser window.
const DisabledFeatures = "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup"

// Options are the allocator options for the Chromium at path, headless,
// with its profile in the directory profile. Callers append their own
// (a window size, background throttling off).
func Options(path, profile string) []chromedp.ExecAllocatorOption {
	return options(path, profile, DisabledFeatures)
}

// options are Options with the features disabled, a comma-separated list
// (none when empty).
func options(path, profile, disabled string) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		// The tests and benchmarks run as root, where Chromium refuses to
		// start sandboxed.
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		// On the closed network these would only be refused connections.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
	}
	if disabled != "" {
		opts = append(opts, chromedp.Flag("disable-features", disabled))
	}
	return opts
}
