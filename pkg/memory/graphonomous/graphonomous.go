// Package graphonomous implements memory.Memory over a graphonomous-mcp
// server's published loop-phase tools: act with action "store_trace"
// ({interaction_trace}: the OS-011 trace as a JSON string or object) and
// retrieve with action "replay" ({trace_id}).
//
// The stored trace is the bundle's interaction trace unchanged, plus a
// "metadata" member naming the bundle it came from (skill id and version,
// bundle id, content hash, manifest slug), so that memory can lead back
// to the skill. Answers are read as graphonomous-mcp publishes them
// ({"status":"stored", trace_id, body_subtype, edge_count,
// initial_state_hash, outcome, destructive} and {"status":"ok", count,
// traces:[…]}); an answer in any other shape is a *services.ContractError,
// a refusal a *services.ToolError. Nothing is reported stored that the
// server did not confirm for this trace id.
package graphonomous

import (
	"context"
	"encoding/json"
	"fmt"

	"workbench/pkg/mcp"
	"workbench/pkg/memory"
	"workbench/pkg/services"
	"workbench/pkg/skill"
)

// Tools graphonomous-mcp offers that this package calls.
const (
	ToolAct      = "act"
	ToolRetrieve = "retrieve"
)

// Memory is a client of one graphonomous-mcp server.
type Memory struct {
	conn *services.Conn
}

var _ memory.Memory = (*Memory)(nil)

// New returns a Memory over a connection to the server that plays
// services.RoleMemory, after checking against the server's declared input
// schemas that act and retrieve accept the arguments this package sends.
func New(conn *services.Conn) (*Memory, error) {
	m := &Memory{conn: conn}
	if err := conn.CheckArgs(ToolAct, map[string]any{"action": "store_trace", "interaction_trace": m.traceArg("{}")}); err != nil {
		return nil, err
	}
	if err := conn.CheckArgs(ToolRetrieve, map[string]any{"action": "replay", "trace_id": "x"}); err != nil {
		return nil, err
	}
	return m, nil
}

// Connect connects to the memory role of cfg.
func Connect(ctx context.Context, cfg services.Config, mopts *mcp.Options) (*Memory, error) {
	conn, err := services.Connect(ctx, cfg, services.RoleMemory, mopts, ToolAct, ToolRetrieve)
	if err != nil {
		return nil, err
	}
	m, err := New(conn)
	if err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return m, nil
}

// Server names the server.
func (m *Memory) Server() string { return m.conn.Server }

// Close ends the session.
func (m *Memory) Close(ctx context.Context) error { return m.conn.Close(ctx) }

// traceArg sends the trace the way the server's schema declares
// interaction_trace: as a JSON string (graphonomous-mcp's published
// schema) or, if the server declares an object, as the object.
func (m *Memory) traceArg(js string) any {
	for _, t := range m.conn.PropertyType(ToolAct, "interaction_trace") {
		if t == "object" {
			return json.RawMessage(js)
		}
	}
	return js
}

// Sync stores b's trace. See the package comment.
func (m *Memory) Sync(ctx context.Context, b *skill.Bundle) (memory.Stored, error) {
	raw, err := json.Marshal(b.Trace)
	if err != nil {
		return memory.Stored{}, fmt.Errorf("graphonomous: encode the trace: %w", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return memory.Stored{}, fmt.Errorf("graphonomous: encode the trace: %w", err)
	}
	if _, taken := obj["metadata"]; !taken {
		obj["metadata"] = map[string]any{
			"workbench_skill_id": b.SkillID, "workbench_skill_version": b.SkillVersion,
			"workbench_bundle_id": b.BundleID, "workbench_content_hash": b.ContentHash,
			"workbench_skill_slug": b.Manifest.Slug,
		}
	}
	js, err := json.Marshal(obj)
	if err != nil {
		return memory.Stored{}, fmt.Errorf("graphonomous: encode the trace: %w", err)
	}
	res, err := m.call(ctx, ToolAct, map[string]any{"action": "store_trace", "interaction_trace": m.traceArg(string(js))})
	if err != nil {
		return memory.Stored{}, err
	}
	ans, err := m.conn.Answer(ToolAct, res)
	if err != nil {
		return memory.Stored{}, err
	}
	r := reader{m: ans}
	st := memory.Stored{Server: m.conn.Server}
	if s := r.str("status", true); s != "stored" && r.ok() {
		r.fail("/status is %q, not \"stored\"", s)
	}
	st.TraceID = r.str("trace_id", true)
	st.BodySubtype = r.str("body_subtype", false)
	st.EdgeCount = r.count("edge_count")
	st.InitialStateHash = r.str("initial_state_hash", false)
	st.Outcome = r.str("outcome", false)
	st.Destructive = r.flag("destructive")
	if r.ok() && st.TraceID != b.Trace.TraceID {
		r.fail("/trace_id is %q, not the trace sent, %q", st.TraceID, b.Trace.TraceID)
	}
	if err := r.err(m.conn, ToolAct); err != nil {
		return memory.Stored{}, err
	}
	return st, nil
}

// Retrieve asks for the stored trace traceID in replay form.
func (m *Memory) Retrieve(ctx context.Context, traceID string) (memory.Retrieved, error) {
	res, err := m.call(ctx, ToolRetrieve, map[string]any{"action": "replay", "trace_id": traceID})
	if err != nil {
		return memory.Retrieved{}, err
	}
	ans, err := m.conn.Answer(ToolRetrieve, res)
	if err != nil {
		return memory.Retrieved{}, err
	}
	r := reader{m: ans}
	if s := r.str("status", true); s != "ok" && r.ok() {
		r.fail("/status is %q, not \"ok\"", s)
	}
	list, ok := ans["traces"].([]any)
	if !ok {
		r.fail("/traces is %s, not an array", show(ans["traces"]))
	}
	out := memory.Retrieved{Server: m.conn.Server}
	for i, x := range list {
		tm, ok := x.(map[string]any)
		if !ok {
			r.fail("/traces/%d is not an object", i)
			continue
		}
		tr := reader{m: tm, at: fmt.Sprintf("/traces/%d", i)}
		t := memory.Trace{
			TraceID: tr.str("trace_id", true), BodySubtype: tr.str("body_subtype", false),
			Provider: tr.str("provider", false), AgentID: tr.str("agent_id", false), Goal: tr.str("goal", false),
			Outcome: tr.str("outcome", false), StartedAt: tr.str("started_at", false), EndedAt: tr.str("ended_at", false),
			EdgeCount: tr.count("edge_count"), InitialStateHash: tr.str("initial_state_hash", false),
		}
		if man, ok := tm["replay_manifest"].(map[string]any); ok {
			mr := reader{m: man, at: tr.at + "/replay_manifest"}
			t.Destructive, t.ReauthorizationRequired = mr.flag("destructive"), mr.flag("re_authorization_required")
			t.Note = mr.str("note", false)
			edges, _ := man["edges"].([]any)
			for j, y := range edges {
				em, ok := y.(map[string]any)
				if !ok {
					mr.fail("/edges/%d is not an object", j)
					continue
				}
				er := reader{m: em, at: fmt.Sprintf("%s/edges/%d", mr.at, j)}
				e := memory.Edge{EdgeID: em["edge_id"], StateBefore: er.str("state_before", false),
					StateAfter: er.str("state_after", false), OutcomeStatus: er.str("outcome_status", false)}
				if ta, ok := em["typed_action"].(map[string]any); ok {
					e.ActionType, _ = ta["type"].(string)
					e.Target, _ = ta["target"].(string)
				}
				t.Edges = append(t.Edges, e)
				r.problems = append(r.problems, er.problems...)
			}
			r.problems = append(r.problems, mr.problems...)
		}
		r.problems = append(r.problems, tr.problems...)
		out.Traces = append(out.Traces, t)
	}
	if n, ok := ans["count"].(float64); ok && int(n) != len(out.Traces) {
		r.fail("/count is %v but /traces holds %d", n, len(out.Traces))
	}
	if err := r.err(m.conn, ToolRetrieve); err != nil {
		return memory.Retrieved{}, err
	}
	return out, nil
}

// call makes one call; a transport failure is unreachability, a refusal a
// *services.ToolError.
func (m *Memory) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallResult, error) {
	res, err := m.conn.Client.CallTool(ctx, tool, args)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("graphonomous: %s: %w", tool, ctx.Err())
		}
		return nil, &services.UnreachableError{Role: services.RoleMemory, Server: m.conn.Server, Endpoint: m.conn.Endpoint, Err: err}
	}
	if res.IsError {
		return nil, m.conn.Refusal(tool, res)
	}
	return res, nil
}

// reader reads members of an answer, collecting what is missing or of the
// wrong type as contract problems with their JSON pointers.
type reader struct {
	m        map[string]any
	at       string
	problems []string
}

func (r *reader) fail(format string, args ...any) {
	r.problems = append(r.problems, r.at+fmt.Sprintf(format, args...))
}

func (r *reader) ok() bool { return len(r.problems) == 0 }

func (r *reader) str(k string, required bool) string {
	v, present := r.m[k]
	if !present || v == nil {
		if required {
			r.fail("/%s is missing", k)
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		r.fail("/%s is %s, not a string", k, show(v))
	}
	return s
}

func (r *reader) count(k string) int {
	v, present := r.m[k]
	if !present || v == nil {
		return 0
	}
	n, ok := v.(float64)
	if !ok || n < 0 || n != float64(int(n)) {
		r.fail("/%s is %s, not a count", k, show(v))
		return 0
	}
	return int(n)
}

func (r *reader) flag(k string) bool {
	v, present := r.m[k]
	if !present || v == nil {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		r.fail("/%s is %s, not a boolean", k, show(v))
	}
	return b
}

func (r *reader) err(conn *services.Conn, tool string) error {
	if len(r.problems) == 0 {
		return nil
	}
	return &services.ContractError{Role: services.RoleMemory, Server: conn.Server, Tool: tool, Problems: r.problems}
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "missing"
	case string:
		return fmt.Sprintf("%q", x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
