package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"workbench/pkg/body"
)

// maxPages bounds a tools/list walk, against a server whose cursors never
// end.
const maxPages = 1000

// Tool is a tool descriptor from tools/list.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
}

// ToolAnnotations are the server's hints about a tool. A nil hint means the
// server did not say. They are claims of the server, not guarantees.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ListTools returns every tool the server offers, following nextCursor
// through all pages. Each page is one request bounded by the timeout.
func (c *Client) ListTools(ctx context.Context, opts ...CallOption) ([]Tool, error) {
	cc := config(opts)
	var (
		tools  []Tool
		cursor string
		seen   = map[string]bool{}
	)
	for page := 1; ; page++ {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		raw, err := c.request(ctx, "tools/list", "tools/list", params, cc)
		if err != nil {
			return nil, err
		}
		var res struct {
			Tools      []Tool `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		where := fmt.Sprintf("tools/list result, page %d", page)
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, &ProtocolError{Op: "tools/list", Where: where, Err: err}
		}
		for i, t := range res.Tools {
			if t.Name == "" {
				return nil, &ProtocolError{Op: "tools/list", Where: fmt.Sprintf("%s, /tools/%d/name", where, i), Err: errors.New("tool has no name")}
			}
		}
		tools = append(tools, res.Tools...)
		if res.NextCursor == "" {
			return tools, nil
		}
		if seen[res.NextCursor] || page == maxPages {
			return nil, &ProtocolError{Op: "tools/list", Where: where, Err: fmt.Errorf("pagination does not end (cursor %q)", res.NextCursor)}
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// CallResult is the result of tools/call.
type CallResult struct {
	// Content is the unstructured result, in the server's order.
	Content []Content `json:"content"`
	// StructuredContent is the structured result, nil when absent.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// IsError is the tool's own report of failure: the call worked, the
	// action did not.
	IsError bool `json:"isError,omitempty"`
}

// Content is one content block of a result. Text is filled for "text"
// blocks; every block, whatever its type ("image", "audio",
// "resource_link", "resource", …), is kept whole in Raw.
type Content struct {
	Type string
	Text string
	Raw  json.RawMessage
}

// UnmarshalJSON keeps the block as received.
func (c *Content) UnmarshalJSON(b []byte) error {
	var head struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	if head.Type == "" {
		return errors.New(`content block has no "type"`)
	}
	c.Type, c.Raw = head.Type, append(json.RawMessage(nil), b...)
	if head.Type == "text" {
		c.Text = head.Text
	}
	return nil
}

// MarshalJSON writes the block as received.
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c.Raw) > 0 {
		return c.Raw, nil
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text,omitempty"`
	}{c.Type, c.Text})
}

// Text joins the result's text blocks with newlines.
func (r *CallResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// CallTool calls a tool. args is anything that encodes as a JSON object
// (a map, a struct, a json.RawMessage); nil sends {}. A tool that ran and
// failed is not an error here: it is a result with IsError set.
func (c *Client) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (*CallResult, error) {
	if args == nil {
		args = struct{}{}
	}
	op := fmt.Sprintf("tools/call %q", name)
	raw, err := c.request(ctx, op, "tools/call", callParams{Name: name, Arguments: args}, config(opts))
	if err != nil {
		return nil, err
	}
	var res CallResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, &ProtocolError{Op: op, Where: "tools/call result", Err: err}
	}
	return &res, nil
}

// callParams are the params of tools/call.
type callParams struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
	Meta      *meta  `json:"_meta,omitempty"`
}

func config(opts []CallOption) *callConfig {
	cc := &callConfig{}
	for _, o := range opts {
		o(cc)
	}
	return cc
}

// request makes one bounded request.
func (c *Client) request(ctx context.Context, op, method string, params any, cc *callConfig) (json.RawMessage, error) {
	ctx, cancel := c.bound(ctx, cc.timeout)
	defer cancel()
	return c.call(ctx, op, method, params, cc)
}

// BodyTool describes an MCP tool as a body tool exercising capability
// (e.g. "&body.browser"). The annotations are copied as the server gave
// them; whether to trust them is the body's decision (DESIGN §7).
func BodyTool(t Tool, capability string) body.Tool {
	bt := body.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Capability:  capability,
	}
	if a := t.Annotations; a != nil {
		bt.Annotations = body.Annotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: a.DestructiveHint,
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
	}
	if len(bt.InputSchema) == 0 {
		bt.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	return bt
}

// BodyResult turns a call result into a body result: the text blocks
// joined for the model to read, the structured content decoded, and the
// tool's error flag. Non-text blocks are left out; a body that needs them
// reads CallResult.Content.
func BodyResult(r *CallResult) (body.Result, error) {
	br := body.Result{Text: r.Text(), IsError: r.IsError}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		if err := json.Unmarshal(r.StructuredContent, &br.Structured); err != nil {
			return body.Result{}, fmt.Errorf("mcp: structured content: %w", err)
		}
	}
	return br, nil
}
