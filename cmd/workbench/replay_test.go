package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/openrouter/openroutertest"
)

// The replay-fidelity scenario's skill: "README" is in the task, so every
// parameter is literal or bound to the input and replay needs no model.
var fidelityDemo = []openroutertest.Step{
	openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
	openroutertest.ToolCall("browser_click", map[string]any{"name": "README"}),
	openroutertest.Answer("The README says the widget is small."),
}

func TestTeachThenReplay(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(fidelityDemo...)))
	taught := teachFile(t, or, fixtures.ReplayFidelity)
	out := filepath.Join(t.TempDir(), "replayed.skill.json")
	// Flags may follow the bundle.
	code, stdout, stderr := pipeline(t, or, "replay", taught, "--out", out)
	wantCode(t, code, exitProven, stdout, stderr)
	for _, s := range []string{"edge 0 browser_navigate: exact, committed", "edge 1 browser_click: exact, committed", "with no model"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("progress lacks %q:\n%s", s, stderr)
		}
	}
	for _, s := range []string{"replay: success, fidelity 1 (exact), 2 of 2 edges committed", "model used: none (0 model calls), cost $0.00",
		"wrote " + out + " (v2)", "gate.replay_fidelity", "pass (exact)", "verdict: PASS"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, stdout)
		}
	}
	// In words: what the last step's body answered, the README it read.
	if !strings.Contains(stdout, "step 1 (browser_click) answered:") || !strings.Contains(stdout, "Widget is a small Go library") {
		t.Errorf("the summary does not say what the last step read:\n%s", stdout)
	}
	code, stdout, stderr = runCmd(t, "", "verify", out)
	wantCode(t, code, exitProven, stdout, stderr)
	if !strings.Contains(stdout, "fixtures passed: skill.replay_fidelity  failed: none") {
		t.Errorf("verify:\n%s", stdout)
	}
}

// A replay the world surprises prints what differed: the recorded
// answer's lines beside the replay's, marked, and the tolerance exceeded.
func TestReplayPrintsWhatDiffered(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(fidelityDemo...)))
	taught := teachFile(t, or, fixtures.ReplayFidelity)
	code, stdout, stderr := pipeline(t, or, "replay", taught, "--input", "repo_url=https://git.workbench.test/",
		"--out", filepath.Join(t.TempDir(), "halted.skill.json"))
	wantCode(t, code, exitUnproven, stdout, stderr)
	for _, s := range []string{"halted at edge 0", "what differed at edge 0: Structural:", "(- recorded, + on replay)", "    - ", "Latest release: v2.4.1", "    + "} {
		if !strings.Contains(stdout, s) {
			t.Errorf("the summary lacks %q:\n%s", s, stdout)
		}
	}
}

// A skill that makes no model call replays without a key, and says that a
// named model is not used.
func TestReplayWithoutModelNeedsNoKey(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(fidelityDemo...)))
	taught := teachFile(t, or, fixtures.ReplayFidelity)
	t.Setenv(keyEnv, "")
	code, stdout, stderr := runCmd(t, "", "replay", "--model", "example/other", "--out", filepath.Join(t.TempDir(), "r.skill.json"), taught)
	wantCode(t, code, exitProven, stdout, stderr)
	if !strings.Contains(stderr, "--model example/other is not used") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// A parameter the model chose is chosen again by the model named on the
// command line, with a new input.
func TestReplayAsksTheModel(t *testing.T) {
	or := stand(t, openroutertest.WithScript(
		teacher(
			openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
			openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"}),
			openroutertest.Answer("1.4.0")),
		openroutertest.Script{Model: "example/replayer", CostPerCall: 0.003, Steps: []openroutertest.Step{
			openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
				if u, _ := r.LastUser(); !strings.Contains(u.Text(), "acme/gadget") {
					return openroutertest.Answer("I do not see the gadget project.")
				}
				return openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})
			}),
		}},
		openroutertest.Script{Model: "example/broke", Steps: []openroutertest.Step{openroutertest.Error(402, "Insufficient credits")}},
	))
	taught := filepath.Join(t.TempDir(), "t.skill.json")
	code, stdout, stderr := pipeline(t, or, "teach", "--task", "Open the project page at {repo} and find the newest release.",
		"--world", "docs-and-git", "--input", "repo=https://git.workbench.test/acme/widget", "--model", teacherModel, "--out", taught)
	wantCode(t, code, exitProven, stdout, stderr)
	if !strings.Contains(stdout, "parameters name=llm") {
		t.Fatalf("the click is not the model's choice:\n%s", stdout)
	}

	out := filepath.Join(t.TempDir(), "r.skill.json")
	code, stdout, stderr = pipeline(t, or, "replay", taught, "--model", "example/replayer", "--input", "repo=https://git.workbench.test/acme/gadget", "--out", out)
	wantCode(t, code, exitProven, stdout, stderr)
	for _, s := range []string{"replay: success, fidelity 1 (structural)", "model used: example/replayer (1 model calls), cost $0.003", "verdict: PASS"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, stdout)
		}
	}

	// A model that cannot be paid for is that failure, and nothing is saved.
	out = filepath.Join(t.TempDir(), "broke.skill.json")
	code, stdout, stderr = pipeline(t, or, "replay", taught, "--model", "example/broke", "--out", out)
	wantCode(t, code, exitUnproven, stdout, stderr)
	last := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
	oneLine(t, last, "workbench replay: nothing saved: model example/broke failed at edge 1: openrouter: 402 Payment Required: Insufficient credits", "out of credit")
	if _, err := os.Stat(out); err == nil {
		t.Error("a bundle was written for a failed model call")
	}

	// Without the key the model cannot be asked.
	t.Setenv(keyEnv, "")
	code, stdout, stderr = pipeline(t, or, "replay", taught)
	wantCode(t, code, exitInvalid, stdout, stderr)
	oneLine(t, stderr, "workbench replay: OPENROUTER_API_KEY is not set")
}

// The wrong world halts the replay at its first edge: the run happened,
// the proof fails, exit 1.
func TestReplayInAnotherWorld(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(fidelityDemo...)))
	taught := teachFile(t, or, fixtures.ReplayFidelity)
	code, stdout, stderr := pipeline(t, or, "replay", taught, "--world", "weather", "--out", filepath.Join(t.TempDir(), "r.skill.json"))
	wantCode(t, code, exitUnproven, stdout, stderr)
	for _, s := range []string{"replay: halted_at_edge_N", "halted at edge 0", "surprise at edge 0: state_hash_mismatch", "verdict: FAIL"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, stdout)
		}
	}
}

func TestReplayBadUsage(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(fidelityDemo...)))
	taught := teachFile(t, or, fixtures.ReplayFidelity)
	bad := filepath.Join(t.TempDir(), "bad.skill.json")
	if err := os.WriteFile(bad, []byte(`{"bundle_version": "0.1.0",}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no bundle", nil, "want exactly one BUNDLE file, got 0"},
		{"two bundles", []string{taught, taught}, "want exactly one BUNDLE file, got 2"},
		{"missing file", []string{"no-such.skill.json"}, "no-such.skill.json: cannot read"},
		{"not a bundle", []string{bad}, bad + ": invalid bundle: "},
		{"unknown input", []string{taught, "--input", "city=Paris"}, `--input city: the skill has no input "city" (its inputs: repo_url)`},
		{"input without =", []string{taught, "--input", "repo_url"}, "is not name=value"},
		{"unknown world", []string{taught, "--world", "mars"}, "--world mars: no such world"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := pipeline(t, or, append([]string{"replay"}, tc.args...)...)
			wantCode(t, code, exitInvalid, stdout, stderr)
			oneLine(t, stderr, "workbench replay: ", tc.want)
		})
	}
}
