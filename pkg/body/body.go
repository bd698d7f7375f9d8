// Package body defines what the workbench acts through: a Body lists its
// tools, performs tool calls and reports its state (DESIGN §4). A simulator
// (package body/sim), a browser and a host reached over MCP all implement
// it, so demonstration and replay never know which one they drive.
//
// A Body's encoded state is what state hashes are computed from
// (skill.StateHash); two visits to the same situation must encode equally,
// so an implementation normalizes whatever varies between identical visits.
package body

import (
	"context"
	"encoding/json"
)

// Kind is what a skill acts through (spec §4.1 BodyChoice): the one
// body-kind type of the workbench. A manifest's body_choice
// (skill.Body*) and the body a person picks (body.Kind) are this type.
type Kind string

// Kinds of body.
const (
	KindSimulator Kind = "simulator"
	KindBrowser   Kind = "browser"
	KindHost      Kind = "host"
)

// Valid reports whether k is one of the three kinds.
func (k Kind) Valid() bool { return k == KindSimulator || k == KindBrowser || k == KindHost }

// Tool is one action a body offers, described as an MCP tool is.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations Annotations     `json:"annotations"`
	// Capability is the [&] capability the tool exercises, e.g.
	// "&body.browser" or "&body.os".
	Capability string `json:"capability"`
}

// Annotations are MCP's tool hints. Nil means the server did not say.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Result is what a tool call returned: Text for the model to read,
// Structured content when the tool gives any, and whether the tool itself
// reported an error (a failed action, not a failed call).
type Result struct {
	Text       string `json:"text"`
	Structured any    `json:"structured,omitempty"`
	IsError    bool   `json:"is_error"`
}

// Observed is what the result says, as a bundle records it in an edge's
// observed_outcome: the structured content when the tool gives any, else
// its text.
func (r Result) Observed() any {
	if r.Structured != nil {
		return r.Structured
	}
	return r.Text
}

// Body is something the agent acts through.
type Body interface {
	// Kind is KindSimulator, KindBrowser or KindHost.
	Kind() Kind
	// Server names where tool calls go: "simulator" or an MCP server's name.
	Server() string
	// Tools lists the tools the body offers now.
	Tools(ctx context.Context) ([]Tool, error)
	// Call performs one tool call. An error means the call could not be
	// made or answered; a tool that ran and failed returns a Result with
	// IsError set.
	Call(ctx context.Context, tool string, args map[string]any) (Result, error)
	// State returns the body's encoded state: a JSON value whose canonical
	// form is hashed into state and shape hashes.
	State(ctx context.Context) (any, error)
}

// Hasher is implemented by bodies that compute their state hash and shape
// signature faster than encoding their whole State each time (for example
// from cached parts). The results must equal skill.StateHashes(State).
type Hasher interface {
	StateHashes(ctx context.Context) (hash, shape string, err error)
}

// Perceiver is implemented by bodies whose State encodes more than an
// agent acting through them could see: the simulator's State is its whole
// world, every page and every file, where a real browser shows one page
// and a shell one working directory. Perceive returns what the body shows
// now, the observation a model is given. A body that is not a Perceiver
// shows its State (an MCP body's State is already the result of its
// perceive tool).
type Perceiver interface {
	Perceive(ctx context.Context) (any, error)
}

// Perceive returns what b shows now: its Perceive when it is a Perceiver,
// else its State.
func Perceive(ctx context.Context, b Body) (any, error) {
	if p, ok := b.(Perceiver); ok {
		return p.Perceive(ctx)
	}
	return b.State(ctx)
}
