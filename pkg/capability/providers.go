package capability

import (
	"context"
	"encoding/json"
	"fmt"

	"workbench/pkg/body"
	"workbench/pkg/mcp"
	"workbench/pkg/policy"
)

// MCPServer is a provider of one connected MCP server's tools: every tool
// it lists is a capability of source MCPSource(Name).
type MCPServer struct {
	// Name is the server's configured name (the relay's /api/mcp/<name>).
	Name   string
	Client *mcp.Client
	// Trusted says whether the user trusts the server's annotations
	// (DESIGN §7); an untrusted server's tools have EffectUnknown.
	Trusted bool
	// Capability is the [&] capability its tools exercise, as the policy
	// matches it ("&body.browser" for a browser server, "&body.os" for a
	// host); empty means "&mcp." + Name.
	Capability string
}

// Source is MCPSource(Name).
func (s *MCPServer) Source() string { return MCPSource(s.Name) }

func (s *MCPServer) capability() string {
	if s.Capability != "" {
		return s.Capability
	}
	return "&mcp." + s.Name
}

// List lists the server's tools now.
func (s *MCPServer) List(ctx context.Context) ([]Capability, error) {
	if s.Client == nil {
		return nil, fmt.Errorf("MCP server %s is not connected", s.Name)
	}
	tools, err := s.Client.ListTools(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Capability, len(tools))
	for i, t := range tools {
		out[i] = fromTool(s.Source(), mcp.BodyTool(t, s.capability()), s.Trusted)
	}
	return out, nil
}

// Describe lists the tools again and returns the one asked for.
func (s *MCPServer) Describe(ctx context.Context, id string) (Capability, error) {
	return describe(ctx, s, id)
}

// Invoke calls the tool.
func (s *MCPServer) Invoke(ctx context.Context, id string, input json.RawMessage) (Result, error) {
	src, name, ok := SplitID(id)
	if !ok || src != s.Source() {
		return Result{}, &NotFoundError{ID: id}
	}
	if s.Client == nil {
		return Result{}, fmt.Errorf("MCP server %s is not connected", s.Name)
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	r, err := s.Client.CallTool(ctx, name, input)
	if err != nil {
		return Result{}, err
	}
	res := Result{IsError: r.IsError, Text: r.Text()}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		res.Value = r.StructuredContent
	} else {
		v, err := json.Marshal(map[string]any{"text": res.Text, "content": r.Content})
		if err != nil {
			return Result{}, fmt.Errorf("tool %s: result: %w", name, err)
		}
		res.Value = v
	}
	return res, nil
}

// Body is a provider of a body's tools: the simulator (source
// SourceSimulator) or any other body.Body (source "body/" + its server).
type Body struct {
	Body body.Body
	// Trusted says whether the body's annotations are believed; the
	// simulator's always are.
	Trusted bool
}

// Source is SourceSimulator for the simulator, "body/<server>" otherwise.
func (b *Body) Source() string {
	if b.Body.Kind() == body.KindSimulator {
		return SourceSimulator
	}
	return "body/" + b.Body.Server()
}

// List lists the body's tools.
func (b *Body) List(ctx context.Context) ([]Capability, error) {
	tools, err := b.Body.Tools(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Capability, len(tools))
	for i, t := range tools {
		out[i] = fromTool(b.Source(), t, b.Trusted)
	}
	return out, nil
}

// Describe returns one tool of the body.
func (b *Body) Describe(ctx context.Context, id string) (Capability, error) {
	return describe(ctx, b, id)
}

// Invoke performs the tool call on the body.
func (b *Body) Invoke(ctx context.Context, id string, input json.RawMessage) (Result, error) {
	src, name, ok := SplitID(id)
	if !ok || src != b.Source() {
		return Result{}, &NotFoundError{ID: id}
	}
	args, err := object(input)
	if err != nil {
		return Result{}, &InputError{ID: id, Problems: []string{"/: " + err.Error()}}
	}
	r, err := b.Body.Call(ctx, name, args)
	if err != nil {
		return Result{}, err
	}
	res := Result{IsError: r.IsError, Text: r.Text}
	v := any(map[string]any{"text": r.Text})
	if r.Structured != nil {
		v = r.Structured
	}
	if res.Value, err = json.Marshal(v); err != nil {
		return Result{}, fmt.Errorf("tool %s: result: %w", name, err)
	}
	return res, nil
}

func fromTool(source string, t body.Tool, trusted bool) Capability {
	title := t.Title
	if title == "" {
		title = t.Annotations.Title
	}
	if title == "" {
		title = t.Name
	}
	return Capability{
		ID: ID(source, t.Name), Title: title, Description: t.Description,
		Source: source, Name: t.Name, InputSchema: t.InputSchema,
		Effect: policy.EffectOf(t.Annotations, trusted), Annotations: t.Annotations, Trusted: trusted,
		PolicyCapability: t.Capability, RenderHint: HintJSON, Availability: Available,
	}
}

// describe finds id in a fresh listing of p.
func describe(ctx context.Context, p Provider, id string) (Capability, error) {
	if src, _, ok := SplitID(id); !ok || src != p.Source() {
		return Capability{}, &NotFoundError{ID: id}
	}
	caps, err := p.List(ctx)
	if err != nil {
		return Capability{}, &SourceError{Source: p.Source(), Err: err}
	}
	for _, c := range caps {
		if c.ID == id {
			return c, nil
		}
	}
	return Capability{}, &NotFoundError{ID: id}
}
