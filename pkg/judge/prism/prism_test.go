package prism_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"workbench/internal/closedport"
	"workbench/pkg/judge"
	"workbench/pkg/judge/prism"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
)

// publishedObserve is the input schema PRISM publishes for observe: a
// judging machine over PRISM's own stored transcripts.
const publishedObserve = `{"type":"object","properties":{
	"action":{"type":"string"},"transcript_id":{"type":"string"},"judge_model":{"type":"string"},
	"dimension":{"type":"string"},"judgment_id":{"type":"string"},"meta_judge_model":{"type":"string"},
	"run_id":{"type":"string"},"new_score":{"type":"number"},"reason":{"type":"string"}},"required":["action"]}`

func observeServer(t *testing.T, schema string, h servicestest.Handler) *servicestest.Server {
	return servicestest.Start(t, servicestest.Tool{Name: "observe", Schema: schema, Handler: h})
}

func connect(t *testing.T, url string) *prism.Judge {
	t.Helper()
	j, err := prism.Connect(context.Background(), services.Config{Endpoints: map[string]string{"prism": url}}, servicestest.ClientOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close(context.Background()) })
	return j
}

var req = judge.Request{Goal: "Find the newest version.", Original: map[string]any{"version": "1.4.0"}, Replayed: "Version 1.4.0 is the newest."}

func reply(v any) servicestest.Handler {
	return func(map[string]any) servicestest.Reply { return servicestest.Reply{Structured: v} }
}

// The wire exchange: the outputs and the goal go as the schema declares
// them; the answer, bare or in PRISM's envelope, becomes the verdict.
func TestJudge(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer any
	}{
		{"bare", map[string]any{"equivalent": true, "score": 0.91, "rationale": "both name 1.4.0", "judge_model": "example/judge"}},
		{"in PRISM's envelope", map[string]any{"status": "ok", "result": map[string]any{"equivalent": true, "score": 0.91, "rationale": "both name 1.4.0", "judge_model": "example/judge"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := observeServer(t, servicestest.ObserveSchema, reply(c.answer))
			v, err := connect(t, srv.URL).Judge(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Equivalent || v.Score != 0.91 || v.Rationale != "both name 1.4.0" || v.Model != "example/judge" || v.Judge != `prism-eval (server "prism")` {
				t.Errorf("verdict %+v", v)
			}
			args := srv.Calls()[0].Args
			if o, _ := args["original_output"].(map[string]any); o["version"] != "1.4.0" || args["replay_output"] != "Version 1.4.0 is the newest." ||
				args["goal"] != "Find the newest version." || len(args) != 3 {
				t.Errorf("sent %v", args)
			}
		})
	}
	t.Run("outputs declared as strings", func(t *testing.T) {
		srv := observeServer(t, `{"type":"object","properties":{"original_output":{"type":"string"},"replay_output":{"type":"string"},"goal":{"type":"string"}},"required":["original_output","replay_output"]}`,
			reply(map[string]any{"equivalent": false, "score": 0.2}))
		if _, err := connect(t, srv.URL).Judge(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if got := srv.Calls()[0].Args["original_output"]; got != `{"version":"1.4.0"}` {
			t.Errorf("original_output sent as %#v", got)
		}
	})
}

// No verdict is made up from an answer that is not one.
func TestBadAnswers(t *testing.T) {
	cases := []struct {
		name string
		h    servicestest.Handler
		as   any
		msg  string
	}{
		{"no verdict", reply(map[string]any{"score": 0.9}), new(*services.ContractError), "/equivalent is missing, not a boolean"},
		{"score out of range", reply(map[string]any{"equivalent": true, "score": 9}), new(*services.ContractError), "/score is 9, not a number in [0, 1]"},
		{"score as text", reply(map[string]any{"status": "ok", "result": map[string]any{"equivalent": true, "score": "high"}}), new(*services.ContractError), `/result/score is "high"`},
		{"refused", func(map[string]any) servicestest.Reply {
			return servicestest.Reply{IsError: true, Structured: map[string]any{"status": "error", "error": "transcript_id and judgments (JSON array) required"}}
		}, new(*services.ToolError), "transcript_id and judgments (JSON array) required"},
		{"prose", func(map[string]any) servicestest.Reply { return servicestest.Reply{Text: "Looks equivalent to me."} }, new(*services.ContractError), "its text is not a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := connect(t, observeServer(t, servicestest.ObserveSchema, c.h).URL).Judge(context.Background(), req)
			if !errors.As(err, c.as) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err %T %v\nwant %q", err, err, c.msg)
			}
		})
	}
}

func TestUnavailable(t *testing.T) {
	closed := "http://" + closedport.Addr(t) + "/mcp"
	published := observeServer(t, publishedObserve, reply(map[string]any{}))
	cases := []struct {
		name string
		cfg  services.Config
		as   any
		msg  []string
	}{
		{"not configured", services.Config{}, new(*services.NotConfiguredError), []string{`prism-eval is not configured: no MCP server named "prism"`}},
		{"unreachable", services.Config{Endpoints: map[string]string{"prism": closed}}, new(*services.UnreachableError), []string{"is not reachable"}},
		// PRISM's published observe judges stored transcripts, not output
		// pairs: refused with every mismatch named.
		{"PRISM's published observe", services.Config{Endpoints: map[string]string{"prism": published.URL}}, new(*services.ContractError), []string{
			`argument "original_output" is not a property of its inputSchema (declared: action, dimension, judge_model, judgment_id, meta_judge_model, new_score, reason, run_id, transcript_id)`,
			`argument "replay_output" is not a property`, `argument "goal" is not a property`,
			`inputSchema/required lists "action", which the workbench does not send`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := prism.Connect(context.Background(), c.cfg, servicestest.ClientOptions())
			if !errors.As(err, c.as) || !services.Unavailable(err) {
				t.Fatalf("err %T %v", err, err)
			}
			for _, m := range c.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q\nlacks %q", err, m)
				}
			}
		})
	}
}
