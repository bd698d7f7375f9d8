package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"workbench/pkg/body"
	"workbench/pkg/skill"
)

// The simulator's tools. Browser tools stand in for &body.browser, host
// tools for &body.os; the names follow the MCP servers they stand in for.
const (
	BrowserNavigate = "browser_navigate"
	BrowserSnapshot = "browser_snapshot"
	BrowserClick    = "browser_click"
	BrowserType     = "browser_type"
	BrowserSubmit   = "browser_submit"
	FileList        = "file_list"
	FileRead        = "file_read"
	FileWrite       = "file_write"
	FileDelete      = "file_delete"
	ShellExec       = "shell_exec"
)

// ErrUnknownTool is returned (wrapped) by Call and Effect for a tool the
// simulator does not offer.
var ErrUnknownTool = errors.New("unknown tool")

// spec describes one tool: its MCP description and how it runs.
type spec struct {
	tool body.Tool
	run  func(s *Sim, a args) body.Result
}

func ptr(b bool) *bool { return &b }

// hints builds MCP annotations. The simulated world is closed, so no tool
// reaches an open world.
func hints(title string, readOnly, destructive, idempotent bool) body.Annotations {
	return body.Annotations{
		Title:           title,
		ReadOnlyHint:    ptr(readOnly),
		DestructiveHint: ptr(destructive),
		IdempotentHint:  ptr(idempotent),
		OpenWorldHint:   ptr(false),
	}
}

// specs returns the tool table in the order Tools lists it.
func specs() []spec {
	browser := func(name, title, desc, schema string, a body.Annotations, run func(*Sim, args) body.Result) spec {
		return spec{body.Tool{Name: name, Title: title, Description: desc, InputSchema: json.RawMessage(schema), Annotations: a, Capability: skill.CapabilityBrowser}, run}
	}
	host := func(name, title, desc, schema string, a body.Annotations, run func(*Sim, args) body.Result) spec {
		return spec{body.Tool{Name: name, Title: title, Description: desc, InputSchema: json.RawMessage(schema), Annotations: a, Capability: skill.CapabilityOS}, run}
	}
	return []spec{
		browser(BrowserNavigate, "Open a URL",
			"Open the web page at a URL in the browser and return its accessibility snapshot: headings, text, links, and forms with their fields and buttons. Changes nothing on any site.",
			`{"type":"object","additionalProperties":false,"required":["url"],"properties":{"url":{"type":"string","minLength":1,"maxLength":2048,"description":"Absolute URL of the page, e.g. https://docs.workbench.test/"}}}`,
			hints("Open a URL", true, false, true), (*Sim).navigate),
		browser(BrowserSnapshot, "Read the page",
			"Return the accessibility snapshot of the page the browser shows: headings, text, links, and forms with the current value of every field.",
			`{"type":"object","additionalProperties":false,"properties":{}}`,
			hints("Read the page", true, false, true), (*Sim).snapshot),
		browser(BrowserClick, "Click a link or button",
			"Click the link or button with the given accessible name on the current page. A link opens its page; a button submits its form, which may send data to the site.",
			`{"type":"object","additionalProperties":false,"required":["name"],"properties":{"name":{"type":"string","minLength":1,"maxLength":200,"description":"Accessible name of the link or button, as the snapshot shows it"},"role":{"enum":["link","button"],"description":"Which kind of element to click, when a link and a button share the name"}}}`,
			hints("Click a link or button", false, false, false), (*Sim).click),
		browser(BrowserType, "Type into a field",
			"Replace the value of a form field on the current page, found by its label (or its name). For a select field the text must be one of its options. Nothing is sent until the form is submitted.",
			`{"type":"object","additionalProperties":false,"required":["field","text"],"properties":{"field":{"type":"string","minLength":1,"maxLength":200,"description":"Label of the field, as the snapshot shows it"},"text":{"type":"string","maxLength":65536,"description":"The value to put in the field"},"form":{"type":"string","minLength":1,"maxLength":200,"description":"Name of the form, when the page has more than one form with such a field"}}}`,
			hints("Type into a field", false, false, true), (*Sim).typeText),
		browser(BrowserSubmit, "Submit a form",
			"Submit a form on the current page, as pressing its first button (or the named one) does, and return the snapshot of the page it leads to. This sends the form's values to the site.",
			`{"type":"object","additionalProperties":false,"properties":{"form":{"type":"string","minLength":1,"maxLength":200,"description":"Name of the form; may be left out when the page has one form"},"button":{"type":"string","minLength":1,"maxLength":200,"description":"Name of the button to submit with; the form's first button when left out"}}}`,
			hints("Submit a form", false, false, false), (*Sim).submit),
		host(FileList, "List a directory",
			"List the entries of a directory on the host (the working directory when no path is given). Directories end in /.",
			`{"type":"object","additionalProperties":false,"properties":{"path":{"type":"string","minLength":1,"maxLength":1024,"description":"Directory path, absolute or relative to the working directory"}}}`,
			hints("List a directory", true, false, true), (*Sim).fileList),
		host(FileRead, "Read a file",
			"Return the contents of a text file on the host.",
			`{"type":"object","additionalProperties":false,"required":["path"],"properties":{"path":{"type":"string","minLength":1,"maxLength":1024,"description":"File path, absolute or relative to the working directory"}}}`,
			hints("Read a file", true, false, true), (*Sim).fileRead),
		host(FileWrite, "Write a file",
			"Write text to a file on the host, creating it or replacing its contents (or appending, with append). The directory must exist.",
			`{"type":"object","additionalProperties":false,"required":["path","content"],"properties":{"path":{"type":"string","minLength":1,"maxLength":1024,"description":"File path, absolute or relative to the working directory"},"content":{"type":"string","maxLength":1048576,"description":"The text to write"},"append":{"type":"boolean","description":"Append to the file instead of replacing it"}}}`,
			hints("Write a file", false, true, false), (*Sim).fileWrite),
		host(FileDelete, "Delete a file",
			"Delete a file, or an empty directory, on the host.",
			`{"type":"object","additionalProperties":false,"required":["path"],"properties":{"path":{"type":"string","minLength":1,"maxLength":1024,"description":"Path of the file or empty directory"}}}`,
			hints("Delete a file", false, true, true), (*Sim).fileDelete),
		host(ShellExec, "Run a shell command",
			"Run one command in the host's shell and return its output. Commands: pwd, cd, ls [-a] [-l], cat, echo [-n], mkdir [-p], touch, rm [-f]; one output redirection (> or >>) is allowed; pipes, ;, &&, variables and globs are not. The result says whether the command wrote to the file tree.",
			`{"type":"object","additionalProperties":false,"required":["command"],"properties":{"command":{"type":"string","minLength":1,"maxLength":4096,"description":"The command line, e.g. cat notes.txt"}}}`,
			hints("Run a shell command", false, true, false), (*Sim).shell),
	}
}

// toolSet is the compiled tool table, shared read-only by a Sim and its
// clones.
type toolSet struct {
	specs   []spec
	byName  map[string]int
	schemas []*jsonschema.Schema
}

func newToolSet() (*toolSet, error) {
	ts := &toolSet{specs: specs(), byName: map[string]int{}}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	for i, sp := range ts.specs {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sp.tool.InputSchema))
		if err != nil {
			return nil, fmt.Errorf("sim: input schema of %s: %w", sp.tool.Name, err)
		}
		loc := "urn:workbench:sim:tool:" + sp.tool.Name
		if err := c.AddResource(loc, doc); err != nil {
			return nil, fmt.Errorf("sim: input schema of %s: %w", sp.tool.Name, err)
		}
		sch, err := c.Compile(loc)
		if err != nil {
			return nil, fmt.Errorf("sim: input schema of %s: %w", sp.tool.Name, err)
		}
		ts.byName[sp.tool.Name] = i
		ts.schemas = append(ts.schemas, sch)
	}
	return ts, nil
}

type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("%s: tool schemas refer to nothing outside themselves", u)
}

// args are a call's arguments once they have passed the tool's schema.
type args map[string]any

func (a args) str(name string) string {
	s, _ := a[name].(string)
	return s
}

func (a args) has(name string) bool {
	_, ok := a[name]
	return ok
}

func (a args) flag(name string) bool {
	b, _ := a[name].(bool)
	return b
}

// checkArgs validates arguments against a tool's input schema and says
// what is wrong, one "pointer: reason" per problem, for the model to read.
func checkArgs(sch *jsonschema.Schema, a map[string]any) string {
	err := sch.Validate(map[string]any(a))
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	p := message.NewPrinter(language.English)
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := ""
		for _, t := range e.InstanceLocation {
			at += "/" + escapePointer(t)
		}
		if at == "" {
			at = "(arguments)"
		}
		lines = append(lines, at+": "+e.ErrorKind.LocalizedString(p))
	}
	walk(ve)
	return strings.Join(lines, "; ")
}

// failf is a tool error: the action ran and failed, for the reason given.
func failf(format string, a ...any) body.Result {
	return body.Result{Text: fmt.Sprintf(format, a...), IsError: true}
}
