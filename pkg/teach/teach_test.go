package teach_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

func TestPlanErrorsNameTheField(t *testing.T) {
	ctx := context.Background()
	basic := fixtures.BasicPromptToManifest
	for _, tc := range []struct {
		name        string
		plan        func() (*teach.Plan, error)
		field, item string
		msg         string
	}{
		{"unknown scenario", func() (*teach.Plan, error) { return teach.FromScenario("skill.nope", nil) },
			teach.FieldScenario, "skill.nope", "no such scenario (scenarios: skill.basic_prompt_to_manifest,"},
		{"unknown input", func() (*teach.Plan, error) {
			return teach.FromScenario(basic, []teach.Value{{Name: "city", Raw: "Paris"}})
		}, teach.FieldInput, "city", `has no input "city" (its inputs: page_url)`},
		{"input twice", func() (*teach.Plan, error) {
			return teach.FromScenario(basic, []teach.Value{{Name: "page_url", Raw: "a"}, {Name: "page_url", Raw: "b"}})
		}, teach.FieldInput, "page_url", "given twice"},
		{"empty task", func() (*teach.Plan, error) { return teach.Freeform(ctx, "  ", "weather", nil, nil) },
			teach.FieldTask, "", "describe the task"},
		{"no world", func() (*teach.Plan, error) { return teach.Freeform(ctx, "Open a page", "", nil, nil) },
			teach.FieldWorld, "", "needs a simulator world"},
		{"unknown world", func() (*teach.Plan, error) { return teach.Freeform(ctx, "Open a page", "mars", nil, nil) },
			teach.FieldWorld, "mars", "no such world"},
		{"unfilled placeholder", func() (*teach.Plan, error) { return teach.Freeform(ctx, "Open {page}", "docs-and-git", nil, nil) },
			teach.FieldInput, "page", "the task mentions {page}"},
		{"capability not offered", func() (*teach.Plan, error) {
			return teach.Freeform(ctx, "Open a page", "weather", nil, []string{"&memory.episodic"})
		}, teach.FieldCapability, "&memory.episodic", "the world offers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.plan()
			var ie *teach.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got plan %v, error %v; want an *InputError", p, err)
			}
			if ie.Field != tc.field || ie.Name != tc.item || !strings.Contains(ie.Msg, tc.msg) {
				t.Errorf("got %+v, want field %q name %q message containing %q", *ie, tc.field, tc.item, tc.msg)
			}
		})
	}
}

func TestTyped(t *testing.T) {
	for _, tc := range []struct {
		typ, raw string
		want     any
		bad      bool
	}{
		{"string", "x", "x", false},
		{"url", "https://a.test", "https://a.test", false},
		{"number", " 2.5 ", 2.5, false},
		{"number", "two", nil, true},
		{"boolean", "true", true, false},
		{"boolean", "yes", nil, true},
		{"json", `{"a":1}`, map[string]any{"a": 1.0}, false},
		{"json", `{"a":`, nil, true},
	} {
		got, err := teach.Typed("v", tc.typ, tc.raw)
		if tc.bad {
			var ie *teach.InputError
			if !errors.As(err, &ie) || ie.Name != "v" {
				t.Errorf("Typed(%s, %q) = %v, %v; want an InputError for v", tc.typ, tc.raw, got, err)
			}
			continue
		}
		if err != nil || !equalJSON(got, tc.want) {
			t.Errorf("Typed(%s, %q) = %#v, %v; want %#v", tc.typ, tc.raw, got, err, tc.want)
		}
	}
}

func equalJSON(a, b any) bool {
	ha, err1 := skill.HashValue(a)
	hb, err2 := skill.HashValue(b)
	return err1 == nil && err2 == nil && ha == hb
}

func TestPlaceholdersAndFill(t *testing.T) {
	task := "Find {city} weather, then {city} again and {days} days"
	if got := strings.Join(teach.Placeholders(task), ","); got != "city,days" {
		t.Errorf("Placeholders = %s", got)
	}
	got, err := teach.Fill(task, map[string]any{"city": "Oslo", "days": 3.0})
	if err != nil || got != "Find Oslo weather, then Oslo again and 3 days" {
		t.Errorf("Fill = %q, %v", got, err)
	}
}

func TestScenarioPlan(t *testing.T) {
	p, err := teach.FromScenario(fixtures.BasicPromptToManifest, []teach.Value{{Name: "page_url", Raw: "https://docs.workbench.test/install"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.WorldName != "docs-and-git" || len(p.World) == 0 {
		t.Errorf("world %q (%d bytes)", p.WorldName, len(p.World))
	}
	if !strings.Contains(p.Task.Description, "https://docs.workbench.test/install") {
		t.Errorf("task %q lacks the given input", p.Task.Description)
	}
	if len(p.Declared) == 0 || p.Task.ScenarioID != fixtures.BasicPromptToManifest {
		t.Errorf("declared %v, scenario %q", p.Declared, p.Task.ScenarioID)
	}
}

// TestTeachFlow runs the whole flow the /teach page runs, with the
// OpenRouter stand-in as the model: plan, demonstrate, draft, rename, seal;
// then what a replay needs from the sealed bundle.
func TestTeachFlow(t *testing.T) {
	ctx := context.Background()
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "example/teacher", CostPerCall: 0.001, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
		openroutertest.Answer("The main heading is: Getting started"),
	}}))
	cl, p, bd := basicSetup(t, or)
	var steps []demonstrate.Progress
	res, err := teach.Demonstrate(ctx, p, teach.Options{Model: cl, ModelID: "example/teacher", Body: bd,
		Authorizer: policy.Default(), TrustedServer: true, Progress: func(pr demonstrate.Progress) { steps = append(steps, pr) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) == 0 {
		t.Error("no progress reported")
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	m, err := teach.Draft(p, res, now)
	if err != nil {
		t.Fatal(err)
	}
	m.Name, m.Slug, m.Description = "Read a heading", "read-a-heading", "Opens a docs page and reads its heading."
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	b, rep, err := teach.Seal(v, p, res, m, "example/teacher", now)
	if err != nil {
		t.Fatal(err)
	}
	if b.Manifest.Slug != "read-a-heading" || b.Manifest.Name != "Read a heading" {
		t.Errorf("the sealed manifest lost the user's edits: %q %q", b.Manifest.Name, b.Manifest.Slug)
	}
	if !teach.Ready(rep) {
		t.Errorf("a clean teaching is not ready: %+v", rep.Derived.ProofGates)
	}
	// The sealed skill replays: its inputs and its world are found again.
	wb := workbench.New(workbench.Deps{})
	s, err := wb.PrepareReplay(workbench.ReplayRequest{Bundle: b, Values: []teach.Value{{Name: "page_url", Raw: "https://docs.workbench.test/install"}}})
	if err != nil || s.Input["page_url"] != "https://docs.workbench.test/install" || s.World != "docs-and-git" {
		t.Errorf("PrepareReplay = %+v, %v", s, err)
	}
	if _, err := wb.PrepareReplay(workbench.ReplayRequest{Bundle: b, Values: []teach.Value{{Name: "city", Raw: "x"}}}); err == nil {
		t.Error("PrepareReplay took an input the skill does not declare")
	}
}

func TestDraftRefusesAnEmptyRun(t *testing.T) {
	p, err := teach.FromScenario(fixtures.BasicPromptToManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := teach.Draft(p, &demonstrate.Result{Stopped: demonstrate.StopAnswer}, now); !errors.Is(err, teach.ErrNothingDemonstrated) {
		t.Errorf("empty run: %v", err)
	}
	cause := errors.New("body unreachable")
	if _, err := teach.Draft(p, &demonstrate.Result{Stopped: demonstrate.StopError, Err: cause}, now); !errors.Is(err, cause) {
		t.Errorf("failed run: %v", err)
	}
}

// TestStopRecordingKeepsTheRecording: the user's Stop ends the run at the
// next step; the edges recorded so far make a draft, and the tool call the
// model asked for afterwards is never made.
func TestStopRecordingKeepsTheRecording(t *testing.T) {
	ctx := context.Background()
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "example/teacher", Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/install"}),
		openroutertest.Answer("done"),
	}}))
	cl, p, bd := basicSetup(t, or)
	stop := make(chan struct{})
	res, err := teach.Demonstrate(ctx, p, teach.Options{Model: cl, ModelID: "example/teacher", Body: bd,
		Authorizer: policy.Default(), TrustedServer: true, Stop: stop,
		Progress: func(pr demonstrate.Progress) {
			if pr.Phase == demonstrate.PhaseAct && pr.Edge != nil {
				close(stop)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != demonstrate.StopUser || len(res.Trace.Edges) != 1 {
		t.Fatalf("stopped %q with %d edges, want %q with 1", res.Stopped, len(res.Trace.Edges), demonstrate.StopUser)
	}
	if n := len(or.ChatRequests("example/teacher")); n != 1 {
		t.Errorf("%d model calls after the stop, want 1 in all", n)
	}
	if _, err := teach.Draft(p, res, time.Now()); err != nil {
		t.Errorf("a stopped recording with an edge was not drafted: %v", err)
	}
}

// failingBody is the simulator with a server that goes away: every call
// after the first fails as an unreachable server would.
type failingBody struct {
	*sim.Sim
	calls int
}

func (b *failingBody) Call(ctx context.Context, tool string, args map[string]any) (body.Result, error) {
	b.calls++
	if b.calls > 1 {
		return body.Result{}, errors.New("MCP server browser unreachable: connection refused")
	}
	return b.Sim.Call(ctx, tool, args)
}

// TestAFailedCallIsRecorded: when the body cannot answer a call, the
// demonstration stops with the error and its trace keeps the failed edge
// and why it failed; no draft is made from it.
func TestAFailedCallIsRecorded(t *testing.T) {
	ctx := context.Background()
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "example/teacher", Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/install"}),
		openroutertest.Answer("done"),
	}}))
	cl, p, s := basicSetup(t, or)
	res, err := teach.Demonstrate(ctx, p, teach.Options{Model: cl, ModelID: "example/teacher", Body: &failingBody{Sim: s},
		Authorizer: policy.Default(), TrustedServer: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != demonstrate.StopError || !strings.Contains(res.Err.Error(), "unreachable") {
		t.Fatalf("stopped %q: %v", res.Stopped, res.Err)
	}
	if len(res.Trace.Edges) != 2 {
		t.Fatalf("%d edges, want the good one and the failed one", len(res.Trace.Edges))
	}
	failed := res.Trace.Edges[1]
	if failed.OutcomeStatus != skill.OutcomeError || !strings.Contains(fmt.Sprint(failed.ObservedOutcome), "connection refused") {
		t.Errorf("failed edge: outcome %q, observed %v", failed.OutcomeStatus, failed.ObservedOutcome)
	}
	if failed.StateAfter == "" || res.Trace.Outcome != "failure" {
		t.Errorf("state after %q, trace outcome %q", failed.StateAfter, res.Trace.Outcome)
	}
	if _, err := teach.Draft(p, res, time.Now()); err == nil {
		t.Error("a failed demonstration was drafted")
	}
}

// basicSetup is what each flow test starts from: a client of the
// OpenRouter stand-in, the plan of the basic fixture scenario and a fresh
// simulator in its world.
func basicSetup(t *testing.T, or *openroutertest.Server) (*openrouter.Client, *teach.Plan, *sim.Sim) {
	t.Helper()
	cl, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.URL), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	p, err := teach.FromScenario(fixtures.BasicPromptToManifest, nil)
	if err != nil {
		t.Fatal(err)
	}
	bd, err := sim.New(p.World)
	if err != nil {
		t.Fatal(err)
	}
	return cl, p, bd
}
