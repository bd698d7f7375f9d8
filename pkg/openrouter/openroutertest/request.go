package openroutertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// ChatRequest is a chat completion request as the server decoded it from
// the wire, independently of any client's types, so that a client's
// encoding mistakes show up here.
type ChatRequest struct {
	Model      string          `json:"model"`
	Messages   []Message       `json:"messages"`
	Tools      []RequestTool   `json:"tools"`
	ToolChoice json.RawMessage `json:"tool_choice"`
	Stream     bool            `json:"stream"`
	// Members is every top-level member as sent, for assertions on
	// parameters the fields above do not cover.
	Members map[string]json.RawMessage `json:"-"`
}

// Message is one message as sent. Content is kept raw: a string, null, or
// an array of content parts.
type Message struct {
	Role       string            `json:"role"`
	Content    json.RawMessage   `json:"content"`
	ToolCalls  []RequestToolCall `json:"tool_calls"`
	ToolCallID string            `json:"tool_call_id"`
	Name       string            `json:"name"`
}

// Text is the message's text: its string content, or its text parts
// joined.
func (m Message) Text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// RequestToolCall is a tool call of an assistant message, as sent.
type RequestToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// RequestTool is an offered function, as sent.
type RequestTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// LastToolResult returns the last message with role "tool".
func (r *ChatRequest) LastToolResult() (Message, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "tool" {
			return r.Messages[i], true
		}
	}
	return Message{}, false
}

// LastUser returns the last message with role "user".
func (r *ChatRequest) LastUser() (Message, bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i], true
		}
	}
	return Message{}, false
}

// ToolNames lists the offered functions' names.
func (r *ChatRequest) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// invalid is a request OpenRouter (or the provider behind it) refuses with
// 400; where is a JSON pointer into the request body.
type invalid struct {
	where, why string
}

func (e *invalid) Error() string {
	if e.where == "" {
		return "Invalid request: " + e.why
	}
	return "Invalid request at " + e.where + ": " + e.why
}

func bad(where, format string, args ...any) *invalid {
	return &invalid{where: where, why: fmt.Sprintf(format, args...)}
}

var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// decodeChat parses and checks a request body the way the API does before
// any model runs: a JSON object; messages well-formed; every tool message
// answering a tool call of the assistant message before it, and every
// tool call answered before the conversation moves on; tools and
// tool_choice in OpenAI's function format.
func decodeChat(body []byte) (*ChatRequest, *invalid) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil || members == nil {
		return nil, bad("", "the body is not a JSON object")
	}
	var r ChatRequest
	if err := json.Unmarshal(body, &r); err != nil {
		where := ""
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			where = "/" + strings.ReplaceAll(te.Field, ".", "/")
		}
		return nil, bad(where, "%v", err)
	}
	r.Members = members
	if s, ok := members["stream"]; ok && string(s) != "true" && string(s) != "false" && string(s) != "null" {
		return nil, bad("/stream", "must be a boolean")
	}
	if len(r.Messages) == 0 {
		if _, ok := members["prompt"]; ok {
			return nil, bad("/prompt", "this test server speaks chat messages only")
		}
		return nil, bad("/messages", "required: a non-empty array of messages")
	}
	if err := checkTools(&r); err != nil {
		return nil, err
	}
	if err := checkMessages(r.Messages, members["messages"]); err != nil {
		return nil, err
	}
	return &r, nil
}

func checkTools(r *ChatRequest) *invalid {
	names := map[string]bool{}
	for i, t := range r.Tools {
		p := fmt.Sprintf("/tools/%d", i)
		if t.Type != "function" {
			return bad(p+"/type", "%q; only \"function\" is supported", t.Type)
		}
		if !functionName.MatchString(t.Function.Name) {
			return bad(p+"/function/name", "%q does not match ^[a-zA-Z0-9_-]{1,64}$", t.Function.Name)
		}
		if names[t.Function.Name] {
			return bad(p+"/function/name", "%q is declared twice", t.Function.Name)
		}
		names[t.Function.Name] = true
		if len(t.Function.Parameters) > 0 && string(t.Function.Parameters) != "null" {
			var o map[string]json.RawMessage
			if json.Unmarshal(t.Function.Parameters, &o) != nil || o == nil {
				return bad(p+"/function/parameters", "must be a JSON Schema object")
			}
		}
	}
	tc := bytes.TrimSpace(r.ToolChoice)
	if len(tc) == 0 || string(tc) == "null" {
		return nil
	}
	var mode string
	if json.Unmarshal(tc, &mode) == nil {
		switch mode {
		case "none", "auto":
			return nil
		case "required":
			if len(r.Tools) == 0 {
				return bad("/tool_choice", "\"required\" needs tools")
			}
			return nil
		}
		return bad("/tool_choice", "%q; want none, auto, required or a function", mode)
	}
	var o struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(tc, &o) != nil || o.Type != "function" {
		return bad("/tool_choice", "want {\"type\":\"function\",\"function\":{\"name\":…}}")
	}
	if !names[o.Function.Name] {
		return bad("/tool_choice/function/name", "%q is not among the tools", o.Function.Name)
	}
	return nil
}

func checkMessages(msgs []Message, raw json.RawMessage) *invalid {
	var rawMsgs []map[string]json.RawMessage
	_ = json.Unmarshal(raw, &rawMsgs)
	// pending holds the tool calls of the latest assistant message that
	// no tool message has answered yet.
	pending := map[string]bool{}
	var pendingAt int
	seen := map[string]bool{}
	for i, m := range msgs {
		p := fmt.Sprintf("/messages/%d", i)
		hasContent := false
		if i < len(rawMsgs) {
			_, hasContent = rawMsgs[i]["content"]
		}
		content := bytes.TrimSpace(m.Content)
		isNull := len(content) == 0 || string(content) == "null"
		if m.Role != "tool" && len(pending) > 0 {
			return bad(p, "a %s message comes before tool call %s of /messages/%d was answered", m.Role, firstKey(pending), pendingAt)
		}
		switch m.Role {
		case "system", "developer", "user":
			if !hasContent || isNull {
				return bad(p+"/content", "required for a %s message", m.Role)
			}
			if err := checkContent(p+"/content", content); err != nil {
				return err
			}
		case "assistant":
			if isNull && len(m.ToolCalls) == 0 {
				return bad(p+"/content", "an assistant message needs content or tool_calls")
			}
			if !isNull {
				if err := checkContent(p+"/content", content); err != nil {
					return err
				}
			}
			for j, tc := range m.ToolCalls {
				q := fmt.Sprintf("%s/tool_calls/%d", p, j)
				var args string
				switch {
				case tc.ID == "":
					return bad(q+"/id", "required")
				case seen[tc.ID]:
					return bad(q+"/id", "%q is used by an earlier tool call", tc.ID)
				case tc.Type != "function":
					return bad(q+"/type", "%q; want \"function\"", tc.Type)
				case !functionName.MatchString(tc.Function.Name):
					return bad(q+"/function/name", "%q is not a function name", tc.Function.Name)
				case json.Unmarshal(tc.Function.Arguments, &args) != nil:
					return bad(q+"/function/arguments", "must be a string holding JSON")
				}
				seen[tc.ID] = true
				pending[tc.ID] = true
				pendingAt = i
			}
		case "tool":
			if m.ToolCallID == "" {
				return bad(p+"/tool_call_id", "required for a tool message")
			}
			if !pending[m.ToolCallID] {
				if seen[m.ToolCallID] {
					return bad(p+"/tool_call_id", "%q was already answered", m.ToolCallID)
				}
				return bad(p+"/tool_call_id", "%q matches no tool call of the assistant message before it", m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
			if !hasContent || isNull {
				return bad(p+"/content", "required for a tool message")
			}
			if err := checkContent(p+"/content", content); err != nil {
				return err
			}
		case "":
			return bad(p+"/role", "required")
		default:
			return bad(p+"/role", "%q; want system, developer, user, assistant or tool", m.Role)
		}
	}
	if len(pending) > 0 {
		return bad(fmt.Sprintf("/messages/%d", pendingAt), "tool call %s is never answered by a tool message", firstKey(pending))
	}
	return nil
}

// checkContent accepts a string or an array of typed parts.
func checkContent(p string, c json.RawMessage) *invalid {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return nil
	}
	var parts []map[string]json.RawMessage
	if json.Unmarshal(c, &parts) != nil {
		return bad(p, "must be a string or an array of content parts")
	}
	for k, part := range parts {
		var typ string
		if json.Unmarshal(part["type"], &typ) != nil || typ == "" {
			return bad(fmt.Sprintf("%s/%d/type", p, k), "required")
		}
	}
	return nil
}

func firstKey(m map[string]bool) string {
	first := ""
	for k := range m {
		if first == "" || k < first {
			first = k
		}
	}
	return fmt.Sprintf("%q", first)
}
