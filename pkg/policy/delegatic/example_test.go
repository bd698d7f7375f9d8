package delegatic_test

import (
	"context"
	"fmt"

	"workbench/pkg/body"
	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/services"
)

// Spec OQ-2 with no delegatic-mcp configured: the simulator runs under the
// local engine; a browser demonstration is refused until the user either
// configures delegatic-mcp or explicitly accepts the local engine, whose
// blocks then say so.
func ExampleChoose() {
	ctx := context.Background()
	local := policy.Default()
	opt := delegatic.Options{ApprovedBy: "user@workbench.local"}
	for _, kind := range []body.Kind{body.KindSimulator, body.KindBrowser} {
		ch, err := delegatic.Choose(ctx, kind, services.Config{}, local, nil, opt)
		if err != nil {
			fmt.Printf("%s: %v\n", kind, err)
			fmt.Printf("%s: if the user accepts, blocks name %s\n", kind, ch.Name)
			continue
		}
		fmt.Printf("%s: %s\n", kind, ch.Why)
	}
	// Output:
	// simulator: delegatic-mcp is not configured; the simulator runs under the local policy engine (spec OQ-2)
	// browser: delegatic-mcp is not configured: no MCP server named "delegatic" (no MCP servers are configured) (spec OQ-2 requires delegatic-mcp for the browser body)
	// browser: if the user accepts, blocks name local:workbench-default-v1
}
