package e2e

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"workbench/pkg/openrouter/openroutertest"
)

// teacher is the stand-in model the /teach tests demonstrate with.
const teacher = "example/teacher"

// readHeading is a demonstration of skill.basic_prompt_to_manifest: open
// the page, then answer with its heading.
func readHeading(url string) openroutertest.Script {
	return openroutertest.Script{Model: teacher, CostPerCall: 0.001, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": url}),
		openroutertest.Answer("The main heading is: Getting started"),
	}}
}

// startTeaching opens /teach with a key kept and the stand-in model named.
func (s *session) startTeaching() {
	s.t.Helper()
	s.keepKey(s.OR.Key)
	s.open("/teach")
	s.waitVisible("#teach-form")
	s.setField("#teach-model", teacher, "input")
}

// Acceptance criteria 3–7 with fixture scenario 1: choose the scenario,
// demonstrate (the timeline shows the action and the policy's allow, the
// body's view shows the page), get the draft, edit it under schema
// validation on every keystroke, save, and find the skill in IndexedDB
// with a name, a description and the trace it was derived from.
func TestTeachScenarioToSavedSkill(t *testing.T) {
	t.Parallel()
	const page = "https://docs.workbench.test/getting-started"
	s := newSession(t, withOpenRouter(openroutertest.WithScript(readHeading(page))))
	s.startTeaching()
	s.setField("#teach-scenario", "skill.basic_prompt_to_manifest", "change")
	if got := eval[string](s, `document.querySelector("#teach-input-page_url").value`); got != page {
		t.Errorf("page_url starts as %q, want the scenario's example %q", got, page)
	}
	if s.disabled("#teach-start") {
		t.Fatal("Start recording is disabled with a key kept and the simulator picked")
	}
	s.click("#teach-start")
	s.waitVisible("#teach-draft")

	timeline := s.text("#timeline-steps")
	for _, want := range []string{"browser_navigate", page, "allow", "answer"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, timeline)
		}
	}
	if got := s.text(".edge .decision"); got != "allow" {
		t.Errorf("the edge's decision reads %q, want allow", got)
	}
	phases := s.text("#pulse-phases")
	for _, ph := range []string{"retrieve", "route", "act", "learn"} {
		if !strings.Contains(phases, ph) {
			t.Errorf("the PULSE phases lack %s: %q", ph, phases)
		}
	}
	events := eval[string](s, `document.querySelector("#pulse-events").textContent`)
	for _, want := range []string{"TopologyContext", "OutcomeSignal"} {
		if !strings.Contains(events, want) {
			t.Errorf("the recorded PULSE events lack %s: %q", want, events)
		}
	}
	if got := s.text("#view-url"); got != page {
		t.Errorf("the body's view shows %q, want %s", got, page)
	}
	// Granted &body.browser only, the model was never offered a file or
	// shell tool: what the stand-in received says so.
	for i, r := range s.OR.ChatRequests(teacher) {
		names := r.ToolNames()
		if !slices.Contains(names, "browser_navigate") {
			t.Errorf("request %d offers no browser tool: %v", i, names)
		}
		for _, n := range names {
			if strings.HasPrefix(n, "file_") || strings.HasPrefix(n, "shell_") {
				t.Errorf("request %d offers %s to a task granted &body.browser only: %v", i, n, names)
			}
		}
	}
	if got := s.text("#teach-cost"); !strings.Contains(got, "$0.002") {
		t.Errorf("cost %q: want the two replies' $0.001 each", got)
	}
	if got := s.text("#teach-answer"); got != "The main heading is: Getting started" {
		t.Errorf("answer %q", got)
	}
	if got := s.text("#draft-edges"); got != "1" {
		t.Errorf("the draft counts %q edges, want 1", got)
	}
	if s.disabled("#teach-save") {
		t.Fatal("Save is disabled on a valid draft")
	}

	// The slug follows the name until the slug is edited.
	s.setField("#draft-name", "Read the docs heading", "input")
	s.waitFor(`document.querySelector("#draft-slug").value === "read-the-docs-heading"`)

	// Name emptied: the error is beside the field and Save is disabled.
	s.setField("#draft-name", "", "input")
	s.waitVisible("#draft-name-error")
	if got := s.text("#draft-name-error"); !strings.Contains(got, "must not be empty") {
		t.Errorf("name error %q", got)
	}
	if !s.disabled("#teach-save") {
		t.Error("Save is enabled with an empty name")
	}
	if got := eval[string](s, `document.querySelector("#draft-name").getAttribute("aria-describedby")`); got != "draft-name-error" {
		t.Errorf("the name field is described by %q, want its error", got)
	}
	// A slug that is not kebab-case: the pattern error beside the slug.
	s.setField("#draft-slug", "Read A Heading", "input")
	s.waitVisible("#draft-slug-error")
	if got := s.text("#draft-slug-error"); !strings.Contains(got, "pattern") {
		t.Errorf("slug error %q", got)
	}
	// Fixed, one keystroke at a time: each is checked, and the errors go;
	// the edited slug no longer follows the name.
	s.setField("#draft-name", "", "input")
	s.typeInto("#draft-name", "Read a heading")
	if got := eval[string](s, `document.querySelector("#draft-slug").value`); got != "Read A Heading" {
		t.Errorf("the edited slug changed with the name: %q", got)
	}
	s.setField("#draft-slug", "read-a-heading", "input")
	s.setField("#draft-description", "Opens a docs page and reports its main heading.", "input")
	s.waitFor(`!document.querySelector("#draft-name-error") && !document.querySelector("#draft-slug-error")`)
	if s.disabled("#teach-save") {
		t.Fatal("Save is still disabled once the draft is fixed")
	}
	if l := s.library(); len(l.Skills) != 0 {
		t.Fatalf("%d skills stored before Save", len(l.Skills))
	}
	s.click("#teach-save")
	s.waitFor(`location.pathname.startsWith("/skills/")`)

	l := s.library()
	if len(l.Skills) != 1 || len(l.Bundles) != 1 {
		t.Fatalf("the library holds %d skills and %d bundles, want 1 and 1", len(l.Skills), len(l.Bundles))
	}
	sk, b := l.Skills[0], l.Bundles[0]
	if path := eval[string](s, `location.pathname`); path != "/skills/"+sk.ID {
		t.Errorf("opened %s, want /skills/%s", path, sk.ID)
	}
	if sk.Name != "Read a heading" || sk.Slug != "read-a-heading" || sk.Description != "Opens a docs page and reports its main heading." {
		t.Errorf("stored skill %+v lost the edits", sk)
	}
	m := b.Manifest
	if m.Name == "" || m.Description == "" || m.DerivedFromTraceID == "" {
		t.Errorf("stored manifest %+v: want a name, a description and derived_from_trace_id", m)
	}
	if m.DerivedFromTraceID != b.Trace.TraceID || sk.TraceID != b.Trace.TraceID || len(b.Trace.Edges) != 1 {
		t.Errorf("manifest derived from %s, skill trace %s, bundle trace %s with %d edges",
			m.DerivedFromTraceID, sk.TraceID, b.Trace.TraceID, len(b.Trace.Edges))
	}
	if sk.BundleHash != b.ContentHash {
		t.Errorf("skill record names bundle %s, stored %s", sk.BundleHash, b.ContentHash)
	}
	// The key taught with went to the proxy only: it is in no stored record.
	if dump := eval[string](s, storageDump); strings.Contains(dump, s.OR.Key) {
		t.Error("the OpenRouter key was found in IndexedDB, localStorage, cookies or caches after teaching")
	}
}

// A freeform task: its {placeholder} asks for a value (missing, the error
// is beside its field), the world is chosen, and the run becomes a skill.
func TestTeachFreeform(t *testing.T) {
	t.Parallel()
	const page = "https://docs.workbench.test/install"
	s := newSession(t, withOpenRouter(openroutertest.WithScript(readHeading(page))))
	s.startTeaching()
	s.setField("#teach-scenario", "freeform", "change")
	s.waitVisible("#teach-task")
	s.setField("#teach-task", "Open the page at {doc_url} and report its main heading.", "input")
	s.waitVisible("#teach-value-doc_url")
	s.setField("#teach-world", "docs-and-git", "change")
	s.click("#teach-start")
	s.waitVisible("#teach-value-doc_url-error")
	if got := s.text("#teach-value-doc_url-error"); !strings.Contains(got, "{doc_url}") {
		t.Errorf("placeholder error %q", got)
	}
	s.setField("#teach-value-doc_url", page, "input")
	s.click("#teach-start")
	s.waitVisible("#teach-draft")
	if got := s.text("#teach-goal"); got != "Open the page at "+page+" and report its main heading." {
		t.Errorf("the task ran as %q", got)
	}
	if got := s.text(".edge .edge-args"); !strings.Contains(got, page) {
		t.Errorf("edge arguments %q", got)
	}
	if got := s.text("#draft-edges"); got != "1" {
		t.Errorf("%s edges, want 1", got)
	}
	s.click("#teach-save")
	s.waitFor(`location.pathname.startsWith("/skills/")`)
	l := s.library()
	if len(l.Skills) != 1 || l.Skills[0].Name == "" || l.Skills[0].Description == "" || l.Bundles[0].Manifest.DerivedFromTraceID == "" {
		t.Fatalf("library after a freeform save: %+v", l)
	}
}

// Stop recording ends the run at the next step and keeps what was
// recorded: the model's next tool call is never made, and the one action
// taken becomes the draft.
func TestTeachStopRecording(t *testing.T) {
	t.Parallel()
	stopped := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(stopped) }) }
	script := openroutertest.Script{Model: teacher, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
		// The second reply waits until the test has pressed Stop.
		openroutertest.Func(func(*openroutertest.ChatRequest) openroutertest.Step {
			<-stopped
			return openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/install"})
		}),
		openroutertest.Answer("done"),
	}}
	s := newSession(t, withOpenRouter(openroutertest.WithScript(script)))
	// After the session's cleanups are registered, so it runs first and
	// the stand-in's waiting reply does not hold its shutdown.
	t.Cleanup(release)
	s.startTeaching()
	s.click("#teach-start")
	s.waitVisible("#teach-stop")
	s.waitFor(`!!document.querySelector("#timeline-steps .edge")`)
	s.click("#teach-stop")
	s.waitVisible("#teach-stopping")
	release()
	s.waitVisible("#teach-draft")
	if got := s.text("#teach-stopped"); !strings.Contains(got, "You stopped the recording after 1 recorded action") {
		t.Errorf("stopped: %q", got)
	}
	if got := s.text("#draft-edges"); got != "1" {
		t.Errorf("%s edges kept, want 1", got)
	}
	if n := len(s.OR.ChatRequests(teacher)); n != 2 {
		t.Errorf("%d model calls, want 2 (none after the stop)", n)
	}
	if got := s.text("#view-url"); got != "https://docs.workbench.test/getting-started" {
		t.Errorf("the body shows %q: the call asked for after Stop was made", got)
	}
	s.click("#teach-save")
	s.waitFor(`location.pathname.startsWith("/skills/")`)
	if l := s.library(); len(l.Bundles) != 1 || len(l.Bundles[0].Trace.Edges) != 1 {
		t.Fatalf("library after saving a stopped recording: %+v", l)
	}
}

// Without a key, /teach says where to enter one and cannot start. With a
// key OpenRouter refuses during the run, the demonstration shows the exact
// 401, offers to start again, and nothing is saved.
func TestTeachModelErrorSavesNothing(t *testing.T) {
	t.Parallel()
	s := newSession(t, withOpenRouter(openroutertest.WithScript(readHeading("https://docs.workbench.test/getting-started"))))
	s.expectConsole("401") // the browser logs the refused fetches
	s.open("/teach")
	s.waitVisible("#teach-no-key")
	if got := eval[string](s, `document.querySelector("#teach-no-key a").getAttribute("href")`); got != "/" {
		t.Errorf("the no-key message links to %q, want /", got)
	}
	if !s.disabled("#teach-start") {
		t.Error("Start recording is enabled without a key")
	}

	// A key OpenRouter accepted, then revoked before the run (the tab
	// still holds it as accepted): the run's 401 is shown, and the key
	// is dropped so that the next Start says so.
	s.keepKey(s.OR.Key)
	eval[bool](s, `sessionStorage.setItem("workbench.openrouter_key", "sk-or-v1-not-a-key-the-server-knows"); true`)
	s.open("/teach")
	s.waitVisible("#teach-form")
	s.setField("#teach-model", teacher, "input")
	s.click("#teach-start")
	s.waitVisible("#teach-draft-error")
	got := s.text("#teach-error")
	if !strings.Contains(got, "401") || !strings.Contains(got, "User not found.") {
		t.Errorf("error %q: want the 401 and OpenRouter's message", got)
	}
	if strings.Contains(got, "not-a-key") {
		t.Errorf("the error shows the key: %q", got)
	}
	if !strings.Contains(s.text("#teach-outcome"), "refused the key (401)") {
		t.Errorf("outcome %q", s.text("#teach-outcome"))
	}
	if s.text("#teach-outcome") == "" || eval[bool](s, `!!document.querySelector("#teach-save")`) {
		t.Error("a failed demonstration offers to save")
	}
	if l := s.library(); len(l.Skills) != 0 || len(l.Bundles) != 0 {
		t.Errorf("a failed demonstration stored %d skills, %d bundles", len(l.Skills), len(l.Bundles))
	}
	s.click("#teach-again")
	s.waitVisible("#teach-form")
	if got := s.text("#teach-key-text"); !strings.Contains(got, "refused") || !s.disabled("#teach-start") {
		t.Errorf("after the run's 401 the key reads %q and Start is enabled: %v", got, !s.disabled("#teach-start"))
	}
}

// /teach from the keyboard alone, with no serious or critical axe-core
// violation in any of its states: the form, the finished recording with
// its timeline and the body's view, the draft showing field errors.
func TestTeachKeyboardAndAxe(t *testing.T) {
	t.Parallel()
	src := axeSource(t)
	s := newSession(t, withOpenRouter(openroutertest.WithScript(readHeading("https://docs.workbench.test/getting-started"))))
	s.startTeaching()
	check := func(state string) {
		t.Helper()
		for _, v := range s.axeRun(src) {
			t.Errorf("%s: %s", state, v)
		}
	}
	check("form")
	s.tabTo(t, "#teach-start", 40)
	s.press(kb.Enter)
	s.waitVisible("#teach-draft")
	check("finished")
	s.tabTo(t, "#draft-slug", 60)
	s.press(kb.End)
	s.press(" ")
	s.waitVisible("#draft-slug-error")
	check("draft with an error")
	s.press(kb.Backspace)
	s.waitFor(`!document.querySelector("#draft-slug-error")`)
	s.tabTo(t, "#teach-save", 20)
	s.press(kb.Enter)
	s.waitFor(`location.pathname.startsWith("/skills/")`)
	if l := s.library(); len(l.Skills) != 1 {
		t.Errorf("%d skills saved from the keyboard, want 1", len(l.Skills))
	}
}

// A refused action is shown as refused: fixture 3's host write falls
// outside the capabilities the task declares, the timeline shows the
// policy's deny with its reason, and the body's files are unchanged.
func TestTeachShowsDenial(t *testing.T) {
	t.Parallel()
	script := openroutertest.Script{Model: teacher, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://status.workbench.test/"}),
		openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/incident.txt", "content": "Webhook delivery delayed"}),
		openroutertest.Answer("The write was refused."),
	}}
	s := newSession(t, withOpenRouter(openroutertest.WithScript(script)))
	s.startTeaching()
	s.setField("#teach-scenario", "skill.authority_denied", "change")
	s.waitVisible("#teach-input-report_path")
	s.click("#teach-start")
	s.waitVisible("#teach-outcome")
	decisions := eval[[]string](s, `[...document.querySelectorAll("#timeline-steps .edge .decision")].map((e) => e.textContent)`)
	if strings.Join(decisions, ",") != "allow,deny" {
		t.Fatalf("decisions %q, want allow then deny", decisions)
	}
	auth := eval[[]string](s, `[...document.querySelectorAll("#timeline-steps .edge .edge-auth")].map((e) => e.textContent)`)
	if !strings.Contains(auth[1], "undeclared") {
		t.Errorf("the denial's reason %q does not say the capability is undeclared", auth[1])
	}
	caps := eval[[]string](s, `[...document.querySelectorAll("#timeline-steps .edge .edge-capability")].map((e) => e.textContent)`)
	if strings.Join(caps, ",") != "&body.browser,&body.os" {
		t.Errorf("capabilities %q", caps)
	}
	outcomes := eval[[]string](s, `[...document.querySelectorAll("#timeline-steps .edge .edge-outcome")].map((e) => e.textContent)`)
	if len(outcomes) != 2 || outcomes[1] != "denied" {
		t.Errorf("outcomes %q, want the second denied", outcomes)
	}
	if files := s.text("#view-host"); strings.Contains(files, "incident.txt") {
		t.Errorf("the refused write happened: %q", files)
	}
}

// OpenRouter's 402 and 429 end the demonstration with their exact
// messages; starting again keeps the form, and nothing is saved.
func TestTeachModelErrorsShownLiterally(t *testing.T) {
	t.Parallel()
	const credits = "Insufficient credits. Add more using https://openrouter.ai/credits"
	script := openroutertest.Script{Model: teacher, Steps: []openroutertest.Step{
		openroutertest.Error(402, credits),
		openroutertest.RateLimit(7 * time.Second),
	}}
	s := newSession(t, withOpenRouter(openroutertest.WithScript(script)))
	s.expectConsole("402")
	s.expectConsole("429")
	s.startTeaching()
	for _, tc := range []struct{ summary, exact string }{
		{"out of credit (402)", "402 Payment Required: " + credits},
		{"rate limiting this key (429)", "429 Too Many Requests: Rate limit exceeded: retry in 7 s"},
	} {
		s.click("#teach-start")
		s.waitVisible("#teach-draft-error")
		if got := s.text("#teach-error"); !strings.Contains(got, tc.exact) {
			t.Errorf("error %q, want %q", got, tc.exact)
		}
		if got := s.text("#teach-outcome"); !strings.Contains(got, tc.summary) {
			t.Errorf("outcome %q, want %q", got, tc.summary)
		}
		s.click("#teach-again")
		s.waitVisible("#teach-form")
		if got := eval[string](s, `document.querySelector("#teach-model").value`); got != teacher {
			t.Errorf("starting again lost the model id: %q", got)
		}
	}
	if l := s.library(); len(l.Skills) != 0 {
		t.Errorf("%d skills stored after failed demonstrations", len(l.Skills))
	}
}

// Replies the model's client cannot read stop the demonstration after
// two retries, and the page says the replies were unreadable instead of
// that the model did nothing.
func TestTeachUnreadableReplies(t *testing.T) {
	t.Parallel()
	garbage := openroutertest.Malformed("<html>upstream error</html>")
	script := openroutertest.Script{Model: teacher, Steps: []openroutertest.Step{garbage, garbage, garbage}}
	s := newSession(t, withOpenRouter(openroutertest.WithScript(script)))
	s.startTeaching()
	s.click("#teach-start")
	s.waitVisible("#teach-draft-error")
	if got := s.text("#teach-error"); !strings.Contains(got, "replies were unreadable: 3 in a row") {
		t.Errorf("error %q", got)
	}
	if got := s.text("#teach-outcome"); !strings.Contains(got, "replies could not be read (3 in a row)") {
		t.Errorf("outcome %q", got)
	}
}

// A model reply broken off on the wire (the stand-in's connection to
// the proxy fails part way through the second reply) stops the
// demonstration at that step with the cut named: not taken for an
// unreadable reply the model is asked about again, not for an answer.
// The recording up to it, one action, is kept and shown.
func TestTeachCutReply(t *testing.T) {
	t.Parallel()
	script := openroutertest.Script{Model: teacher, CostPerCall: 0.001, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
		openroutertest.CutOff(openroutertest.Answer("The main heading is: Getting started"), 60),
		// Only a client that asked again would get these.
		openroutertest.Answer("asked again"),
		openroutertest.Answer("asked again"),
	}}
	s := newSession(t, withOpenRouter(openroutertest.WithScript(script)))
	// The proxy passes on the reply's Content-Length and breaks the body
	// off short of it: the browser's fetch fails, and says so.
	s.expectConsole("ERR_CONTENT_LENGTH_MISMATCH")
	s.startTeaching()
	s.click("#teach-start")
	s.waitVisible("#teach-outcome")
	got := s.text("#teach-error")
	if !strings.Contains(got, "the reply was cut off after") || !strings.Contains(got, "POST /chat/completions") {
		t.Errorf("error %q: want the cut reply named", got)
	}
	if got := s.text("#teach-outcome"); !strings.Contains(got, "cut off on the way") {
		t.Errorf("outcome %q: want it to say the reply was cut off", got)
	}
	if got := s.text("#teach-stopped"); !strings.Contains(got, "stopped on an error after 1 recorded action") {
		t.Errorf("stopped: %q", got)
	}
	if eval[bool](s, `!!document.querySelector("#teach-answer")`) {
		t.Errorf("an answer is shown: %q", s.text("#teach-answer"))
	}
	if n := eval[int](s, `document.querySelectorAll("#timeline-steps .edge").length`); n != 1 {
		t.Errorf("%d recorded steps on the timeline, want the 1 before the cut", n)
	}
	if n := len(s.OR.ChatRequests(teacher)); n != 2 {
		t.Errorf("%d model calls, want 2 (none after the cut)", n)
	}
}

// The destructive-mode switch reaches the policy: with it off a host
// write is refused and the file never appears; with it on the same write
// is allowed and the body's view lists the new file.
func TestTeachDestructiveMode(t *testing.T) {
	t.Parallel()
	write := openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/note.txt", "content": "hello"})
	script := openroutertest.Script{Model: teacher, Steps: []openroutertest.Step{
		write, openroutertest.Answer("refused"),
		write, openroutertest.Answer("written"),
	}}
	s := newSession(t, withOpenRouter(openroutertest.WithScript(script)))
	s.startTeaching()
	s.setField("#teach-scenario", "freeform", "change")
	s.waitVisible("#teach-task")
	s.setField("#teach-task", "Write hello to /home/user/note.txt.", "input")
	s.setField("#teach-world", "status-and-host", "change")
	for _, tc := range []struct {
		on       bool
		decision string
		file     bool
	}{{false, "deny", false}, {true, "allow", true}} {
		if eval[bool](s, `document.querySelector("#teach-destructive").checked`) != tc.on {
			s.click("#teach-destructive")
		}
		s.click("#teach-start")
		s.waitVisible("#teach-outcome")
		if got := s.text("#timeline-steps .edge .decision"); got != tc.decision {
			t.Errorf("destructive mode %v: decision %q, want %q (%s)", tc.on, got, tc.decision, s.text("#timeline-steps .edge .edge-auth"))
		}
		if got := strings.Contains(s.text("#view-host"), "/home/user/note.txt"); got != tc.file {
			t.Errorf("destructive mode %v: the file is there: %v, want %v", tc.on, got, tc.file)
		}
		s.click("#teach-again")
		s.waitVisible("#teach-form")
	}
}
