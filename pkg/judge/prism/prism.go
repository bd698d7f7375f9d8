// Package prism implements judge.Judge over a prism-eval server's observe
// tool.
//
// What PRISM publishes for observe is a judging machine over transcripts
// it stores itself ({action: judge_transcript | judge_dimension |
// meta_judge | …, transcript_id, …}); it publishes no action that compares
// two outputs. The workbench therefore sends the equivalence request it
// needs — {original_output, replay_output, goal} — and reads the answer
// {equivalent, score, rationale, judge_model?} (bare or inside PRISM's
// {"status":"ok","result":…} envelope). New checks that request against
// the input schema the server declares, so a server whose observe does not
// take it — PRISM's published one among them — is a
// *services.ContractError naming each mismatch, and the replay's fidelity
// becomes inconclusive rather than judged by guesswork (docs/services.md).
package prism

import (
	"context"
	"encoding/json"
	"fmt"

	"workbench/pkg/judge"
	"workbench/pkg/mcp"
	"workbench/pkg/services"
)

// Tool is the prism-eval tool that judges.
const Tool = "observe"

// Judge is a client of one prism-eval server's observe tool.
type Judge struct {
	conn *services.Conn
}

var _ judge.Judge = (*Judge)(nil)

// New returns a Judge over a connection to the server that plays
// services.RoleJudge, after checking the request against observe's
// declared input schema.
func New(conn *services.Conn) (*Judge, error) {
	j := &Judge{conn: conn}
	if err := conn.CheckArgs(Tool, j.args(judge.Request{Goal: "g", Original: "a", Replayed: "b"})); err != nil {
		return nil, err
	}
	return j, nil
}

// Connect connects to the judge role of cfg.
func Connect(ctx context.Context, cfg services.Config, mopts *mcp.Options) (*Judge, error) {
	conn, err := services.Connect(ctx, cfg, services.RoleJudge, mopts, Tool)
	if err != nil {
		return nil, err
	}
	j, err := New(conn)
	if err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return j, nil
}

// Close ends the session.
func (j *Judge) Close(ctx context.Context) error { return j.conn.Close(ctx) }

// value sends an output the way the schema declares its member: as is,
// or, where the server declares a string, a non-string output as its JSON
// text.
func (j *Judge) value(prop string, v any) any {
	if _, isString := v.(string); isString {
		return v
	}
	types := j.conn.PropertyType(Tool, prop)
	if len(types) == 1 && types[0] == "string" {
		b, err := json.Marshal(v)
		if err == nil {
			return string(b)
		}
	}
	return v
}

func (j *Judge) args(req judge.Request) map[string]any {
	a := map[string]any{
		"original_output": j.value("original_output", req.Original),
		"replay_output":   j.value("replay_output", req.Replayed),
	}
	if req.Goal != "" {
		a["goal"] = req.Goal
	}
	return a
}

// Judge asks the server whether the outputs are equivalent.
func (j *Judge) Judge(ctx context.Context, req judge.Request) (judge.Verdict, error) {
	res, err := j.conn.Client.CallTool(ctx, Tool, j.args(req))
	if err != nil {
		if ctx.Err() != nil {
			return judge.Verdict{}, fmt.Errorf("prism: observe: %w", ctx.Err())
		}
		return judge.Verdict{}, &services.UnreachableError{Role: services.RoleJudge, Server: j.conn.Server, Endpoint: j.conn.Endpoint, Err: err}
	}
	if res.IsError {
		return judge.Verdict{}, j.conn.Refusal(Tool, res)
	}
	m, err := j.conn.Answer(Tool, res)
	if err != nil {
		return judge.Verdict{}, err
	}
	at := ""
	if inner, ok := m["result"].(map[string]any); ok && m["status"] == "ok" {
		m, at = inner, "/result"
	}
	var problems []string
	v := judge.Verdict{Judge: fmt.Sprintf("%s (server %q)", services.RoleJudge.Service(), j.conn.Server)}
	eq, ok := m["equivalent"].(bool)
	if !ok {
		problems = append(problems, fmt.Sprintf("%s/equivalent is %s, not a boolean", at, show(m["equivalent"])))
	}
	score, ok := m["score"].(float64)
	if !ok || score < 0 || score > 1 {
		problems = append(problems, fmt.Sprintf("%s/score is %s, not a number in [0, 1]", at, show(m["score"])))
	}
	if r, present := m["rationale"]; present {
		if s, ok := r.(string); ok {
			v.Rationale = s
		} else {
			problems = append(problems, fmt.Sprintf("%s/rationale is %s, not a string", at, show(r)))
		}
	}
	if mod, ok := m["judge_model"].(string); ok {
		v.Model = mod
	}
	if len(problems) > 0 {
		return judge.Verdict{}, &services.ContractError{Role: services.RoleJudge, Server: j.conn.Server, Tool: Tool, Problems: problems}
	}
	v.Equivalent, v.Score = eq, score
	return v, nil
}

func show(v any) string {
	if v == nil {
		return "missing"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
