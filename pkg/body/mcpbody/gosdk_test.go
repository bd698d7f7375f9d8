package mcpbody_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/body"
	"workbench/pkg/body/mcpbody"
	"workbench/pkg/mcp"
	"workbench/pkg/skill"
)

// fileServer is a go-sdk MCP server in this process with file tools over
// dir: list_files (read-only, structured output), write_file (destructive)
// and broken_list, which always reports an error.
func fileServer(t *testing.T, dir string) string {
	t.Helper()
	type entry struct {
		Name string `json:"name"`
		Size int64  `json:"size"`
	}
	type listing struct {
		Files []entry `json:"files"`
	}
	type writeIn struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}
	yes := true
	srv := sdk.NewServer(&sdk.Implementation{Name: "Test Files", Version: "0.1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "list_files", Description: "Lists the files.", Annotations: &sdk.ToolAnnotations{Title: "List", ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, listing, error) {
			ents, err := os.ReadDir(dir)
			if err != nil {
				return nil, listing{}, err
			}
			out := listing{Files: []entry{}}
			for _, e := range ents {
				info, _ := e.Info()
				out.Files = append(out.Files, entry{e.Name(), info.Size()})
			}
			return nil, out, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "write_file", Description: "Writes a file.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes}},
		func(_ context.Context, _ *sdk.CallToolRequest, in writeIn) (*sdk.CallToolResult, any, error) {
			return nil, nil, os.WriteFile(filepath.Join(dir, filepath.Base(in.Path)), []byte(in.Content), 0o644)
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "broken_list", Description: "Fails."},
		func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New("disk on fire")
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// netHTTP is the MCP client configuration that reaches fileServer in
// every build: under js/wasm the client's default is the JavaScript fetch,
// which cannot reach a server in this process.
func netHTTP() *mcp.Options { return &mcp.Options{HTTPClient: http.DefaultClient} }

func TestHostBodyOverGoSDK(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	url := fileServer(t, dir)
	perceive := mcpbody.Perceive{Tool: "list_files"}
	for _, trusted := range []bool{true, false} {
		bd, err := mcpbody.Dial(ctx, url, mcpbody.Options{Client: netHTTP(), Kind: body.KindHost, Trusted: trusted, Perceive: perceive,
			Tools: []string{"list_files", "write_file"}})
		if err != nil {
			t.Fatal(err)
		}
		defer bd.Close(ctx)
		if bd.Server() != "test-files" || bd.Kind() != body.KindHost || bd.Trusted() != trusted {
			t.Errorf("server %q kind %q trusted %v", bd.Server(), bd.Kind(), bd.Trusted())
		}
		tools, err := bd.Tools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(tools) != 2 {
			t.Fatalf("Options.Tools did not filter: %d tools", len(tools))
		}
		list := tools[0]
		if list.Name != "list_files" || list.Capability != skill.CapabilityOS || list.Annotations.Title != "List" {
			t.Errorf("tool %+v", list)
		}
		if got := list.Annotations.ReadOnlyHint != nil; got != trusted {
			t.Errorf("trusted %v: read-only hint reported %v", trusted, got)
		}
	}

	bd, err := mcpbody.Dial(ctx, url, mcpbody.Options{Client: netHTTP(), Kind: body.KindHost, Trusted: true, Perceive: perceive, Tools: []string{"list_files", "write_file"}})
	if err != nil {
		t.Fatal(err)
	}
	defer bd.Close(ctx)
	st, err := bd.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h0, s0, _ := skill.StateHashes(st)
	if res, err := bd.Call(ctx, "write_file", map[string]any{"path": "a.txt", "content": "hello"}); err != nil || res.IsError {
		t.Fatalf("write: %v %+v", err, res)
	}
	st, err = bd.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The structured listing is the state.
	files := st.(map[string]any)["files"].([]any)
	if len(files) != 1 || files[0].(map[string]any)["name"] != "a.txt" {
		t.Errorf("state %v", st)
	}
	h1, s1, _ := skill.StateHashes(st)
	if h1 == h0 || s1 == s0 { // an empty list and a list of one file differ in shape too
		t.Errorf("a new file left the state (%v) or its shape (%v) unchanged", h1 == h0, s1 == s0)
	}
	if _, err := bd.Call(ctx, "broken_list", nil); err == nil || !strings.Contains(err.Error(), `does not offer the tool "broken_list"`) {
		t.Errorf("a tool left out was called: %v", err)
	}

	broken, err := mcpbody.Dial(ctx, url, mcpbody.Options{Client: netHTTP(), Kind: body.KindHost, Perceive: mcpbody.Perceive{Tool: "broken_list"}})
	if err != nil {
		t.Fatal(err)
	}
	defer broken.Close(ctx)
	if _, err := broken.State(ctx); err == nil || !strings.Contains(err.Error(), "broken_list reported an error: disk on fire") {
		t.Errorf("State with a failing perceive tool: %v", err)
	}
}

func TestOptionsErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts mcpbody.Options
		want string
	}{
		{mcpbody.Options{}, `kind "": want "browser" or "host"`},
		{mcpbody.Options{Kind: "desk"}, `kind "desk"`},
		{mcpbody.Options{Kind: body.KindHost}, "a host body needs a perceive tool"},
		{mcpbody.Options{Kind: body.KindBrowser, Name: "My Browser"}, `use lowercase letters, digits, '.', '_' and '-' (e.g. "my-browser")`},
	} {
		// The options are refused before any connection is tried.
		_, err := mcpbody.Dial(ctx, "http://127.0.0.1:1/mcp", tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := mcpbody.Dial(ctx, "http://127.0.0.1:1/mcp", mcpbody.Options{Kind: body.KindBrowser}); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("unreachable: %v", err)
	}
}
