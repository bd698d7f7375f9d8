//go:build interop

package delegatic_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
)

// A real MCP server that is not delegatic-mcp: configured as the
// authorizer, it is refused by name, and an MCP body may not run under it.
func TestEverythingIsNotDelegatic(t *testing.T) {
	cfg := services.Config{Endpoints: map[string]string{"delegatic": servicestest.Everything(t)}}
	_, err := delegatic.Connect(context.Background(), cfg, nil, opts())
	var ce *services.ContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `offers no tool named "authorize" (it offers `) || !strings.Contains(err.Error(), "echo") {
		t.Fatalf("err %v", err)
	}
	ch, err := delegatic.Choose(context.Background(), "browser", cfg, policy.Default(), nil, opts())
	if err == nil || ch.Authorizer != nil || ch.Fallback == nil {
		t.Errorf("choice %+v, err %v", ch, err)
	}
}
