package openrouter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Roles a Message may have.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Finish reasons OpenRouter normalizes every provider's reason to.
const (
	FinishStop          = "stop"
	FinishLength        = "length"
	FinishToolCalls     = "tool_calls"
	FinishContentFilter = "content_filter"
	FinishError         = "error"
)

// Request is one chat completion request. Model and Messages are required.
// The stream flag is not part of it: Chat and ChatStream set it.
//
// Cost needs no request parameter: OpenRouter reports usage, cost
// included, in every response (the older "usage": {"include": true} switch
// is deprecated and has no effect), so the client does not send it.
type Request struct {
	// Model is an OpenRouter model id such as "openai/gpt-4o".
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Tools are the functions the model may call.
	Tools []Tool `json:"tools,omitempty"`
	// ToolChoice constrains tool use; the zero value leaves it to the
	// model ("auto" when Tools is non-empty).
	ToolChoice ToolChoice `json:"tool_choice,omitzero"`
	// ParallelToolCalls, when non-nil, allows or forbids several tool
	// calls in one reply.
	ParallelToolCalls *bool    `json:"parallel_tool_calls,omitempty"`
	MaxTokens         int      `json:"max_tokens,omitempty"`
	Temperature       *float64 `json:"temperature,omitempty"`
	Seed              *int64   `json:"seed,omitempty"`
}

// Message is one entry of a conversation in OpenAI's chat format.
//
// A user, system or tool message carries Content. An assistant message
// carries Content, ToolCalls or both; the model's refusal, when the
// provider reports one separately, is in Refusal with Content empty. A tool
// message answers the assistant tool call whose ID is ToolCallID.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Refusal    string     `json:"refusal,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// wireMessage is Message as sent, with content and refusal nullable.
type wireMessage struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	Refusal    *string    `json:"refusal,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// MarshalJSON writes content as null for an assistant message that only
// calls tools, the form every provider accepts; an empty string is refused
// by some.
func (m Message) MarshalJSON() ([]byte, error) {
	w := wireMessage{Role: m.Role, Content: &m.Content, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name}
	if m.Role == RoleAssistant && m.Content == "" && len(m.ToolCalls) > 0 {
		w.Content = nil
	}
	if m.Refusal != "" {
		w.Refusal = &m.Refusal
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads a null content or refusal as empty.
func (m *Message) UnmarshalJSON(b []byte) error {
	var w wireMessage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Message{Role: w.Role, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID, Name: w.Name}
	if w.Content != nil {
		m.Content = *w.Content
	}
	if w.Refusal != nil {
		m.Refusal = *w.Refusal
	}
	return nil
}

// Tool is a function offered to the model. Type is always "function".
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function describes a callable function: its name, what it does, and its
// input as a JSON Schema object.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// FunctionTool returns a Tool of type "function".
func FunctionTool(name, description string, parameters json.RawMessage) Tool {
	return Tool{Type: "function", Function: Function{Name: name, Description: description, Parameters: parameters}}
}

// ToolCall is one function call the model asked for. In a Response
// returned without error, ID and Function.Name are non-empty and
// Function.Arguments is the text of a JSON object.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as JSON text,
// exactly as the model wrote them (OpenAI's format sends them as a string).
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// DecodeArguments unmarshals the call's arguments into v.
func (f FunctionCall) DecodeArguments(v any) error {
	if err := json.Unmarshal([]byte(f.Arguments), v); err != nil {
		return fmt.Errorf("openrouter: arguments of %s: %w", f.Name, err)
	}
	return nil
}

// ToolChoice says whether and which tool the model must call. The zero
// value sends nothing.
type ToolChoice struct {
	mode     string // "none", "auto", "required", or "function"
	function string
}

// Tool choices without a function name.
var (
	ToolChoiceAuto     = ToolChoice{mode: "auto"}
	ToolChoiceNone     = ToolChoice{mode: "none"}
	ToolChoiceRequired = ToolChoice{mode: "required"}
)

// ForceTool requires the model to call the named function.
func ForceTool(name string) ToolChoice { return ToolChoice{mode: "function", function: name} }

// IsZero reports whether c leaves the choice to the model.
func (c ToolChoice) IsZero() bool { return c.mode == "" }

// String is the mode, or "function:<name>".
func (c ToolChoice) String() string {
	if c.mode == "function" {
		return "function:" + c.function
	}
	return c.mode
}

// MarshalJSON writes a mode string or {"type":"function","function":{"name":…}}.
func (c ToolChoice) MarshalJSON() ([]byte, error) {
	switch c.mode {
	case "":
		return []byte("null"), nil
	case "function":
		return json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": c.function}})
	default:
		return json.Marshal(c.mode)
	}
}

// UnmarshalJSON reads either form.
func (c *ToolChoice) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = ToolChoice{mode: s}
		return nil
	}
	if string(b) == "null" {
		*c = ToolChoice{}
		return nil
	}
	var o struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	if o.Type != "function" || o.Function.Name == "" {
		return errors.New(`tool_choice object must be {"type":"function","function":{"name":…}}`)
	}
	*c = ForceTool(o.Function.Name)
	return nil
}

// Response is a chat completion. A Response returned without error has at
// least one choice, and every tool call in it is well-formed (see ToolCall).
type Response struct {
	// ID is OpenRouter's generation id ("gen-…").
	ID string `json:"id"`
	// Model is the model that answered, which may differ from the one
	// requested when OpenRouter routed to a fallback.
	Model    string   `json:"model"`
	Provider string   `json:"provider,omitempty"`
	Created  int64    `json:"created"`
	Choices  []Choice `json:"choices"`
	Usage    Usage    `json:"usage"`
}

// Message returns the first choice's message, the only one unless the
// provider was asked for several.
func (r *Response) Message() Message {
	if r == nil || len(r.Choices) == 0 {
		return Message{}
	}
	return r.Choices[0].Message
}

// Cost is what the call cost in OpenRouter credits (US dollars), and
// whether OpenRouter reported it.
func (r *Response) Cost() (float64, bool) {
	if r == nil || r.Usage.Cost == nil {
		return 0, false
	}
	return *r.Usage.Cost, true
}

// Choice is one completion of the conversation.
type Choice struct {
	Index   int     `json:"index"`
	Message Message `json:"message"`
	// FinishReason is OpenRouter's normalized reason (FinishStop,
	// FinishToolCalls, …); NativeFinishReason is the provider's own.
	FinishReason       string `json:"finish_reason"`
	NativeFinishReason string `json:"native_finish_reason,omitempty"`
}

// Usage is the token accounting and cost OpenRouter reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// Cost is in OpenRouter credits (US dollars); nil when the reply
	// carried none.
	Cost *float64 `json:"cost,omitempty"`
}

// Delta is one streamed increment of a reply, as ChatStream hands it to its
// callback. Fragments are in arrival order; ChatStream reassembles them into
// the Response it returns.
type Delta struct {
	// Choice is the index of the choice this delta belongs to.
	Choice int
	// Content and Refusal are text fragments.
	Content string
	Refusal string
	// ToolCalls are tool-call fragments. A call's first fragment carries
	// its ID and name; later ones carry more of its arguments.
	ToolCalls []ToolCallDelta
	// FinishReason is set on the delta that ends the choice.
	FinishReason string
	// Usage is set on the delta that carried usage, normally the last.
	Usage *Usage
}

// ToolCallDelta is a fragment of the tool call at Index.
type ToolCallDelta struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// KeyInfo describes the API key, from GET /key.
type KeyInfo struct {
	// Label is OpenRouter's name for the key, usually a masked form of it.
	Label string `json:"label"`
	// Limit is the key's credit limit in US dollars; nil means unlimited.
	Limit *float64 `json:"limit"`
	// LimitRemaining is what is left of Limit; nil means unlimited.
	LimitRemaining *float64 `json:"limit_remaining"`
	// LimitReset is how often the limit resets ("monthly", …); empty if never.
	LimitReset string `json:"limit_reset,omitempty"`
	// Usage is the credit spent with the key, in US dollars.
	Usage        float64 `json:"usage"`
	UsageDaily   float64 `json:"usage_daily,omitempty"`
	UsageWeekly  float64 `json:"usage_weekly,omitempty"`
	UsageMonthly float64 `json:"usage_monthly,omitempty"`
	IsFreeTier   bool    `json:"is_free_tier"`
}
