package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"workbench/pkg/body"
	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi/contracttest"
)

// dumpPaletteOnFailure logs the palette's text when the test fails, while
// the tab is still there.
func (s *session) dumpPaletteOnFailure() {
	s.t.Cleanup(func() {
		if s.t.Failed() && s.ctx.Err() == nil {
			txt, _ := chromedp.Run(s.ctx, chromedp.Evaluate[string](`(document.querySelector("#pal-dialog")||{}).innerText || "(no palette)"`))
			s.t.Logf("palette:\n%s", txt)
		}
	})
}

// openPalette presses Ctrl+K (or Meta+K) and waits for the dialog.
func (s *session) openPalette(mod chromedp.Modifier) {
	s.t.Helper()
	s.do(chromedp.KeyEvent("k", chromedp.KeyModifiers(mod)))
	cond := `!!document.querySelector("#pal-dialog[open]") && document.activeElement.id === "pal-search"`
	if err := chromedp.Do(s.ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		s.t.Fatalf("%s: the palette did not open with the search focused: dialog open %v, focus on %s (%v)",
			eval[string](s, `location.pathname`), eval[bool](s, `!!document.querySelector("#pal-dialog[open]")`),
			eval[string](s, `document.activeElement.outerHTML.slice(0, 100)`), err)
	}
}

// waitPresent waits (at most a minute) until an element matches sel.
func (s *session) waitPresent(sel string) {
	s.t.Helper()
	s.waitJS(`!!document.querySelector(` + jsQuote(sel) + `)`)
}

// tap clicks the element matching sel with the mouse, at its center, as
// a person would. Pages re-render under the pointer (an answer arriving
// moves a button; go-app replaces a node), so a click aimed at a place
// measured a moment earlier can land on something else. tap therefore
// measures, checks that the element itself is at that place (not
// something covering it), and arms a guard in the same evaluation: until
// the click is over, a pointer event whose target is not the element is
// stopped before the page sees it, and the click is tried again. It waits
// (at most 30 s) for the element to be there and uncovered.
func (s *session) tap(sel string) {
	s.t.Helper()
	arm := `(() => { const e = document.querySelector(` + jsQuote(sel) + `); if (!e) return null;
  e.scrollIntoView({block: "nearest"});
  const r = e.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  const h = document.elementFromPoint(x, y);
  if (!h || (h !== e && !e.contains(h))) return null;
  const types = ["pointerdown", "mousedown", "pointerup", "mouseup", "click"];
  let missed = false, hit = false;
  const guard = (ev) => {
    if (hit || ev.target === e || e.contains(ev.target)) { hit = hit || ev.type === "click"; return; }
    missed = true; ev.preventDefault(); ev.stopImmediatePropagation();
  };
  for (const t of types) window.addEventListener(t, guard, true);
  window.__tapDone = () => { for (const t of types) window.removeEventListener(t, guard, true); delete window.__tapDone; return !missed; };
  return [x, y]; })()`
	deadline := time.Now().Add(30 * time.Second)
	for {
		if xy := eval[[]float64](s, arm); len(xy) == 2 {
			s.do(chromedp.MouseClickXY(xy[0], xy[1]))
			// A click that loads another document takes the guard with
			// the old one: the click happened.
			missed, err := chromedp.Run(s.ctx, chromedp.Evaluate[bool](`window.__tapDone ? !window.__tapDone() : false`))
			if err != nil || !missed {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("browser: click %s: no such element, or another covers its center", sel)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pendingApproval waits for the palette's pending approval and returns the
// selector of its entry in the approvals panel.
func (s *session) pendingApproval() string {
	s.t.Helper()
	s.waitPresent("#pal-pending")
	id := eval[string](s, `document.querySelector("#pal-pending").dataset.approval`)
	return `.pal-approval[data-approval=` + jsQuote(id) + `]`
}

// waitInvokable waits (at most a minute) until the palette's invoke
// button is enabled; if it stays disabled, the failure says why the
// palette disables it.
func (s *session) waitInvokable() {
	s.t.Helper()
	cond := `(document.querySelector("#pal-invoke") || {disabled: true}).disabled === false`
	if err := chromedp.Do(s.ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		s.t.Fatalf("the invoke button stayed disabled (%v): %q; confirmation checked: %v", err,
			eval[string](s, `(document.querySelector("#pal-invoke-why") || {}).textContent || "(no reason shown)"`),
			eval[bool](s, `!!(document.querySelector("#pal-confirm") || {}).checked`))
	}
}

// editForm makes edit, an edit of the palette's form, and waits (at
// most a minute) until the page has taken it and shows the preview of
// the edited form. The page takes an edit a moment after its event; until
// then the preview on screen is still the one of the form before it, and
// a confirmation ticked against it is lost with it (the edit clears the
// preview, and go-app drops the handler of a checkbox no longer there).
// An edit clears the preview at once and asks for the next one 250 ms
// later, so an observer armed before the edit sees the clearing.
func (s *session) editForm(edit func()) {
	s.t.Helper()
	s.waitPresent("#pal-pv-decision")
	eval[bool](s, `(() => { window.__pvCleared = false;
  const o = new MutationObserver(() => { if (!document.querySelector("#pal-pv-decision")) { window.__pvCleared = true; o.disconnect(); } });
  o.observe(document.body, {childList: true, subtree: true}); return true; })()`)
	edit()
	cond := `window.__pvCleared === true && !!document.querySelector("#pal-pv-decision")`
	if err := chromedp.Do(s.ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		s.t.Fatalf("the palette did not show the preview of the edited form (%v): preview cleared %v, preview shown %q", err,
			eval[bool](s, `window.__pvCleared === true`),
			eval[string](s, `(document.querySelector("#pal-preview") || {}).textContent || "(none)"`))
	}
}

// closePalette presses Esc and waits for the dialog to close.
func (s *session) closePalette() {
	s.t.Helper()
	s.do(chromedp.KeyEvent(kb.Escape))
	s.waitJS(`!document.querySelector("#pal-dialog[open]")`)
}

// pickCapability searches for query and opens the entry id.
func (s *session) pickCapability(query, id string) {
	s.t.Helper()
	s.setValue("#pal-search", query, "input")
	sel := `#pal-list [data-cap=` + jsQuote(id) + `]`
	s.waitVisible(sel)
	s.tap(sel)
	s.waitJS(`(document.querySelector("#pal-desc-id")||{}).textContent === ` + jsQuote(id))
}

// field is the selector of the control schemaForm renders at a JSON pointer
// in the palette's form.
func field(pointer string) string {
	var b strings.Builder
	b.WriteString("#pal-f")
	for _, r := range pointer {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "_%x", r)
		}
	}
	b.WriteString("-input")
	return b.String()
}

// recorder is a capability source of the test process: it lists the
// schemas it was given as trusted read-only tools and records the input
// each invocation received, so a test can check that the form sent what
// was typed. "slow" reports progress a few times before answering, so
// that a run can be followed while it runs.
type recorder struct {
	schemas map[string]json.RawMessage

	mu     sync.Mutex
	inputs map[string][]json.RawMessage
}

func (r *recorder) Source() string { return "mcp/corpus" }

func (r *recorder) List(ctx context.Context) ([]capability.Capability, error) {
	yes := true
	out := make([]capability.Capability, 0, len(r.schemas))
	for name, sch := range r.schemas {
		out = append(out, capability.Capability{
			ID: capability.ID(r.Source(), name), Title: name, Source: r.Source(), Name: name,
			InputSchema: sch, Effect: "read", Annotations: body.Annotations{ReadOnlyHint: &yes}, Trusted: true,
			PolicyCapability: "&mcp.corpus", RenderHint: capability.HintJSON, Availability: capability.Available,
		})
	}
	return out, nil
}

func (r *recorder) Describe(ctx context.Context, id string) (capability.Capability, error) {
	all, _ := r.List(ctx)
	for _, c := range all {
		if c.ID == id {
			return c, nil
		}
	}
	return capability.Capability{}, &capability.NotFoundError{ID: id}
}

func (r *recorder) Invoke(ctx context.Context, id string, input json.RawMessage) (capability.Result, error) {
	r.mu.Lock()
	if r.inputs == nil {
		r.inputs = map[string][]json.RawMessage{}
	}
	r.inputs[id] = append(r.inputs[id], append(json.RawMessage(nil), input...))
	r.mu.Unlock()
	if strings.HasSuffix(id, ":slow") {
		for i := 1; i <= 6; i++ {
			select {
			case <-ctx.Done():
				return capability.Result{}, ctx.Err()
			case <-time.After(400 * time.Millisecond):
			}
			capability.ReportProgress(ctx, map[string]int{"step": i})
		}
	}
	return capability.Result{Value: json.RawMessage(`{"received":` + string(input) + `}`)}, nil
}

// last returns the last input capability id received.
func (r *recorder) last(id string) json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	in := r.inputs[id]
	if len(in) == 0 {
		return nil
	}
	return in[len(in)-1]
}

// corpusSchemas reads schemas of pkg/schemaform/testdata/corpus by name.
func corpusSchemas(t *testing.T, names ...string) map[string]json.RawMessage {
	t.Helper()
	out := map[string]json.RawMessage{
		"slow": json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`),
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(setup.root, "pkg", "schemaform", "testdata", "corpus", n+".json"))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

// contractSession is a session whose origin also serves the capability
// workbench's HTTP contract: a reverse proxy in the test process sends
// /api/capabilities, /api/runs and /api/approvals to the conformance
// server (package contracttest, over a real Governor of the test's
// sources) and everything else to `workbench serve`. The browser sees one
// origin, which the CSP (connect-src 'self') requires, and production code
// has no test-only route. The proxy gives the relay the Origin it allows.
func contractSession(t testing.TB, providers ...capability.Provider) (*session, *contracttest.Server) {
	t.Helper()
	return contractSessionWith(t, nil, providers...)
}

// contractSessionWith is contractSession with session options (a
// benchmark's longer timeout).
func contractSessionWith(t testing.TB, opts []option, providers ...capability.Provider) (*session, *contracttest.Server) {
	t.Helper()
	cat, err := capability.NewCatalog(providers...)
	if err != nil {
		t.Fatal(err)
	}
	gov := capability.NewGovernor(context.Background(), cat, capability.GovernorOptions{})
	// Started before the session, so that both outlive its end-of-test
	// checks (cleanups run last-registered first): the page may still be
	// refreshing a list when the test ends.
	cs := contracttest.Start(t, capability.Local{Governor: gov})
	return frontSession(t, cs.URL, opts), cs
}

// frontSession is a session whose page origin serves the site and, under
// /api/capabilities, /api/runs and /api/approvals, the capability backend
// at backend: the palette connects to its own origin only.
func frontSession(t testing.TB, backend string, opts []option) *session {
	t.Helper()
	contractURL, _ := url.Parse(backend)
	var serveURL *url.URL
	var serveBase string
	front := httptest.NewUnstartedServer(nil)
	front.Config.Handler = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		p := r.In.URL.Path
		if strings.HasPrefix(p, "/api/capabilities") || strings.HasPrefix(p, "/api/runs") || strings.HasPrefix(p, "/api/approvals") {
			r.SetURL(contractURL)
		} else {
			r.SetURL(serveURL)
			if r.In.Header.Get("Origin") == front.URL {
				r.Out.Header.Set("Origin", serveBase)
			}
		}
		r.Out.Host = r.Out.URL.Host
	}, FlushInterval: -1}
	front.Start()
	t.Cleanup(front.Close)

	s := newSession(t, opts...)
	serveBase = s.base
	serveURL, _ = url.Parse(s.base)
	s.base = front.URL
	s.dumpPaletteOnFailure()
	return s
}

// connectContract opens the palette on / and connects it to the page's
// origin as its HTTP backend.
func (s *session) connectContract() {
	s.t.Helper()
	s.startContract()
	s.waitVisible(`#pal-list [data-cap^="mcp/corpus:"]`)
}

// startContract opens the palette on / and asks it to connect to the
// page's origin as its HTTP backend; the catalog is then being read.
func (s *session) startContract() {
	s.t.Helper()
	s.open("/")
	s.openPalette(chromedp.ModifierCtrl)
	s.setValue("#pal-backend-url", s.base, "input")
	s.tap("#pal-connect")
	s.waitText("#pal-backend-name", s.base)
}

// sameJSON compares two JSON texts as values.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}
