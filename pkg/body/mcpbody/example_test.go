package mcpbody_test

import (
	"context"
	"fmt"
	"log"

	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody"
	"workbench/pkg/demonstrate"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
)

// A browser body over Playwright MCP: it observes each page with
// browser_snapshot and speaks its own element references. Its trust
// setting is what the policy is told.
func ExampleDial_browser() {
	ctx := context.Background()
	bd, err := mcpbody.Dial(ctx, "http://127.0.0.1:3102/mcp", mcpbody.Options{Kind: body.KindBrowser, Trusted: true})
	if err != nil {
		log.Fatal(err)
	}
	defer bd.Close(ctx)
	res, err := bd.Call(ctx, "browser_navigate", map[string]any{"url": "http://127.0.0.1:8080/"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text) // ends with the page, e.g. - link "Docs" [ref=e4]
	if _, err := bd.Call(ctx, "browser_click", map[string]any{"target": "e4", "element": "Docs link"}); err != nil {
		log.Fatal(err)
	}
	st, err := bd.State(ctx)
	if err != nil {
		log.Fatal(err)
	}
	hash, shape, _ := skill.StateHashes(st)
	fmt.Println(hash, shape)

	// Demonstration and replay take the body as any other.
	_ = demonstrate.Options{Body: bd, Authorizer: policy.Default(), TrustedServer: bd.Trusted()}
}

// A host body over a server with file tools: it observes itself with the
// server's directory listing.
func ExampleDial_host() {
	ctx := context.Background()
	bd, err := mcpbody.Dial(ctx, "http://127.0.0.1:3103/mcp", mcpbody.Options{
		Kind:     body.KindHost,
		Perceive: mcpbody.Perceive{Tool: "directory_tree", Arguments: map[string]any{"path": "/srv/work"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer bd.Close(ctx)
	tools, err := bd.Tools(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tools {
		// Untrusted: no hints, so the policy treats every tool as a write.
		fmt.Println(t.Name, t.Capability, policy.EffectOf(t.Annotations, bd.Trusted()))
	}
}
