package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/openrouter/openroutertest"
)

// Without an MCP server for the body, picking the browser says so on
// /teach and Start recording stays disabled: the simulator is never put
// in its place.
func TestMCPBodyNotConfigured(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.keepKey(s.OR.Key)
	// The radio is disabled on / without a relay; the tab's choice is set
	// as a stale session would have it.
	eval[bool](s, `(sessionStorage.setItem("workbench.body", "browser"), true)`)
	s.open("/teach")
	s.waitVisible("#teach-form")
	got := s.waitText("#teach-body-error", "not available")
	for _, want := range []string{`the browser body is not available`, `no server named "browser"`, "pair this computer on the home page"} {
		if !strings.Contains(got, want) {
			t.Errorf("body error %q lacks %q", got, want)
		}
	}
	if !s.disabled("#teach-start") {
		t.Error("Start recording is enabled for a body that is not configured")
	}
	if strings.Contains(s.text("main"), "serve --mcp") {
		t.Errorf("a visitor is told to run an operator's command: %s", s.text("main"))
	}
}

// Teach and replay through the browser body `workbench serve` starts and
// relays, as after `make run` (Playwright MCP on Debian's Chromium), on a
// page served here, with a stand-in model that clicks
// the reference it reads from what the body showed it. delegatic-mcp is
// not configured, so the tab is asked once, before its first run, whether
// the local engine may authorize browser and host runs: Start refuses
// until it answers; then one press of Start teaches, each replay is one
// press of Run, and every block names the local engine. After the docs
// page changes its layout, the replay halts at the click (edge 1) and the
// page shows the surprise.
func TestMCPBrowserTeachAndReplay(t *testing.T) {
	t.Parallel()
	site := mcpbodytest.StartShop(t)
	// Clicks the Docs link by the reference the body showed: in the last
	// tool result while teaching, in the state on replay.
	click := openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
		return mcpbodytest.ClickDocs(r.LastToolResult, r.LastUser, openroutertest.ToolCall, openroutertest.Answer)
	})
	const replayer = "example/replayer"
	s := newSession(t, withTimeout(10*time.Minute), withBodies(), withOpenRouter(openroutertest.WithScript(
		openroutertest.Script{Model: teacher, CostPerCall: 0.001, Steps: []openroutertest.Step{
			openroutertest.ToolCall("browser_navigate", map[string]any{"url": site.URL + "/"}), click, openroutertest.Answer("Getting started")}},
		openroutertest.Script{Model: replayer, Steps: []openroutertest.Step{click, click, click}},
	)))

	// The MCP client starts with the session revision's handshake, which
	// Playwright MCP accepts: no request it refuses, so no console error
	// (checkClean fails on any).

	// On /, as after make run: both bodies serve started, reachable
	// through its relay; pairing folded away; the browser, trusted by the
	// user, picked.
	s.keepKey(s.OR.Key)
	s.waitText("#body-browser-note", "On this workbench: reachable")
	s.waitText("#body-host-note", "On this workbench: reachable")
	s.waitText("#host-folder", "Allowed directories")
	if !eval[bool](s, `!!document.querySelector("#pairing-details:not([open])")`) {
		t.Error("pairing is not folded away on a workbench that relays both bodies")
	}
	s.click("#trust-browser")
	s.click("#body-browser")
	if got := eval[string](s, `sessionStorage.getItem("workbench.trusted")`); got != `["browser"]` {
		t.Errorf("sessionStorage workbench.trusted = %s", got)
	}
	for _, v := range s.axeRun(axeSource(t)) {
		t.Errorf("/ with a relayed browser: %s", v)
	}

	s.open("/teach")
	s.waitVisible("#teach-form")
	s.setField("#teach-scenario", "freeform", "change")
	s.waitVisible("#teach-task")
	s.setField("#teach-task", "Open "+site.URL+"/ , follow the Docs link and read its heading.", "input")
	s.setField("#teach-model", teacher, "input")
	s.waitFor(`!document.querySelector("#teach-start").disabled`)
	if s.text("#teach-body") == "" || eval[bool](s, present("#teach-world")) {
		t.Error("the browser body offers a simulator world")
	}

	// No delegatic-mcp: the tab is asked before its first run, and a
	// Start before the answer does not start.
	s.waitVisible("#local-policy-question")
	s.click("#teach-start")
	s.waitLong(present("#teach-auth-error"))
	if got := s.text("#teach-auth-error-text"); !strings.Contains(got, "delegatic-mcp is not configured") {
		t.Errorf("authorizer error %q", got)
	}
	if eval[bool](s, present("#teach-goal")) {
		t.Fatal("the demonstration started without delegatic-mcp or an answer")
	}
	for _, v := range s.axeRun(axeSource(t)) {
		t.Errorf("/teach without an authorizer: %s", v)
	}
	s.click("#local-policy-accept")
	s.waitVisible("#local-policy-notice")
	if got := eval[string](s, `sessionStorage.getItem("workbench.local_policy")`); got != "accepted" {
		t.Errorf("sessionStorage workbench.local_policy = %q", got)
	}
	if eval[bool](s, present("#teach-auth-error")) {
		t.Error("the refusal stays after the tab accepted the local engine")
	}
	s.click("#teach-start")
	s.waitLong(present("#teach-draft, #teach-outcome .status-error"))
	if !eval[bool](s, present("#teach-draft")) {
		t.Fatalf("no draft: %s", s.text("main"))
	}
	if got := s.text("#teach-authorizer"); !strings.Contains(got, "local:workbench-default-v1") || !strings.Contains(got, "delegatic-mcp") {
		t.Errorf("authorizer %q: want the local engine and why", got)
	}
	timeline := s.text("#timeline-steps")
	for _, want := range []string{"browser_navigate", "browser_click", "allow"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, timeline)
		}
	}
	if got := s.text("#draft-edges"); got != "2" {
		t.Errorf("the draft counts %q edges, want 2", got)
	}
	s.waitFor(`!document.querySelector("#teach-save").disabled`)
	s.click("#teach-save")
	s.waitLong(`location.pathname.startsWith("/skills/")`)
	l := s.library()
	bundles := s.storedBundles()
	if len(bundles) != 1 || len(l.Skills) != 1 {
		t.Fatalf("%d bundles stored", len(bundles))
	}
	b := bundles[0]
	if b.Manifest.BodyChoice != "browser" {
		t.Errorf("body_choice %q, want browser", b.Manifest.BodyChoice)
	}
	for i, e := range b.Trace.Edges {
		if e.Authorization == nil || e.Authorization.Authorizer != "local:workbench-default-v1" {
			t.Errorf("edge %d authorization %+v: want the local engine named", i, e.Authorization)
		}
	}

	replayOnce := func() {
		t.Helper()
		s.setField("#replay-model", replayer, "input")
		s.waitVisible("#local-policy-notice") // the tab's answer, with its undo
		s.click("#replay-run")
		s.waitLong(`!!document.querySelector("#replay-outcome, #replay-error") && !document.querySelector("#replay-run").disabled`)
		if eval[bool](s, present("#replay-error")) {
			t.Fatalf("replay error: %s", s.text("#replay-error"))
		}
	}
	id := l.Skills[0].ID
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-form")
	replayOnce()
	if got := s.text("#replay-status"); got != "success" {
		t.Errorf("replay on the unchanged page: status %q", got)
	}
	if got := s.text("#replay-authorizer"); !strings.Contains(got, "local:workbench-default-v1") {
		t.Errorf("replay authorizer %q", got)
	}
	// In words before any hash: each step's call and what the body
	// answered, the heading it read among it.
	steps := s.text("#replay-steps")
	for _, want := range []string{"Step 0: browser_navigate", site.URL, "Step 1: browser_click", "Getting started"} {
		if !strings.Contains(steps, want) {
			t.Errorf("the replay's steps lack %q:\n%s", want, steps)
		}
	}

	// A new heading in the same layout: the replay passes structurally
	// and says what it read.
	site.Retitle("Quick start")
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-form")
	replayOnce()
	if got := s.text("#replay-status"); got != "success" {
		t.Errorf("replay on the retitled page: status %q", got)
	}
	if steps := s.text("#replay-step-1"); !strings.Contains(steps, "Quick start") {
		t.Errorf("the click's step does not show the heading it read: %q", steps)
	}

	site.Move() // the docs page now has another layout
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-form")
	replayOnce()
	if got := s.text("#replay-status"); !strings.Contains(got, "halted at edge 1") {
		t.Errorf("replay after the change: status %q", got)
	}
	if got := s.text("#replay-surprises"); !strings.Contains(got, "Edge 1: state hash mismatch") {
		t.Errorf("surprises %q", got)
	}
	// What differed, marked line by line, with the tolerance exceeded.
	if got := s.text("#replay-diff-1-tolerance"); !strings.HasPrefix(got, "Structural:") {
		t.Errorf("tolerance %q", got)
	}
	removed := eval[[]string](s, `[...document.querySelectorAll("#replay-diff-1-lines .diff-removed")].map((e) => e.textContent)`)
	added := eval[[]string](s, `[...document.querySelectorAll("#replay-diff-1-lines .diff-added")].map((e) => e.textContent)`)
	// The recorded answer is the demonstration's, which read "Getting
	// started"; the moved page shows a list instead.
	if !slices.ContainsFunc(removed, func(l string) bool { return strings.Contains(l, "Getting started") }) ||
		!slices.ContainsFunc(added, func(l string) bool { return strings.Contains(l, "moved") }) {
		t.Errorf("the difference marks removed %q and added %q; want the old heading out and the new list in", removed, added)
	}
}
