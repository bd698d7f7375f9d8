package main

import (
	"errors"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/services"
)

// graphonomousServer is the relay name of the server that plays memory by
// convention (workbench serve --mcp graphonomous=URL; package services).
const graphonomousServer = string(services.RoleMemory)

// memoryState is what the Memory tab learned from the MCP relay.
type memoryState struct {
	loading    bool
	loaded     bool
	configured bool
	err        error
}

func (p *skillPage) loadMemory(ctx app.Context) {
	if p.memory.loading || p.memory.loaded {
		return
	}
	p.memory.loading = true
	origin := p.env.origin()
	ctx.Async(func() {
		names, err := listMCPServers(ctx, origin)
		if errors.Is(err, errNoRelay) {
			err = nil
		}
		ctx.Dispatch(func(app.Context) {
			p.memory = memoryState{loaded: true, configured: slices.Contains(names, graphonomousServer), err: err}
		})
	})
}

// renderMemory shows what this build knows of the skill's memory: whether
// Graphonomous is reachable at all, and the node references the bundle
// itself recorded. It never shows nodes it did not read.
func (p *skillPage) renderMemory() app.UI {
	m := p.memory
	var status app.UI
	switch {
	case !m.loaded:
		status = app.P().Class("status status-pending").Text("Asking this workbench's MCP relay which servers it reaches…")
	case m.err != nil:
		status = app.Div().Class("status status-error").Role("alert").Body(
			app.P().Text("The MCP relay could not be asked whether Graphonomous is configured."),
			app.P().Class("error-text").Text(m.err.Error()),
		)
	case !m.configured:
		status = app.P().Class("status").ID("memory-status").Text("Graphonomous is not configured: this workbench relays no MCP server named graphonomous, so no memory nodes can be read.")
	default:
		status = app.P().Class("status").ID("memory-status").Text("An MCP server named graphonomous is configured on this workbench's relay, but this build does not read nodes from it yet; nothing is shown that was not read.")
	}
	refs := p.bundle.Evidence.GraphonomousRefs
	var recorded app.UI
	if len(refs) == 0 {
		recorded = app.P().ID("memory-refs").Text("The bundle records no Graphonomous nodes.")
	} else {
		rows := make([]app.UI, len(refs))
		for i, r := range refs {
			rows[i] = app.Tr().Body(app.Td().Body(app.Code().Text(r.URI)), app.Td().Text(r.Op))
		}
		recorded = app.Table().Class("list").ID("memory-refs").Body(
			app.Caption().Text("Graphonomous nodes recorded in the bundle (evidence.graphonomous_refs)"),
			app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("Node URI"), app.Th().Scope("col").Text("Operation"))),
			app.TBody().Body(rows...),
		)
	}
	return app.Div().Body(
		app.H2().Text("Memory"),
		status,
		recorded,
	)
}
