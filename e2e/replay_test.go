package e2e

import (
	"slices"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/skill"
)

// The replay-fidelity scenario as the CLI tests teach it: the page comes
// from the input, the click on README is literal.
var fidelitySteps = []openroutertest.Step{
	openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
	openroutertest.ToolCall("browser_click", map[string]any{"name": "README"}),
	openroutertest.Answer("The README says the widget is small."),
}

var levels = []string{skill.LevelExact, skill.LevelStructural, skill.LevelSemantic, skill.LevelFailed, skill.LevelInconclusive}

// Acceptance criterion 9: a replay produces a ReplayReport whose fidelity
// level is one of spec §5.5's, shown with the status, the recorded edges
// beside the replayed ones and the surprises; saved as a new bundle it is
// counted in the library and re-verified on the skill page.
func TestReplayNewInput(t *testing.T) {
	t.Parallel()
	file := teachBundle(t, fixtures.ReplayFidelity, fidelitySteps...)
	s := newSession(t)
	id := s.importBundle(file)
	s.openSkill(id)
	s.click("#skill-replay")
	s.waitVisible("#replay-form")
	input := "#replay-input-repo_url"
	if got := eval[string](s, `document.querySelector("`+input+`").value`); got != "https://git.workbench.test/acme/widget" {
		t.Errorf("the form starts with %q, not the recorded input", got)
	}
	// Up front: what the replay needs; this skill needs no model.
	if got := s.text("#replay-needs-inputs"); got != "1 input: repo_url (url)" {
		t.Errorf("needs inputs %q", got)
	}
	if got := s.text("#replay-needs-model"); !strings.Contains(got, "No model and no key") {
		t.Errorf("needs model %q", got)
	}
	// The recorded input beside the new one.
	if got := s.text(input + "-recorded"); got != "Recorded: https://git.workbench.test/acme/widget · same as recorded" {
		t.Errorf("beside the field: %q", got)
	}

	// A bad value: the error is beside its field, and nothing runs.
	s.setValue(input, "git.workbench.test/acme/gadget", "input")
	s.click("#replay-run")
	s.waitText(input+"-error", "not an absolute http or https URL")
	if s.countOf("#replay-outcome") != 0 {
		t.Error("a replay ran with an input the manifest does not accept")
	}

	// The same skill on another repository: same shapes, other text.
	s.setValue(input, "https://git.workbench.test/acme/gadget", "input")
	s.waitText(input+"-recorded", "new input")
	// The error goes as the field changes; click once the layout settled.
	s.waitJS(`!document.querySelector("` + input + `-error")`)
	s.click("#replay-run")
	s.waitVisible("#replay-outcome")
	if got := s.text("#replay-status"); got != skill.StatusSuccess {
		t.Errorf("status %q", got)
	}
	level := s.text("#replay-level")
	if !slices.Contains(levels, level) {
		t.Errorf("fidelity level %q is not one of spec §5.5's", level)
	}
	if level != skill.LevelStructural {
		t.Errorf("fidelity level %q, want structural for a new input on the simulator", level)
	}
	if got := s.textsOf("#replay-edges .edge-match"); !slices.Equal(got, []string{skill.MatchStructural, skill.MatchStructural}) {
		t.Errorf("edge matches %q", got)
	}
	// In words first: each step's call on the new input and what the
	// body answered it, the other project's release among it.
	steps := s.text("#replay-steps")
	for _, want := range []string{"Step 0: browser_navigate", "acme/gadget", "Latest release: v0.9.0", "Step 1: browser_click"} {
		if !strings.Contains(steps, want) {
			t.Errorf("the replay's steps lack %q:\n%s", want, steps)
		}
	}
	// Recorded hashes beside observed ones.
	b := decodeFile(t, file)
	row := s.text("#edge-row-0")
	if !strings.Contains(row, b.Trace.Edges[0].StateBefore) || !strings.Contains(row, b.Trace.Edges[0].StateAfter) {
		t.Errorf("edge 0 does not show its recorded hashes: %q", row)
	}
	if got := s.text("#replay-fidelity"); !strings.HasPrefix(got, "1 (2 of 2 edges committed)") {
		t.Errorf("fidelity %q", got)
	}

	s.click("#replay-save")
	s.waitText("#replay-saved", "1 replay of this skill")
	s.click("#replay-saved a")
	s.waitVisible("#conformance")
	s.waitText("#skill-replays", "1")
	if got := s.text("#skill-version"); got != "2" {
		t.Errorf("version %q after saving the replay as a new bundle, want 2", got)
	}
	if got := s.text("#gate-gate-replay_fidelity .gate-derived .verdict"); got != skill.VerdictPass {
		t.Errorf("the saved replay's gate re-verifies as %q", got)
	}
}

// A replay that diverges halts at the edge, highlights the surprise with
// its predicted and actual hashes and kind, and shows failed, never pass.
func TestReplayHaltsWithSurprise(t *testing.T) {
	t.Parallel()
	file := teachBundle(t, fixtures.ReplayFidelity, fidelitySteps...)
	s := newSession(t)
	id := s.importBundle(file)
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-form")
	s.setValue("#replay-input-repo_url", "https://git.workbench.test/acme/nothing", "input")
	s.click("#replay-run")
	s.waitVisible("#replay-outcome")
	if got := s.text("#replay-status"); got != "halted at edge 0" {
		t.Errorf("status %q", got)
	}
	if got := eval[string](s, `document.querySelector("#replay-status").dataset.value`); got != skill.StatusHalted {
		t.Errorf("status value %q, want the report's %s", got, skill.StatusHalted)
	}
	// The counts agree with gate.replay_fidelity's: the trace's two
	// edges, one attempted, none committed.
	if got := s.text("#replay-fidelity"); got != "0 (0 of 1 attempted edge committed; 2 edges recorded, 1 not run)" {
		t.Errorf("fidelity %q", got)
	}
	if got := s.text("#replay-level"); got != skill.LevelFailed {
		t.Errorf("level %q, want failed", got)
	}
	if s.countOf("#replay-level .level-failed") != 1 {
		t.Error("failed does not look like a failure")
	}
	if got := s.text("#replay-verdict"); got == skill.VerdictPass || s.countOf("#replay-verdict .verdict-pass") != 0 {
		t.Errorf("a halted replay's verdict shows %q", got)
	}
	if !strings.Contains(eval[string](s, `document.querySelector("#edge-row-0").className`), "surprise") {
		t.Error("the diverging edge is not highlighted")
	}
	if s.countOf("#replay-surprises li.surprise") == 0 {
		t.Fatal("no surprise listed")
	}
	sur := s.text("#replay-surprises li.surprise")
	if !strings.Contains(sur, "Edge 0") || !strings.Contains(sur, "other") {
		t.Errorf("surprise %q does not name its edge and kind", sur)
	}
	if p := s.text("#replay-surprises .surprise-predicted"); !strings.HasPrefix(p, "sha256:") && p != "(none)" {
		t.Errorf("predicted hash %q", p)
	}
	if got := s.textsOf("#replay-edges .edge-match"); len(got) != 2 || got[0] != skill.MatchMismatch || got[1] != "not run" {
		t.Errorf("edge matches %q", got)
	}

	// A page of another structure: the halt says what differed, the
	// recorded answer's lines beside the replay's, and which tolerance.
	s.setValue("#replay-input-repo_url", "https://git.workbench.test/", "input")
	s.click("#replay-run")
	s.waitVisible("#replay-diff-0")
	if got := s.text("#replay-diff-0-tolerance"); !strings.HasPrefix(got, "Structural:") {
		t.Errorf("tolerance %q", got)
	}
	removed := s.textsOf("#replay-diff-0-lines .diff-removed")
	if !slices.ContainsFunc(removed, func(l string) bool { return strings.Contains(l, "Latest release: v2.4.1") }) {
		t.Errorf("the difference does not mark the recorded project page's lines as gone: %q", removed)
	}
	if len(s.textsOf("#replay-diff-0-lines .diff-added")) == 0 {
		t.Error("the difference marks nothing the replay saw instead")
	}
}

// Acceptance criterion 13, as the matrix of issue 14: fixture 5 replayed
// against two models through the proxy, on the taught input and on an
// input set added in the form, gives a proof per cell with its verdict,
// fidelity, cost and latency, the divergence named per input set; the
// matrix is kept with the skill (shown again after a reload, unsaved) and
// saved as one next version carrying all four replays.
func TestCompareTwoModels(t *testing.T) {
	t.Parallel()
	// Taught so that the click on the changelog is the model's choice.
	file := teachBundle(t, fixtures.ModelComparison,
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
		openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"}),
		openroutertest.Answer("The newest version is 1.4.0."),
	)
	click := openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})
	wander := openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/"})
	s := newSession(t, withOpenRouter(openroutertest.WithScript(
		openroutertest.Script{Model: "example/a", CostPerCall: 0.002, Steps: []openroutertest.Step{click, click}},
		openroutertest.Script{Model: "example/b", CostPerCall: 0.003, Steps: []openroutertest.Step{wander, wander}},
	)))
	id := s.importBundle(file)
	// The replay page says up front that this skill needs a model and a
	// key, and where the model chose; without a key it does not offer Run.
	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-needs")
	if got := s.text("#replay-needs-model"); !strings.Contains(got, "A model and this tab's OpenRouter key") || !strings.Contains(got, "edge 1, browser_click: name") {
		t.Errorf("needs: %q", got)
	}
	if !s.isDisabled("#replay-run") || s.countOf("#replay-run-blocked") != 1 {
		t.Error("Run replay is offered to a model-bound skill with no key in the tab")
	}
	s.enterKey()
	s.open("/skills/" + id + "/replay")
	s.waitText("#replay-key-text", "accepted")
	if s.isDisabled("#replay-run") {
		t.Error("Run replay is disabled with an accepted key")
	}
	s.openSkill(id)
	s.click("#tab-compare")
	s.waitVisible("#compare-form")
	s.setValue("#compare-model-0", "example/a", "input")
	s.setValue("#compare-model-1", "example/b", "input")
	// A second input set, typed as on the replay page: a value the skill
	// refuses is said beside its field, and no model is asked.
	s.click("#compare-add-set")
	s.waitVisible("#compare-set-2-changelog_url")
	s.setValue("#compare-set-2-changelog_url", "not a url", "input")
	s.click("#compare-run")
	s.waitVisible("#compare-set-2-changelog_url-error")
	if got := s.text("#compare-set-2-changelog_url-error"); !strings.Contains(got, "not an absolute http or https URL") {
		t.Errorf("the bad value's error: %q", got)
	}
	if len(s.OR.ChatRequests("example/a"))+len(s.OR.ChatRequests("example/b")) != 0 {
		t.Error("a model was asked for a comparison with a bad input set")
	}
	s.setValue("#compare-set-2-changelog_url", "https://git.workbench.test/acme/widget/changelog?page=2", "input")
	s.click("#compare-run")
	s.waitVisible("#compare-result")

	// The matrix: rows models, columns input sets, a proof in every cell.
	checkMatrix := func(when string) {
		t.Helper()
		if n := s.countOf("#compare-matrix td.compare-cell"); n != 4 {
			t.Fatalf("%s: %d cells, want 2 models × 2 input sets", when, n)
		}
		if got := s.textsOf("#compare-matrix tbody th .compare-model"); !slices.Equal(got, []string{"example/a", "example/b"}) {
			t.Errorf("%s: rows %q", when, got)
		}
		statuses := eval[[]string](s, `[...document.querySelectorAll("#compare-matrix .compare-cell .compare-status")].map((e) => e.dataset.value)`)
		if want := []string{skill.StatusSuccess, skill.StatusSuccess, skill.StatusHalted, skill.StatusHalted}; !slices.Equal(statuses, want) {
			t.Errorf("%s: statuses %q, want %q", when, statuses, want)
		}
		verdicts := s.textsOf("#compare-matrix .compare-cell .compare-verdict .verdict")
		if len(verdicts) != 4 || verdicts[2] == skill.VerdictPass || verdicts[3] == skill.VerdictPass {
			t.Errorf("%s: verdicts %q: the halted model's proofs must not pass", when, verdicts)
		}
		if n := s.countOf("#compare-matrix .compare-cell .compare-fidelity"); n != 4 {
			t.Errorf("%s: %d cells show a fidelity", when, n)
		}
		if got := s.textsOf("#compare-matrix .compare-cell .compare-cost"); len(got) != 4 || got[0] != "cost $0.002" || got[2] != "cost $0.003" {
			t.Errorf("%s: costs %q", when, got)
		}
		if ok := eval[bool](s, `[...document.querySelectorAll("#compare-matrix .compare-latency")].every((e) => /^\d+$/.test(e.dataset.ms))`); !ok || s.countOf("#compare-matrix .compare-latency") != 4 {
			t.Errorf("%s: a cell without its latency", when)
		}
		summary := s.text("#compare-summary")
		for _, want := range []string{"Input set 1: example/a and example/b diverge", "Input set 2: example/a and example/b diverge"} {
			if !strings.Contains(summary, want) {
				t.Errorf("%s: summary %q does not say %q", when, summary, want)
			}
		}
	}
	checkMatrix("after the run")
	if n := len(s.OR.ChatRequests("example/a")) + len(s.OR.ChatRequests("example/b")); n != 4 {
		t.Errorf("%d model calls through the proxy, want one per cell", n)
	}
	// Readable on a phone: the matrix scrolls in its box, the page does not.
	s.resize(viewports[0])
	if w := eval[int](s, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
		t.Errorf("at 390 px the page scrolls sideways by %d px", w)
	}
	s.resize(viewports[2])

	// Kept with the skill: a reload shows the same matrix, not saved.
	s.load("/skills/" + id)
	s.waitVisible("#conformance")
	s.click("#tab-compare")
	s.waitVisible("#compare-result")
	checkMatrix("after a reload")
	if got := s.text("#compare-kept"); !strings.Contains(got, "Not saved as a version") {
		t.Errorf("kept note %q", got)
	}
	if got := s.text("#skill-version"); got != "1" {
		t.Errorf("version %q after a comparison that was not saved, want 1", got)
	}

	// One version carries all four replays, the next after the one
	// compared: saved, it is the skill's newest, no version number is
	// skipped, and the matrix is still shown, as saved.
	if got := s.text("#compare-save"); got != "Save as new version v2" {
		t.Errorf("save button %q, want the next version, v2", got)
	}
	s.click("#compare-save")
	s.waitText("#skill-saved", "as version 2")
	if got := s.text("#skill-version"); got != "2" {
		t.Errorf("version %q after saving the comparison, want 2", got)
	}
	if got := s.textsOf("#skill-versions a"); !slices.Equal(got, []string{"v1", "v2 (newest)"}) {
		t.Errorf("versions %q, want v1 and v2", got)
	}
	s.waitText("#compare-saved-as", "Saved as v2.")
	checkMatrix("after saving")
	if s.countOf("#compare-save") != 0 {
		t.Error("a saved comparison is offered for saving again")
	}
	s.click("#tab-audit")
	s.click("#audit-view-events")
	s.waitVisible("#audit-events")
	if n := s.countOf("#audit-events tbody tr td:nth-child(2)"); n == 0 {
		t.Error("no events in the saved comparison")
	}
	if got := eval[int](s, `[...document.querySelectorAll("#audit-events tbody tr td:nth-child(2)")].filter((e) => e.textContent === "`+skill.EventReplayExecuted+`").length`); got != 4 {
		t.Errorf("%d ReplayExecuted events in the saved comparison, want one per cell", got)
	}
}
