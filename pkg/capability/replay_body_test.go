package capability

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// TestReplayOnAnMCPBody: the palette replays a skill taught on a browser
// through its body factory, asks before the local engine stands in for
// delegatic-mcp, and says what is missing without a factory.
func TestReplayOnAnMCPBody(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile("../../fixtures/valid-skill-bundle.v0.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	s, err := workbench.New(workbench.Deps{}).PrepareReplay(workbench.ReplayRequest{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	world := s.WorldData
	b.Manifest.BodyChoice = body.KindBrowser
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	st := mem.New()
	f, err := store.EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddBundle(ctx, f); err != nil {
		t.Fatal(err)
	}
	browser := func(ctx context.Context, kind body.Kind, _ []byte) (body.Body, bool, error) {
		bd, err := sim.New(world) // a browser's stand-in
		return bd, true, err
	}
	in := func(accept bool) json.RawMessage {
		data, _ := json.Marshal(map[string]any{"skill_id": b.SkillID, "accept_local_policy": accept})
		return data
	}
	yes := func() bool { return true }
	no := func() bool { return false }
	for _, tc := range []struct {
		name     string
		bodies   workbench.BodyFactory
		accept   bool
		standing func() bool // the tab's answer
		want     string      // in the error; "" means it replays
	}{
		{"no body factory", nil, true, nil, "no way to open one"},
		{"delegatic-mcp missing", browser, false, nil, "accept_local_policy"},
		{"delegatic-mcp missing, the tab said no", browser, false, no, "accept_local_policy"},
		{"local engine accepted", browser, true, nil, ""},
		{"local engine accepted by the tab", browser, false, yes, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := withFlows(&BuiltIn{Store: st, Verifier: v}, workbench.Deps{Bodies: tc.bodies, AcceptsLocalPolicy: tc.standing})
			out, err := w.replay(ctx, in(tc.accept))
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want one saying %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := out.(map[string]any)
			// Each replay saves the skill's next version.
			if n, _ := m["saved_version"].(int); m["authorizer"] != "local:"+skill.DefaultPolicyID || n <= b.SkillVersion {
				t.Errorf("replay: %v", m)
			}
			// In words: the outcome, and each step with what the body
			// answered.
			steps, _ := m["steps"].([]map[string]any)
			if m["outcome"] != "success" || len(steps) != len(b.Trace.Edges) || !strings.Contains(steps[0]["answered"].(string), "Latest release") {
				t.Errorf("outcome %v, steps %v", m["outcome"], steps)
			}
		})
	}
}
