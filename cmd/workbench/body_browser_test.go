//go:build bodies

// The command line on a real browser body: Playwright MCP driving
// Debian's Chromium, started by mcpbodytest (make test-bodies runs this with
// -tags bodies and installs what it needs).

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/openrouter/openroutertest"
)

// TestTeachAndReplayOnBrowserBody: teach --body and replay --body on
// Playwright MCP, then the page changes and replay halts.
func TestTeachAndReplayOnBrowserBody(t *testing.T) {
	pw := mcpbodytest.Playwright(t).URL
	site := mcpbodytest.StartShop(t)
	// A model that clicks the Docs link, reading its reference from what
	// it was last shown: a tool result while teaching, the state on replay.
	click := openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
		return mcpbodytest.ClickDocs(r.LastToolResult, r.LastUser, openroutertest.ToolCall, openroutertest.Answer)
	})
	or := stand(t, openroutertest.WithScript(
		teacher(openroutertest.ToolCall("browser_navigate", map[string]any{"url": site.URL + "/"}), click, openroutertest.Answer("Getting started")),
		openroutertest.Script{Model: "example/replayer", Steps: []openroutertest.Step{click, click}},
	))
	file := filepath.Join(t.TempDir(), "docs.skill.json")
	code, stdout, stderr := pipeline(t, or, "teach", "--task", "Open "+site.URL+"/ , follow the Docs link and read its heading.",
		"--model", teacherModel, "--out", file, "--body", pw, "--trusted")
	wantCode(t, code, exitProven, stdout, stderr)
	if !strings.Contains(stdout, "browser body playwright") || !strings.Contains(stdout, "edge 1 browser_click: ok, allowed") {
		t.Errorf("teach output:\n%s", stdout)
	}
	next := filepath.Join(t.TempDir(), "docs.v2.skill.json")
	code, stdout, stderr = pipeline(t, or, "replay", file, "--model", "example/replayer", "--out", next, "--body", pw, "--trusted")
	wantCode(t, code, exitProven, stdout, stderr)

	site.Move() // the docs page now has another layout
	code, stdout, stderr = pipeline(t, or, "replay", next, "--model", "example/replayer", "--out", filepath.Join(t.TempDir(), "v3.json"), "--body", pw, "--trusted")
	wantCode(t, code, exitUnproven, stdout, stderr)
	if !strings.Contains(stdout, "halted at edge 1") || !strings.Contains(stdout, "state_hash_mismatch") {
		t.Errorf("replay after the change:\n%s", stdout)
	}
}
