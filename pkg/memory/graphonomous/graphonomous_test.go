package graphonomous_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"workbench/internal/closedport"
	"workbench/pkg/memory/graphonomous"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
	"workbench/pkg/skill"
)

func bundle() *skill.Bundle {
	return &skill.Bundle{
		SkillID: "01a00000-0000-7000-8000-000000000001", SkillVersion: 2, BundleID: "01a00000-0000-7000-8000-000000000002",
		ContentHash: "sha256:" + strings.Repeat("ab", 32),
		Manifest:    skill.Manifest{Slug: "newest-version"},
		Trace: skill.Trace{TraceID: "01a00000-0000-7000-8000-000000000003", BodySubtype: "simulator", Provider: "workbench",
			AgentID: "openrouter:example/teacher", StartedAt: "2026-05-25T12:00:00Z", EndedAt: "2026-05-25T12:00:05Z",
			Goal: "Find the newest version.", Outcome: "success",
			Edges: []skill.Edge{{EdgeID: "01a00000-0000-7000-8000-000000000004", StateBefore: "sha256:aa", StateAfter: "sha256:bb",
				TypedAction:   skill.TypedAction{Type: "browser_navigate", Target: "https://git.workbench.test/acme/widget"},
				OutcomeStatus: skill.OutcomeOK}}},
	}
}

// stored answers like graphonomous-mcp's store_trace.
func stored(args map[string]any) servicestest.Reply {
	var tr map[string]any
	json.Unmarshal([]byte(args["interaction_trace"].(string)), &tr)
	return servicestest.Reply{Structured: map[string]any{"status": "stored", "trace_id": tr["trace_id"],
		"body_subtype": tr["body_subtype"], "edge_count": len(tr["edges"].([]any)),
		"initial_state_hash": "sha256:aa", "outcome": tr["outcome"], "destructive": false}}
}

// replayed answers like graphonomous-mcp's retrieve(action: replay).
func replayed(args map[string]any) servicestest.Reply {
	if args["trace_id"] != "01a00000-0000-7000-8000-000000000003" {
		return servicestest.Reply{IsError: true, Structured: map[string]any{"status": "error", "error": "not_found",
			"reason": "no trace with trace_id=" + args["trace_id"].(string)}}
	}
	return servicestest.Reply{Structured: map[string]any{"status": "ok", "count": 1, "traces": []any{map[string]any{
		"trace_id": args["trace_id"], "body_subtype": "simulator", "provider": "workbench", "agent_id": "openrouter:example/teacher",
		"goal": "Find the newest version.", "outcome": "success", "edge_count": 1, "initial_state_hash": "sha256:aa",
		"started_at": "2026-05-25T12:00:00Z", "ended_at": "2026-05-25T12:00:05Z",
		"replay_manifest": map[string]any{"destructive": false, "re_authorization_required": false, "note": nil,
			"edges": []any{map[string]any{"edge_id": "01a00000-0000-7000-8000-000000000004", "state_before": "sha256:aa",
				"state_after": "sha256:bb", "typed_action": map[string]any{"type": "browser_navigate", "target": "https://git.workbench.test/acme/widget"},
				"latency_ms": 12, "outcome_status": "ok"}}},
	}}}}
}

func start(t *testing.T, act, retrieve servicestest.Handler) *servicestest.Server {
	return servicestest.Start(t,
		servicestest.Tool{Name: "act", Schema: servicestest.ActSchema, Handler: act},
		servicestest.Tool{Name: "retrieve", Schema: servicestest.RetrieveSchema, Handler: retrieve})
}

func connect(t *testing.T, url string) *graphonomous.Memory {
	t.Helper()
	m, err := graphonomous.Connect(context.Background(), services.Config{Endpoints: map[string]string{"graphonomous": url}}, servicestest.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

// The wire exchange of "Sync skill to memory" and of the Memory tab.
func TestSyncAndRetrieve(t *testing.T) {
	srv := start(t, stored, replayed)
	m := connect(t, srv.URL)
	b := bundle()
	st, err := m.Sync(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if st.Server != "graphonomous" || st.TraceID != b.Trace.TraceID || st.EdgeCount != 1 || st.BodySubtype != "simulator" ||
		st.InitialStateHash != "sha256:aa" || st.Outcome != "success" || st.Destructive {
		t.Errorf("stored %+v", st)
	}
	call := srv.Calls()[0]
	if call.Tool != "act" || call.Args["action"] != "store_trace" || len(call.Args) != 2 {
		t.Fatalf("sent %s %v", call.Tool, call.Args)
	}
	// The trace goes as a JSON string, as the schema declares: the
	// bundle's trace member for member, plus the metadata naming the
	// bundle.
	var sent map[string]any
	if err := json.Unmarshal([]byte(call.Args["interaction_trace"].(string)), &sent); err != nil {
		t.Fatal(err)
	}
	md, _ := sent["metadata"].(map[string]any)
	delete(sent, "metadata")
	var want map[string]any
	raw, _ := json.Marshal(b.Trace)
	json.Unmarshal(raw, &want)
	if !reflect.DeepEqual(sent, want) {
		t.Errorf("trace sent\n%v\nwant\n%v", sent, want)
	}
	if md["workbench_skill_id"] != b.SkillID || md["workbench_bundle_id"] != b.BundleID || md["workbench_content_hash"] != b.ContentHash ||
		md["workbench_skill_version"] != float64(2) || md["workbench_skill_slug"] != "newest-version" {
		t.Errorf("metadata %v", md)
	}

	r, err := m.Retrieve(context.Background(), b.Trace.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	call = srv.Calls()[1]
	if call.Tool != "retrieve" || call.Args["action"] != "replay" || call.Args["trace_id"] != b.Trace.TraceID || len(call.Args) != 2 {
		t.Errorf("sent %s %v", call.Tool, call.Args)
	}
	if len(r.Traces) != 1 {
		t.Fatalf("retrieved %+v", r)
	}
	tr := r.Traces[0]
	if tr.TraceID != b.Trace.TraceID || tr.EdgeCount != 1 || tr.Goal != "Find the newest version." || tr.AgentID != "openrouter:example/teacher" ||
		len(tr.Edges) != 1 || tr.Edges[0].ActionType != "browser_navigate" || tr.Edges[0].StateAfter != "sha256:bb" || tr.Destructive {
		t.Errorf("trace %+v", tr)
	}

	_, err = m.Retrieve(context.Background(), "01a00000-0000-7000-8000-00000000ffff")
	var te *services.ToolError
	if !errors.As(err, &te) || te.Code != "not_found" || !strings.Contains(err.Error(), "no trace with trace_id=01a00000-0000-7000-8000-00000000ffff") {
		t.Errorf("err %v", err)
	}
	if services.Unavailable(err) {
		t.Error("a refusal is reported as the service being unavailable")
	}
}

// A server that declares interaction_trace an object gets the object.
func TestTraceAsObject(t *testing.T) {
	srv := servicestest.Start(t,
		servicestest.Tool{Name: "act", Schema: `{"type":"object","properties":{"action":{"type":"string"},"interaction_trace":{"type":"object"}},"required":["action","interaction_trace"]}`,
			Handler: func(args map[string]any) servicestest.Reply {
				tr, _ := args["interaction_trace"].(map[string]any)
				return servicestest.Reply{Structured: map[string]any{"status": "stored", "trace_id": tr["trace_id"]}}
			}},
		servicestest.Tool{Name: "retrieve", Schema: servicestest.RetrieveSchema, Handler: replayed})
	m := connect(t, srv.URL)
	st, err := m.Sync(context.Background(), bundle())
	if err != nil {
		t.Fatal(err)
	}
	if st.TraceID != bundle().Trace.TraceID {
		t.Errorf("stored %+v", st)
	}
}

// Answers that are not what graphonomous-mcp publishes are contract
// errors naming the member; none is reported as stored.
func TestMalformedAnswers(t *testing.T) {
	reply := func(v any) servicestest.Handler {
		return func(map[string]any) servicestest.Reply { return servicestest.Reply{Structured: v} }
	}
	cases := []struct {
		name    string
		act     servicestest.Handler
		problem string
	}{
		{"not stored", reply(map[string]any{"status": "queued", "trace_id": "x"}), `/status is "queued", not "stored"`},
		{"other trace", reply(map[string]any{"status": "stored", "trace_id": "x"}), `/trace_id is "x", not the trace sent`},
		{"no trace id", reply(map[string]any{"status": "stored"}), "/trace_id is missing"},
		{"edge count text", reply(map[string]any{"status": "stored", "trace_id": "01a00000-0000-7000-8000-000000000003", "edge_count": "one"}), `/edge_count is "one", not a count`},
		{"plain text", func(map[string]any) servicestest.Reply { return servicestest.Reply{Text: "ok, stored"} }, "its text is not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := connect(t, start(t, c.act, replayed).URL)
			_, err := m.Sync(context.Background(), bundle())
			var ce *services.ContractError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.problem) {
				t.Errorf("err %v\nwant a contract error with %q", err, c.problem)
			}
		})
	}
	t.Run("retrieve without traces", func(t *testing.T) {
		m := connect(t, start(t, stored, reply(map[string]any{"status": "ok", "count": 2, "traces": []any{}})).URL)
		_, err := m.Retrieve(context.Background(), "x")
		if err == nil || !strings.Contains(err.Error(), "/count is 2 but /traces holds 0") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("store refused", func(t *testing.T) {
		m := connect(t, start(t, func(map[string]any) servicestest.Reply {
			return servicestest.Reply{IsError: true, Structured: map[string]any{"status": "error", "error": "invalid_trace", "reason": "edges must not be empty"}}
		}, replayed).URL)
		_, err := m.Sync(context.Background(), bundle())
		var te *services.ToolError
		if !errors.As(err, &te) || te.Code != "invalid_trace" || te.Reason != "edges must not be empty" {
			t.Errorf("err %v", err)
		}
	})
}

func closedPort(t *testing.T) string {
	return "http://" + closedport.Addr(t) + "/mcp"
}

func TestUnavailable(t *testing.T) {
	onlyRetrieve := servicestest.Start(t, servicestest.Tool{Name: "retrieve", Schema: servicestest.RetrieveSchema, Handler: replayed})
	oldAct := servicestest.Start(t,
		servicestest.Tool{Name: "act", Schema: `{"type":"object","properties":{"action":{"type":"string"},"content":{"type":"string"}},"required":["action"]}`, Handler: stored},
		servicestest.Tool{Name: "retrieve", Schema: servicestest.RetrieveSchema, Handler: replayed})
	cases := []struct {
		name string
		cfg  services.Config
		as   any
		msg  string
	}{
		{"not configured", services.Config{}, new(*services.NotConfiguredError), `graphonomous-mcp is not configured: no MCP server named "graphonomous"`},
		{"unreachable", services.Config{Endpoints: map[string]string{"graphonomous": closedPort(t)}}, new(*services.UnreachableError), "graphonomous-mcp (server \"graphonomous\" at http://127.0.0.1:"},
		{"lacks act", services.Config{Endpoints: map[string]string{"graphonomous": onlyRetrieve.URL}}, new(*services.ContractError), `offers no tool named "act" (it offers retrieve)`},
		{"act without store_trace's member", services.Config{Endpoints: map[string]string{"graphonomous": oldAct.URL}}, new(*services.ContractError), `argument "interaction_trace" is not a property of its inputSchema (declared: action, content)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := graphonomous.Connect(context.Background(), c.cfg, servicestest.ClientOptions())
			if !errors.As(err, c.as) || !services.Unavailable(err) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err %T %v\nwant %q", err, err, c.msg)
			}
		})
	}
	t.Run("gone after connecting", func(t *testing.T) {
		srv := start(t, stored, replayed)
		m := connect(t, srv.URL)
		srv.Close()
		_, err := m.Sync(context.Background(), bundle())
		var ue *services.UnreachableError
		if !errors.As(err, &ue) {
			t.Errorf("err %T %v", err, err)
		}
	})
}
