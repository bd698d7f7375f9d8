//go:build interop

package prism_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"workbench/pkg/judge/prism"
	"workbench/pkg/services"
	"workbench/pkg/services/servicestest"
)

// A real MCP server that is not prism-eval is refused by name.
func TestEverythingIsNotPrism(t *testing.T) {
	cfg := services.Config{Endpoints: map[string]string{"prism": servicestest.Everything(t)}}
	_, err := prism.Connect(context.Background(), cfg, nil)
	var ce *services.ContractError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `offers no tool named "observe"`) {
		t.Fatalf("err %v", err)
	}
}
