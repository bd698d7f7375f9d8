package services_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"workbench/pkg/services"
)

func TestParseRoles(t *testing.T) {
	cases := []struct {
		in   string
		want map[services.Role]string
		err  string
	}{
		{"", map[services.Role]string{}, ""},
		{"delegatic=policy, prism = judge", map[services.Role]string{services.RoleAuthorizer: "policy", services.RoleJudge: "judge"}, ""},
		{"delegatic", nil, `role 1 "delegatic": want role=server`},
		{"graphonomous=", nil, "want role=server"},
		{"memory=g", nil, `unknown role "memory"; the roles are delegatic, graphonomous, prism`},
		{"prism=a,prism=b", nil, "role prism is given twice"},
	}
	for _, c := range cases {
		got, err := services.ParseRoles(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
		case err != nil:
			t.Errorf("%q: %v", c.in, err)
		case fmt.Sprint(got) != fmt.Sprint(c.want):
			t.Errorf("%q: %v, want %v", c.in, got, c.want)
		}
	}
}

func TestServer(t *testing.T) {
	c := services.Relay("http://127.0.0.1:8000/", "delegatic", "memory store")
	c.Roles = map[services.Role]string{services.RoleMemory: "memory store"}
	cases := []struct {
		role           services.Role
		name, endpoint string
		err            string
	}{
		{services.RoleAuthorizer, "delegatic", "http://127.0.0.1:8000/api/mcp/delegatic", ""},
		{services.RoleMemory, "memory store", "http://127.0.0.1:8000/api/mcp/memory%20store", ""},
		{services.RoleJudge, "prism", "", `prism-eval is not configured: no MCP server named "prism" (the configured servers are delegatic, memory store)`},
	}
	for _, x := range cases {
		name, ep, err := c.Server(x.role)
		if name != x.name || ep != x.endpoint || (err == nil) != (x.err == "") || (err != nil && err.Error() != x.err) {
			t.Errorf("%s: %q %q %v", x.role, name, ep, err)
		}
		var nc *services.NotConfiguredError
		if err != nil && (!errors.As(err, &nc) || !services.Unavailable(err)) {
			t.Errorf("%s: %T", x.role, err)
		}
		if c.Configured(x.role) != (x.err == "") {
			t.Errorf("%s: Configured disagrees", x.role)
		}
	}
	if _, _, err := (services.Config{}).Server(services.RoleAuthorizer); err == nil || !strings.Contains(err.Error(), "(no MCP servers are configured)") {
		t.Errorf("empty config: %v", err)
	}
}

func TestToolErrorIsNotUnavailability(t *testing.T) {
	err := fmt.Errorf("sync: %w", &services.ToolError{Role: services.RoleMemory, Server: "graphonomous", Tool: "act", Code: "invalid_trace", Reason: "no edges"})
	if services.Unavailable(err) {
		t.Error("a refusal counted as unavailability")
	}
	if got := err.Error(); got != `sync: graphonomous-mcp (server "graphonomous") act failed: invalid_trace: no edges` {
		t.Errorf("%s", got)
	}
}

// The browser reaches the services through the same-origin relay by
// name; a deployment that names its servers differently says which plays
// which role.
func ExampleConfig_Server() {
	cfg := services.Relay("https://workbench.example", "policy", "graphonomous")
	roles, err := services.ParseRoles("delegatic=policy")
	if err != nil {
		panic(err)
	}
	cfg.Roles = roles
	for _, r := range services.Roles() {
		name, endpoint, err := cfg.Server(r)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r.Service(), "→", name, endpoint)
	}
	// Output:
	// delegatic-mcp → policy https://workbench.example/api/mcp/policy
	// graphonomous-mcp → graphonomous https://workbench.example/api/mcp/graphonomous
	// prism-eval is not configured: no MCP server named "prism" (the configured servers are graphonomous, policy)
}
