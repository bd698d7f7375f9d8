package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/skill"
)

const teacherModel = "example/teacher"

// stand starts the OpenRouter stand-in with scripts and points the
// command's key at it.
func stand(t *testing.T, opts ...openroutertest.Option) *openroutertest.Server {
	t.Helper()
	or := openroutertest.New(t, opts...)
	t.Setenv(keyEnv, or.Key)
	return or
}

// pipeline runs a workbench command against the stand-in and checks that
// the key never appears in what it prints.
func pipeline(t *testing.T, or *openroutertest.Server, args ...string) (int, string, string) {
	t.Helper()
	if or != nil {
		args = append(args, "--openrouter", or.APIBase())
	}
	code, stdout, stderr := runCmd(t, "", args...)
	if or != nil && strings.Contains(stdout+stderr, or.Key) {
		t.Errorf("the API key was printed:\nstdout: %s\nstderr: %s", stdout, stderr)
	}
	return code, stdout, stderr
}

func wantCode(t *testing.T, code, want int, stdout, stderr string) {
	t.Helper()
	if code != want {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
	}
}

// oneLine checks that stderr is exactly one line containing every want.
func oneLine(t *testing.T, stderr string, want ...string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Errorf("stderr is not one line:\n%s", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q: %s", w, stderr)
		}
	}
}

func teacher(steps ...openroutertest.Step) openroutertest.Script {
	return openroutertest.Script{Model: teacherModel, CostPerCall: 0.001, Steps: steps}
}

var basicDemo = []openroutertest.Step{
	openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
	openroutertest.Answer("The main heading is: Getting started"),
}

// teachFile teaches a scenario with the stand-in and returns the file.
func teachFile(t *testing.T, or *openroutertest.Server, scenario string, extra ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "taught.skill.json")
	args := append([]string{"teach", "--scenario", scenario, "--model", teacherModel, "--out", file}, extra...)
	code, stdout, stderr := pipeline(t, or, args...)
	wantCode(t, code, exitProven, stdout, stderr)
	return file
}

func TestTeachScenarioAndVerify(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(basicDemo...)))
	file := filepath.Join(t.TempDir(), "basic.skill.json")
	code, stdout, stderr := pipeline(t, or, "teach", "--scenario", fixtures.BasicPromptToManifest, "--model", teacherModel, "--out", file)
	wantCode(t, code, exitProven, stdout, stderr)
	for _, s := range []string{
		"step 1: asking example/teacher", "step 1: edge 0 browser_navigate", "allowed", "step 2: the model answered: The main heading is: Getting started",
	} {
		if !strings.Contains(stderr, s) {
			t.Errorf("progress lacks %q:\n%s", s, stderr)
		}
	}
	for _, s := range []string{
		"scenario skill.basic_prompt_to_manifest, world docs-and-git, model example/teacher",
		"stopped: answer; 1 edges; cost $0.002",
		"edge 0 browser_navigate: ok, allowed; parameters url=input:page_url",
		"binding: substrate_only", "wrote " + file, "verdict: INCONCLUSIVE",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, stdout)
		}
	}
	// The written file is the bundle, verified by the verify command: a
	// fresh skill is inconclusive until replayed, and meets its scenario.
	code, stdout, stderr = runCmd(t, "", "verify", file)
	wantCode(t, code, exitUnproven, stdout, stderr)
	for _, s := range []string{"verdict: INCONCLUSIVE", "fixtures passed: skill.basic_prompt_to_manifest  failed: none"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("verify lacks %q:\n%s", s, stdout)
		}
	}
	if strings.Contains(stdout, "OVERCLAIM") {
		t.Errorf("overclaim:\n%s", stdout)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := b.Encode(); string(again) != string(data) {
		t.Error("the file is not the bundle's canonical bytes")
	}
}

func TestTeachDefaultFileName(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(basicDemo...)))
	t.Chdir(t.TempDir())
	code, stdout, stderr := pipeline(t, or, "teach", "--scenario", fixtures.BasicPromptToManifest, "--model", teacherModel)
	wantCode(t, code, exitProven, stdout, stderr)
	files, _ := filepath.Glob("*")
	if len(files) != 1 {
		t.Fatalf("the directory holds %v, want one bundle", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := skill.ExportFilename(b.Manifest.Slug, 1); files[0] != want || !strings.Contains(stdout, "wrote "+want) {
		t.Errorf("wrote %s, want %s", files[0], want)
	}
}

func TestTeachFreeform(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(
		openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
			u, _ := r.LastUser()
			if !strings.Contains(u.Text(), "Open https://docs.workbench.test/install and") {
				return openroutertest.Answer("The task did not name the page.")
			}
			return openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/install"})
		}),
		openroutertest.Answer("Installation"))))
	file := filepath.Join(t.TempDir(), "free.skill.json")
	code, stdout, stderr := pipeline(t, or, "teach", "--task", "Open {page} and report its heading.", "--world", "docs-and-git",
		"--input", "page=https://docs.workbench.test/install", "--model", teacherModel, "--out", file)
	wantCode(t, code, exitProven, stdout, stderr)
	for _, s := range []string{"freeform", "parameters url=input:page", "declared: &body.browser, &body.os"} {
		if !strings.Contains(stdout+stderr, s) {
			t.Errorf("output lacks %q:\nstdout:\n%s\nstderr:\n%s", s, stdout, stderr)
		}
	}
}

// Scenario 3: the host write is refused by policy, recorded, and the
// bundle fails; teach says so with exit 1 and still writes the evidence.
func TestTeachAuthorityDenied(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher(
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://status.workbench.test/"}),
		openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/incident.txt", "content": "Degraded API latency"}),
		openroutertest.Answer("I could not save the file: the action was refused."))))
	file := filepath.Join(t.TempDir(), "denied.skill.json")
	code, stdout, stderr := pipeline(t, or, "teach", "--scenario", fixtures.AuthorityDenied, "--model", teacherModel, "--out", file)
	wantCode(t, code, exitUnproven, stdout, stderr)
	for _, s := range []string{"edge 1 file_write: denied, deny", "verdict: FAIL", "fixtures passed: skill.authority_denied"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("summary lacks %q:\n%s", s, stdout)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Error("the failing bundle was not written")
	}
}

func TestTeachBadUsage(t *testing.T) {
	or := stand(t, openroutertest.WithScript(teacher()))
	sc := fixtures.BasicPromptToManifest
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"input without =", []string{"--scenario", sc, "--model", teacherModel, "--input", "page_url"}, []string{`invalid value "page_url" for flag -input`, "is not name=value"}},
		{"unknown input", []string{"--scenario", sc, "--model", teacherModel, "--input", "city=Paris"}, []string{`--input city: scenario skill.basic_prompt_to_manifest has no input "city" (its inputs: page_url)`}},
		{"input twice", []string{"--scenario", sc, "--model", teacherModel, "--input", "page_url=a", "--input", "page_url=b"}, []string{`input "page_url" is given twice`}},
		{"unknown flag", []string{"--scenario", sc, "--model", teacherModel, "--api-key", "x"}, []string{"flag provided but not defined: -api-key"}},
		{"no model", []string{"--scenario", sc}, []string{"--model: required"}},
		{"no task", []string{"--model", teacherModel}, []string{"give --scenario ID (one of skill.basic_prompt_to_manifest,"}},
		{"both", []string{"--scenario", sc, "--task", "x", "--model", teacherModel}, []string{"not both"}},
		{"unknown scenario", []string{"--scenario", "skill.nope", "--model", teacherModel}, []string{"--scenario skill.nope: no such scenario"}},
		{"freeform without world", []string{"--task", "Open a page", "--model", teacherModel}, []string{"--task needs --world NAME (worlds: docs-and-git,"}},
		{"unknown world", []string{"--task", "Open a page", "--world", "mars", "--model", teacherModel}, []string{"--world mars: no such world"}},
		{"unfilled placeholder", []string{"--task", "Open {page}", "--world", "docs-and-git", "--model", teacherModel}, []string{"--input page: the task mentions {page} but no value was given for it"}},
		{"capability not offered", []string{"--task", "Open a page", "--world", "weather", "--capability", "&memory.episodic", "--model", teacherModel}, []string{"--capability &memory.episodic: the world offers"}},
		{"zero steps", []string{"--scenario", sc, "--model", teacherModel, "--max-steps", "0"}, []string{"--max-steps 0: must be at least 1"}},
		{"stray argument", []string{"--scenario", sc, "--model", teacherModel, "extra"}, []string{`unexpected argument "extra"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := pipeline(t, or, append([]string{"teach"}, tc.args...)...)
			wantCode(t, code, exitInvalid, stdout, stderr)
			oneLine(t, stderr, append([]string{"workbench teach: "}, tc.want...)...)
		})
	}
	if n := len(or.ChatRequests(teacherModel)); n != 0 {
		t.Errorf("%d model calls for bad command lines", n)
	}
}

func TestMissingKey(t *testing.T) {
	t.Setenv(keyEnv, "")
	file := filepath.Join("..", "..", "fixtures", "valid-skill-bundle.v0.json")
	for _, args := range [][]string{
		{"teach", "--scenario", fixtures.BasicPromptToManifest, "--model", teacherModel},
		{"compare", file, "--model", "a/x", "--model", "b/y"},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", args...)
			wantCode(t, code, exitInvalid, stdout, stderr)
			oneLine(t, stderr, "workbench "+args[0]+": OPENROUTER_API_KEY is not set")
		})
	}
}

func TestTeachOpenRouterErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []openroutertest.Option
		code int
		want []string
	}{
		{"key refused", []openroutertest.Option{openroutertest.WithKey("sk-or-v1-the-right-key")}, exitInvalid,
			[]string{"checking the key: openrouter: 401 Unauthorized", "OpenRouter refused the key in OPENROUTER_API_KEY"}},
		{"model 401", []openroutertest.Option{openroutertest.WithScript(teacher(openroutertest.Error(401, "User not found.")))}, exitInvalid,
			[]string{"nothing written: the demonstration stopped after 0 edges: model: openrouter: 401 Unauthorized: User not found.", "OpenRouter refused the key"}},
		{"out of credit", []openroutertest.Option{openroutertest.WithScript(teacher(basicDemo[0], openroutertest.Error(402, "Insufficient credits")))}, exitUnproven,
			[]string{"nothing written: the demonstration stopped after 1 edges: model: openrouter: 402 Payment Required: Insufficient credits", "out of credit"}},
		{"rate limited", []openroutertest.Option{openroutertest.WithScript(teacher(openroutertest.RateLimit(30 * time.Second)))}, exitUnproven,
			[]string{"openrouter: 429 Too Many Requests", "retry after 30s — rate limited"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			or := openroutertest.New(t, tc.opts...)
			t.Setenv(keyEnv, "sk-or-v1-the-key-in-the-environment")
			if tc.name != "key refused" {
				t.Setenv(keyEnv, or.Key)
			}
			out := filepath.Join(t.TempDir(), "x.skill.json")
			code, stdout, stderr := pipeline(t, or, "teach", "--scenario", fixtures.BasicPromptToManifest, "--model", teacherModel, "--out", out)
			wantCode(t, code, tc.code, stdout, stderr)
			last := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
			oneLine(t, last, append([]string{"workbench teach: "}, tc.want...)...)
			if strings.Contains(stderr, "sk-or-v1-the-key-in-the-environment") {
				t.Error("the key was printed")
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a bundle was written for a failed demonstration")
			}
		})
	}
}

func TestPipelineHelp(t *testing.T) {
	for _, cmd := range []string{"teach", "replay", "compare"} {
		code, stdout, stderr := runCmd(t, "", cmd, "--help")
		wantCode(t, code, exitProven, stdout, stderr)
		if !strings.HasPrefix(stderr, "usage: workbench "+cmd+" ") {
			t.Errorf("%s --help starts %q", cmd, strings.SplitN(stderr, "\n", 2)[0])
		}
		for _, flag := range []string{"-openrouter URL", "-out FILE", "-destructive", "-input name=value"} {
			if !strings.Contains(stderr, flag) {
				t.Errorf("%s --help lacks %s", cmd, flag)
			}
		}
		if strings.Contains(stderr, "-key") {
			t.Errorf("%s offers a key flag", cmd)
		}
	}
	_, stdout, _ := runCmd(t, "", "help")
	for _, cmd := range []string{"teach", "replay", "compare"} {
		if !strings.Contains(stdout, "  "+cmd+" ") {
			t.Errorf("workbench help does not list %s:\n%s", cmd, stdout)
		}
	}
}

// TestPipelinePrintsNoSecret: teach and replay print what a run does to
// stderr — tool arguments, the model's answer — with secrets, e-mail
// addresses and passwords masked before anything is shortened, and name
// the file after words that hold none of them.
func TestPipelinePrintsNoSecret(t *testing.T) {
	key := "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)
	notes := "revoke " + key + ", reply to jane@example.com, password: hunter2x"
	or := stand(t, openroutertest.WithScript(teacher(
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://support.workbench.test/contact"}),
		openroutertest.ToolCall("browser_type", map[string]any{"field": "Message", "text": notes}),
		openroutertest.ToolCall("browser_submit", map[string]any{"button": "Send message"}),
		openroutertest.Answer("Sent the message about "+key+" for jane@example.com."))))
	t.Chdir(t.TempDir())
	code, stdout, stderr := pipeline(t, or, "teach", "--task", "Use token "+key+" to type {notes} into Message and press Send message at https://support.workbench.test/contact",
		"--world", "support-desk", "--input", "notes="+notes, "--model", teacherModel)
	wantCode(t, code, exitProven, stdout, stderr)
	files, _ := filepath.Glob("*.skill.json")
	if len(files) != 1 || files[0] != "use-token-to-type-revoke-reply.v1.skill.json" {
		t.Errorf("wrote %v", files)
	}
	code, rstdout, rstderr := pipeline(t, nil, "replay", files[0], "--input", "notes=again "+key+" jane@example.com", "--out", "r.skill.json")
	wantCode(t, code, exitProven, rstdout, rstderr)

	printed := stderr + rstderr
	for _, want := range []string{"[redacted:openrouter_key]", "[redacted:email]", "[redacted:password]", "the model answered: Sent the message about [redacted:openrouter_key]"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for i := 0; i+16 <= len(key); i++ {
		if strings.Contains(printed, key[i:i+16]) {
			t.Fatalf("stderr holds %q, part of the key:\n%s", key[i:i+16], printed)
		}
	}
	for _, s := range []string{"jane@example.com", "hunter2x"} {
		if strings.Contains(printed, s) {
			t.Errorf("stderr holds %q:\n%s", s, printed)
		}
	}
}

func TestProgressAndErrorLinesAreMasked(t *testing.T) {
	var stderr strings.Builder
	c := newCLI("compare", io.Discard, &stderr, func(io.Writer) {})
	key := "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)
	c.progressf("%s: failed: the model said %q", "example/a", "use "+key)
	c.errorf("write to jane@example.com with pwd=abc123")
	want := "compare: example/a: failed: the model said \"use [redacted:openrouter_key]\"\n" +
		"workbench compare: write to [redacted:email] with pwd=[redacted:password]\n"
	if stderr.String() != want {
		t.Errorf("stderr\n%s\nwant\n%s", stderr.String(), want)
	}
}
