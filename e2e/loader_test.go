package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// When app.wasm cannot be loaded, the loader says so where the page shows
// that it is loading, and stops spinning, instead of waiting forever: for
// a request that fails and for an HTTP error the server answers.
func TestLoaderShowsFailure(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		fail    func(t *testing.T, s *session)
		console string // the browser's own log line about the failure
		reason  string // what the label says after "could not load: "
	}{
		{"request fails", blockWasm, "ERR_BLOCKED_BY_CLIENT", "Failed to fetch"},
		{"server error", answerWasm503, "503", "the server answered 503 Service Unavailable for /web/app.wasm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			s.expectConsole("loading app.wasm failed")
			s.expectConsole(tc.console)
			tc.fail(t, s)
			s.do(chromedp.Navigate(s.base + "/"))
			got := s.waitText("#app-wasm-loader-label", "The workbench could not load")
			if !strings.Contains(got, tc.reason) || !strings.Contains(got, "Reload the page") {
				t.Errorf("loader label = %q, want the reason %q and what to do", got, tc.reason)
			}
			if class := eval[string](s, `document.getElementById("app-wasm-loader-icon").className`); strings.Contains(class, "spin") {
				t.Errorf("the loader icon still spins (class %q)", class)
			}
		})
	}
}

// blockWasm makes the browser refuse to request app.wasm.
func blockWasm(t *testing.T, s *session) {
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, network.SetBlockedURLs, network.SetBlockedURLsParams{
			URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/web/app.wasm", Block: true}},
		})
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
			Patterns: []*fetch.RequestPattern{{URLPattern: "*/web/app.wasm"}},
		})
		return err
	}))
}
