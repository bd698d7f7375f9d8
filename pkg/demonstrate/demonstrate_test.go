package demonstrate_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/pulse"
	"workbench/pkg/skill"
)

// hashless hides the simulator's hash shortcut (body.Hasher): its states
// are hashed from State, as an MCP body's are.
type hashless struct{ body.Body }

// broken is a simulator that fails where told.
type broken struct {
	*sim.Sim
	tools, call, state error
}

func (b *broken) Tools(ctx context.Context) ([]body.Tool, error) {
	if b.tools != nil {
		return nil, b.tools
	}
	return b.Sim.Tools(ctx)
}

func (b *broken) Call(ctx context.Context, tool string, args map[string]any) (body.Result, error) {
	if b.call != nil {
		return body.Result{}, b.call
	}
	return b.Sim.Call(ctx, tool, args)
}

func (b *broken) StateHashes(ctx context.Context) (string, string, error) {
	if b.state != nil {
		return "", "", b.state
	}
	return b.Sim.StateHashes(ctx)
}

// badSchema is a simulator one of whose tools has an input schema that
// does not compile.
type badSchema struct{ *sim.Sim }

func (b badSchema) Tools(ctx context.Context) ([]body.Tool, error) {
	ts, err := b.Sim.Tools(ctx)
	ts[0].InputSchema = []byte(`{"type": 7}`)
	return ts, err
}

const model = "test/model"

func docsWorld(t *testing.T) *sim.Sim {
	t.Helper()
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func client(t *testing.T, steps ...openroutertest.Step) (*openrouter.Client, *openroutertest.Server) {
	t.Helper()
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: model, Steps: steps, CostPerCall: 0.001}))
	// net/http, not the default: under js/wasm the default is the
	// JavaScript fetch, which cannot reach the in-process test server.
	c, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	return c, or
}

var (
	openDocs   = openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"})
	clickHome  = openroutertest.ToolCall("browser_click", map[string]any{"name": "Documentation home", "role": "link"})
	writeNote  = openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/note.txt", "content": "hi"})
	clickNone  = openroutertest.ToolCall("browser_click", map[string]any{"name": "Nowhere"})
	answerDone = openroutertest.Answer("Done.")
)

// TestRunSteps follows the loop — the model is asked, the body perceived,
// the action authorized, performed and recorded — with a case for each way
// a turn ends: an action recorded, refused, failed, or no action at all.
func TestRunSteps(t *testing.T) {
	type edge struct {
		tool    string
		outcome string
	}
	for _, tc := range []struct {
		name    string
		steps   []openroutertest.Step
		body    func(*sim.Sim) body.Body
		opts    func(*demonstrate.Options)
		stop    bool // close Options.Stop before the run
		stopped string
		edges   []edge
		outcome string
		answer  string
		replies []string // the workbench's answers to the model, in order
		err     string   // in Result.Err
	}{
		{name: "an answer at once", steps: []openroutertest.Step{openroutertest.Answer("Nothing to do.")},
			stopped: demonstrate.StopAnswer, outcome: "success", answer: "Nothing to do."},
		{name: "a refusal is the answer", steps: []openroutertest.Step{openroutertest.Refuse("I will not.")},
			stopped: demonstrate.StopAnswer, outcome: "success", answer: "I will not."},
		{name: "actions, then an answer", steps: []openroutertest.Step{openDocs, clickHome, answerDone},
			stopped: demonstrate.StopAnswer, outcome: "success", answer: "Done.",
			edges: []edge{{"browser_navigate", skill.OutcomeOK}, {"browser_click", skill.OutcomeOK}}},
		{name: "a body hashed from its state", steps: []openroutertest.Step{openDocs, answerDone},
			body:    func(s *sim.Sim) body.Body { return hashless{s} },
			stopped: demonstrate.StopAnswer, outcome: "success", edges: []edge{{"browser_navigate", skill.OutcomeOK}}},
		{name: "two calls in one reply", steps: []openroutertest.Step{openroutertest.ToolCalls(
			openroutertest.Call{Name: "browser_navigate", Args: map[string]any{"url": "https://docs.workbench.test/"}},
			openroutertest.Call{Name: "browser_snapshot", Args: map[string]any{}}), answerDone},
			stopped: demonstrate.StopAnswer, outcome: "success",
			edges: []edge{{"browser_navigate", skill.OutcomeOK}, {"browser_snapshot", skill.OutcomeOK}}},
		// What is not a usable action never becomes an edge (moved from
		// pkg/assemble's malformed-replies scenario).
		{name: "not usable actions", steps: []openroutertest.Step{
			openroutertest.ToolCall("browser_teleport", map[string]any{"to": "anywhere"}),
			openroutertest.ToolCallRaw("browser_navigate", `[1]`),
			openroutertest.ToolCall("browser_navigate", map[string]any{"href": "https://docs.workbench.test/"}),
			openDocs, answerDone},
			stopped: demonstrate.StopAnswer, outcome: "success", edges: []edge{{"browser_navigate", skill.OutcomeOK}},
			replies: []string{`no tool named "browser_teleport"`, "could not be read", "do not fit its input schema"}},
		// Offer: a tool of a capability the task is not granted is not
		// shown to the model, and asking for it is asking for no tool.
		{name: "an undeclared tool is not offered", steps: []openroutertest.Step{writeNote, answerDone},
			stopped: demonstrate.StopAnswer, outcome: "success", answer: "Done.",
			replies: []string{`no tool named "file_write"`}},
		// Authorize: a refused action is recorded, never performed. A
		// fixture that tests the refusal offers what it does not declare.
		{name: "the policy refuses", steps: []openroutertest.Step{writeNote, answerDone},
			opts:    func(o *demonstrate.Options) { o.Offered = []string{skill.CapabilityBrowser, skill.CapabilityOS} },
			stopped: demonstrate.StopAnswer, outcome: "partial", edges: []edge{{"file_write", skill.OutcomeDenied}},
			replies: []string{"refused by policy"}},
		// Act: the tool fails, or the call cannot be made.
		{name: "the tool reports an error", steps: []openroutertest.Step{openDocs, clickNone, answerDone},
			stopped: demonstrate.StopAnswer, outcome: "partial",
			edges:   []edge{{"browser_navigate", skill.OutcomeOK}, {"browser_click", skill.OutcomeError}},
			replies: []string{"Opened", "error: "}},
		{name: "the call cannot be made", steps: []openroutertest.Step{openDocs},
			body:    func(s *sim.Sim) body.Body { return &broken{Sim: s, call: errors.New("server gone")} },
			stopped: demonstrate.StopError, outcome: "failure", edges: []edge{{"browser_navigate", skill.OutcomeError}},
			err: "call browser_navigate: server gone"},
		{name: "the body cannot be observed", steps: []openroutertest.Step{openDocs},
			body:    func(s *sim.Sim) body.Body { return &broken{Sim: s, state: errors.New("no screen")} },
			stopped: demonstrate.StopError, outcome: "failure", err: "observe the body: no screen"},
		// How else a run ends.
		{name: "the step limit", steps: []openroutertest.Step{openDocs, clickHome},
			opts:    func(o *demonstrate.Options) { o.MaxSteps = 1 },
			stopped: demonstrate.StopStepLimit, outcome: "partial", edges: []edge{{"browser_navigate", skill.OutcomeOK}}},
		{name: "the model fails", steps: []openroutertest.Step{openroutertest.Error(500, "upstream down")},
			stopped: demonstrate.StopError, outcome: "failure", err: "model: openrouter: 500"},
		{name: "stopped by the user before the first turn", steps: []openroutertest.Step{openDocs}, stop: true,
			stopped: demonstrate.StopUser, outcome: "partial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, or := client(t, tc.steps...)
			var bd body.Body = docsWorld(t)
			if tc.body != nil {
				bd = tc.body(bd.(*sim.Sim))
			}
			var phases []demonstrate.StepPhase
			opt := demonstrate.Options{
				Model: c, ModelID: model, Body: bd, Authorizer: policy.Default(),
				Declared: []string{skill.CapabilityBrowser}, TrustedServer: true,
				Progress: func(p demonstrate.Progress) { phases = append(phases, p.Phase) },
			}
			if tc.stop {
				stop := make(chan struct{})
				close(stop)
				opt.Stop = stop
			}
			if tc.opts != nil {
				tc.opts(&opt)
			}
			task := demonstrate.Task{ID: skill.NewID(), Description: "Read the docs.", Inputs: map[string]any{"site": "docs"}}
			res, err := demonstrate.Run(context.Background(), task, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stopped != tc.stopped || res.Trace.Outcome != tc.outcome || tc.answer != "" && res.Answer != tc.answer {
				t.Fatalf("stopped %s, outcome %s, answer %q (err %v); want %s, %s, %q", res.Stopped, res.Trace.Outcome, res.Answer, res.Err, tc.stopped, tc.outcome, tc.answer)
			}
			if tc.err == "" && res.Err != nil || tc.err != "" && (res.Err == nil || !strings.Contains(res.Err.Error(), tc.err)) {
				t.Errorf("err %v, want %q", res.Err, tc.err)
			}
			var got []edge
			for i, e := range res.Trace.Edges {
				got = append(got, edge{e.Tool.Name, e.OutcomeStatus})
				checkEdge(t, i, e, bd.Server())
			}
			if !slices.Equal(got, tc.edges) {
				t.Errorf("edges %v, want %v", got, tc.edges)
			}
			if len(res.ToolCalls) != len(res.Trace.Edges) {
				t.Errorf("%d tool call hashes for %d edges", len(res.ToolCalls), len(res.Trace.Edges))
			}
			var replies []string
			for _, turn := range res.Transcript {
				if turn.Role == "tool" || turn.Role == "user" && strings.HasPrefix(*turn.Content, "error:") {
					replies = append(replies, *turn.Content)
				}
			}
			for i, want := range tc.replies {
				if i >= len(replies) || !strings.Contains(replies[i], want) {
					t.Errorf("reply %d of %q does not say %q", i, replies, want)
				}
			}
			// The recorder closes the run with its outcome, and the UI
			// heard that it stopped.
			if len(phases) == 0 || phases[len(phases)-1] != demonstrate.PhaseStopped {
				t.Errorf("progress phases %v end without stopped", phases)
			}
			ev := res.Recorder.Events()
			if len(ev) == 0 || !strings.HasSuffix(ev[len(ev)-1].Type, pulse.TokenOutcomeSignal) {
				t.Errorf("the last event is not the outcome: %+v", ev[len(ev)-1].Type)
			}
			// The model was told the task and its inputs.
			if reqs := or.ChatRequests(model); len(reqs) > 0 {
				if u, _ := reqs[0].LastUser(); !strings.Contains(u.Text(), `Inputs: {"site":"docs"}`) {
					t.Errorf("the first request's task: %q", u.Text())
				}
			}
		})
	}
}

// checkEdge holds an edge to the trace's invariants: state hashes before
// and after, a decision in scope, the concrete call and every parameter
// marked as the model's choice.
func checkEdge(t *testing.T, i int, e skill.Edge, server string) {
	t.Helper()
	if e.Index != i || e.EdgeID == "" || !strings.HasPrefix(e.StateBefore, skill.HashPrefix) || !strings.HasPrefix(e.ShapeBefore, skill.HashPrefix) {
		t.Errorf("edge %d: index %d, id %q, before %q/%q", i, e.Index, e.EdgeID, e.StateBefore, e.ShapeBefore)
	}
	if e.OutcomeStatus != skill.OutcomeError && (e.StateAfter == "" || e.ShapeAfter == "") {
		t.Errorf("edge %d: no state after", i)
	}
	if e.OutcomeStatus == skill.OutcomeDenied && (e.StateAfter != e.StateBefore || e.Authorization.Decision == skill.DecisionAllow) {
		t.Errorf("edge %d: a refused action changed the state or was allowed", i)
	}
	if e.Authorization == nil || e.Tool.Server != server || e.Provenance.Operation != e.Tool.Name || e.Capability == "" {
		t.Errorf("edge %d: authorization %v, server %q, provenance %+v, capability %q", i, e.Authorization, e.Tool.Server, e.Provenance, e.Capability)
	}
	for p := range e.TypedAction.Params {
		if e.ParamSources[p] != skill.SourceLLM {
			t.Errorf("edge %d: parameter %s has source %q during a demonstration", i, p, e.ParamSources[p])
		}
	}
	if role, _ := e.TypedAction.Params["role"].(string); role != "" && (e.TypedAction.SemanticLocator == nil || e.TypedAction.SemanticLocator.Role != role) {
		t.Errorf("edge %d: a click on a named link has locator %+v", i, e.TypedAction.SemanticLocator)
	}
}

// A user who stops the recording while the model answers keeps what was
// recorded; the call the model asked for after the stop is not made.
func TestStopWhileTheModelAnswers(t *testing.T) {
	stop := make(chan struct{})
	c, _ := client(t, openDocs, openroutertest.Func(func(*openroutertest.ChatRequest) openroutertest.Step {
		close(stop)
		return clickHome
	}))
	res, err := demonstrate.Run(context.Background(), demonstrate.Task{ID: skill.NewID(), Description: "Read the docs."}, demonstrate.Options{
		Model: c, ModelID: model, Body: docsWorld(t), Authorizer: policy.Default(),
		Declared: []string{skill.CapabilityBrowser}, TrustedServer: true, Stop: stop,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != demonstrate.StopUser || len(res.Trace.Edges) != 1 || res.Trace.Outcome != "partial" {
		t.Fatalf("stopped %s with %d edges, outcome %s", res.Stopped, len(res.Trace.Edges), res.Trace.Outcome)
	}
	if last := *res.Transcript[len(res.Transcript)-1].Content; !strings.Contains(last, "not called: browser_click") {
		t.Errorf("the transcript ends %q", last)
	}
}

// Cancelling ends the run as aborted, between turns or during a model
// call, and keeps what was recorded.
func TestCancelled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		steps  []openroutertest.Step
		during demonstrate.StepPhase // the progress phase that cancels
		edges  int
	}{
		{"between turns", []openroutertest.Step{openDocs, clickHome}, demonstrate.PhaseAct, 1},
		{"during a model call", []openroutertest.Step{openroutertest.Hang()}, demonstrate.PhaseModel, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := client(t, tc.steps...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			opt := demonstrate.Options{Model: c, ModelID: model, Body: docsWorld(t), Authorizer: policy.Default(),
				Declared: []string{skill.CapabilityBrowser}, TrustedServer: true,
				Progress: func(p demonstrate.Progress) {
					if p.Phase == tc.during {
						cancel()
					}
				}}
			res, err := demonstrate.Run(ctx, demonstrate.Task{ID: skill.NewID(), Description: "Read the docs."}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stopped != demonstrate.StopCancelled || res.Trace.Outcome != "aborted" || !errors.Is(res.Err, context.Canceled) || len(res.Trace.Edges) != tc.edges {
				t.Errorf("stopped %s, outcome %s, err %v, %d edges", res.Stopped, res.Trace.Outcome, res.Err, len(res.Trace.Edges))
			}
		})
	}
}

// Run refuses to start without what it needs.
func TestRunRejects(t *testing.T) {
	c, or := client(t)
	for _, tc := range []struct {
		name string
		opts func(*demonstrate.Options)
		want string
	}{
		{"no model", func(o *demonstrate.Options) { o.Model = nil }, "are required"},
		{"no model id", func(o *demonstrate.Options) { o.ModelID = "" }, "are required"},
		{"no authorizer", func(o *demonstrate.Options) { o.Authorizer = nil }, "are required"},
		{"tools cannot be listed", func(o *demonstrate.Options) { o.Body = &broken{Sim: o.Body.(*sim.Sim), tools: errors.New("offline")} }, "list the body's tools: offline"},
		{"a tool schema does not compile", func(o *demonstrate.Options) {
			o.Body, o.Declared = badSchema{o.Body.(*sim.Sim)}, []string{skill.CapabilityBrowser, skill.CapabilityOS}
		}, "input schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := demonstrate.Options{Model: c, ModelID: model, Body: docsWorld(t), Authorizer: policy.Default()}
			tc.opts(&opt)
			if _, err := demonstrate.Run(context.Background(), demonstrate.Task{Description: "x"}, opt); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
	if n := len(or.Requests()); n != 0 {
		t.Errorf("%d requests for runs that could not start", n)
	}
}

// The model is shown the tools of the granted capabilities and the
// ambient ones, never the others: granted &body.browser only, the
// simulator's file and shell tools are not in the request the model gets.
func TestRunOffersDeclaredTools(t *testing.T) {
	for _, tc := range []struct {
		name     string
		declared []string
		want     []string // tools that must be offered
		not      []string // tools that must not
	}{
		{"browser only", []string{skill.CapabilityBrowser}, []string{"browser_navigate", "browser_click"}, []string{"file_write", "file_read", "shell_exec"}},
		{"host only", []string{skill.CapabilityOS}, []string{"file_write", "shell_exec"}, []string{"browser_navigate"}},
		{"both", []string{skill.CapabilityBrowser, skill.CapabilityOS}, []string{"browser_navigate", "file_write", "shell_exec"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, or := client(t, answerDone)
			opt := demonstrate.Options{Model: c, ModelID: model, Body: docsWorld(t), Authorizer: policy.Default(), Declared: tc.declared, TrustedServer: true}
			if _, err := demonstrate.Run(context.Background(), demonstrate.Task{ID: skill.NewID(), Description: "Read the docs."}, opt); err != nil {
				t.Fatal(err)
			}
			reqs := or.ChatRequests(model)
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			names := reqs[0].ToolNames()
			for _, w := range tc.want {
				if !slices.Contains(names, w) {
					t.Errorf("%s is not offered (offered: %v)", w, names)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(names, n) {
					t.Errorf("%s is offered although the task may not use it (offered: %v)", n, names)
				}
			}
		})
	}
}
