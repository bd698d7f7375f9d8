package capability

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/mcp"
	"workbench/pkg/memory/graphonomous"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/runs"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
	"workbench/pkg/skill"
	"workbench/pkg/workbench"
)

func byID(t *testing.T, caps []Capability) map[string]Capability {
	t.Helper()
	m := map[string]Capability{}
	for _, c := range caps {
		m[c.ID] = c
	}
	return m
}

// run invokes a proposal, waits for it and returns its tool_result data.
func (r *rig) run(t *testing.T, p Proposal) map[string]any {
	t.Helper()
	rc, err := r.gov.Invoke(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: %v", p.CapabilityID, err)
	}
	es := r.events(t, rc.RunID)
	res := last(es, runs.EventToolResult)
	if res == nil || !runs.Terminal(es[len(es)-1].Type) {
		t.Fatalf("%s: events %s", p.CapabilityID, types(es))
	}
	return res
}

func TestWorkbenchActions(t *testing.T) {
	r := newRig(t, nil)
	ctx := context.Background()
	caps, err := r.wb.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(caps); got != len(Actions()) {
		t.Fatalf("%d actions", got)
	}
	m := byID(t, caps)
	for _, name := range []string{ActionVerify, ActionExport, ActionReplay, ActionCompare} {
		c := m[ID(SourceWorkbench, name)]
		if c.Availability != Unavailable || !slices.Contains(c.Missing, NeedSkill) || len(c.Reasons) == 0 {
			t.Errorf("%s on an empty library: %s %v %v", name, c.Availability, c.Missing, c.Reasons)
		}
	}
	if c := m["workbench:import"]; c.Availability != Available || c.Effect != "write" {
		t.Errorf("import: %+v", c)
	}
	if c := m["workbench:sync_memory"]; c.Availability != Unavailable || !slices.Contains(c.Missing, NeedMemory) ||
		!strings.Contains(strings.Join(c.Reasons, " "), "graphonomous not configured") {
		t.Errorf("sync_memory without memory: %+v", c)
	}

	data, err := os.ReadFile("../../fixtures/valid-skill-bundle.v0.json")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"filename": "valid.skill.json", "bundle": string(data)})
	res := r.run(t, Proposal{CapabilityID: "workbench:import", Input: in, Confirmed: true})
	out := res["result"].(map[string]any)
	if out["status"] != "accepted" {
		t.Fatalf("import: %v", res)
	}
	skillID := out["skill_id"].(string)

	bad, _ := json.Marshal(map[string]string{"filename": "bad.json", "bundle": `{"skill_id": 1}`})
	res = r.run(t, Proposal{CapabilityID: "workbench:import", Input: bad, Confirmed: true})
	if out := res["result"].(map[string]any); out["status"] != "rejected" || out["problems"] == nil {
		t.Errorf("bad import: %v", res)
	}

	// The same version exported under `full`: another copy, not stored,
	// with what differs.
	fb, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	full, err := (&workbench.Workbench{Verifier: r.wb.Verifier}).Export(context.Background(), fb, skill.RedactionFull, true)
	if err != nil {
		t.Fatal(err)
	}
	in, _ = json.Marshal(map[string]string{"filename": "full.skill.json", "bundle": string(full.Data)})
	res = r.run(t, Proposal{CapabilityID: "workbench:import", Input: in, Confirmed: true})
	if out := res["result"].(map[string]any); out["status"] != "collision" || out["collision"] == nil {
		t.Errorf("import of the full copy: %v", res)
	}

	caps, _ = r.wb.List(ctx)
	m = byID(t, caps)
	if c := m["workbench:verify"]; c.Availability != Available {
		t.Errorf("verify after import: %+v", c)
	}
	for _, id := range []string{"workbench:replay", "workbench:compare"} {
		if c := m[id]; c.Availability != Degraded || !slices.Contains(c.Missing, NeedKey) {
			t.Errorf("%s without a key: %+v", id, c)
		}
	}

	sid, _ := json.Marshal(map[string]string{"skill_id": skillID})
	res = r.run(t, Proposal{CapabilityID: "workbench:verify", Input: sid})
	v := NewRegistry(nil).Render(res["render_hint"].(string), mustJSON(t, res))
	if v.Renderer != HintEvidence || v.Evidence == nil || v.Evidence.Verdict == "" || len(v.Evidence.Gates) == 0 || v.Status != "ok" {
		t.Errorf("verify result view: renderer %s fallback %q", v.Renderer, v.Fallback)
	}

	// The export's run names its file, which the Governor hands over: the
	// bytes verify, and they are not in the run's events.
	rc, err := r.gov.Invoke(ctx, Proposal{CapabilityID: "workbench:export", Input: sid})
	if err != nil {
		t.Fatal(err)
	}
	es := r.events(t, rc.RunID)
	res = last(es, runs.EventToolResult)
	out = res["result"].(map[string]any)
	if !strings.HasSuffix(out["filename"].(string), ".skill.json") || out["profile"] != "transcript_pii" {
		t.Errorf("export: %v", out)
	}
	named, _ := res["file"].(map[string]any)
	f, err := r.gov.File(ctx, rc.RunID)
	if err != nil || named["name"] != f.Name || f.Name != out["filename"] || named["bytes"] != float64(len(f.Data)) || f.MediaType != "application/json" {
		t.Fatalf("export file: %v, named %v, kept %q (%d bytes)", err, named, f.Name, len(f.Data))
	}
	if rep, err := r.wb.Verifier.Bytes(f.Data); err != nil || rep.Verdict == "" || rep.Verdict == "fail" {
		t.Errorf("the exported file: %v %+v", err, rep)
	}
	for _, e := range es {
		if strings.Contains(string(e.Data), `"bundle_version"`) {
			t.Errorf("the bundle's bytes are in the run's %s event", e.Type)
		}
	}
	var gone *FileGoneError
	if _, err := r.gov.File(ctx, "run-without-file"); !errors.As(err, &gone) {
		t.Errorf("the file of a run that made none: %v", err)
	}

	before, err := r.wb.Store.Skill(ctx, skillID)
	if err != nil {
		t.Fatal(err)
	}
	res = r.run(t, Proposal{CapabilityID: "workbench:replay", Input: sid, Confirmed: true})
	if out := res["result"].(map[string]any); res["status"] != "ok" || out["saved_version"] != float64(before.Version+1) {
		t.Fatalf("replay: %v", res)
	}
	if bs, _ := r.wb.Store.Bundles(ctx, skillID); len(bs) != 2 {
		t.Errorf("%d bundles stored after the replay", len(bs))
	}

	cin, _ := json.Marshal(map[string]any{"skill_id": skillID, "models": []string{"example/a", "example/b"}})
	res = r.run(t, Proposal{CapabilityID: "workbench:compare", Input: cin, Confirmed: true})
	cv := NewRegistry(nil).Render(HintTable, mustJSON(t, res))
	if cv.Table == nil || len(cv.Table.Rows) != 2 || !slices.Contains(cv.Table.Columns, "model") {
		t.Errorf("compare view: %+v fallback %q", cv.Table, cv.Fallback)
	}
	if out := res["result"].(map[string]any); out["models_exercised"] != false || out["saved_version"] != float64(before.Version+2) {
		t.Errorf("compare: %v", out)
	}
	// Several input sets (a list where one object was taken before): a
	// row per model and set, one version saved, the matrix kept.
	cin, _ = json.Marshal(map[string]any{"skill_id": skillID, "models": []string{"example/a", "example/b"}, "inputs": []map[string]any{{}, {}}})
	res = r.run(t, Proposal{CapabilityID: "workbench:compare", Input: cin, Confirmed: true})
	out, _ = res["result"].(map[string]any)
	if rows, _ := out["rows"].([]any); res["status"] != "ok" || len(rows) != 4 || out["saved_version"] != float64(before.Version+3) {
		t.Fatalf("compare of two input sets: %v", res)
	}
	if kept, err := r.wb.Store.Comparisons(ctx, skillID); err != nil || len(kept) != 2 || kept[0].SavedVersion != before.Version+3 {
		t.Errorf("kept comparisons %d, %v", len(kept), err)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSyncToMemory(t *testing.T) {
	srv := servicestest.Start(t,
		servicestest.Tool{Name: "act", Schema: servicestest.ActSchema, Handler: func(args map[string]any) servicestest.Reply {
			var tr map[string]any
			json.Unmarshal([]byte(args["interaction_trace"].(string)), &tr)
			return servicestest.Reply{Structured: map[string]any{"status": "stored", "trace_id": tr["trace_id"],
				"body_subtype": tr["body_subtype"], "edge_count": len(tr["edges"].([]any)),
				"initial_state_hash": "sha256:aa", "outcome": tr["outcome"], "destructive": false}}
		}},
		servicestest.Tool{Name: "retrieve", Schema: servicestest.RetrieveSchema, Handler: func(map[string]any) servicestest.Reply {
			return servicestest.Reply{IsError: true, Structured: map[string]any{"status": "error", "error": "not_found"}}
		}})
	mem, err := graphonomous.Connect(context.Background(), services.Config{Endpoints: map[string]string{"graphonomous": srv.URL}}, &mcp.Options{HTTPClient: http.DefaultClient})
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close(context.Background())
	r := newRig(t, nil)
	r.wb.Memory = mem
	data, err := os.ReadFile("../../fixtures/valid-skill-bundle.v0.json")
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(map[string]string{"filename": "valid.skill.json", "bundle": string(data)})
	out := r.run(t, Proposal{CapabilityID: "workbench:import", Input: in, Confirmed: true})["result"].(map[string]any)
	sid, _ := json.Marshal(map[string]any{"skill_id": out["skill_id"]})
	pv, err := r.gov.Preflight(context.Background(), Proposal{CapabilityID: "workbench:sync_memory", Input: sid})
	if err != nil || pv.Rule != "memory-store" || !pv.Executable || !pv.NeedsConfirmation {
		t.Fatalf("preflight %+v %v", pv, err)
	}
	res := r.run(t, Proposal{CapabilityID: "workbench:sync_memory", Input: sid, Confirmed: true})
	stored := res["result"].(map[string]any)
	if res["status"] != "ok" || stored["Server"] != "graphonomous" || stored["TraceID"] == "" {
		t.Errorf("sync: %v", res)
	}
}

func TestDemonstrate(t *testing.T) {
	open := openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"})
	click := openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "example/teacher",
		Steps: []openroutertest.Step{open, click, openroutertest.Answer("The newest version is 1.4.0.")}}))
	client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, nil)
	caps, _ := r.wb.List(context.Background())
	if c := byID(t, caps)["workbench:demonstrate"]; c.Availability != Unavailable || !slices.Contains(c.Missing, NeedKey) {
		t.Errorf("demonstrate without a key: %+v", c)
	}
	r.wb.Model = client
	caps, _ = r.wb.List(context.Background())
	if c := byID(t, caps)["workbench:demonstrate"]; c.Availability != Available {
		t.Errorf("demonstrate with a key: %+v", c)
	}
	in := json.RawMessage(`{"scenario":"` + fixtures.ModelComparison + `","model":"example/teacher"}`)
	rc, err := r.gov.Invoke(context.Background(), Proposal{CapabilityID: "workbench:demonstrate", Input: in, Confirmed: true})
	if err != nil {
		t.Fatal(err)
	}
	es := r.events(t, rc.RunID)
	res := last(es, runs.EventToolResult)
	out := res["result"].(map[string]any)
	if res["status"] != "ok" || out["stopped"] != "answer" || out["edges"] != float64(2) || out["answer"] != "The newest version is 1.4.0." {
		t.Fatalf("demonstration: %v", res)
	}
	if name, _ := out["draft_name"].(string); name == "" || out["draft_error"] != nil {
		t.Errorf("the demonstration's draft is not named: %v", out)
	}
	if run, _ := r.gov.Log().Run(rc.RunID); run.Kind != runs.KindDemonstration {
		t.Errorf("run kind %s", run.Kind)
	}
	if !strings.Contains(types(es), "progress") {
		t.Errorf("no progress events: %s", types(es))
	}
	// Both of scenario and task is not one of the two forms.
	bad := json.RawMessage(`{"scenario":"` + fixtures.ModelComparison + `","task":"x","world":"weather","model":"m"}`)
	if _, err := r.gov.Invoke(context.Background(), Proposal{CapabilityID: "workbench:demonstrate", Input: bad, Confirmed: true}); !isRefusal(err, RefusedInvalid) {
		t.Errorf("scenario and task: %v", err)
	}
}

// The compare action's inputs: absent, one set as an object (the schema
// before sets), or a list of sets.
func TestCompareInputSets(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		sets int
		bad  bool
	}{
		{"", 0, false},
		{"null", 0, false},
		{`{"url": "https://example.test/"}`, 1, false},
		{`[{}, {"url": "https://example.test/"}]`, 2, false},
		{`"a string"`, 0, true},
		{`[1, 2]`, 0, true},
	} {
		sets, err := inputSets(json.RawMessage(tc.raw))
		if (err != nil) != tc.bad || len(sets) != tc.sets {
			t.Errorf("inputs %s: %d sets, err %v", tc.raw, len(sets), err)
		}
	}
}
