// Package memory is the workbench's view of episodic memory (&memory.
// episodic, spec §2.3 and §4): "Sync skill to memory" stores a skill's
// interaction trace in a memory service, and the Memory tab retrieves what
// the service holds for it. Package memory/graphonomous implements it over
// a graphonomous-mcp server.
//
// Memory is optional and opt-in (spec §7.2: a store call happens only when
// the user asks). When no service is configured or it cannot be reached,
// the errors say so — *services.NotConfiguredError,
// *services.UnreachableError, *services.ContractError — and nothing is
// shown as stored or retrieved that the service did not report.
package memory

import (
	"context"

	"workbench/pkg/skill"
)

// Memory stores and retrieves skills' interaction traces.
type Memory interface {
	// Sync stores the bundle's interaction trace, tagged with the bundle
	// it belongs to, and returns what the service reports it stored.
	Sync(ctx context.Context, b *skill.Bundle) (Stored, error)
	// Retrieve returns what the service holds for a trace id. A service
	// that holds nothing for it answers with a *services.ToolError (for
	// graphonomous-mcp, code "not_found").
	Retrieve(ctx context.Context, traceID string) (Retrieved, error)
}

// Stored is the service's receipt for a stored trace: only what the
// service said.
type Stored struct {
	// Server names the MCP server that stored it.
	Server string
	// TraceID is the id the service stored the trace under; it equals the
	// bundle's trace id.
	TraceID          string
	BodySubtype      string
	EdgeCount        int
	InitialStateHash string
	Outcome          string
	// Destructive is the service's judgement that the trace has
	// destructive edges, which need fresh authorization on replay.
	Destructive bool
}

// Retrieved is what the service holds for a lookup.
type Retrieved struct {
	Server string
	Traces []Trace
}

// Trace is one stored trace as the service describes it for replay.
type Trace struct {
	TraceID          string
	BodySubtype      string
	Provider         string
	AgentID          string
	Goal             string
	Outcome          string
	StartedAt        string
	EndedAt          string
	EdgeCount        int
	InitialStateHash string
	// Destructive and ReauthorizationRequired are the service's replay
	// manifest flags; Note is its explanation, if any.
	Destructive             bool
	ReauthorizationRequired bool
	Note                    string
	// Edges are the stored edges in the service's order.
	Edges []Edge
}

// Edge is one stored edge: the state hashes and the typed action.
type Edge struct {
	EdgeID        any // the service's edge id: a string or a number
	StateBefore   string
	StateAfter    string
	ActionType    string
	Target        string
	OutcomeStatus string
}
