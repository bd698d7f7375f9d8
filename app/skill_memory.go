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
	"workbench/pkg/skill"
)

// memoryTab is the skill page's Memory tab, a component of its own: what
// it learned from the MCP relay and from graphonomous-mcp is in its
// fields. Nothing is shown as stored or retrieved that the server did not
// report; its errors are shown as they came (services.NotConfiguredError,
// UnreachableError, ContractError, ToolError).
//
// The page makes one per bundle it shows and renders that same one each
// time the tab is opened, so what was synced or read stays while another
// tab is open.
type memoryTab struct {
	app.Compo
	pageTab
	env    *env
	bundle *skill.Bundle

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

// OnMount asks the relay, once, whether graphonomous-mcp is configured.
func (m *memoryTab) OnMount(ctx app.Context) {
	m.keep(ctx)
	if m.loading || m.loaded {
		return
	}
	m.loading = true
	ctx.Async(func() {
		cfg, err := m.env.services(ctx)
		m.settle(m, func() {
			m.loading, m.loaded, m.configured, m.err = false, true, cfg.Configured(services.RoleMemory), err
		})
	})
}

// onSync stores the skill's trace in graphonomous-mcp ("Sync skill to
// memory", spec §7.2: only when the user asks).
func (m *memoryTab) onSync(ctx app.Context, e app.Event) {
	if m.syncing {
		return
	}
	m.syncing, m.syncErr, m.stored = true, nil, nil
	b, ctx := m.bundle, m.own()
	ctx.Async(func() {
		var st memory.Stored
		g, err := m.connect(ctx)
		if err == nil {
			defer g.Close(context.WithoutCancel(ctx))
			st, err = g.Sync(ctx, b)
		}
		m.settle(m, func() {
			m.syncing, m.syncErr = false, err
			if err == nil {
				m.stored = &st
			}
		})
	})
}

// onRetrieve reads what graphonomous-mcp holds for the skill's trace.
func (m *memoryTab) onRetrieve(ctx app.Context, e app.Event) {
	if m.reading {
		return
	}
	m.reading, m.readErr, m.retrieved = true, nil, nil
	id, ctx := m.bundle.Trace.TraceID, m.own()
	ctx.Async(func() {
		var got memory.Retrieved
		g, err := m.connect(ctx)
		if err == nil {
			defer g.Close(context.WithoutCancel(ctx))
			got, err = g.Retrieve(ctx, id)
		}
		m.settle(m, func() {
			m.reading, m.readErr = false, err
			if err == nil {
				m.retrieved = &got
			}
		})
	})
}

func (m *memoryTab) connect(ctx context.Context) (*graphonomous.Memory, error) {
	cfg, err := m.env.services(ctx)
	if err != nil {
		return nil, err
	}
	return graphonomous.Connect(ctx, cfg, &mcp.Options{Timeout: 60 * time.Second, Revisions: &m.env.mcpRevisions})
}

// renderMemory shows whether graphonomous-mcp is configured, what it
// answered when asked, and the node references the bundle itself
// recorded. It never shows nodes it did not read.
func (m *memoryTab) Render() app.UI {
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
				app.Button().Type("button").ID("memory-sync").Disabled(m.syncing).Text("Sync skill to memory").OnClick(m.onSync),
				app.Button().Type("button").ID("memory-retrieve").Class("secondary").Disabled(m.reading).Text("Read from memory").OnClick(m.onRetrieve),
			),
			app.Div().ID("memory-result").Aria("live", "polite").Body(m.renderResult()),
		)
	}
	refs := m.bundle.Evidence.GraphonomousRefs
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

// renderResult is what the last sync and read answered.
func (m *memoryTab) renderResult() app.UI {
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
