package main

// workbench mcp: look at an MCP server from the command line, for people
// who debug servers: list its tools, call one.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"workbench/pkg/mcp"
)

// Exit statuses of workbench mcp.
const (
	exitMCPOK        = 0 // the call or listing worked
	exitMCPToolError = 1 // the tool ran and reported an error (isError)
	exitMCPUsage     = 2 // the command line is wrong
	exitMCPFailed    = 3 // the server could not be reached or did not answer properly
)

func mcpHelp(w io.Writer) {
	fmt.Fprint(w, `usage: workbench mcp tools [flags] URL
       workbench mcp call  [flags] URL TOOL [JSON_ARGS]

Talks to an MCP server over streamable HTTP: protocol 2026-07-28 when the
server speaks it, else 2025-11-25 (see --protocol).
  tools  lists the server's tools: name, annotations (read-only, destructive,
         idempotent, open-world; "?" when the server does not say) and a
         summary of the input schema (* marks required properties).
  call   calls TOOL with JSON_ARGS (a JSON object, default {}) and prints its
         text content and its structured content as indented JSON.

Exit status: 0 success; 1 the tool reported an error (isError); 2 usage error;
3 the server could not be reached or did not answer properly.

Flags:
`)
}

func runMCP(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "tools" && args[0] != "call") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			mcpHelp(stderr)
			return exitMCPOK
		}
		mcpHelp(stderr)
		return exitMCPUsage
	}
	sub := args[0]
	c := newCLI("mcp "+sub, stdout, stderr, mcpHelp)
	var headers multiFlag
	c.fs.Var(&headers, "header", "add `K:V` to every request (repeatable), e.g. for a relay's authorization")
	timeout := c.fs.Duration("timeout", 30*time.Second, "bound each request (the handshake, a page of tools/list, the call)")
	asJSON := c.fs.Bool("json", false, "print the tools or the call result as the server sent them, in JSON")
	progress := c.fs.Bool("progress", false, "call: ask for progress notifications and print them on stderr")
	protocol := c.fs.String("protocol", "auto", "protocol revision: auto (try "+mcp.StatelessProtocolVersion+", fall back to "+mcp.ProtocolVersion+"), "+mcp.ProtocolVersion+" or "+mcp.StatelessProtocolVersion)
	pos, code, done := c.parse(args[1:])
	if done {
		return code
	}
	want := map[string][2]int{"tools": {1, 1}, "call": {2, 3}}[sub]
	if len(pos) < want[0] || len(pos) > want[1] {
		c.errorf("wrong number of arguments (run 'workbench mcp --help')")
		return exitMCPUsage
	}
	h := http.Header{}
	for _, kv := range headers {
		k, v, ok := strings.Cut(kv, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n") || strings.ContainsAny(v, "\r\n") {
			c.errorf("--header %q: want NAME:VALUE", kv)
			return exitMCPUsage
		}
		h.Add(k, strings.TrimSpace(v))
	}
	var callArgs json.RawMessage
	if sub == "call" {
		callArgs = json.RawMessage(`{}`)
		if len(pos) == 3 {
			callArgs = json.RawMessage(pos[2])
			var obj map[string]any
			if err := json.Unmarshal(callArgs, &obj); err != nil || obj == nil {
				if err == nil {
					err = fmt.Errorf("null")
				}
				c.errorf("JSON_ARGS is not a JSON object: %v", err)
				return exitMCPUsage
			}
		}
	}

	pin := *protocol
	switch pin {
	case "auto":
		pin = ""
	case mcp.ProtocolVersion, mcp.StatelessProtocolVersion:
	default:
		c.errorf("--protocol %q: want auto, %s or %s", *protocol, mcp.ProtocolVersion, mcp.StatelessProtocolVersion)
		return exitMCPUsage
	}
	client, err := mcp.Dial(ctx, pos[0], &mcp.Options{Header: h, Timeout: *timeout, ProtocolVersion: pin})
	if err != nil {
		c.errorf("%v", err)
		return exitMCPFailed
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		client.Close(cctx)
		cancel()
	}()
	if sub == "tools" {
		tools, err := client.ListTools(ctx)
		if err != nil {
			c.errorf("%v", err)
			return exitMCPFailed
		}
		if *asJSON {
			return writeJSONOut(c, tools)
		}
		printTools(stdout, client.ServerInfo(), tools)
		return exitMCPOK
	}
	var opts []mcp.CallOption
	if *progress {
		opts = append(opts, mcp.WithProgress(func(p mcp.Progress) {
			line := fmt.Sprintf("progress %g", p.Progress)
			if p.Total > 0 {
				line += fmt.Sprintf("/%g", p.Total)
			}
			if p.Message != "" {
				line += ": " + strings.Join(strings.Fields(p.Message), " ")
			}
			fmt.Fprintln(stderr, line)
		}))
	}
	res, err := client.CallTool(ctx, pos[1], callArgs, opts...)
	if err != nil {
		c.errorf("%v", err)
		return exitMCPFailed
	}
	code = exitMCPOK
	if res.IsError {
		code = exitMCPToolError
	}
	if *asJSON {
		if out := writeJSONOut(c, res); out != exitMCPOK {
			return out
		}
		return code
	}
	printResult(stdout, res)
	if res.IsError {
		c.errorf("tool %q reported an error", pos[1])
	}
	return code
}

func writeJSONOut(c *cli, v any) int {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		c.errorf("%v", err)
		return exitMCPFailed
	}
	return exitMCPOK
}

func printTools(w io.Writer, info mcp.ServerInfo, tools []mcp.Tool) {
	fmt.Fprintf(w, "%s %s (protocol %s): %d tools\n", info.ServerInfo.Name, info.ServerInfo.Version, info.ProtocolVersion, len(tools))
	for _, t := range tools {
		fmt.Fprintln(w)
		title := t.Title
		if title == "" && t.Annotations != nil {
			title = t.Annotations.Title
		}
		if title != "" {
			fmt.Fprintf(w, "%s — %s\n", t.Name, title)
		} else {
			fmt.Fprintln(w, t.Name)
		}
		if d := strings.Join(strings.Fields(t.Description), " "); d != "" {
			if r := []rune(d); len(r) > 160 {
				d = string(r[:160]) + "…"
			}
			fmt.Fprintf(w, "  %s\n", d)
		}
		var a mcp.ToolAnnotations
		if t.Annotations != nil {
			a = *t.Annotations
		}
		fmt.Fprintf(w, "  read-only: %s  destructive: %s  idempotent: %s  open-world: %s\n",
			hint(a.ReadOnlyHint), hint(a.DestructiveHint), hint(a.IdempotentHint), hint(a.OpenWorldHint))
		fmt.Fprintf(w, "  input: %s\n", schemaSummary(t.InputSchema))
	}
}

func hint(b *bool) string {
	switch {
	case b == nil:
		return "?"
	case *b:
		return "yes"
	}
	return "no"
}

// schemaNode is the part of a JSON Schema the summary shows.
type schemaNode struct {
	Type       json.RawMessage        `json:"type"`
	Properties map[string]*schemaNode `json:"properties"`
	Required   []string               `json:"required"`
	Items      *schemaNode            `json:"items"`
	Enum       []json.RawMessage      `json:"enum"`
	AnyOf      []*schemaNode          `json:"anyOf"`
	OneOf      []*schemaNode          `json:"oneOf"`
}

// schemaSummary lists an object schema's properties with their types,
// required ones marked with *, e.g. "path* string, depth integer".
func schemaSummary(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(no schema)"
	}
	var s schemaNode
	if err := json.Unmarshal(raw, &s); err != nil {
		return "(unreadable schema: " + err.Error() + ")"
	}
	if len(s.Properties) == 0 {
		return "(no properties)"
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		mark := ""
		if slices.Contains(s.Required, n) {
			mark = "*"
		}
		parts = append(parts, n+mark+" "+typeName(s.Properties[n]))
	}
	return strings.Join(parts, ", ")
}

// typeName is a short name for a property's type: "string",
// "string|null", "array of integer", "one of \"a\", \"b\"".
func typeName(s *schemaNode) string {
	if s == nil {
		return "any"
	}
	if len(s.Enum) > 0 && len(s.Enum) <= 6 {
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = string(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	var types []string
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		types = []string{one}
	} else {
		json.Unmarshal(s.Type, &types)
	}
	if len(types) == 0 {
		alts := slices.Concat(s.AnyOf, s.OneOf)
		for _, a := range alts {
			types = append(types, typeName(a))
		}
		if len(types) == 0 {
			return "any"
		}
	}
	for i, t := range types {
		if t == "array" && s.Items != nil {
			types[i] = "array of " + typeName(s.Items)
		}
	}
	return strings.Join(types, "|")
}

func printResult(w io.Writer, res *mcp.CallResult) {
	for _, c := range res.Content {
		if c.Type == "text" {
			fmt.Fprintln(w, c.Text)
			continue
		}
		var head struct {
			MIMEType string `json:"mimeType"`
			URI      string `json:"uri"`
			Resource struct {
				URI string `json:"uri"`
			} `json:"resource"`
		}
		json.Unmarshal(c.Raw, &head)
		desc := c.Type
		for _, s := range []string{head.MIMEType, head.URI, head.Resource.URI} {
			if s != "" {
				desc += " " + s
			}
		}
		fmt.Fprintf(w, "[%s content, %d bytes of JSON]\n", desc, len(c.Raw))
	}
	if len(res.StructuredContent) > 0 {
		var buf strings.Builder
		buf.WriteString("structured content:\n")
		var ind bytes.Buffer
		if json.Indent(&ind, res.StructuredContent, "", "  ") == nil {
			buf.Write(ind.Bytes())
		} else {
			buf.Write(res.StructuredContent)
		}
		fmt.Fprintln(w, buf.String())
	}
}
