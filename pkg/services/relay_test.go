package services_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"workbench/pkg/mcp"
	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/proxy"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
	"workbench/pkg/skill"
)

// Through the workbench's own MCP relay, as the browser reaches the
// services: the relay's allowlist is the configuration, a service reaches
// its server by name, and a role the allowlist does not name is not
// configured.
func TestThroughTheRelay(t *testing.T) {
	grant := func(args map[string]any) servicestest.Reply {
		return servicestest.Reply{Structured: map[string]any{"status": "ok", "authorization_block": map[string]any{
			"policy_id": args["policy_id"], "approved_by": args["approved_by"], "approved_at": "2026-05-25T11:59:59Z",
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "authorization_token": "sha256:t"}}}
	}
	up := servicestest.Start(t, servicestest.Tool{Name: "authorize", Schema: servicestest.AuthorizeSchema, Handler: grant})
	site := httptest.NewUnstartedServer(nil)
	origin := "http://" + site.Listener.Addr().String()
	relay, err := proxy.NewMCPRelay(proxy.MCPConfig{AllowedOrigin: origin, Doer: http.DefaultClient,
		Servers: []proxy.MCPServer{{Name: "delegatic", URL: up.URL}}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(proxy.MCPMountPath, relay)
	site.Config.Handler = mux
	site.Start()
	defer site.Close()
	hdr := http.Header{"Origin": {origin}}

	cfg, err := services.Discover(context.Background(), http.DefaultClient, origin, hdr)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Configured(services.RoleAuthorizer) || cfg.Configured(services.RoleMemory) || cfg.Configured(services.RoleJudge) {
		t.Fatalf("config %+v", cfg)
	}
	a, err := delegatic.Connect(context.Background(), cfg, &mcp.Options{Header: hdr, HTTPClient: http.DefaultClient}, delegatic.Options{ApprovedBy: "user@workbench.local"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	got, err := a.Authorize(context.Background(), clickRequest())
	if err != nil || got.Decision != skill.DecisionAllow || got.BlockID != "sha256:t" {
		t.Errorf("block %+v, err %v", got, err)
	}
	if n := len(up.Calls()); n != 1 {
		t.Errorf("%d calls reached the server", n)
	}

	// A name the relay does not forward: unreachable through it, with the
	// relay's reason.
	cfg.Roles = map[services.Role]string{services.RoleAuthorizer: "policy"}
	cfg.Endpoints["policy"] = origin + "/api/mcp/policy"
	_, err = delegatic.Connect(context.Background(), cfg, &mcp.Options{Header: hdr, HTTPClient: http.DefaultClient}, delegatic.Options{ApprovedBy: "u"})
	var ue *services.UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `no MCP server named \"policy\" is configured`) {
		t.Errorf("err %v", err)
	}

	// A listing the relay refuses (no Origin) is an error, not an empty
	// configuration.
	if _, err := services.Discover(context.Background(), http.DefaultClient, origin, nil); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Errorf("err %v", err)
	}
}

func clickRequest() policy.Request {
	return policy.Request{Capability: skill.CapabilityBrowser, ActionType: "browser.click", Tool: "browser_click", AgentID: "openrouter:example/model-a"}
}
