package main

import (
	"context"
	"fmt"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody"
	"workbench/pkg/body/sim"
)

// body returns what a demonstration or a replay acts through for the
// user's body choice, and whether its tool annotations are to be believed
// (DESIGN §7). world is the simulator world the task starts in; the other
// bodies ignore it. This is the one place a body is chosen.
//
// The browser and host bodies are the MCP servers named "browser" and
// "host" on the computer the tab is paired with, or else on the relay
// (docs/app-bodies.md), dialled here and nowhere earlier: a page that only
// wants to know whether a body can be used asks checkBody, which connects
// to nothing. The caller closes what it gets with closeBody. A body
// neither offers is an errBodyNotConfigured, never the simulator in its
// place.
func (e *env) body(ctx context.Context, choice body.Kind, world []byte, set mcpSettings) (b body.Body, trusted bool, err error) {
	switch choice {
	case body.KindSimulator:
		s, err := sim.New(world)
		if err != nil {
			return nil, false, fmt.Errorf("loading the simulator world: %w", err)
		}
		// The simulator's annotations are its own, in this page.
		return s, true, nil
	case body.KindBrowser, body.KindHost:
		return e.dialBody(ctx, choice, set)
	}
	return nil, false, fmt.Errorf("%q is not a body (want simulator, browser or host)", string(choice))
}

// dialBody connects to the MCP body of choice: on this computer when the
// tab is paired, else through the relay.
func (e *env) dialBody(ctx context.Context, choice body.Kind, set mcpSettings) (body.Body, bool, error) {
	name := bodyServer(choice)
	pl, err := e.bodyPlace(ctx, choice)
	if err != nil {
		return nil, false, err
	}
	opts := mcpbody.Options{
		Kind:    choice,
		Trusted: set.trusts(name),
		// Each request is bounded like the command line's (docs/bodies.md):
		// a browser's first navigation takes seconds.
		Client: pl.options(90*time.Second, &e.mcpRevisions),
	}
	if choice == body.KindHost {
		tool, args, err := set.perceive()
		if err != nil {
			return nil, false, err
		}
		opts.Perceive = mcpbody.Perceive{Tool: tool, Arguments: args}
	}
	bd, err := mcpbody.Dial(ctx, pl.endpoint(name), opts)
	if err != nil {
		return nil, false, fmt.Errorf("the %s body (MCP server %q %s): %w", choice, name, pl.where(), err)
	}
	return bd, bd.Trusted(), nil
}
