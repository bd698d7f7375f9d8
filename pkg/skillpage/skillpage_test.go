package skillpage_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/skillpage"
	"workbench/pkg/verify"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func verifier(t *testing.T) *verify.Verifier {
	t.Helper()
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func decode(t *testing.T, data []byte) *skill.Bundle {
	t.Helper()
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestConformanceOfAPassingBundle(t *testing.T) {
	v := verifier(t)
	r, err := v.Bytes(fixture(t, "valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := skillpage.Conformance(r)
	if p.Verdict != r.Verdict || p.Derived != r.Derived.OverallVerdict || p.Claimed != r.Claimed.OverallVerdict {
		t.Errorf("overall %q claimed %q derived %q; report says %q, %q, %q", p.Verdict, p.Claimed, p.Derived, r.Verdict, r.Claimed.OverallVerdict, r.Derived.OverallVerdict)
	}
	var gates []string
	for _, g := range p.Gates {
		gates = append(gates, g.ID)
		if g.Derived == "" || g.Claimed == "" {
			t.Errorf("gate %s: claimed %q derived %q", g.ID, g.Claimed, g.Derived)
		}
		if g.Overclaim {
			t.Errorf("gate %s marked as overclaimed in a bundle without overclaims", g.ID)
		}
	}
	if strings.Join(gates, ",") != strings.Join(skillpage.GateIDs(), ",") {
		t.Errorf("gates %v, want the spec's six in order", gates)
	}
	var invs []string
	for _, i := range p.Invariants {
		invs = append(invs, i.ID)
		if i.Derived == "" {
			t.Errorf("invariant %s has no re-verified value", i.ID)
		}
	}
	if strings.Join(invs, ",") != strings.Join(skillpage.InvariantIDs(), ",") {
		t.Errorf("invariants %v, want the spec's four in order", invs)
	}
}

// A claim better than the evidence marks its row and fails the panel.
func TestConformanceMarksOverclaims(t *testing.T) {
	v := verifier(t)
	b := decode(t, fixture(t, "valid-skill-bundle.v0.json"))
	// Claim a replay gate of exact and an invariant that the evidence
	// cannot support: drop the replay events so the gate is inconclusive.
	var kept []skill.Event
	for _, e := range b.Evidence.Events {
		if e.Type != skill.EventReplayExecuted {
			kept = append(kept, e)
		}
	}
	b.Evidence.Events = kept
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Bytes(data)
	if err != nil {
		t.Fatal(err)
	}
	p := skillpage.Conformance(r)
	if p.Verdict != skill.VerdictFail {
		t.Errorf("verdict %q, want fail for an overclaiming bundle", p.Verdict)
	}
	if len(p.Overclaims) == 0 {
		t.Fatal("no overclaims listed")
	}
	var marked bool
	for _, g := range p.Gates {
		if g.ID == skill.GateReplayFidelity {
			marked = g.Overclaim
			if g.Claimed != skill.VerdictPass || g.Derived != skill.VerdictInconclusive {
				t.Errorf("replay gate claimed %q derived %q", g.Claimed, g.Derived)
			}
		}
	}
	if !marked {
		t.Error("the replay gate's overclaim is not marked on its row")
	}
}

func TestAudit(t *testing.T) {
	b := decode(t, fixture(t, "valid-skill-bundle.v0.json"))
	a := skillpage.AuditOf(b)
	if len(a.Steps) != len(b.Trace.Edges) {
		t.Errorf("%d steps for %d edges", len(a.Steps), len(b.Trace.Edges))
	}
	for _, ev := range b.Evidence.Events {
		e := skillpage.EventRowOf(ev)
		if e.Type == "" || e.Time == "" || len([]rune(e.Summary)) > skillpage.SummaryLen+1 || e.Full == "" {
			t.Errorf("event row %+v", e)
		}
	}
	recs := b.ReplayRecords()
	want := len(b.Trace.Edges)
	for _, r := range recs {
		for _, e := range r.Edges {
			if e.Authorization != nil {
				want++
			}
		}
	}
	if len(recs) == 0 || len(a.Authorizations) != want {
		t.Errorf("%d replay records, %d authorization rows, want %d", len(recs), len(a.Authorizations), want)
	}
	if len(a.ToolCalls) != len(b.Evidence.ToolCalls) || len(a.Scope) == 0 {
		t.Errorf("%d tool calls, %d scope members", len(a.ToolCalls), len(a.Scope))
	}
}

func TestEdgeRows(t *testing.T) {
	b := decode(t, fixture(t, "valid-skill-bundle.v0.json"))
	rec := b.ReplayRecords()[0]
	// Half way through: only the first edge replayed.
	rows := skillpage.EdgeRows(b, rec.Edges[:1], nil)
	if len(rows) != len(b.Trace.Edges) {
		t.Fatalf("%d rows for %d edges", len(rows), len(b.Trace.Edges))
	}
	if !rows[0].Replayed || rows[0].Match == "" || rows[0].RecordedAfter != b.Trace.Edges[0].StateAfter {
		t.Errorf("row 0: %+v", rows[0])
	}
	if rows[1].Replayed {
		t.Errorf("row 1 replayed before the replay reached it: %+v", rows[1])
	}
	s := skill.SurpriseSignal{EdgeIndex: 1, Kind: skill.KindStateHashMismatch, PredictedStateHash: "sha256:aa", ActualStateHash: "sha256:bb"}
	rows = skillpage.EdgeRows(b, rec.Edges, []skill.SurpriseSignal{s})
	if len(rows[1].Surprises) != 1 || len(rows[0].Surprises) != 0 {
		t.Errorf("surprises: %+v / %+v", rows[0].Surprises, rows[1].Surprises)
	}
}

func TestNeedsOf(t *testing.T) {
	b := decode(t, fixture(t, "valid-skill-bundle.v0.json"))
	n := skillpage.NeedsOf(b)
	if n.ModelBound() || len(n.ModelChoices) != 0 {
		t.Errorf("a skill of literal and input parameters needs a model: %+v", n.ModelChoices)
	}
	if len(n.Inputs) != 1 || n.Inputs[0].Name != "repo_url" || n.Body != skill.BodySimulator || n.Policy != skill.DefaultPolicyID {
		t.Errorf("needs %+v", n)
	}
	// Make the click the model's choice, and add a second one on edge 0.
	b.Trace.Edges[1].ParamSources = map[string]string{"name": skill.SourceLLM}
	b.Trace.Edges[0].ParamSources = map[string]string{"url": "input:repo_url", "wait": skill.SourceLLM, "a": skill.SourceLLM}
	n = skillpage.NeedsOf(b)
	want := []skillpage.ModelChoice{{Edge: 0, Tool: "browser_navigate", Param: "a"}, {Edge: 0, Tool: "browser_navigate", Param: "wait"}, {Edge: 1, Tool: "browser_click", Param: "name"}}
	if !n.ModelBound() || len(n.ModelChoices) != len(want) {
		t.Fatalf("model choices %+v, want %+v", n.ModelChoices, want)
	}
	for i := range want {
		if n.ModelChoices[i] != want[i] {
			t.Errorf("choice %d: %+v, want %+v", i, n.ModelChoices[i], want[i])
		}
	}
	if n.ModelBound() != b.Trace.ModelBound() {
		t.Error("NeedsOf and ModelBound disagree")
	}
}

func TestInputRows(t *testing.T) {
	b := decode(t, fixture(t, "valid-skill-bundle.v0.json"))
	recorded := "https://git.workbench.test/acme/widget"
	for _, tc := range []struct {
		name    string
		given   map[string]string
		new     string
		changed bool
	}{
		{"nothing typed", nil, recorded, false},
		{"same value", map[string]string{"repo_url": recorded}, recorded, false},
		{"same with spaces", map[string]string{"repo_url": " " + recorded + " "}, " " + recorded + " ", false},
		{"another", map[string]string{"repo_url": "https://git.workbench.test/acme/gadget"}, "https://git.workbench.test/acme/gadget", true},
		{"emptied", map[string]string{"repo_url": ""}, "", true},
		{"unknown name ignored", map[string]string{"city": "Paris"}, recorded, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := skillpage.InputRows(b, tc.given)
			if len(rows) != 1 {
				t.Fatalf("%d rows", len(rows))
			}
			r := rows[0]
			if r.Name != "repo_url" || r.Type != "url" || r.Recorded != recorded || r.New != tc.new || r.Changed != tc.changed {
				t.Errorf("row %+v, want new %q changed %t", r, tc.new, tc.changed)
			}
		})
	}
	// A json input's recorded value is shown as JSON text.
	b.Manifest.Inputs = append(b.Manifest.Inputs, skill.InputSpec{Name: "opts", Type: "json"})
	b.Evidence.Scenario.Inputs["opts"] = map[string]any{"depth": 2.0}
	if rows := skillpage.InputRows(b, nil); rows[1].Recorded != `{"depth":2}` {
		t.Errorf("json input recorded as %q", rows[1].Recorded)
	}
}
