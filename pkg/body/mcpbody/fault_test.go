//go:build bodies

package mcpbody_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/workbench"
)

// TestHostServerGoesAway: the server goes away between the model's two
// calls. The demonstration stops with StopError and the error naming the
// unreachable server; what happened before is kept; the write is never
// made. A skill taught before the outage then replays up to the outage and
// halts at the next edge, saying why.
func TestHostServerGoesAway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := workspace(t)
	v := verifier(t)

	// Teach the skill while the server is up.
	fs := mcpbodytest.Filesystem(t, dir)
	outage := mcpbodytest.Filesystem(t, dir)
	doomed := openroutertest.Script{Model: "example/doomed", Steps: []openroutertest.Step{
		openroutertest.ToolCall("read_text_file", map[string]any{"path": filepath.Join(dir, "agenda.txt")}),
		openroutertest.Func(func(*openroutertest.ChatRequest) openroutertest.Step {
			outage.Stop()
			return openroutertest.ToolCall("write_file", map[string]any{"path": filepath.Join(dir, "status.txt"), "content": "done"})
		}),
		openroutertest.Answer("unreachable"),
	}}
	cl, _ := modelClient(t, hostTeacher("example/teacher", dir), doomed)
	plan := hostPlan(dir)
	bd := dialHost(t, ctx, fs.URL, dir, true)
	res, err := teach.Demonstrate(ctx, plan, teach.Options{Model: cl, ModelID: "example/teacher", Body: bd,
		Authorizer: policy.Default(), TrustedServer: true, DestructiveMode: true})
	if err != nil || res.Stopped != demonstrate.StopAnswer {
		t.Fatalf("teaching: %v, %+v", err, res)
	}
	now := time.Now().UTC()
	m, err := teach.Draft(plan, res, now)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := teach.Seal(v, plan, res, m, "example/teacher", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "status.txt")); err != nil {
		t.Fatal(err)
	}

	// The server goes away in the middle of a demonstration.
	gone := dialHost(t, ctx, outage.URL, dir, true)
	res, err = teach.Demonstrate(ctx, hostPlan(dir), teach.Options{Model: cl, ModelID: "example/doomed", Body: gone,
		Authorizer: policy.Default(), TrustedServer: true, DestructiveMode: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != demonstrate.StopError || res.Err == nil || !strings.Contains(res.Err.Error(), "cannot reach") {
		t.Fatalf("stopped %q with %v; want %q naming the unreachable server", res.Stopped, res.Err, demonstrate.StopError)
	}
	t.Logf("demonstration stopped: %v", res.Err)
	if len(res.Trace.Edges) != 1 || res.Trace.Edges[0].Tool.Name != "read_text_file" || res.Trace.Outcome != "failure" {
		t.Errorf("trace: outcome %q, %d edges", res.Trace.Outcome, len(res.Trace.Edges))
	}
	if _, err := teach.Draft(hostPlan(dir), res, now); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("a failed demonstration was drafted, or without its cause: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "status.txt")); !os.IsNotExist(err) {
		t.Errorf("the write happened: %v", err)
	}

	// The server goes away after the first replayed edge.
	rb := dialHost(t, ctx, fs.URL, dir, true)
	r := replayOn(t, ctx, v, nil, rb, workbench.ReplayRequest{Bundle: b, Destructive: true,
		Progress: func(e skill.ReplayEdge) {
			if e.Index == 0 {
				fs.Stop()
			}
		},
	})
	rp := r.Record.Report
	if rp.Status != skill.StatusHalted || rp.HaltedAtEdge == nil || *rp.HaltedAtEdge != 1 || rp.EdgesCommitted != 1 || len(rp.SurpriseSignals) != 1 {
		t.Fatalf("replay: %s at %v, %d committed, %+v", rp.Status, rp.HaltedAtEdge, rp.EdgesCommitted, rp.SurpriseSignals)
	}
	s := rp.SurpriseSignals[0]
	if s.Kind != skill.KindOther || s.EdgeIndex != 1 || !strings.Contains(s.Detail, "cannot reach") {
		t.Errorf("surprise %+v", s)
	}
	t.Logf("replay halted: %s", s.Detail)
	if r.Report.Verdict == skill.VerdictPass {
		t.Error("a replay halted by an outage verifies as pass")
	}
}

// TestBrowserServerGoesAway: Playwright MCP and its Chromium are killed
// while the model is thinking; the demonstration stops with the error.
func TestBrowserServerGoesAway(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pw := mcpbodytest.Playwright(t)
	web := startSite(t)
	cl, _ := modelClient(t, openroutertest.Script{Model: "example/doomed", Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": web.URL + "/"}),
		openroutertest.Func(func(*openroutertest.ChatRequest) openroutertest.Step {
			pw.Stop()
			return openroutertest.ToolCall("browser_click", map[string]any{"element": "Docs link", "target": "e5"})
		}),
		openroutertest.Answer("unreachable"),
	}})
	bd := dialBrowser(t, ctx, pw)
	plan := &teach.Plan{Task: demonstrate.Task{ID: skill.NewID(), BodyChoice: body.KindBrowser, Inputs: map[string]any{},
		Description: "Open " + web.URL + "/ and follow the Docs link."}, Declared: []string{skill.CapabilityBrowser}}
	res, err := teach.Demonstrate(ctx, plan, teach.Options{Model: cl, ModelID: "example/doomed", Body: bd,
		Authorizer: policy.Default(), TrustedServer: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != demonstrate.StopError || res.Err == nil || !strings.Contains(res.Err.Error(), "cannot reach") {
		t.Fatalf("stopped %q with %v", res.Stopped, res.Err)
	}
	t.Logf("demonstration stopped: %v", res.Err)
	if len(res.Trace.Edges) != 1 || res.Trace.Outcome != "failure" {
		t.Errorf("trace: outcome %q, %d edges", res.Trace.Outcome, len(res.Trace.Edges))
	}
}
