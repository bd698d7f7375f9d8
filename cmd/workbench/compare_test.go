package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/skill"
)

// The model-comparison scenario taught so that the click on the changelog
// is the model's choice ("Changelog" is not in the task text).
var comparisonDemo = []openroutertest.Step{
	openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
	openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"}),
	openroutertest.Answer("The newest version is 1.4.0."),
}

func model(id string, steps ...openroutertest.Step) openroutertest.Script {
	return openroutertest.Script{Model: id, CostPerCall: 0.002, Steps: steps}
}

var clickChangelog = openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})

func TestCompareModels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		b      []openroutertest.Step
		code   int
		stdout []string
	}{
		{"agree", []openroutertest.Step{clickChangelog}, exitProven, []string{
			"example/a and example/b agree",
			"gate.replay_fidelity       pass (structural)  pass (structural)",
		}},
		{"other tool", []openroutertest.Step{openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/"})}, exitUnproven, []string{
			"halted_at_edge_N", "affordance_drift@1", "FAIL",
			"example/a and example/b diverge: status success vs halted_at_edge_N",
		}},
		{"refusal", []openroutertest.Step{openroutertest.Refuse("I cannot help with that.")}, exitUnproven, []string{
			"model_refusal@1", "edge 1 surprises none vs model_refusal",
		}},
		{"out of credit", []openroutertest.Step{openroutertest.Error(402, "Insufficient credits")}, exitUnproven, []string{
			"example/b has no result: model example/b failed at edge 1: openrouter: 402 Payment Required: Insufficient credits",
			"example/a and example/b: not compared, example/b has no result.",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			or := stand(t, openroutertest.WithScript(teacher(comparisonDemo...), model("example/a", clickChangelog), model("example/b", tc.b...)))
			taught := teachFile(t, or, fixtures.ModelComparison)
			out := filepath.Join(t.TempDir(), "compared.skill.json")
			code, stdout, stderr := pipeline(t, or, "compare", taught, "--model", "example/a", "--model", "example/b", "--out", out)
			wantCode(t, code, tc.code, stdout, stderr)
			for _, s := range append(tc.stdout, "MODEL", "example/a  1      example/a   success", "wrote "+out) {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if !strings.Contains(stderr, "example/a: edge 1 browser_click: exact, committed") {
				t.Errorf("progress:\n%s", stderr)
			}
			// The written bundle is the last version: verify re-derives the
			// last model's proof from it.
			code, vout, verr := runCmd(t, "", "verify", out)
			if tc.name == "agree" {
				wantCode(t, code, exitProven, vout, verr)
				if !strings.Contains(vout, "fixtures passed: skill.model_comparison  failed: none") {
					t.Errorf("verify:\n%s", vout)
				}
			} else if code == exitInvalid {
				t.Errorf("the written bundle does not verify:\n%s%s", vout, verr)
			}
		})
	}
}

// The scenario as written binds its one parameter to the input: replay
// asks no model, and compare says so rather than reporting agreement.
func TestCompareModelsNotExercised(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget/changelog"}),
		openroutertest.Answer("1.4.0")), model("example/a"), model("example/b")))
	taught := teachFile(t, or, fixtures.ModelComparison)
	code, stdout, stderr := pipeline(t, or, "compare", taught, "--model", "example/a", "--model", "example/b", "--out", filepath.Join(t.TempDir(), "c.skill.json"))
	wantCode(t, code, exitUnproven, stdout, stderr)
	if !strings.Contains(stdout, "The models were not exercised: every parameter of this skill is literal or bound to an input") ||
		strings.Contains(stdout, "agree") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

func TestCompareBadUsage(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(comparisonDemo...), model("example/a")))
	taught := teachFile(t, or, fixtures.ModelComparison)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one model", []string{taught, "--model", "example/a"}, "give at least two models"},
		{"model twice", []string{taught, "--model", "example/a", "--model", "example/a"}, "--model example/a is given twice"},
		{"no bundle", []string{"--model", "example/a", "--model", "example/b"}, "want exactly one BUNDLE file, got 0"},
		{"bad input", []string{taught, "--model", "example/a", "--model", "example/b", "--input", "changelog_url"}, "is not name=value"},
		{"unknown input", []string{taught, "--model", "example/a", "--model", "example/b", "--input", "x=1"}, `the skill has no input "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := pipeline(t, or, append([]string{"compare"}, tc.args...)...)
			wantCode(t, code, exitInvalid, stdout, stderr)
			oneLine(t, stderr, "workbench compare: ", tc.want)
		})
	}
	if n := len(or.ChatRequests("example/a")); n != 0 {
		t.Errorf("%d model calls for bad command lines", n)
	}
}

// A key OpenRouter refuses stops compare before any model runs.
func TestCompareKeyRefused(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(comparisonDemo...), model("example/a"), model("example/b")))
	taught := teachFile(t, or, fixtures.ModelComparison)
	t.Setenv(keyEnv, "sk-or-v1-not-this-one")
	code, stdout, stderr := pipeline(t, or, "compare", taught, "--model", "example/a", "--model", "example/b")
	wantCode(t, code, exitInvalid, stdout, stderr)
	oneLine(t, stderr, "workbench compare: checking the key: openrouter: 401 Unauthorized", "OpenRouter refused the key")
	if strings.Contains(stderr, "sk-or-v1-not-this-one") {
		t.Error("the key was printed")
	}
}

// The README's "From the terminal" walkthrough, command for command, with
// the stand-in in place of OpenRouter.
func TestTerminalWalkthrough(t *testing.T) {
	// A replaying model reads the recorded step and clicks the changelog
	// link of whichever project it is shown.
	rechoose := openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
		if u, _ := r.LastUser(); !strings.Contains(u.Text(), "Step 1 calls browser_click.") {
			return openroutertest.Answer("I was not shown the recorded click.")
		}
		return clickChangelog
	})
	or := stand(t, openroutertest.WithScript(
		// teach, then replay, then its share of compare
		openroutertest.Script{Model: "openai/gpt-4o", CostPerCall: 0.001, Steps: slices.Concat(comparisonDemo, []openroutertest.Step{rechoose, rechoose})},
		model("anthropic/claude-sonnet-4", rechoose)))
	t.Chdir(t.TempDir())
	for _, step := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"teach", "--world", "docs-and-git", "--task", "Open the project page at {repo} and find its newest release.",
			"--input", "repo=https://git.workbench.test/acme/widget", "--model", "openai/gpt-4o", "--out", "release.v1.skill.json"},
			exitProven, []string{"parameters url=input:repo", "parameters name=llm", "wrote release.v1.skill.json"}},
		{[]string{"replay", "release.v1.skill.json", "--input", "repo=https://git.workbench.test/acme/gadget", "--out", "release.v2.skill.json"},
			exitProven, []string{"replay: success, fidelity 1 (structural)", "model used: openai/gpt-4o", "wrote release.v2.skill.json (v2)", "verdict: PASS"}},
		{[]string{"compare", "release.v2.skill.json", "--model", "openai/gpt-4o", "--model", "anthropic/claude-sonnet-4"},
			exitProven, []string{"openai/gpt-4o and anthropic/claude-sonnet-4 agree", "(v3, carrying the replay of every model that ran)"}},
	} {
		code, stdout, stderr := pipeline(t, or, step.args...)
		wantCode(t, code, step.code, stdout, stderr)
		for _, s := range step.want {
			if !strings.Contains(stdout, s) {
				t.Errorf("%s: stdout lacks %q:\n%s", step.args[0], s, stdout)
			}
		}
	}
	// Without --out, compare writes the last version under its export name.
	// The comparison of v2 is v3: no version number is skipped.
	if files, _ := filepath.Glob("*.v3.skill.json"); len(files) != 1 {
		all, _ := filepath.Glob("*")
		t.Errorf("no v3 bundle; the directory holds %v", all)
	}
}

// Two models by two input sets: the taught inputs and one --input-set.
// Each set has its own table and summary, every cell ran, and the one
// version written carries all four replays.
func TestCompareInputSets(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(comparisonDemo...),
		model("example/a", clickChangelog, clickChangelog), model("example/b", clickChangelog, clickChangelog)))
	taught := teachFile(t, or, fixtures.ModelComparison)
	out := filepath.Join(t.TempDir(), "compared.skill.json")
	code, stdout, stderr := pipeline(t, or, "compare", taught, "--model", "example/a", "--model", "example/b",
		"--input-set", `{"changelog_url":"https://git.workbench.test/acme/widget/changelog?page=2"}`, "--out", out)
	wantCode(t, code, exitProven, stdout, stderr)
	for _, s := range []string{
		`INPUT SET 1 {"changelog_url":"https://git.workbench.test/acme/widget/changelog"}`,
		`INPUT SET 2 {"changelog_url":"https://git.workbench.test/acme/widget/changelog?page=2"}`,
		"LATENCY", "wrote " + out + " (v2,",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("stdout lacks %q:\n%s", s, stdout)
		}
	}
	if n := strings.Count(stdout, "example/a and example/b agree"); n != 2 {
		t.Errorf("%d agreeing sets, want 2:\n%s", n, stdout)
	}
	if !strings.Contains(stderr, "with 2 models and 2 input sets") || !strings.Contains(stderr, "example/b on input set 2: edge 1 browser_click: exact, committed") {
		t.Errorf("progress:\n%s", stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.ReplayRecords()); n != 4 {
		t.Errorf("the written version carries %d replays, want 4", n)
	}
	for _, tc := range []struct{ set, want string }{
		{`not json`, `"not json" is not a JSON object of input values`},
		{`{"changelog_url":"ftp://nowhere"}`, `--input-set 1: changelog_url: "ftp://nowhere" is not an absolute http or https URL`},
	} {
		code, stdout, stderr := pipeline(t, or, "compare", taught, "--model", "example/a", "--model", "example/b", "--input-set", tc.set)
		wantCode(t, code, exitInvalid, stdout, stderr)
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("--input-set %s: stderr %q, want %q", tc.set, stderr, tc.want)
		}
	}
}
