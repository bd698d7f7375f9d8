package services

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"workbench/pkg/mcp"
)

// CheckArgs checks the arguments the workbench is about to send to tool
// against the input schema the server declared for it in tools/list, so
// that a server whose contract differs from the one the workbench was
// written against fails with the difference named instead of being sent
// arguments it would misread. It checks what a tool's top-level schema
// says: that it is an object schema, that every argument is a declared
// property (a server that silently dropped an undeclared argument would
// answer a different question), that every required property is given,
// and that each argument has a declared JSON type. Nested schemas are the
// server's to check.
func (c *Conn) CheckArgs(tool string, args map[string]any) error {
	t, ok := c.Tools[tool]
	if !ok {
		return &ContractError{Role: c.Role, Server: c.Server, Tool: tool,
			Problems: []string{fmt.Sprintf("the server offers no tool named %q", tool)}}
	}
	if problems := checkArgs(t, args); len(problems) > 0 {
		return &ContractError{Role: c.Role, Server: c.Server, Tool: tool, Problems: problems}
	}
	return nil
}

// inputSchema is the part of a tool's input schema CheckArgs reads.
type inputSchema struct {
	Type       any                        `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

type propSchema struct {
	Type any `json:"type"`
}

func checkArgs(t mcp.Tool, args map[string]any) []string {
	var s inputSchema
	if len(t.InputSchema) == 0 {
		return []string{"the tool declares no inputSchema"}
	}
	if err := json.Unmarshal(t.InputSchema, &s); err != nil {
		return []string{fmt.Sprintf("its inputSchema is not a JSON Schema object: %v", err)}
	}
	var problems []string
	if types := typeList(s.Type); len(types) > 0 && !contains(types, "object") {
		problems = append(problems, fmt.Sprintf("inputSchema/type is %s, not object", strings.Join(types, "|")))
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		raw, ok := s.Properties[k]
		if !ok {
			problems = append(problems, fmt.Sprintf("argument %q is not a property of its inputSchema (declared: %s)", k, declared(s.Properties)))
			continue
		}
		var p propSchema
		if err := json.Unmarshal(raw, &p); err != nil {
			continue // a boolean schema or something exotic: the server's to check
		}
		types := typeList(p.Type)
		if got := jsonType(args[k]); len(types) > 0 && !typeAccepts(types, got) {
			problems = append(problems, fmt.Sprintf("argument %q is a %s but inputSchema/properties/%s/type is %s", k, got, k, strings.Join(types, "|")))
		}
	}
	for _, r := range s.Required {
		if _, ok := args[r]; !ok {
			problems = append(problems, fmt.Sprintf("inputSchema/required lists %q, which the workbench does not send", r))
		}
	}
	return problems
}

// PropertyType returns the JSON type(s) the tool declares for one
// argument, nil when it declares none or no such property.
func (c *Conn) PropertyType(tool, prop string) []string {
	var s inputSchema
	if json.Unmarshal(c.Tools[tool].InputSchema, &s) != nil {
		return nil
	}
	var p propSchema
	if json.Unmarshal(s.Properties[prop], &p) != nil {
		return nil
	}
	return typeList(p.Type)
}

// Declares reports whether the tool's input schema has the property.
func (c *Conn) Declares(tool, prop string) bool {
	var s inputSchema
	if json.Unmarshal(c.Tools[tool].InputSchema, &s) != nil {
		return false
	}
	_, ok := s.Properties[prop]
	return ok
}

func declared(props map[string]json.RawMessage) string {
	if len(props) == 0 {
		return "none"
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func typeList(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// jsonType names the JSON type of a Go value as encoding/json writes it.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int, int32, int64, uint, uint32, uint64:
		return "integer"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case float32:
		return "number"
	case []any, []string, []map[string]any:
		return "array"
	case json.RawMessage:
		var y any
		if json.Unmarshal(x, &y) != nil {
			return "invalid"
		}
		return jsonType(y)
	}
	return "object"
}

// typeAccepts reports whether a value of JSON type got fits one of the
// declared types; an integer is also a number.
func typeAccepts(types []string, got string) bool {
	return contains(types, got) || (got == "integer" && contains(types, "number"))
}

// Answer returns a tool result's structured answer: its
// structuredContent, or — for servers that put the JSON in a text block
// only — its text parsed as a JSON object. A result that is neither is a
// *ContractError naming what arrived.
func (c *Conn) Answer(tool string, res *mcp.CallResult) (map[string]any, error) {
	var m map[string]any
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		if err := json.Unmarshal(res.StructuredContent, &m); err != nil || m == nil {
			return nil, &ContractError{Role: c.Role, Server: c.Server, Tool: tool,
				Problems: []string{fmt.Sprintf("its structuredContent is not a JSON object: %s", excerpt(string(res.StructuredContent)))}}
		}
		return m, nil
	}
	text := strings.TrimSpace(res.Text())
	if err := json.Unmarshal([]byte(text), &m); err != nil || m == nil {
		return nil, &ContractError{Role: c.Role, Server: c.Server, Tool: tool,
			Problems: []string{fmt.Sprintf("the answer has no structuredContent and its text is not a JSON object: %q", excerpt(text))}}
	}
	return m, nil
}

// Refusal turns an isError result into a *ToolError, reading the
// {"status":"error","error":…,"reason":…} shape the [&] servers publish
// and falling back to the result's text.
func (c *Conn) Refusal(tool string, res *mcp.CallResult) *ToolError {
	e := &ToolError{Role: c.Role, Server: c.Server, Tool: tool}
	if m, err := c.Answer(tool, res); err == nil {
		e.Code, _ = m["error"].(string)
		e.Reason, _ = m["reason"].(string)
		if e.Reason == "" {
			e.Reason, _ = m["message"].(string)
		}
	}
	if e.Code == "" && e.Reason == "" {
		e.Reason = excerpt(strings.TrimSpace(res.Text()))
	}
	return e
}

func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
