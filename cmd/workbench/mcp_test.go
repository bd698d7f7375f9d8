package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/internal/closedport"
)

type lookupIn struct {
	Path  string   `json:"path" jsonschema:"file to look at"`
	Depth int      `json:"depth,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

type lookupOut struct {
	Found bool   `json:"found"`
	Size  int    `json:"size"`
	Path  string `json:"path"`
}

// mcpTestServer is a go-sdk server in this process; it records the
// Authorization header of each request.
func mcpTestServer(t *testing.T) (url string, auth func() []string) {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "cli-test", Version: "9.9"}, nil)
	f := false
	sdk.AddTool(s, &sdk.Tool{
		Name:        "lookup",
		Description: "Looks a path up.\nSecond line.",
		Annotations: &sdk.ToolAnnotations{Title: "Look up", ReadOnlyHint: true, OpenWorldHint: &f},
	}, func(ctx context.Context, req *sdk.CallToolRequest, in lookupIn) (*sdk.CallToolResult, lookupOut, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "found " + in.Path}}},
			lookupOut{Found: true, Size: 42, Path: in.Path}, nil
	})
	tr := true
	s.AddTool(&sdk.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 2; i++ {
					req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: "step"})
				}
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
		})
	s.AddTool(&sdk.Tool{
		Name:        "rm",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"mode":{"enum":["soft","hard"]}},"required":["path"]}`),
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &tr},
	}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "refused: read-only file system"}}}, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func TestMCPCommand(t *testing.T) {
	url, auth := mcpTestServer(t)
	down := "http://" + closedport.Addr(t) + "/mcp"

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"tools", []string{"mcp", "tools", url}, 0, []string{
			"cli-test 9.9 (protocol 2025-11-25): 3 tools",
			"lookup — Look up\n  Looks a path up. Second line.\n  read-only: yes  destructive: ?  idempotent: no  open-world: no\n  input: depth integer, path* string, tags null|array of string",
			"rm\n  read-only: no  destructive: yes  idempotent: no  open-world: ?\n  input: mode one of \"soft\", \"hard\", path* string",
		}, nil},
		{"call", []string{"mcp", "call", url, "lookup", `{"path":"/etc/hosts"}`}, 0, []string{
			"found /etc/hosts\nstructured content:\n{\n  \"found\": true,\n  \"path\": \"/etc/hosts\",\n  \"size\": 42\n}\n",
		}, nil},
		{"call with flags after", []string{"mcp", "call", url, "lookup", `{"path":"a"}`, "--timeout", "5s", "--header", "Authorization: Bearer xyz"}, 0,
			[]string{"found a"}, nil},
		{"call json", []string{"mcp", "call", "--json", url, "lookup", `{"path":"a"}`}, 0,
			[]string{`"structuredContent": {`, `"type": "text"`}, nil},
		{"progress", []string{"mcp", "call", "--progress", url, "slow"}, 0, []string{"done"}, []string{"progress 1/2: step\nprogress 2/2: step\n"}},
		{"tool error", []string{"mcp", "call", url, "rm", `{"path":"/"}`}, 1,
			[]string{"refused: read-only file system"}, []string{`workbench mcp call: tool "rm" reported an error`}},
		{"unknown tool", []string{"mcp", "call", url, "nope"}, 3, nil, []string{`workbench mcp call: mcp: tools/call "nope": server error`}},
		{"unreachable", []string{"mcp", "tools", down}, 3, nil, []string{"workbench mcp tools: mcp: cannot reach " + down + ": "}},
		{"not a URL", []string{"mcp", "tools", "localhost:1"}, 3, nil, []string{"is not an http(s) URL"}},
		{"bad JSON", []string{"mcp", "call", url, "lookup", `{"path":`}, 2, nil, []string{"JSON_ARGS is not a JSON object"}},
		{"args not an object", []string{"mcp", "call", url, "lookup", `[1]`}, 2, nil, []string{"JSON_ARGS is not a JSON object"}},
		{"bad header", []string{"mcp", "tools", "--header", "nocolon", url}, 2, nil, []string{`--header "nocolon": want NAME:VALUE`}},
		{"missing URL", []string{"mcp", "tools"}, 2, nil, []string{"wrong number of arguments"}},
		{"too many", []string{"mcp", "call", url, "a", "{}", "extra"}, 2, nil, []string{"wrong number of arguments"}},
		{"no subcommand", []string{"mcp"}, 2, nil, []string{"usage: workbench mcp tools"}},
		{"help", []string{"mcp", "--help"}, 0, nil, []string{"usage: workbench mcp tools"}},
		{"subcommand help", []string{"mcp", "call", "--help"}, 0, nil, []string{"usage: workbench mcp tools", "-header"}},
		{"bad flag", []string{"mcp", "tools", "--frob", url}, 2, nil, []string{"flag provided but not defined"}},
		{"bad protocol", []string{"mcp", "tools", "--protocol", "2024-11-05", url}, 2, nil, []string{`--protocol "2024-11-05": want auto`}},
		{"pinned legacy", []string{"mcp", "tools", "--protocol", "2025-11-25", url}, 0, []string{"(protocol 2025-11-25): 3 tools"}, nil},
		{"pinned stateless on a stateful server", []string{"mcp", "tools", "--protocol", "2026-07-28", url}, 3, nil,
			[]string{"server does not list 2026-07-28 among its supported versions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr)
				}
			}
			if tt.code == 3 && strings.Count(stderr, "\n") != 1 {
				t.Errorf("a failure should be one line on stderr:\n%s", stderr)
			}
		})
	}
	got := auth()
	n := 0
	for _, a := range got {
		if a == "Bearer xyz" {
			n++
		}
	}
	if n != 4 { // initialize, initialized, tools/call, DELETE
		t.Errorf("%d requests carried the --header, want 4: %q", n, got)
	}
}
