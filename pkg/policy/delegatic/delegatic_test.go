package delegatic_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"workbench/internal/closedport"
	"workbench/pkg/body"
	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
	"workbench/pkg/skill"
)

var clock = time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)

func opts() delegatic.Options {
	return delegatic.Options{ApprovedBy: "user@workbench.local", Now: func() time.Time { return clock },
		NewID: func() string { return "00000000-0000-7000-8000-000000000001" }}
}

// grant answers like delegatic-mcp does when it grants.
func grant(args map[string]any) servicestest.Reply {
	return servicestest.Reply{Structured: map[string]any{"status": "ok", "authorization_block": map[string]any{
		"policy_id": args["policy_id"], "approved_by": args["approved_by"],
		"approved_at": "2026-05-25T11:59:59Z", "expires_at": "2026-05-25T12:05:00Z",
		"authorization_token": "sha256:grant-" + args["action_type"].(string),
	}}}
}

func authorizeServer(t *testing.T, h servicestest.Handler) *servicestest.Server {
	return servicestest.Start(t, servicestest.Tool{Name: "authorize", Schema: servicestest.AuthorizeSchema, Handler: h})
}

func connect(t *testing.T, url string, o delegatic.Options) *delegatic.Authorizer {
	t.Helper()
	cfg := services.Config{Endpoints: map[string]string{"delegatic": url}}
	a, err := delegatic.Connect(context.Background(), cfg, servicestest.ClientOptions(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return a
}

var clickReq = policy.Request{Capability: skill.CapabilityBrowser, ActionType: "browser.click", Tool: "browser_click",
	AgentID: "openrouter:example/model-a", Declared: []string{skill.CapabilityBrowser}}

// The wire exchange of a grant: the arguments delegatic-mcp's schema
// names, and the answer mapped into the block the bundle records.
func TestGrant(t *testing.T) {
	srv := authorizeServer(t, grant)
	o := opts()
	o.TTLSeconds = 300
	a := connect(t, srv.URL, o)
	got, err := a.Authorize(context.Background(), clickReq)
	if err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls, want 1", len(calls))
	}
	want := map[string]any{"action_type": "browser.click", "policy_id": "workbench-default-v1",
		"agent_id": "openrouter:example/model-a", "approved_by": "user@workbench.local", "ttl_seconds": float64(300)}
	if len(calls[0].Args) != len(want) {
		t.Errorf("sent %v, want %v", calls[0].Args, want)
	}
	for k, v := range want {
		if calls[0].Args[k] != v {
			t.Errorf("sent %s=%v, want %v", k, calls[0].Args[k], v)
		}
	}
	if got.Decision != skill.DecisionAllow || got.Authorizer != "delegatic-mcp" || got.BlockID != "sha256:grant-browser.click" ||
		got.PolicyID != "workbench-default-v1" || got.Capability != skill.CapabilityBrowser || got.ActionType != "browser.click" ||
		got.DecidedAt != "2026-05-25T12:00:00Z" || got.Strength != policy.StrengthEnforced {
		t.Errorf("block %+v", got)
	}
	for _, s := range []string{"approved by user@workbench.local", "2026-05-25T11:59:59Z", "expires 2026-05-25T12:05:00Z"} {
		if !strings.Contains(got.Reason, s) {
			t.Errorf("reason %q lacks %q", got.Reason, s)
		}
	}
}

// An empty agent id falls back to the configured one; no ttl is sent
// unless configured.
func TestDefaults(t *testing.T) {
	srv := authorizeServer(t, grant)
	a := connect(t, srv.URL, opts())
	req := clickReq
	req.AgentID = ""
	if _, err := a.Authorize(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	args := srv.Calls()[0].Args
	if args["agent_id"] != "workbench" {
		t.Errorf("agent_id %v", args["agent_id"])
	}
	if _, ok := args["ttl_seconds"]; ok {
		t.Errorf("ttl_seconds sent unasked: %v", args)
	}
}

// Everything that is not a well-formed grant for the policy asked about
// is a recorded deny naming why: fail closed.
func TestFailClosed(t *testing.T) {
	block := func(mut func(map[string]any)) servicestest.Handler {
		return func(args map[string]any) servicestest.Reply {
			r := grant(args)
			mut(r.Structured.(map[string]any)["authorization_block"].(map[string]any))
			return r
		}
	}
	cases := []struct {
		name   string
		h      servicestest.Handler
		reason string
	}{
		{"refusal", func(map[string]any) servicestest.Reply {
			return servicestest.Reply{IsError: true, Structured: map[string]any{"status": "error", "error": "policy_denied", "reason": "browser.click is not in allow_actions"}}
		}, "delegatic-mcp refused: policy_denied: browser.click is not in allow_actions"},
		{"refusal in text only", func(map[string]any) servicestest.Reply {
			return servicestest.Reply{IsError: true, Text: "unknown policy workbench-default-v1"}
		}, "delegatic-mcp refused: unknown policy workbench-default-v1"},
		{"status not ok", func(map[string]any) servicestest.Reply {
			return servicestest.Reply{Structured: map[string]any{"status": "pending"}}
		}, `/status is "pending", not "ok"`},
		{"no block", func(map[string]any) servicestest.Reply {
			return servicestest.Reply{Structured: map[string]any{"status": "ok"}}
		}, "/authorization_block is missing, not an object"},
		{"no token", block(func(b map[string]any) { delete(b, "authorization_token") }), "/authorization_block/authorization_token is missing"},
		{"empty approver", block(func(b map[string]any) { b["approved_by"] = " " }), "/authorization_block/approved_by is \" \""},
		{"another policy", block(func(b map[string]any) { b["policy_id"] = "allow-everything" }), `policy_id is "allow-everything", not the policy asked about`},
		{"expiry not a time", block(func(b map[string]any) { b["expires_at"] = "soon" }), `expires_at "soon" is not an RFC 3339 time`},
		{"already expired", block(func(b map[string]any) { b["expires_at"] = "2026-05-25T11:00:00Z" }), "the grant expired at 2026-05-25T11:00:00Z"},
		{"text that is not JSON", func(map[string]any) servicestest.Reply {
			return servicestest.Reply{Text: "granted!"}
		}, `its text is not a JSON object: "granted!"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := authorizeServer(t, c.h)
			a := connect(t, srv.URL, opts())
			got, err := a.Authorize(context.Background(), clickReq)
			if err != nil {
				t.Fatal(err)
			}
			if got.Decision != skill.DecisionDeny || got.Authorizer != "delegatic-mcp" || got.BlockID == "" || got.PolicyID != "workbench-default-v1" {
				t.Errorf("block %+v", got)
			}
			if !strings.Contains(got.Reason, c.reason) {
				t.Errorf("reason %q\nwant it to contain %q", got.Reason, c.reason)
			}
		})
	}
}

// A server that goes away after the session started, or that never
// answers, gives a deny, not an allow and not a stopped run.
func TestTransportFailureIsDeny(t *testing.T) {
	t.Run("server gone", func(t *testing.T) {
		srv := authorizeServer(t, grant)
		a := connect(t, srv.URL, opts())
		srv.Close()
		got, err := a.Authorize(context.Background(), clickReq)
		if err != nil {
			t.Fatal(err)
		}
		if got.Decision != skill.DecisionDeny || !strings.Contains(got.Reason, "gave no decision") {
			t.Errorf("block %+v", got)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		srv := authorizeServer(t, func(map[string]any) servicestest.Reply { return servicestest.Reply{Hang: true} })
		o := opts()
		o.CallTimeout = 200 * time.Millisecond
		a := connect(t, srv.URL, o)
		got, err := a.Authorize(context.Background(), clickReq)
		if err != nil {
			t.Fatal(err)
		}
		if got.Decision != skill.DecisionDeny || !strings.Contains(got.Reason, "gave no decision") {
			t.Errorf("block %+v", got)
		}
	})
	t.Run("cancelled run", func(t *testing.T) {
		srv := authorizeServer(t, grant)
		a := connect(t, srv.URL, opts())
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := a.Authorize(ctx, clickReq); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func closedPort(t *testing.T) string {
	t.Helper()
	return "http://" + closedport.Addr(t) + "/mcp"
}

// The ways delegatic-mcp can be missing, each a typed error the UI shows.
func TestConnectErrors(t *testing.T) {
	noTool := servicestest.Start(t, servicestest.Tool{Name: "verify", Schema: `{"type":"object"}`,
		Handler: func(map[string]any) servicestest.Reply { return servicestest.Reply{} }})
	otherSchema := servicestest.Start(t, servicestest.Tool{Name: "authorize",
		Schema:  `{"type":"object","properties":{"action":{"type":"string"},"policy_id":{"type":"integer"},"agent_id":{"type":"string"},"approved_by":{"type":"string"}},"required":["action"]}`,
		Handler: grant})
	cases := []struct {
		name string
		cfg  services.Config
		as   any
		msg  []string
	}{
		{"not configured", services.Config{}, new(*services.NotConfiguredError),
			[]string{`delegatic-mcp is not configured: no MCP server named "delegatic"`}},
		{"role pointed elsewhere", services.Config{Endpoints: map[string]string{"delegatic": noTool.URL}, Roles: map[services.Role]string{services.RoleAuthorizer: "policy"}},
			new(*services.NotConfiguredError), []string{`no MCP server named "policy" (the configured servers are delegatic)`}},
		{"unreachable", services.Config{Endpoints: map[string]string{"delegatic": closedPort(t)}}, new(*services.UnreachableError),
			[]string{"delegatic-mcp (server \"delegatic\" at http://127.0.0.1:", "is not reachable"}},
		{"lacks the tool", services.Config{Endpoints: map[string]string{"delegatic": noTool.URL}}, new(*services.ContractError),
			[]string{`the server offers no tool named "authorize" (it offers verify)`}},
		{"another schema", services.Config{Endpoints: map[string]string{"delegatic": otherSchema.URL}}, new(*services.ContractError),
			[]string{`argument "action_type" is not a property of its inputSchema (declared: action, agent_id, approved_by, policy_id)`,
				`argument "policy_id" is a string but inputSchema/properties/policy_id/type is integer`,
				`inputSchema/required lists "action", which the workbench does not send`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := delegatic.Connect(context.Background(), c.cfg, servicestest.ClientOptions(), opts())
			if err == nil {
				t.Fatal("connected")
			}
			if !errors.As(err, c.as) || !services.Unavailable(err) {
				t.Errorf("err %T %v", err, err)
			}
			for _, m := range c.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q\nlacks %q", err, m)
				}
			}
		})
	}
}

func TestApprovedByRequired(t *testing.T) {
	srv := authorizeServer(t, grant)
	cfg := services.Config{Endpoints: map[string]string{"delegatic": srv.URL}}
	if _, err := delegatic.Connect(context.Background(), cfg, servicestest.ClientOptions(), delegatic.Options{}); err == nil || !strings.Contains(err.Error(), "ApprovedBy is required") {
		t.Errorf("err = %v", err)
	}
}

// Spec OQ-2: delegatic-mcp for the browser and host bodies, the local
// engine for the simulator only.
func TestChoose(t *testing.T) {
	srv := authorizeServer(t, grant)
	local := policy.Default()
	with := services.Config{Endpoints: map[string]string{"delegatic": srv.URL}}
	down := services.Config{Endpoints: map[string]string{"delegatic": closedPort(t)}}
	cases := []struct {
		kind     body.Kind
		cfg      services.Config
		name     string
		err      string
		fallback bool
	}{
		{body.KindSimulator, services.Config{}, "local:workbench-default-v1", "", false},
		{body.KindBrowser, services.Config{}, "local:workbench-default-v1", "delegatic-mcp is not configured: ", true},
		{body.KindHost, services.Config{}, "local:workbench-default-v1", "spec OQ-2 requires delegatic-mcp for the host body", true},
		{body.KindSimulator, with, "delegatic-mcp", "", false},
		{body.KindBrowser, with, "delegatic-mcp", "", false},
		{body.KindHost, with, "delegatic-mcp", "", false},
		{body.KindSimulator, down, "local:workbench-default-v1", "is not reachable", true},
		{body.KindBrowser, down, "local:workbench-default-v1", "is not reachable", true},
	}
	for _, c := range cases {
		ch, err := delegatic.Choose(context.Background(), c.kind, c.cfg, local, servicestest.ClientOptions(), opts())
		if ch.Delegatic != nil {
			defer ch.Delegatic.Close(context.Background())
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.kind, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: err %v, want %q", c.kind, err, c.err)
		}
		if ch.Name != c.name || (ch.Fallback != nil) != c.fallback || (ch.Authorizer == nil) != (c.err != "") || ch.Why == "" {
			t.Errorf("%s %v: choice %+v", c.kind, c.cfg.Endpoints, ch)
		}
	}
	if _, err := delegatic.Choose(context.Background(), "robot", with, local, servicestest.ClientOptions(), opts()); err == nil {
		t.Error("unknown body kind accepted")
	}
}
