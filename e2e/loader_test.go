package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// When app.wasm cannot be loaded, the loader says so where the page shows
// that it is loading, stops spinning and offers to try again, instead of
// waiting forever: for a request that fails and for an HTTP error the
// server answers. Once the network is back, "Try again" loads the app
// without reloading the page.
func TestLoaderShowsFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fail    func(t *testing.T, s *session)
		console string // the browser's own log line about the failure
		reason  string // what the label says after "could not load: "
		recover func(t *testing.T, s *session)
	}{
		{"request fails", blockWasm, "ERR_BLOCKED_BY_CLIENT", "Failed to fetch", unblockWasm},
		{"server error", answerWasm503, "503", "the server answered 503 Service Unavailable for /web/app.wasm", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			s.expectConsole("loading app.wasm failed")
			s.expectConsole(tc.console)
			tc.fail(t, s)
			s.do(chromedp.Navigate(s.base + "/"))
			got := s.waitText("#app-wasm-loader-label", "The workbench could not load")
			if !strings.Contains(got, tc.reason) || !strings.Contains(got, "Try again, or reload the page") {
				t.Errorf("loader label = %q, want the reason %q and what to do", got, tc.reason)
			}
			if class := eval[string](s, `document.getElementById("app-wasm-loader-icon").className`); strings.Contains(class, "spin") {
				t.Errorf("the loader icon still spins (class %q)", class)
			}
			if got := s.waitText("#app-wasm-retry", "Try again"); got != "Try again" {
				t.Errorf("retry button says %q", got)
			}
			if tc.recover == nil {
				return
			}
			tc.recover(t, s)
			eval[bool](s, `(window.__samePage = true)`)
			s.click("#app-wasm-retry")
			s.do(
				chromedp.WaitNotPresent(chromedp.ID("app-wasm-loader")),
				chromedp.WaitNotPresent(chromedp.CSS(".wb-shell")),
			)
			s.waitVisible("#key")
			if !eval[bool](s, `window.__samePage === true`) {
				t.Error("Try again reloaded the page")
			}
		})
	}
}

// loaderLog records every text the loader's label takes, from before the
// page's scripts run.
const loaderLog = `window.__loaderLabels = [];
new MutationObserver((records) => {
  for (const r of records) {
    if (r.target.id !== "app-wasm-loader-label") {
      continue;
    }
    // Each text set replaces the label's text node: the node added holds
    // the text of that moment, even once the label is gone.
    for (const n of r.addedNodes) {
      window.__loaderLabels.push(n.textContent);
    }
  }
}).observe(document, { childList: true, subtree: true });`

// The loader says what it is doing while the app loads: the bytes of
// app.wasm received of its total (the module's size, which the build
// wrote into app.js), then starting it. And before any of it, every exact
// route's page as the server sends it shows that page's heading, its
// explanatory text and the navigation, while deep links and unknown paths
// get the neutral shell, no page's text.
func TestLoaderProgress(t *testing.T) {
	s := newSession(t)
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: loaderLog})
		return err
	}))
	s.open("/")
	labels := eval[[]string](s, `window.__loaderLabels`)
	if i := slices.Index(labels, "Compiling the workbench…"); i >= 0 && i < slices.IndexFunc(labels, func(l string) bool { return strings.HasPrefix(l, "Downloading") }) {
		t.Errorf("compiling before downloading; its labels: %q", labels)
	}
	st, err := os.Stat(filepath.Join(setup.site, "web", "app.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	total := fmt.Sprintf("%.1f", float64(st.Size())/(1<<20))
	progress := regexp.MustCompile(`^Downloading the workbench: (\d+\.\d) of ` + regexp.QuoteMeta(total) + ` MB$`)
	downloading, last := 0, -1.0
	for _, l := range labels {
		if m := progress.FindStringSubmatch(l); m != nil {
			downloading++
			got, _ := strconv.ParseFloat(m[1], 64)
			if got < last {
				t.Errorf("progress went back: %q after %.1f MB", l, last)
			}
			last = got
		}
	}
	if downloading == 0 {
		t.Errorf("the loader never said how much of %s MB had arrived; its labels: %q", total, labels)
	}
	if n := len(labels); n == 0 || labels[n-1] != "Starting the workbench…" {
		t.Errorf("the loader's last label is not \"Starting the workbench…\"; its labels: %q", labels)
	}

	// The loading icon spins unless the person asked for less motion (the
	// session asks for it; see newSession).
	spin := `(() => { const i = document.createElement("div"); i.className = "goapp-logo goapp-spin";
  document.body.appendChild(i); const a = getComputedStyle(i).animationName; i.remove(); return a; })()`
	if got := eval[string](s, spin); got != "none" {
		t.Errorf("with less motion asked for, the loading icon's animation is %q, want none", got)
	}
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "no-preference"}},
		})
		return err
	}))
	if got := eval[string](s, spin); got == "none" {
		t.Error("without a preference the loading icon does not spin")
	}

	// The pages as the server sends them, parsed as the browser parses
	// them before any script runs.
	for _, tc := range []struct{ path, heading, text string }{
		{"/", "Skill Workbench", "You bring an OpenRouter API key."},
		{"/teach", "Teach a skill", "Pick a task"},
		{"/skills", "Skills", "The skills stored in this browser."},
		{"/import", "Import skill bundles", "Bundles are data, never code"},
		{"/registry", "Registry", "Skills published to this workbench's registry"},
		{"/skills/0190a1b2-0000-7000-8000-000000000000", "", ""},
		{"/skills/0190a1b2-0000-7000-8000-000000000000/replay", "", ""},
		{"/no/such/page", "", ""},
	} {
		got := eval[map[string]string](s, `fetch(`+strconv.Quote(tc.path)+`).then((r) => r.text()).then((html) => {
			const doc = new DOMParser().parseFromString(html, "text/html");
			const h1 = doc.querySelector("main h1");
			return {
				heading: h1 ? h1.textContent : "",
				main: doc.querySelector("main").textContent,
				shell: doc.querySelector("main .wb-shell") ? "yes" : "no",
				nav: [...doc.querySelectorAll("nav a.wb-navlink")].map((a) => a.getAttribute("href")).join(" "),
			};
		})`)
		if got["heading"] != tc.heading || !strings.Contains(got["main"], tc.text) {
			t.Errorf("%s as served: heading %q and main %q, want the heading %q and %q", tc.path, got["heading"], got["main"], tc.heading, tc.text)
		}
		if got["shell"] != "yes" || got["nav"] != "/ /teach /skills /import /registry" {
			t.Errorf("%s as served: loading line %s, navigation %q", tc.path, got["shell"], got["nav"])
		}
	}
}

// blockWasm makes the browser refuse to request app.wasm.
func blockWasm(t *testing.T, s *session) {
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, network.SetBlockedURLs, network.SetBlockedURLsParams{
			URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/web/app.wasm*", Block: true}},
		})
		return err
	}))
}

// unblockWasm lets the browser request app.wasm again.
func unblockWasm(t *testing.T, s *session) {
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{}})
		return err
	}))
}

// answerWasm503 answers every request for app.wasm with 503 in place of
// the server.
func answerWasm503(t *testing.T, s *session) {
	paused := make(chan fetch.RequestID, 8)
	if err := chromedp.Listen(s.ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			select {
			case paused <- e.RequestID:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	// The answers are sent from here: a listener may not call the browser.
	go func() {
		for {
			select {
			case id := <-paused:
				chromedp.Do(s.ctx, chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
					_, err := cdp.Call(ctx, tt, fetch.FulfillRequest, fetch.FulfillRequestParams{
						RequestID: id, ResponseCode: 503, Body: []byte("down for maintenance"),
						ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/plain"}},
					})
					return err
				}))
			case <-s.ctx.Done():
				return
			}
		}
	}()
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, fetch.Enable, fetch.EnableParams{
			Patterns: []*fetch.RequestPattern{{URLPattern: "*/web/app.wasm*"}},
		})
		return err
	}))
}
