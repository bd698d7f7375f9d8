package openrouter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Chat sends req and returns the whole completion.
//
// An error reported inside a 200 reply is an *APIError with Midstream set.
// A reply that is not the documented shape is a *MalformedError; when its
// usage could be read, MalformedError.Usage has it, cost included. A reply
// that breaks off or whose JSON stops part way is a *CutError.
func (c *Client) Chat(ctx context.Context, req Request) (*Response, error) {
	body, err := encodeRequest(req, false)
	if err != nil {
		return nil, err
	}
	var out *Response
	err = c.retrying(ctx, func() error {
		var err error
		out, err = c.chat1(ctx, body)
		return err
	})
	return out, err
}

func (c *Client) chat1(ctx context.Context, body []byte) (*Response, error) {
	const op = "POST /chat/completions"
	ctx, cancel := c.bound(ctx)
	defer cancel()
	hreq, err := c.newRequest(ctx, http.MethodPost, "/chat/completions", body)
	if err != nil {
		return nil, err
	}
	resp, err := c.send(hreq, op)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := readCapped(resp.Body, MaxResponseBytes)
	if err != nil {
		return nil, c.readError(hreq, op, len(raw), err)
	}
	return c.decodeResponse(op, raw)
}

// wireRequest is Request plus the stream flag.
type wireRequest struct {
	Request
	Stream bool `json:"stream,omitempty"`
}

// encodeRequest checks req and encodes it.
func encodeRequest(req Request, stream bool) ([]byte, error) {
	if err := checkRequest(&req); err != nil {
		return nil, err
	}
	b, err := json.Marshal(wireRequest{Request: req, Stream: stream})
	if err != nil {
		return nil, fmt.Errorf("openrouter: encoding the request: %w", err)
	}
	return b, nil
}

// checkRequest refuses what OpenRouter would refuse anyway, with the field
// named, and what the client could not even encode.
func checkRequest(req *Request) error {
	bad := func(field, format string, args ...any) error {
		return &RequestError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if strings.TrimSpace(req.Model) == "" {
		return bad("Model", "empty; name a model such as openai/gpt-4o")
	}
	if len(req.Messages) == 0 {
		return bad("Messages", "empty; a completion needs at least one message")
	}
	tools := map[string]bool{}
	for i, t := range req.Tools {
		f := fmt.Sprintf("Tools[%d]", i)
		if t.Type != "function" {
			return bad(f+".Type", "%q; only \"function\" tools exist", t.Type)
		}
		if !validFunctionName(t.Function.Name) {
			return bad(f+".Function.Name", "%q; a function name is 1 to 64 of a-z A-Z 0-9 _ -", t.Function.Name)
		}
		if tools[t.Function.Name] {
			return bad(f+".Function.Name", "%q is offered twice", t.Function.Name)
		}
		tools[t.Function.Name] = true
		if len(t.Function.Parameters) > 0 && !isJSONObject(t.Function.Parameters) {
			return bad(f+".Function.Parameters", "not a JSON object (a JSON Schema is one)")
		}
	}
	if req.ToolChoice.mode == "function" && !tools[req.ToolChoice.function] {
		return bad("ToolChoice", "forces %q, which is not among Tools", req.ToolChoice.function)
	}
	calls := map[string]bool{}
	for i, m := range req.Messages {
		f := fmt.Sprintf("Messages[%d]", i)
		switch m.Role {
		case RoleSystem, RoleUser:
		case RoleAssistant:
			for j, tc := range m.ToolCalls {
				g := fmt.Sprintf("%s.ToolCalls[%d]", f, j)
				if tc.ID == "" {
					return bad(g+".ID", "empty")
				}
				if tc.Type != "function" {
					return bad(g+".Type", "%q; want \"function\"", tc.Type)
				}
				if tc.Function.Name == "" {
					return bad(g+".Function.Name", "empty")
				}
				if !json.Valid([]byte(tc.Function.Arguments)) {
					return bad(g+".Function.Arguments", "not JSON")
				}
				calls[tc.ID] = true
			}
		case RoleTool:
			if m.ToolCallID == "" {
				return bad(f+".ToolCallID", "empty; a tool message answers a tool call")
			}
			if !calls[m.ToolCallID] {
				return bad(f+".ToolCallID", "%q answers no earlier assistant tool call", m.ToolCallID)
			}
		default:
			return bad(f+".Role", "%q; want system, user, assistant or tool", m.Role)
		}
	}
	return nil
}

func validFunctionName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func isJSONObject(b []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(b, &m) == nil && m != nil
}

// wireResponse is a completion or a chunk as sent, with the fields that
// need checking kept raw or as pointers.
type wireResponse struct {
	ID       string       `json:"id"`
	Model    string       `json:"model"`
	Provider string       `json:"provider"`
	Created  int64        `json:"created"`
	Object   string       `json:"object"`
	Choices  []wireChoice `json:"choices"`
	Usage    *Usage       `json:"usage"`
	Error    *errorObject `json:"error"`
}

type wireChoice struct {
	Index              int          `json:"index"`
	Message            *Message     `json:"message"`
	Delta              *wireDelta   `json:"delta"`
	FinishReason       *string      `json:"finish_reason"`
	NativeFinishReason *string      `json:"native_finish_reason"`
	Error              *errorObject `json:"error"`
}

// decodeResponse reads a non-streamed completion, the reply to op.
func (c *Client) decodeResponse(op string, raw []byte) (*Response, error) {
	var w wireResponse
	if err := json.Unmarshal(raw, &w); err != nil {
		if endsEarly(raw, err) {
			return nil, c.cutJSON(op, raw)
		}
		return nil, c.key.malformed(&MalformedError{Where: jsonWhere(err), Reason: "not a chat completion: " + err.Error(), Snippet: snippet(raw), Err: err})
	}
	if w.Error != nil {
		e := midstream(w.Error)
		e.Usage = w.Usage
		return nil, c.key.apiError(e)
	}
	for i, ch := range w.Choices {
		if ch.Error != nil {
			e := midstream(ch.Error)
			e.Usage = w.Usage
			return nil, c.key.apiError(e)
		}
		if ch.Message == nil {
			return nil, c.key.malformed(&MalformedError{Where: fmt.Sprintf("/choices/%d/message", i), Reason: "missing", Usage: w.Usage})
		}
	}
	out := &Response{ID: w.ID, Model: w.Model, Provider: w.Provider, Created: w.Created}
	if w.Usage != nil {
		out.Usage = *w.Usage
	}
	for _, ch := range w.Choices {
		out.Choices = append(out.Choices, Choice{Index: ch.Index, Message: *ch.Message, FinishReason: deref(ch.FinishReason), NativeFinishReason: deref(ch.NativeFinishReason)})
	}
	if err := checkResponse(out, ""); err != nil {
		err.Usage = w.Usage
		return nil, c.key.malformed(err)
	}
	return out, nil
}

func midstream(o *errorObject) *APIError {
	e := &APIError{Status: http.StatusOK, Code: o.code(), Message: o.Message, Metadata: o.Metadata, Midstream: true}
	if string(e.Metadata) == "null" {
		e.Metadata = nil
	}
	return e
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkResponse holds a completion to the shape callers rely on. Empty
// tool-call arguments, which several providers send for a call without
// parameters, become "{}". The note tells where the message came from.
func checkResponse(r *Response, note string) *MalformedError {
	if len(r.Choices) == 0 {
		return &MalformedError{Where: "/choices", Reason: "no choices" + note}
	}
	for i := range r.Choices {
		m := &r.Choices[i].Message
		p := fmt.Sprintf("/choices/%d/message", i)
		if m.Role != RoleAssistant {
			return &MalformedError{Where: p + "/role", Reason: fmt.Sprintf("%q; want assistant%s", m.Role, note)}
		}
		for j := range m.ToolCalls {
			tc := &m.ToolCalls[j]
			q := fmt.Sprintf("%s/tool_calls/%d", p, j)
			if tc.Type == "" {
				tc.Type = "function"
			}
			switch {
			case tc.Type != "function":
				return &MalformedError{Where: q + "/type", Reason: fmt.Sprintf("%q; want function%s", tc.Type, note)}
			case tc.ID == "":
				return &MalformedError{Where: q + "/id", Reason: "missing; a tool result could not refer to the call" + note}
			case tc.Function.Name == "":
				return &MalformedError{Where: q + "/function/name", Reason: "missing" + note}
			}
			if strings.TrimSpace(tc.Function.Arguments) == "" {
				tc.Function.Arguments = "{}"
			}
			if !json.Valid([]byte(tc.Function.Arguments)) {
				var v any
				err := json.Unmarshal([]byte(tc.Function.Arguments), &v)
				return &MalformedError{Where: q + "/function/arguments", Reason: fmt.Sprintf("arguments of %s are not valid JSON%s", tc.Function.Name, note), Snippet: snippet([]byte(tc.Function.Arguments)), Err: err}
			}
			if !isJSONObject([]byte(tc.Function.Arguments)) {
				return &MalformedError{Where: q + "/function/arguments", Reason: fmt.Sprintf("arguments of %s are JSON but not an object%s", tc.Function.Name, note), Snippet: snippet([]byte(tc.Function.Arguments))}
			}
		}
	}
	return nil
}
