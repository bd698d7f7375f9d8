package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/mcp"
	"workbench/pkg/memory"
	"workbench/pkg/memory/graphonomous"
	"workbench/pkg/services"
)

// memoryState is what the Memory tab learned from the MCP relay and from
// graphonomous-mcp. Nothing is shown as stored or retrieved that the
// server did not report; its errors are shown as they came
// (services.NotConfiguredError, UnreachableError, ContractError,
// ToolError).
type memoryState struct {
	loading    bool
	loaded     bool
	configured bool
	err        error

	syncing   bool
	stored    *memory.Stored
	syncErr   error
	reading   bool
	retrieved *memory.Retrieved
	readErr   error
}

func (p *skillPage) loadMemory(ctx app.Context) {
	if p.memory.loading || p.memory.loaded {
		return
	}
	p.memory.loading = true
	ctx.Async(func() {
		cfg, err := p.env.services(ctx)
		ctx.Dispatch(func(app.Context) {
			p.memory = memoryState{loaded: true, configured: cfg.Configured(services.RoleMemory), err: err}
		})
	})
}

// onSync stores the skill's trace in graphonomous-mcp ("Sync skill to
// memory", spec §7.2: only when the user asks).
func (p *skillPage) onSync(ctx app.Context, e app.Event) {
	if p.memory.syncing || p.bundle == nil {
		return
	}
	p.memory.syncing, p.memory.syncErr, p.memory.stored = true, nil, nil
	b, ctx := p.bundle, p.own()
	ctx.Async(func() {
		var st memory.Stored
		m, err := p.connectMemory(ctx)
		if err == nil {
			defer m.Close(context.WithoutCancel(ctx))
			st, err = m.Sync(ctx, b)
		}
		ctx.Dispatch(func(app.Context) {
			p.memory.syncing, p.memory.syncErr = false, err
			if err == nil {
				p.memory.stored = &st
			}
		})
	})
}

// onRetrieve reads what graphonomous-mcp holds for the skill's trace.
func (p *skillPage) onRetrieve(ctx app.Context, e app.Event) {
	if p.memory.reading || p.bundle == nil {
		return
	}
	p.memory.reading, p.memory.readErr, p.memory.retrieved = true, nil, nil
	id, ctx := p.bundle.Trace.TraceID, p.own()
	ctx.Async(func() {
		var got memory.Retrieved
		m, err := p.connectMemory(ctx)
		if err == nil {
			defer m.Close(context.WithoutCancel(ctx))
			got, err = m.Retrieve(ctx, id)
		}
		ctx.Dispatch(func(app.Context) {
			p.memory.reading, p.memory.readErr = false, err
			if err == nil {
				p.memory.retrieved = &got
			}
		})
	})
}

func (p *skillPage) connectMemory(ctx context.Context) (*graphonomous.Memory, error) {
	cfg, err := p.env.services(ctx)
	if err != nil {
		return nil, err
	}
	return graphonomous.Connect(ctx, cfg, &mcp.Options{Timeout: 60 * time.Second, Revisions: &p.env.mcpRevisions})
}

// renderMemory shows whether graphonomous-mcp is configured, what it
// answered when asked, and the node references the bundle itself
// recorded. It never shows nodes it did not read.
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
		status = app.Div().Body(
			app.P().Class("status").ID("memory-status").Text("An MCP server named graphonomous is configured on this workbench's relay: sync this skill's trace to it, or read what it holds for the trace."),
			app.Div().Class("field-row").Body(
				app.Button().Type("button").ID("memory-sync").Disabled(m.syncing).Text("Sync skill to memory").OnClick(p.onSync),
				app.Button().Type("button").ID("memory-retrieve").Class("secondary").Disabled(m.reading).Text("Read from memory").OnClick(p.onRetrieve),
			),
			app.Div().ID("memory-result").Aria("live", "polite").Body(p.renderMemoryResult()),
		)
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

// renderMemoryResult is what the last sync and read answered.
func (p *skillPage) renderMemoryResult() app.UI {
	m := p.memory
	var parts []app.UI
	switch {
	case m.syncing:
		parts = append(parts, app.P().Class("status status-pending").Text("Storing the trace in graphonomous-mcp…"))
	case m.syncErr != nil:
		parts = append(parts, app.Div().Class("status status-error").Role("alert").ID("memory-sync-error").Body(
			app.P().Text("Nothing was stored."), app.P().Class("error-text").Text(m.syncErr.Error())))
	case m.stored != nil:
		st := m.stored
		parts = append(parts, app.P().Class("status status-ok").ID("memory-stored").Role("status").Text(fmt.Sprintf(
			"%s stored trace %s: %d edges, outcome %s, body %s, initial state %s, destructive %v.",
			st.Server, st.TraceID, st.EdgeCount, st.Outcome, st.BodySubtype, st.InitialStateHash, st.Destructive)))
	}
	switch {
	case m.reading:
		parts = append(parts, app.P().Class("status status-pending").Text("Reading from graphonomous-mcp…"))
	case m.readErr != nil:
		parts = append(parts, app.Div().Class("status status-error").Role("alert").ID("memory-read-error").Body(
			app.P().Text("Nothing was read."), app.P().Class("error-text").Text(m.readErr.Error())))
	case m.retrieved != nil:
		parts = append(parts, renderRetrieved(*m.retrieved))
	}
	return app.Div().Body(parts...)
}

// renderRetrieved lists the stored traces and their edges (the nodes the
// service holds), exactly as the service described them.
func renderRetrieved(r memory.Retrieved) app.UI {
	if len(r.Traces) == 0 {
		return app.P().ID("memory-nodes").Text(r.Server + " holds no trace for this skill.")
	}
	items := make([]app.UI, 0, len(r.Traces))
	for _, t := range r.Traces {
		rows := make([]app.UI, len(t.Edges))
		for i, e := range t.Edges {
			rows[i] = app.Tr().Body(
				app.Td().Text(fmt.Sprint(e.EdgeID)), app.Td().Text(e.ActionType), app.Td().Text(e.Target),
				app.Td().Body(hashPair(e.StateBefore, e.StateAfter)), app.Td().Text(e.OutcomeStatus))
		}
		items = append(items, app.Div().Class("memory-trace").Body(
			app.P().Body(app.Code().Text(t.TraceID), app.Text(fmt.Sprintf(" · %s · outcome %s · %s edges · destructive %v · re-authorization required %v",
				t.BodySubtype, t.Outcome, strconv.Itoa(t.EdgeCount), t.Destructive, t.ReauthorizationRequired))),
			app.If(t.Note != "", func() app.UI { return app.P().Class("muted").Text(t.Note) }),
			app.Table().Class("list").Body(
				app.Caption().Text("Edges "+r.Server+" holds for "+t.TraceID),
				app.THead().Body(app.Tr().Body(app.Th().Scope("col").Text("Edge"), app.Th().Scope("col").Text("Action"),
					app.Th().Scope("col").Text("Target"), app.Th().Scope("col").Text("State before → after"), app.Th().Scope("col").Text("Outcome"))),
				app.TBody().Body(rows...),
			),
		))
	}
	return app.Div().ID("memory-nodes").Body(items...)
}
