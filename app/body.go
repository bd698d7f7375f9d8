package main

import (
	"context"
	"fmt"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody"
	"workbench/pkg/body/sim"
	"workbench/pkg/mcp"
	"workbench/pkg/session"
)

// body returns what a demonstration or a replay acts through for the
// user's body choice, and whether its tool annotations are to be believed
// (DESIGN §7). world is the simulator world the task starts in; the other
// bodies ignore it. This is the one place a body is chosen.
//
// The browser and host bodies are the MCP servers the relay names
// "browser" and "host" (docs/app-bodies.md), dialled here and nowhere
// earlier: a page that only wants to know whether a body can be used asks
// checkBody, which connects to nothing. The caller closes what it gets
// with closeBody. A body the deployment does not configure is an
// errBodyNotConfigured, never the simulator in its place.
func (e *env) body(ctx context.Context, choice session.Body, world []byte, set mcpSettings) (b body.Body, trusted bool, err error) {
	switch choice {
	case session.Simulator:
		s, err := sim.New(world)
		if err != nil {
			return nil, false, fmt.Errorf("loading the simulator world: %w", err)
		}
		// The simulator's annotations are its own, in this page.
		return s, true, nil
	case session.Browser, session.Host:
		return e.dialBody(ctx, choice, set)
	}
	return nil, false, fmt.Errorf("%q is not a body (want simulator, browser or host)", string(choice))
}

// dialBody connects to the MCP body of choice through the relay.
func (e *env) dialBody(ctx context.Context, choice session.Body, set mcpSettings) (body.Body, bool, error) {
	name := bodyServer(choice)
	cfg, err := e.services(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("the %s body: %w", choice, err)
	}
	endpoint, ok := cfg.Endpoints[name]
	if !ok {
		return nil, false, errBodyNotConfigured{choice: choice, known: relayNames(cfg)}
	}
	opts := mcpbody.Options{
		Kind:    choice,
		Trusted: set.trusts(name),
		// Each request is bounded like the command line's (docs/bodies.md):
		// a browser's first navigation takes seconds.
		Client: &mcp.Options{Timeout: 90 * time.Second, Revisions: &e.mcpRevisions},
	}
	if choice == session.Host {
		tool, args, err := set.perceive()
		if err != nil {
			return nil, false, err
		}
		opts.Perceive = mcpbody.Perceive{Tool: tool, Arguments: args}
	}
	bd, err := mcpbody.Dial(ctx, endpoint, opts)
	if err != nil {
		return nil, false, fmt.Errorf("the %s body (MCP server %q on the relay): %w", choice, name, err)
	}
	return bd, bd.Trusted(), nil
}
