package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/pkg/openrouter/openroutertest"
)

// hostFileServer is a small MCP server for these tests only: go-sdk's
// streamable HTTP server with three file tools over dir — list_files and
// read_file (read-only) and write_file (destructive).
func hostFileServer(t *testing.T, dir string) string {
	t.Helper()
	type pathIn struct {
		Path string `json:"path" jsonschema:"a file name in the directory"`
	}
	type writeIn struct {
		Path    string `json:"path" jsonschema:"a file name in the directory"`
		Content string `json:"content" jsonschema:"what the file will hold"`
	}
	type entry struct {
		Name string `json:"name"`
		Size int64  `json:"size"`
	}
	type listing struct {
		Files []entry `json:"files"`
	}
	type text struct {
		Text string `json:"text"`
	}
	yes := true
	srv := sdk.NewServer(&sdk.Implementation{Name: "test-files", Version: "0.1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "list_files", Description: "Lists the files and their sizes.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, listing, error) {
			ents, err := os.ReadDir(dir)
			if err != nil {
				return nil, listing{}, err
			}
			out := listing{Files: []entry{}}
			for _, e := range ents {
				info, err := e.Info()
				if err != nil {
					return nil, listing{}, err
				}
				out.Files = append(out.Files, entry{e.Name(), info.Size()})
			}
			return nil, out, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "read_file", Description: "Reads a file.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in pathIn) (*sdk.CallToolResult, text, error) {
			data, err := os.ReadFile(filepath.Join(dir, filepath.Base(in.Path)))
			return nil, text{string(data)}, err
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "write_file", Description: "Writes a file.", Annotations: &sdk.ToolAnnotations{DestructiveHint: &yes}},
		func(_ context.Context, _ *sdk.CallToolRequest, in writeIn) (*sdk.CallToolResult, text, error) {
			err := os.WriteFile(filepath.Join(dir, filepath.Base(in.Path)), []byte(in.Content), 0o644)
			return nil, text{"wrote " + in.Path}, err
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestTeachAndReplayOnHostBody: --body teaches through an MCP server and
// replays on it; trust and destructive mode decide what the policy allows.
func TestTeachAndReplayOnHostBody(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("buy milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	url := hostFileServer(t, dir)
	steps := []openroutertest.Step{
		openroutertest.ToolCall("read_file", map[string]any{"path": "notes.txt"}),
		openroutertest.ToolCall("write_file", map[string]any{"path": "status.txt", "content": "done"}),
		openroutertest.Answer("notes.txt says buy milk; status.txt says done"),
	}
	or := stand(t, openroutertest.WithScript(teacher(append(slices.Clone(steps), steps...)...)))
	file := filepath.Join(t.TempDir(), "host.skill.json")
	task := "Read notes.txt, then write done to status.txt."
	hostArgs := []string{"--body", url, "--body-kind", "host", "--perceive", "list_files", "--trusted"}

	// Without destructive mode the write is refused: the bundle records
	// the refusal and does not declare what it was refused.
	args := append([]string{"teach", "--task", task, "--model", teacherModel, "--out", file}, hostArgs...)
	code, stdout, stderr := pipeline(t, or, args...)
	wantCode(t, code, exitUnproven, stdout, stderr)
	if _, err := os.Stat(filepath.Join(dir, "status.txt")); !os.IsNotExist(err) {
		t.Fatalf("a refused write reached the disk: %v", err)
	}

	code, stdout, stderr = pipeline(t, or, append(args, "--destructive")...)
	wantCode(t, code, exitProven, stdout, stderr)
	for _, want := range []string{"host body test-files at " + url + " (trusted)", "edge 1 write_file: ok, allowed", "binding: substrate_only"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("teach output lacks %q:\n%s", want, stdout)
		}
	}
	if err := os.Remove(filepath.Join(dir, "status.txt")); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(t.TempDir(), "host.v2.skill.json")
	code, stdout, stderr = pipeline(t, nil, append([]string{"replay", file, "--out", next}, hostArgs[:6]...)...)
	// Untrusted, the server's read-only claim does not count: the read
	// is an unknown effect, which the policy denies on a host unless
	// destructive mode is on.
	wantCode(t, code, exitUnproven, stdout, stderr)
	if !strings.Contains(stdout, "halted at edge 0") || !strings.Contains(stdout, "policy_deny") {
		t.Errorf("an untrusted replay was not refused by policy:\n%s\n%s", stdout, stderr)
	}
	code, stdout, stderr = pipeline(t, nil, append([]string{"replay", file, "--out", next, "--destructive"}, hostArgs...)...)
	wantCode(t, code, exitProven, stdout, stderr)
	if data, err := os.ReadFile(filepath.Join(dir, "status.txt")); err != nil || string(data) != "done" {
		t.Errorf("after the replay status.txt holds %q (%v)", data, err)
	}
	code, stdout, stderr = runCmd(t, "", "verify", next)
	wantCode(t, code, exitProven, stdout, stderr)
}

func TestBodyFlagsBadUsage(t *testing.T) {
	dir := t.TempDir()
	url := hostFileServer(t, dir)
	bundle := fixture("valid-skill-bundle.v0.json")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"trusted without body", []string{"teach", "--task", "x", "--world", "weather", "--model", "m", "--trusted"}, exitInvalid, []string{"--trusted is an option of --body"}},
		{"bad kind", []string{"teach", "--task", "x", "--model", "m", "--body", url, "--body-kind", "desk"}, exitInvalid, []string{`--body-kind "desk"`}},
		{"scenario with body", []string{"teach", "--scenario", "skill.basic_prompt_to_manifest", "--model", "m", "--body", url}, exitInvalid, []string{"--scenario runs on the simulator"}},
		{"host without perceive", []string{"teach", "--task", "x", "--model", "m", "--body", url, "--body-kind", "host"}, exitInvalid, []string{"needs --perceive TOOL"}},
		{"bad perceive args", []string{"teach", "--task", "x", "--model", "m", "--body", url, "--perceive-args", "[1]"}, exitInvalid, []string{"--perceive-args [1]: not a JSON object"}},
		{"unreachable", []string{"teach", "--task", "x", "--model", "m", "--body", "http://127.0.0.1:1/mcp"}, exitUnproven, []string{"--body http://127.0.0.1:1/mcp", "cannot reach"}},
		{"simulator skill", []string{"replay", bundle, "--body", url}, exitInvalid, []string{"not on an MCP body; replay it without --body"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			or := stand(t)
			code, stdout, stderr := pipeline(t, or, tc.args...)
			wantCode(t, code, tc.code, stdout, stderr)
			oneLine(t, stderr, tc.want...)
		})
	}
}
