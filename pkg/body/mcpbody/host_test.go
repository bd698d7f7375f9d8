//go:build bodies

package mcpbody_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody"
	"workbench/pkg/body/mcpbody/mcpbodytest"

	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"

	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/workbench"
)

// workspace makes the directory the host body works in.
func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agenda.txt"), []byte("Meeting at 10\nLunch at 12\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "archive"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func dialHost(t *testing.T, ctx context.Context, url, dir string, trusted bool) *mcpbody.Body {
	t.Helper()
	bd, err := mcpbody.Dial(ctx, url, mcpbody.Options{Kind: body.KindHost, Trusted: trusted,
		Perceive: mcpbody.Perceive{Tool: "directory_tree", Arguments: map[string]any{"path": dir}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bd.Close(context.Background()) })
	return bd
}

// hostPlan is a read then a write in dir.
func hostPlan(dir string) *teach.Plan {
	return &teach.Plan{
		Task: demonstrate.Task{ID: skill.NewID(), BodyChoice: body.KindHost, Inputs: map[string]any{},
			Description: "Read " + filepath.Join(dir, "agenda.txt") + ", then write the word done to " + filepath.Join(dir, "status.txt") + "."},
		Declared: []string{skill.CapabilityOS},
	}
}

func hostTeacher(model, dir string) openroutertest.Script {
	return openroutertest.Script{Model: model, Steps: []openroutertest.Step{
		openroutertest.ToolCall("read_text_file", map[string]any{"path": filepath.Join(dir, "agenda.txt")}),
		openroutertest.ToolCall("write_file", map[string]any{"path": filepath.Join(dir, "status.txt"), "content": "done"}),
		openroutertest.Answer("The agenda starts with a meeting at 10; status.txt says done."),
	}}
}

// TestHostTrust: the filesystem server's annotations count only when the
// user trusts it. Untrusted, its read-only tool is an unknown effect,
// which the default policy denies on the host like a write.
func TestHostTrust(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := workspace(t)
	fs := mcpbodytest.Filesystem(t, dir)
	for _, tc := range []struct {
		trusted bool
		tool    string
		want    string
	}{
		{true, "read_text_file", skill.DecisionAllow},
		{true, "write_file", skill.DecisionDeny},
		{false, "read_text_file", skill.DecisionDeny},
		{false, "write_file", skill.DecisionDeny},
	} {
		bd := dialHost(t, ctx, fs.URL, dir, tc.trusted)
		tools, err := bd.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var tool body.Tool
		for _, tl := range tools {
			if tl.Name == tc.tool {
				tool = tl
			}
		}
		if tool.Capability != skill.CapabilityOS {
			t.Fatalf("tool %s: %+v", tc.tool, tool)
		}
		if !tc.trusted && (tool.Annotations.ReadOnlyHint != nil || tool.Annotations.DestructiveHint != nil) {
			t.Errorf("an untrusted server's hints reached the caller: %+v", tool.Annotations)
		}
		a, err := policy.Default().Authorize(ctx, policy.Request{Capability: tool.Capability, ActionType: "os." + tool.Name,
			Tool: tool.Name, Annotations: tool.Annotations, TrustedServer: bd.Trusted(), Declared: []string{skill.CapabilityOS}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Decision != tc.want {
			t.Errorf("trusted %v, %s: %s (%s), want %s", tc.trusted, tc.tool, a.Decision, a.Reason, tc.want)
		}
	}
}

// TestHostTeachAndReplay: through the reference filesystem server, a read
// then a write. Without destructive mode the write is refused and never
// made; with it, the skill is taught, sealed, and replayed on the
// restored directory with exact state matches and a bundle that verifies;
// replayed without destructive mode, it halts at the write.
func TestHostTeachAndReplay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := workspace(t)
	fs := mcpbodytest.Filesystem(t, dir)
	v := verifier(t)
	cl, or := modelClient(t, hostTeacher("example/careful", dir), hostTeacher("example/teacher", dir))
	status := filepath.Join(dir, "status.txt")

	// Destructive mode off: the read is made, the write refused.
	plan := hostPlan(dir)
	bd := dialHost(t, ctx, fs.URL, dir, true)
	res, err := teach.Demonstrate(ctx, plan, teach.Options{Model: cl, ModelID: "example/careful", Body: bd,
		Authorizer: policy.Default(), TrustedServer: bd.Trusted()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Trace.Edges) != 2 || res.Trace.Edges[0].OutcomeStatus != skill.OutcomeOK || res.Trace.Edges[1].OutcomeStatus != skill.OutcomeDenied {
		t.Fatalf("without destructive mode: %d edges %+v", len(res.Trace.Edges), res.Trace.Edges)
	}
	if _, err := os.Stat(status); !os.IsNotExist(err) {
		t.Fatalf("a refused write reached the disk: %v", err)
	}
	if got, _ := json.Marshal(res.Trace.Edges[0].ObservedOutcome); !strings.Contains(string(got), "Meeting at 10") {
		t.Errorf("the read returned %s", got)
	}

	// Destructive mode on: both happen; teach the skill.
	plan = hostPlan(dir)
	bd = dialHost(t, ctx, fs.URL, dir, true)
	res, err = teach.Demonstrate(ctx, plan, teach.Options{Model: cl, ModelID: "example/teacher", Body: bd,
		Authorizer: policy.Default(), TrustedServer: bd.Trusted(), DestructiveMode: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != demonstrate.StopAnswer || len(res.Trace.Edges) != 2 {
		t.Fatalf("stopped %q (%v) with %d edges", res.Stopped, res.Err, len(res.Trace.Edges))
	}
	write := res.Trace.Edges[1]
	if write.OutcomeStatus != skill.OutcomeOK || write.StateAfter == write.StateBefore || write.ShapeAfter != write.ShapeBefore {
		t.Errorf("the write: %s, state %s→%s, shape %s→%s (a new file: other state, same shape)", write.OutcomeStatus, write.StateBefore, write.StateAfter, write.ShapeBefore, write.ShapeAfter)
	}
	if data, err := os.ReadFile(status); err != nil || string(data) != "done" {
		t.Fatalf("status.txt: %q, %v", data, err)
	}
	now := time.Now().UTC()
	m, err := teach.Draft(plan, res, now)
	if err != nil {
		t.Fatal(err)
	}
	if m.Binding != "substrate_only" {
		t.Errorf("binding %s: every parameter is in the task, so replay needs no model", m.Binding)
	}
	m.Name, m.Slug = "Mark the agenda done", "mark-the-agenda-done"
	b, rep, err := teach.Seal(v, plan, res, m, "example/teacher", now)
	if err != nil {
		t.Fatal(err)
	}
	if !teach.Ready(rep) {
		t.Fatalf("not ready: %s %+v %v", rep.Verdict, rep.Derived.ProofGates, rep.Overclaims)
	}

	// Replay on the directory as it was.
	if err := os.Remove(status); err != nil {
		t.Fatal(err)
	}
	again := dialHost(t, ctx, fs.URL, dir, true)
	r := replayOn(t, ctx, v, nil, again, workbench.ReplayRequest{Bundle: b, Destructive: true})
	if rp := r.Record.Report; rp.Status != skill.StatusSuccess || rp.EdgesCommitted != 2 {
		t.Fatalf("replay: %s, %d committed, %+v", rp.Status, rp.EdgesCommitted, rp.SurpriseSignals)
	}
	for _, e := range r.Record.Edges {
		if e.Match != skill.MatchExact {
			t.Errorf("edge %d matched %s", e.Index, e.Match)
		}
	}
	if r.Report.Verdict != skill.VerdictPass {
		t.Errorf("the replayed bundle verifies as %s: %+v", r.Report.Verdict, r.Report.Derived.ProofGates)
	}

	// Without destructive mode, replay halts at the write, before making it.
	if err := os.Remove(status); err != nil {
		t.Fatal(err)
	}
	third := dialHost(t, ctx, fs.URL, dir, true)
	r2 := replayOn(t, ctx, v, nil, third, workbench.ReplayRequest{Bundle: b})
	rp := r2.Record.Report
	if rp.Status != skill.StatusHalted || rp.HaltedAtEdge == nil || *rp.HaltedAtEdge != 1 || len(rp.SurpriseSignals) != 1 || rp.SurpriseSignals[0].Kind != skill.KindPolicyDeny {
		t.Errorf("replay without destructive mode: %s at %v, %+v", rp.Status, rp.HaltedAtEdge, rp.SurpriseSignals)
	}
	if _, err := os.Stat(status); !os.IsNotExist(err) {
		t.Errorf("a write refused on replay reached the disk: %v", err)
	}
	if p := or.Problems(); len(p) > 0 {
		t.Errorf("the model stand-in saw requests OpenRouter would refuse: %v", p)
	}
}
