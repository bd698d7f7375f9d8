package e2e

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
)

// waitLong polls a JavaScript condition for as long as a real browser body
// may take (Chromium starting, a navigation, a model step per action).
func (s *session) waitLong(cond string) {
	s.t.Helper()
	s.do(chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(3*time.Minute)))
}

// present is a JavaScript condition: some element matches sel.
func present(sel string) string { return fmt.Sprintf(`!!document.querySelector(%q)`, sel) }

// storedBundle is what the MCP tests read of a stored bundle: which body
// it was taught on and who authorized each edge.
type storedBundle struct {
	Manifest struct {
		BodyChoice string `json:"body_choice"`
	} `json:"manifest"`
	Trace struct {
		Edges []struct {
			Authorization *struct {
				Authorizer string `json:"authorizer"`
				Decision   string `json:"decision"`
			} `json:"authorization"`
		} `json:"edges"`
	} `json:"interaction_trace"`
}

// storedBundles reads every bundle of the page's library.
func (s *session) storedBundles() []storedBundle {
	s.t.Helper()
	var l struct {
		Bundles []storedBundle `json:"bundles"`
	}
	if err := json.Unmarshal([]byte(eval[string](s, readLibrary)), &l); err != nil {
		s.t.Fatalf("reading the library: %v", err)
	}
	return l.Bundles
}
