package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"workbench/pkg/capability/httpapi/contracttest"
	"workbench/pkg/services/servicestest"
)

// Ctrl+K and Meta+K open the capability workbench on every route without
// navigating; Esc closes it and gives focus back to where it was; Tab
// stays inside while it is open.
func TestPaletteOpensOnEveryRoute(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	routes := []string{"/", "/teach", "/skills", "/import",
		"/skills/00000000-0000-4000-8000-000000000000", "/skills/00000000-0000-4000-8000-000000000000/replay", "/no/such/page"}
	for _, route := range routes {
		s.open(route)
		for _, mod := range []chromedp.Modifier{chromedp.ModifierCtrl, chromedp.ModifierMeta} {
			eval[bool](s, `(document.querySelector("a.wb-brand").focus(), true)`)
			s.openPalette(mod)
			if got := eval[string](s, `location.pathname`); got != route {
				t.Errorf("%s: opening the palette navigated to %s", route, got)
			}
			// Tab goes round the dialog's controls and past its end
			// (where the trap wraps); how the dialog was opened does not
			// change the trap, so once per route is enough.
			tabs := 0
			if mod == chromedp.ModifierCtrl {
				tabs = eval[int](s, `document.querySelector("#pal-dialog").querySelectorAll("button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex='0']").length`) + 2
			}
			before := eval[string](s, `document.activeElement.outerHTML.slice(0, 80)`)
			for i := 0; i < tabs; i++ {
				s.do(chromedp.KeyEvent(kb.Tab))
				after := eval[string](s, `document.querySelector("#pal-dialog").contains(document.activeElement) ? document.activeElement.outerHTML.slice(0, 80) : ""`)
				if after == "" {
					t.Fatalf("%s: Tab %d from %s left the open palette for %s (dialog open: %v)", route, i+1, before,
						eval[string](s, `document.activeElement.outerHTML.slice(0, 80)`), eval[bool](s, `!!document.querySelector("#pal-dialog[open]")`))
				}
				before = after
			}
			s.closePalette()
			if !eval[bool](s, `document.activeElement === document.querySelector("a.wb-brand")`) {
				t.Errorf("%s (modifier %d): after Esc, focus is on %s, not where it was", route, mod,
					eval[string](s, `document.activeElement.outerHTML.slice(0, 80)`))
			}
		}
	}
}

// server-everything's echo through the palette on the local backend: the
// descriptor, the generated form, the preflight preview; its tools come
// from an untrusted server, so the effect is unknown: confirmation is
// required and workbench-capabilities-v1 asks for approval. Editing the
// form discards a pending approval; a denied one cannot be resumed; a
// granted one resumes exactly, and the run is followed to its end with
// the echoed text rendered.
func TestPaletteEverythingEchoApproval(t *testing.T) {
	t.Parallel()
	url := servicestest.Everything(t)
	s := newSession(t, withServeFlags("--mcp", "everything="+url))
	// The MCP client starts with the session handshake, which
	// server-everything speaks: no refused request, no console error.
	s.dumpPaletteOnFailure()
	s.open("/skills")
	s.openPalette(chromedp.ModifierCtrl)
	s.pickCapability("echo", "mcp/everything:echo")
	if got := s.text("#pal-desc-effect"); got != "unknown" {
		t.Errorf("side effect %q, want unknown (an untrusted server)", got)
	}
	s.waitPresent(field("/message"))

	// Empty required input: invalid, not executable.
	s.waitPresent("#pal-pv-problems")
	if !s.isDisabled("#pal-invoke") {
		t.Error("invoke is enabled with an invalid input")
	}

	s.typeInto(field("/message"), "first")
	s.waitText("#pal-pv-decision", "approval_required")
	if got := s.text("#pal-invoke"); got != "Request approval" {
		t.Errorf("button %q, want Request approval", got)
	}
	if !s.isDisabled("#pal-invoke") {
		t.Error("an unknown-effect action is submittable without confirmation")
	}
	s.tap("#pal-confirm")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitPresent(s.pendingApproval())

	// Editing discards the pending state.
	s.typeInto(field("/message"), " edited")
	s.waitPresent("#pal-discarded")
	if s.countOf("#pal-pending") != 0 {
		t.Error("the pending approval survived an edit")
	}

	// Request again, deny it: nothing can resume.
	s.waitInvokable()
	s.tap("#pal-invoke")
	deny := s.pendingApproval() + " .pal-deny"
	s.waitPresent(deny)
	s.tap(deny)
	s.waitText("#pal-invoke-why", "denied")
	if !s.isDisabled("#pal-invoke") {
		t.Error("a denied approval can be resumed")
	}

	// Edit back to a new proposal, request, grant, resume.
	s.setValue(field("/message"), "hello palette", "input")
	s.waitPresent("#pal-discarded")
	s.waitJS(`!document.querySelector("#pal-invoke").disabled && document.querySelector("#pal-invoke").textContent === "Request approval"`)
	s.tap("#pal-invoke")
	grant := s.pendingApproval() + " .pal-grant"
	s.waitPresent(grant)
	s.tap(grant)
	s.waitJS(`document.querySelector("#pal-invoke").textContent === "Resume approved action" && !document.querySelector("#pal-invoke").disabled`)
	s.tap("#pal-invoke")
	s.waitText("#pal-started", "started")
	s.waitPresent(`#pal-timeline [data-type="run_completed"]`)
	if got := s.text(`#pal-timeline [data-type="tool_result"]`); !strings.Contains(got, "hello palette") {
		t.Errorf("tool_result %q does not carry the echoed text", got)
	}
	s.waitText("#pal-run-status", "completed")
}

// Forms generated from real tool schemas (server-everything's and
// Playwright MCP's, from the corpus) submit exactly the values typed:
// the schemas are served by a source of the test process behind the HTTP
// contract, and that source records what each invocation received.
func TestPaletteCorpusFormsSubmitTypedValues(t *testing.T) {
	t.Parallel()
	rec := &recorder{schemas: corpusSchemas(t, "everything.echo", "everything.get-sum", "playwright.browser_navigate", "playwright.browser_type")}
	s, _ := contractSession(t, rec)
	s.connectContract()

	cases := []struct {
		name string
		fill func()
		want string
	}{
		{"everything.echo", func() { s.typeInto(field("/message"), "typed text") }, `{"message":"typed text"}`},
		{"everything.get-sum", func() { s.typeInto(field("/a"), "2.5"); s.typeInto(field("/b"), "-7") }, `{"a":2.5,"b":-7}`},
		{"playwright.browser_navigate", func() { s.typeInto(field("/url"), "https://example.org/a?b=c") }, `{"url":"https://example.org/a?b=c"}`},
		{"playwright.browser_type", func() {
			s.typeInto(field("/target"), "e12")
			s.typeInto(field("/text"), "hello")
		}, `{"target":"e12","text":"hello"}`},
	}
	for _, c := range cases {
		id := "mcp/corpus:" + c.name
		s.pickCapability(c.name, id)
		c.fill()
		s.waitText("#pal-pv-decision", "allow")
		s.waitInvokable()
		s.tap("#pal-invoke")
		s.waitText("#pal-started", "started")
		s.waitPresent(`#pal-timeline [data-type="run_completed"]`)
		if got := rec.last(id); !sameJSON(got, []byte(c.want)) {
			t.Errorf("%s: the tool received %s, want %s", c.name, got, c.want)
		}
	}
}

// Following a run over the HTTP contract: a stream_reset stops the follow
// and offers to replay the retained window; duplicated events are shown
// once; a connection dropped mid-follow is resumed after the last
// sequence; each ends with the run's terminal event.
func TestPaletteFollowFaults(t *testing.T) {
	t.Parallel()
	rec := &recorder{schemas: corpusSchemas(t)}
	s, cs := contractSession(t, rec)
	// The connection this test drops on purpose: the browser logs the
	// broken response and the fetch stream's rejected read.
	s.expectConsole("ERR_INCOMPLETE_CHUNKED_ENCODING")
	s.expectConsole("network error")
	s.connectContract()
	// The capability is picked once and then invoked again, as a user
	// would: picking the selected entry anew would leave its old preview
	// and Invoke button on screen until the refreshed descriptor arrives.
	s.pickCapability("slow", "mcp/corpus:slow")
	invoke := func() {
		before := eval[string](s, `(document.querySelector("#pal-started") || {}).textContent || ""`)
		s.waitText("#pal-pv-decision", "allow")
		s.waitInvokable()
		s.tap("#pal-invoke")
		s.waitJS(`(() => { const e = document.querySelector("#pal-started"); return !!e && e.textContent.includes("started") && e.textContent !== ` + jsQuote(before) + `; })()`)
	}

	cs.ResetNextFollow(1)
	invoke()
	s.waitPresent("#pal-stream-reset")
	if s.countOf(`#pal-timeline [data-type="run_completed"]`) != 0 {
		t.Error("the follow went on after stream_reset")
	}
	s.tap("#pal-replay-window")
	s.waitPresent(`#pal-timeline [data-type="run_completed"]`)
	if s.countOf("#pal-stream-reset") != 0 {
		t.Error("the reset notice stayed after replaying the window")
	}

	cs.Duplicate(true)
	invoke()
	s.waitPresent(`#pal-timeline [data-type="run_completed"]`)
	seqs := eval[[]string](s, `[...document.querySelectorAll("#pal-timeline .pal-event")].map((e) => e.dataset.seq)`)
	seen := map[string]bool{}
	for _, q := range seqs {
		if seen[q] {
			t.Errorf("event %s shown twice", q)
		}
		seen[q] = true
	}
	cs.Duplicate(false)

	cs.DropNextFollow(1)
	invoke()
	s.waitPresent(`#pal-timeline [data-type="run_completed"]`)
	s.waitPresent("#pal-run-resumed")
	for i, q := range eval[[]string](s, `[...document.querySelectorAll("#pal-timeline .pal-event")].map((e) => e.dataset.seq)`) {
		if q != fmt.Sprint(i+1) {
			t.Errorf("after the resume, timeline entry %d has sequence %s", i, q)
		}
	}
}

// Each failure is shown on its own: a failing catalog, descriptor,
// preflight, invocation, run list, replay or follow is reported in its
// place while the rest keeps working; 401 and 404 read as unavailable.
func TestPaletteEachFailureOnItsOwn(t *testing.T) {
	t.Parallel()
	rec := &recorder{schemas: corpusSchemas(t, "everything.echo")}
	s, cs := contractSession(t, rec)
	s.expectConsole("401")
	s.expectConsole("404")
	s.expectConsole("500")
	s.expectConsole("503")
	s.connectContract()

	// The run list fails; the catalog is still there.
	cs.Fail(contracttest.RouteRuns, http.StatusServiceUnavailable)
	s.tap("#pal-runs-refresh")
	s.waitPresent("#pal-runs-error")
	s.waitPresent(`#pal-list [data-cap="mcp/corpus:slow"]`)
	cs.Heal(contracttest.RouteRuns)

	// The descriptor: 404 is an unavailable state; the catalog stays.
	cs.Fail(contracttest.RouteDescribe, http.StatusNotFound)
	s.setValue("#pal-search", "echo", "input")
	s.tap(`#pal-list [data-cap="mcp/corpus:everything.echo"]`)
	if got := s.waitText("#pal-describe-error", "unavailable"); !strings.Contains(got, "404") {
		t.Errorf("describe error %q does not say 404", got)
	}
	s.waitPresent(`#pal-list [data-cap="mcp/corpus:everything.echo"]`)
	cs.Heal(contracttest.RouteDescribe)

	// Preflight answers 401: unavailable, not retried with an identity.
	cs.Fail(contracttest.RoutePreflight, http.StatusUnauthorized)
	s.pickCapability("echo", "mcp/corpus:everything.echo")
	if got := s.waitText("#pal-preflight-error", "unavailable"); !strings.Contains(got, "401") {
		t.Errorf("preflight error %q does not say 401", got)
	}
	if !s.isDisabled("#pal-invoke") {
		t.Error("invoke is enabled without a preview")
	}
	cs.Heal(contracttest.RoutePreflight)

	// The invocation fails; the preview stays.
	s.typeInto(field("/message"), "x")
	s.waitText("#pal-pv-decision", "allow")
	cs.Fail(contracttest.RouteInvoke, http.StatusInternalServerError)
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitText("#pal-invoke-error", "500")
	if s.text("#pal-pv-decision") != "allow" {
		t.Error("the invocation's failure replaced the preview")
	}
	cs.Heal(contracttest.RouteInvoke)

	// Replay of a run's events fails; then the follow.
	cs.Fail(contracttest.RouteEvents, http.StatusInternalServerError)
	s.tap("#pal-invoke")
	s.waitPresent("#pal-replay-error")
	cs.Heal(contracttest.RouteEvents)
	cs.Fail(contracttest.RouteFollow, http.StatusServiceUnavailable)
	s.pickCapability("slow", "mcp/corpus:slow")
	s.waitText("#pal-pv-decision", "allow")
	s.waitInvokable()
	s.tap("#pal-invoke")
	s.waitPresent("#pal-follow-error")
	cs.Heal(contracttest.RouteFollow)

	// The catalog fails last: its error shows, the runs still list.
	cs.Fail(contracttest.RouteCatalog, http.StatusInternalServerError)
	s.closePalette()
	s.openPalette(chromedp.ModifierCtrl)
	s.waitPresent("#pal-catalog-error")
	s.tap("#pal-runs-refresh")
	s.waitPresent(".pal-run")
	if s.countOf("#pal-runs-error") != 0 {
		t.Error("the catalog's failure broke the run list")
	}
}
