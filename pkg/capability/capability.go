// Package capability is the engine of the capability palette, the
// capability workbench of spec/capability-workbench.txt (DESIGN §8): the catalog of every live
// capability — each tool of each connected MCP server, the simulator's
// tools and the workbench's own actions — and the one governed function
// through which any of them runs.
//
// A Capability is a descriptor: what the action is, where it comes from,
// the JSON Schema of its input, its side effect (from MCP annotations and
// whether the server is trusted, as the policy engine reads them), how its
// result is best rendered, and whether it can run now (Availability) with
// the live reasons and missing preconditions when it cannot.
//
// A Provider lists, describes and invokes the capabilities of one source.
// A Catalog merges providers; a provider that fails to list is reported as
// that source's failure (*SourceError) while the others are listed.
//
// Governor.Invoke is the only way to run a capability: it refreshes the
// descriptor, checks availability, input and confirmation, re-authorizes
// with the policy engine, records the decision in the run, turns
// approval_required into a pending approval, and dispatches asynchronously
// — it returns a run id at once and the result arrives as a tool_result
// event of that run (package runs).
//
// Nothing here blocks a caller that must not block: List, Describe,
// Preflight and Invoke take a context and may do I/O, so a browser UI
// calls them from a goroutine (go-app's Context.Async) and dispatches the
// answer back; Filter is pure and fast enough to run on every keystroke.
package capability

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"workbench/pkg/body"
	"workbench/pkg/policy"
)

// Availability says whether a capability can run now.
type Availability string

// Availabilities.
const (
	// Available: every precondition holds.
	Available Availability = "available"
	// Degraded: it can run, but not fully; Reasons say what is missing.
	Degraded Availability = "degraded"
	// Unavailable: it cannot run; Reasons and Missing say why. An
	// unavailable capability stays in the catalog, visible and disabled.
	Unavailable Availability = "unavailable"
)

// Sources of capabilities. An MCP server's source is MCPSource(name).
const (
	SourceWorkbench = "workbench"
	SourceSimulator = "simulator"
)

// MCPSource names the source of an MCP server's tools: "mcp/" + name.
func MCPSource(server string) string { return "mcp/" + server }

// ID makes a capability id from its source and its name within the
// source: "workbench:verify", "simulator:click", "mcp/everything:echo".
func ID(source, name string) string { return source + ":" + name }

// SplitID splits a capability id into source and name.
func SplitID(id string) (source, name string, ok bool) {
	i := strings.IndexByte(id, ':')
	if i <= 0 || i == len(id)-1 {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// Render hints: how a result is best shown (package capability/render).
const (
	HintTable    = "table"
	HintEvidence = "evidence"
	HintGraph    = "graph"
	HintJSON     = "json"
)

// Capability describes one action the workbench can run.
type Capability struct {
	ID          string `json:"capability_id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	// Source is SourceWorkbench, SourceSimulator or MCPSource(server).
	Source string `json:"source"`
	// Name is the action's name within its source: the tool name.
	Name string `json:"name"`
	// InputSchema is the JSON Schema of the input, as the source gave it.
	InputSchema json.RawMessage `json:"input_schema"`
	// Effect is the side effect the policy engine will assume:
	// policy.EffectOf(Annotations, Trusted).
	Effect policy.Effect `json:"side_effect"`
	// Annotations are the source's hints, and Trusted whether the user
	// trusts the source to tell the truth in them.
	Annotations body.Annotations `json:"annotations"`
	Trusted     bool             `json:"trusted"`
	// PolicyCapability is the [&] capability the action exercises, as the
	// policy matches it: "&body.browser", "&body.os", "ambient", …
	PolicyCapability string `json:"policy_capability"`
	// RenderHint is one of the Hint constants, or a specialized hint a
	// renderer may not know (it then falls back to JSON).
	RenderHint   string       `json:"render_hint"`
	Availability Availability `json:"availability"`
	// Reasons say why the capability is degraded or unavailable, live.
	Reasons []string `json:"reasons,omitempty"`
	// Missing names the preconditions that do not hold, e.g.
	// "a stored skill", "an OpenRouter key".
	Missing []string `json:"missing_preconditions,omitempty"`
	// Actions lists the capability's actions when it has several (the
	// document's "selected action" is one of them); empty, the capability
	// is its one action, named Name, and Name, InputSchema, Effect and
	// RenderHint above describe it. With several, those describe the
	// first, and Act gives the capability as seen through another.
	Actions []Action `json:"actions,omitempty"`
}

// Action is one action of a capability: what a proposal names as its
// action, with the input schema its form is generated from, its side
// effect (which decides whether it needs confirmation) and how its result
// is best rendered.
type Action struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
	Effect      policy.Effect   `json:"side_effect"`
	RenderHint  string          `json:"render_hint,omitempty"`
}

// ActionList lists the capability's actions: Actions, or, for a
// capability that is its one action, that action.
func (c Capability) ActionList() []Action {
	if len(c.Actions) > 0 {
		return c.Actions
	}
	return []Action{{Name: c.Name, InputSchema: c.InputSchema, Effect: c.Effect, RenderHint: c.RenderHint}}
}

// Act returns the capability as seen through its action name: Name,
// InputSchema, Effect and RenderHint are the action's (the description
// too, when the action has one). An empty name is the capability's first
// action. A name the capability does not have is an *ActionError.
func (c Capability) Act(name string) (Capability, error) {
	list := c.ActionList()
	if name == "" {
		name = list[0].Name
	}
	for _, a := range list {
		if a.Name == name {
			c.Name, c.InputSchema, c.Effect, c.RenderHint = a.Name, a.InputSchema, a.Effect, a.RenderHint
			if a.Description != "" {
				c.Description = a.Description
			}
			return c, nil
		}
	}
	names := make([]string, len(list))
	for i, a := range list {
		names[i] = a.Name
	}
	return c, &ActionError{ID: c.ID, Action: name, Actions: names}
}

// ActionError is a proposal naming an action its capability does not
// have.
type ActionError struct {
	ID      string
	Action  string
	Actions []string
}

func (e *ActionError) Error() string {
	return fmt.Sprintf("capability %s has no action %q (its actions: %s)", e.ID, e.Action, strings.Join(e.Actions, ", "))
}

// NeedsConfirmation reports whether running c needs the user's explicit
// confirmation: every effect but a trusted read.
func (c Capability) NeedsConfirmation() bool { return c.Effect != policy.EffectRead }

// ActionType is the action type recorded in the authorization block:
// the source and the name, "workbench.verify", "mcp/everything.echo".
func (c Capability) ActionType() string { return c.Source + "." + c.Name }

// Result is what a capability returned.
type Result struct {
	// IsError is the action's own report of failure: it ran and failed.
	IsError bool `json:"is_error"`
	// Value is the result as JSON: structured content when there is any,
	// otherwise {"text": …, "content": […]} for an MCP tool, or the
	// workbench action's result object.
	Value json.RawMessage `json:"result"`
	// Text is a plain-text rendering, when the source gave one.
	Text string `json:"text,omitempty"`
	// File is a file the action made for the user to keep (an export's
	// bundle). It is never recorded in the run's events, which are kept
	// and shown: the backend that ran the action hands it over
	// (FileSource), and the events name it.
	File *File `json:"-"`
}

// File is a file an action made for the user to keep.
type File struct {
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Data      []byte `json:"-"`
}

// Provider lists, describes and invokes the capabilities of one source.
// Implementations are safe for concurrent use.
type Provider interface {
	// Source is the source every capability of the provider has.
	Source() string
	// List returns the source's capabilities with their availability now.
	List(ctx context.Context) ([]Capability, error)
	// Describe returns one capability, freshly (availability included).
	// An id the source does not have is a *NotFoundError.
	Describe(ctx context.Context, id string) (Capability, error)
	// Invoke runs the capability with input (a JSON object). An error
	// means it could not run or answer; an action that ran and failed is
	// a Result with IsError set.
	Invoke(ctx context.Context, id string, input json.RawMessage) (Result, error)
}

// SourceError is a source that could not list its capabilities; the
// catalog shows it as that source's failure.
type SourceError struct {
	Source string
	Err    error
}

func (e *SourceError) Error() string {
	return fmt.Sprintf("capability source %s: %v", e.Source, e.Err)
}

func (e *SourceError) Unwrap() error { return e.Err }

// NotFoundError is a capability id no source has.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("capability %q not found", e.ID) }

// InputError is an input that does not fit the capability's schema. Each
// problem names its place as a JSON pointer.
type InputError struct {
	ID       string
	Problems []string
}

func (e *InputError) Error() string {
	return fmt.Sprintf("capability %s: invalid input: %s", e.ID, strings.Join(e.Problems, "; "))
}

type progressKey struct{}

// WithProgress returns a context carrying report, which a provider calls
// (through ReportProgress) with progress payloads while an action runs:
// a replayed edge, a demonstration step. The Governor records each as a
// progress event of the run. report must not block.
func WithProgress(ctx context.Context, report func(data any)) context.Context {
	return context.WithValue(ctx, progressKey{}, report)
}

// ReportProgress reports data to the context's progress reporter, if it
// has one.
func ReportProgress(ctx context.Context, data any) {
	if report, ok := ctx.Value(progressKey{}).(func(any)); ok && report != nil {
		report(data)
	}
}

func object(input json.RawMessage) (map[string]any, error) {
	if len(input) == 0 {
		return map[string]any{}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(input, &m); err != nil {
		return nil, fmt.Errorf("input is not a JSON object: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("input is not a JSON object: null")
	}
	return m, nil
}
