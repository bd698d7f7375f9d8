package capability

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"workbench/pkg/body"
	"workbench/pkg/mcp"
	"workbench/pkg/policy"
	"workbench/pkg/services"
)

// MCPServer is a provider of one MCP server's tools: every tool it lists
// is a capability of source MCPSource(Name).
type MCPServer struct {
	// Name is the server's configured name (the relay's /api/mcp/<name>).
	Name string
	// Client is the connection. When it is nil and Endpoint is set, the
	// provider connects on first use, and again after a failed attempt.
	Client *mcp.Client
	// Endpoint and Options say how to connect when Client is nil.
	Endpoint string
	Options  *mcp.Options
	// Trusted says whether the user trusts the server's annotations
	// (DESIGN §7); an untrusted server's tools have EffectUnknown.
	Trusted bool
	// Capability is the [&] capability its tools exercise, as the policy
	// matches it ("&body.browser" for a browser server, "&body.os" for a
	// host); empty means "&mcp." + Name.
	Capability string

	mu sync.Mutex // guards Client while connecting
}

// Servers returns one provider per MCP server of cfg, in name order, each
// connecting on first use. trusted says which servers the user trusts
// (nil: none) and capability which [&] capability a server's tools
// exercise (nil or "": "&mcp." + name).
func Servers(cfg services.Config, trusted func(name string) bool, capability func(name string) string, opts *mcp.Options) []*MCPServer {
	names := make([]string, 0, len(cfg.Endpoints))
	for n := range cfg.Endpoints {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*MCPServer, len(names))
	for i, n := range names {
		s := &MCPServer{Name: n, Endpoint: cfg.Endpoints[n], Options: opts}
		if trusted != nil {
			s.Trusted = trusted(n)
		}
		if capability != nil {
			s.Capability = capability(n)
		}
		out[i] = s
	}
	return out
}

// client returns the connection, connecting when there is none.
func (s *MCPServer) client(ctx context.Context) (*mcp.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Client != nil {
		return s.Client, nil
	}
	if s.Endpoint == "" {
		return nil, fmt.Errorf("MCP server %s is not connected", s.Name)
	}
	c, err := mcp.Dial(ctx, s.Endpoint, s.Options)
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: %w", s.Name, err)
	}
	s.Client = c
	return c, nil
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
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	tools, err := c.ListTools(ctx)
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
	c, err := s.client(ctx)
	if err != nil {
		return Result{}, err
	}
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	r, err := c.CallTool(ctx, name, input)
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
