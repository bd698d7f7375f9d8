//go:build bodies

package mcpbody_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody"
	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// replayOn replays a skill through the replay flow on bd, an MCP body
// already open, which the flow closes when the replay ends. No
// delegatic-mcp is configured here, so the local policy engine decides,
// as a user accepts it to; cl, when not nil, re-chooses the model's
// parameters.
func replayOn(t *testing.T, ctx context.Context, v *verify.Verifier, cl *openrouter.Client, bd *mcpbody.Body, req workbench.ReplayRequest) *workbench.ReplayResult {
	t.Helper()
	d := workbench.Deps{Verifier: workbench.UseVerifier(v),
		Bodies: func(context.Context, body.Kind, []byte) (body.Body, bool, error) { return bd, bd.Trusted(), nil }}
	if cl != nil {
		d.Models = func(context.Context) (workbench.Model, error) { return cl, nil }
	}
	w := workbench.New(d)
	req.AcceptLocalPolicy = true
	r, err := w.Replay(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Fallback || r.Authority != "local:"+skill.DefaultPolicyID {
		t.Errorf("authorized by %s (fallback %v), want the local engine on the user's say-so", r.Authority, r.Fallback)
	}
	return r
}

func verifier(t *testing.T) *verify.Verifier {
	t.Helper()
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func modelClient(t *testing.T, scripts ...openroutertest.Script) (*openrouter.Client, *openroutertest.Server) {
	t.Helper()
	or := openroutertest.New(t, openroutertest.WithScript(scripts...))
	cl, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.URL), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	return cl, or
}

// clickDocs is the replaying model: it reads the body's observation (the
// state as JSON) and clicks the element it shows as the link "Docs".
func clickDocs(t *testing.T) openroutertest.Step {
	return openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
		msg, _ := r.LastUser()
		_, obs, ok := strings.Cut(msg.Text(), "The body now shows:\n")
		var st struct {
			Page []any `json:"page"`
		}
		if !ok || json.Unmarshal([]byte(obs), &st) != nil {
			t.Errorf("the replaying model was not shown the page: %q", msg.Text())
			return openroutertest.Answer("I cannot see the page")
		}
		ref := findRef(st.Page, "link", "Docs")
		if ref == "" {
			return openroutertest.Answer("There is no Docs link on this page")
		}
		return openroutertest.ToolCall("browser_click", map[string]any{"element": "Docs link", "target": ref})
	})
}

// findRef finds the reference of the element {role: name} in a state tree.
func findRef(nodes []any, role, name string) string {
	for _, n := range nodes {
		m, _ := n.(map[string]any)
		if m[role] == name {
			ref, _ := m["ref"].(string)
			return ref
		}
		if kids, ok := m["children"].([]any); ok {
			if r := findRef(kids, role, name); r != "" {
				return r
			}
		}
	}
	return ""
}

// TestBrowserTeachAndReplay: a model demonstrates a small skill on a page
// the test serves, through Playwright MCP (open the shop, follow the Docs
// link, read the heading); the recording is crystallized and sealed into a
// bundle that verifies; a replay in a fresh browser context reproduces it
// and its bundle verifies with the replay gate passing; then the docs page
// changes its layout, and a replay halts at the click with a
// state_hash_mismatch.
func TestBrowserTeachAndReplay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pw := mcpbodytest.Playwright(t)
	web := startSite(t)
	v := verifier(t)

	teacher := openroutertest.Script{Model: "example/teacher", CostPerCall: 0.001, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": web.URL + "/"}),
		// The demonstrating model reads the link's reference from the
		// page the body showed after the navigation.
		openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
			res, _ := r.LastToolResult()
			marker := `link "Docs" [ref=`
			_, rest, ok := strings.Cut(res.Text(), marker)
			if !ok {
				t.Errorf("the navigation's result does not show the Docs link:\n%s", res.Text())
				return openroutertest.Answer("no Docs link")
			}
			return openroutertest.ToolCall("browser_click", map[string]any{"element": "Docs link", "target": rest[:strings.IndexByte(rest, ']')]})
		}),
		openroutertest.Answer("The main heading of the docs is: Getting started"),
	}}
	replayer := openroutertest.Script{Model: "example/replayer", CostPerCall: 0.0005, Steps: []openroutertest.Step{clickDocs(t), clickDocs(t)}}
	cl, or := modelClient(t, teacher, replayer)

	// Demonstrate.
	plan := &teach.Plan{
		Task: demonstrate.Task{ID: skill.NewID(), BodyChoice: body.KindBrowser, Inputs: map[string]any{},
			Description: "Open " + web.URL + "/ , follow the Docs link and tell me the main heading of the page it leads to."},
		Declared: []string{skill.CapabilityBrowser},
	}
	bd := dialBrowser(t, ctx, pw)
	res, err := teach.Demonstrate(ctx, plan, teach.Options{Model: cl, ModelID: "example/teacher", Body: bd,
		Authorizer: policy.Default(), TrustedServer: bd.Trusted()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != demonstrate.StopAnswer || len(res.Trace.Edges) != 2 {
		t.Fatalf("stopped %q (%v) with %d edges; want an answer after 2", res.Stopped, res.Err, len(res.Trace.Edges))
	}
	nav, click := res.Trace.Edges[0], res.Trace.Edges[1]
	if click.Tool.Name != "browser_click" || click.StateBefore != nav.StateAfter || click.StateAfter == click.StateBefore {
		t.Errorf("edges: %s %s→%s, %s %s→%s", nav.Tool.Name, nav.StateBefore, nav.StateAfter, click.Tool.Name, click.StateBefore, click.StateAfter)
	}
	for _, e := range res.Trace.Edges {
		if e.Authorization == nil || e.Authorization.Decision != skill.DecisionAllow || e.Capability != skill.CapabilityBrowser || e.Tool.Server != bd.Server() {
			t.Errorf("edge %d: authorization %+v, capability %q, server %q", e.Index, e.Authorization, e.Capability, e.Tool.Server)
		}
	}

	// Crystallize and seal.
	now := time.Now().UTC()
	m, err := teach.Draft(plan, res, now)
	if err != nil {
		t.Fatal(err)
	}
	m.Name, m.Slug, m.Description = "Read the docs heading", "read-the-docs-heading", "Opens the shop, follows the Docs link and reads its heading."
	b, rep, err := teach.Seal(v, plan, res, m, "example/teacher", now)
	if err != nil {
		t.Fatal(err)
	}
	if !teach.Ready(rep) {
		t.Fatalf("the taught bundle is not ready: verdict %s, gates %+v, overclaims %v", rep.Verdict, rep.Derived.ProofGates, rep.Overclaims)
	}
	if src := b.Trace.Edges[1].ParamSources["target"]; src != skill.SourceLLM {
		t.Errorf("the clicked reference is bound to %q, want the model", src)
	}

	// Replay in a fresh browser context, through the replay flow.
	again := dialBrowser(t, ctx, pw)
	r := replayOn(t, ctx, v, cl, again, workbench.ReplayRequest{Bundle: b, Model: "example/replayer"})
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	if st := r.Record.Report; st.Status != skill.StatusSuccess || st.EdgesCommitted != 2 || r.ModelCalls != 1 {
		t.Fatalf("replay: status %s, %d/%d committed, %d model calls, surprises %+v", st.Status, st.EdgesCommitted, st.EdgesAttempted, r.ModelCalls, st.SurpriseSignals)
	}
	for _, e := range r.Record.Edges {
		if e.Match != skill.MatchExact {
			t.Errorf("replayed edge %d matched %s, want exact: the same page must hash alike in a fresh context", e.Index, e.Match)
		}
	}
	// What `workbench verify` checks: the exported bytes of the new
	// version, with the replay, pass every gate.
	data, err := r.Bundle.Encode()
	if err != nil {
		t.Fatal(err)
	}
	vr, err := v.Bytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if vr.Verdict != skill.VerdictPass {
		t.Fatalf("the replayed bundle verifies as %s: %+v %v", vr.Verdict, vr.Derived.ProofGates, vr.Overclaims)
	}

	// The docs page changes its layout: replay halts at the click.
	web.setDocs("relaid")
	third := dialBrowser(t, ctx, pw)
	r2 := replayOn(t, ctx, v, cl, third, workbench.ReplayRequest{Bundle: r.Bundle, Model: "example/replayer"})
	if r2.Err != nil {
		t.Fatal(r2.Err)
	}
	rep2 := r2.Record.Report
	if rep2.Status != skill.StatusHalted || rep2.HaltedAtEdge == nil || *rep2.HaltedAtEdge != 1 || rep2.EdgesCommitted != 1 {
		t.Fatalf("after the change: status %s, halted at %v, %d committed; want halted at edge 1", rep2.Status, rep2.HaltedAtEdge, rep2.EdgesCommitted)
	}
	if len(rep2.SurpriseSignals) != 1 {
		t.Fatalf("surprises %+v", rep2.SurpriseSignals)
	}
	s := rep2.SurpriseSignals[0]
	if s.Kind != skill.KindStateHashMismatch || s.EdgeIndex != 1 || s.PredictedStateHash != click.StateAfter ||
		s.ActualStateHash == "" || s.ActualStateHash == s.PredictedStateHash {
		t.Errorf("surprise %+v", s)
	}
	t.Logf("after the change, edge 1: %s (%s)", s.Detail, s.SurpriseKind)
	if r2.Report.Derived.OverallVerdict == skill.VerdictPass {
		t.Errorf("a halted replay's bundle still verifies as pass")
	}
	if p := or.Problems(); len(p) > 0 {
		t.Errorf("the model stand-in saw requests OpenRouter would refuse: %v", p)
	}
}
