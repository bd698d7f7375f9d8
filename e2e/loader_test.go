package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// When app.wasm cannot be loaded, the loader says so where the page shows
// that it is loading, and stops spinning, instead of waiting forever.
func TestLoaderShowsFailure(t *testing.T) {
	s := newSession(t)
	s.expectConsole("loading app.wasm failed")
	s.expectConsole("ERR_BLOCKED_BY_CLIENT")
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, network.SetBlockedURLs, network.SetBlockedURLsParams{
			URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/web/app.wasm", Block: true}},
		})
		return err
	}))
	s.do(chromedp.Navigate(s.base + "/"))
	got := s.waitText("#app-wasm-loader-label", "The workbench could not load")
	if !strings.Contains(got, "Reload the page") {
		t.Errorf("loader label = %q, want it to say what to do", got)
	}
	if class := eval[string](s, `document.getElementById("app-wasm-loader-icon").className`); strings.Contains(class, "spin") {
		t.Errorf("the loader icon still spins (class %q)", class)
	}
}
