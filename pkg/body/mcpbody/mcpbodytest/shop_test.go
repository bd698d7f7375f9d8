package mcpbodytest_test

import (
	"testing"

	"workbench/pkg/body/mcpbody/mcpbodytest"
)

type msg string

func (m msg) Text() string { return string(m) }

func last(text string, ok bool) func() (msg, bool) {
	return func() (msg, bool) { return msg(text), ok }
}

func TestDocsLink(t *testing.T) {
	tests := []struct {
		name         string
		result, user func() (msg, bool)
		ref          string
		ok           bool
	}{
		{"snapshot in the tool result", last(`- link "Docs" [ref=e2] [cursor=pointer]`, true), last(`{"link":"Docs","ref":"e9"}`, true), "e2", true},
		{"state in the user message", last("", false), last(`The body now shows:\n{"page":[{"link":"Docs","ref":"e7"}]}`, true), "e7", true},
		{"a tool result without the link", last(`- link "About" [ref=e3]`, true), last(`{"link":"Docs","ref":"e9"}`, true), "", false},
		{"nothing shown", last("", false), last("", false), "", false},
		{"unterminated", last(`- link "Docs" [ref=e2`, true), last("", false), "", false},
	}
	for _, tt := range tests {
		ref, ok := mcpbodytest.DocsLink(tt.result, tt.user)
		if ref != tt.ref || ok != tt.ok {
			t.Errorf("%s: DocsLink = %q, %v; want %q, %v", tt.name, ref, ok, tt.ref, tt.ok)
		}
	}
}

func TestClickDocs(t *testing.T) {
	type step struct {
		tool string
		args any
		text string
	}
	toolCall := func(name string, args any) step { return step{tool: name, args: args} }
	answer := func(text string) step { return step{text: text} }
	got := mcpbodytest.ClickDocs(last(`- link "Docs" [ref=e2]`, true), last("", false), toolCall, answer)
	if args, _ := got.args.(map[string]any); got.tool != "browser_click" || args["target"] != "e2" {
		t.Errorf("with the link shown: %+v, want a browser_click on e2", got)
	}
	got = mcpbodytest.ClickDocs(last(`- heading "Docs"`, true), last("", false), toolCall, answer)
	if got.tool != "" || got.text == "" {
		t.Errorf("without the link: %+v, want an answer", got)
	}
}
