//go:build interop

package graphonomous_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"workbench/pkg/memory/graphonomous"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
)

// A real MCP server that is not graphonomous-mcp is refused by name.
func TestEverythingIsNotGraphonomous(t *testing.T) {
	cfg := services.Config{Endpoints: map[string]string{"graphonomous": servicestest.Everything(t)}}
	_, err := graphonomous.Connect(context.Background(), cfg, nil)
	var ce *services.ContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `offers no tool named "act"`) {
		t.Fatalf("err %v", err)
	}
}
