package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"workbench/pkg/body/sim"
	"workbench/pkg/skill"
)

// toolCase is one call in a given situation and what it must give.
type toolCase struct {
	name  string
	world string // fixture world, or a testdata file ending in .json
	setup []step
	tool  string
	args  map[string]any
	isErr bool
	text  []string // the result's text contains each
	// changes says whether the call changes the state hash. A tool error
	// must never change it (TestToolErrorsChangeNothing holds the shell to
	// that apart from its documented partial failures).
	changes bool
}

const (
	docs    = "https://docs.workbench.test/"
	gs      = "https://docs.workbench.test/getting-started"
	weather = "https://weather.workbench.test/"
	contact = "https://support.workbench.test/contact"
	explore = "https://git.workbench.test/"
	edge    = "edge-cases.json"
)

func runCases(t *testing.T, cases []toolCase) {
	t.Helper()
	v := validator(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := load(t, v, c.world)
			run(t, s, c.setup...)
			before, _ := hashes(t, s)
			r, err := s.Call(context.Background(), c.tool, c.args)
			if err != nil {
				t.Fatalf("call error: %v", err)
			}
			if r.IsError != c.isErr {
				t.Errorf("IsError = %v, want %v; text:\n%s", r.IsError, c.isErr, r.Text)
			}
			for _, want := range c.text {
				if !strings.Contains(r.Text, want) {
					t.Errorf("text does not contain %q:\n%s", want, r.Text)
				}
			}
			if r.Text == "" {
				t.Error("empty result text")
			}
			after, _ := hashes(t, s)
			if changed := before != after; changed != c.changes {
				t.Errorf("state changed = %v, want %v", changed, c.changes)
			}
			if r.IsError && r.Structured != nil && c.tool != sim.ShellExec {
				t.Errorf("tool error carries structured content %v", r.Structured)
			}
		})
	}
}

func TestBrowserNavigate(t *testing.T) {
	runCases(t, []toolCase{
		{name: "absolute URL", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": gs},
			text: []string{"Opened " + gs, `heading "Getting started with Widget" [level=1]`, `link "Installation" -> https://docs.workbench.test/install`}, changes: true},
		{name: "no scheme", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": "docs.workbench.test/install"},
			text: []string{"Installing Widget"}, changes: true},
		{name: "http is upgraded", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": "http://docs.workbench.test/install"},
			text: []string{"Opened https://docs.workbench.test/install"}, changes: true},
		{name: "trailing slash redirects", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": "https://docs.workbench.test/install/"},
			text: []string{"Opened https://docs.workbench.test/install"}, changes: true},
		{name: "host case, port and fragment", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": "https://DOCS.workbench.test:443/install#top"},
			text: []string{"Opened https://docs.workbench.test/install"}, changes: true},
		{name: "same page again", world: "docs-and-git", setup: []step{nav(gs)}, tool: sim.BrowserNavigate, args: obj{"url": gs},
			text: []string{"Opened"}, changes: false},
		{name: "reload clears typed values", world: "weather", setup: []step{typ("City", "Paris")}, tool: sim.BrowserNavigate, args: obj{"url": weather},
			text: []string{`textbox "City" [required]: ""`}, changes: true},
		{name: "unknown page", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": "https://docs.workbench.test/nowhere"},
			isErr: true, text: []string{"no page at https://docs.workbench.test/nowhere (HTTP 404)"}},
		{name: "not a web URL", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": "ftp://docs.workbench.test/"},
			isErr: true, text: []string{"https only"}},
		{name: "user info", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": "https://me:pw@docs.workbench.test/"},
			isErr: true, text: []string{"user information"}},
		{name: "missing url", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{},
			isErr: true, text: []string{"browser_navigate: invalid arguments", "url"}},
		{name: "url not a string", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": 7.0},
			isErr: true, text: []string{"/url: got number, want string"}},
		{name: "extra argument", world: "docs-and-git", tool: sim.BrowserNavigate, args: obj{"url": docs, "tab": "new"},
			isErr: true, text: []string{"invalid arguments", "tab"}},
	})
}

func TestBrowserSnapshot(t *testing.T) {
	runCases(t, []toolCase{
		{name: "no page open", world: "docs-and-git", tool: sim.BrowserSnapshot, text: []string{"No page is open"}},
		{name: "start page with form", world: "weather", tool: sim.BrowserSnapshot,
			text: []string{`Page: "Forecasts"`, `- form "Forecast lookup":`, `textbox "City" [required]: ""`, `combobox "Units" [options: "metric", "imperial"]: "metric"`, `button "Get forecast"`}},
		{name: "shows typed values", world: "weather", setup: []step{typ("City", "Paris")}, tool: sim.BrowserSnapshot,
			text: []string{`textbox "City" [required]: "Paris"`}},
		{name: "multiline and email fields", world: "support-desk", setup: []step{nav(contact)}, tool: sim.BrowserSnapshot,
			text: []string{`textbox "Your email (optional)" [email]: ""`, `textbox "Message" [multiline, required]: ""`}},
		{name: "extra argument", world: "weather", tool: sim.BrowserSnapshot, args: obj{"full": true},
			isErr: true, text: []string{"invalid arguments"}},
	})
}

func TestBrowserClick(t *testing.T) {
	runCases(t, []toolCase{
		{name: "link", world: "docs-and-git", setup: []step{nav(docs)}, tool: sim.BrowserClick, args: obj{"name": "Getting started"},
			text: []string{`Clicked link "Getting started"; now at ` + gs}, changes: true},
		{name: "link, other case", world: "docs-and-git", setup: []step{nav(docs)}, tool: sim.BrowserClick, args: obj{"name": " getting STARTED "},
			text: []string{"now at " + gs}, changes: true},
		{name: "button submits", world: "weather", setup: []step{typ("City", "Paris")}, tool: sim.BrowserClick, args: obj{"name": "Get forecast"},
			text: []string{`Submitted form "Forecast lookup" with button "Get forecast"`, "Tuesday: 24 °C, sunny"}, changes: true},
		{name: "button with a required field empty", world: "weather", tool: sim.BrowserClick, args: obj{"name": "Get forecast"},
			isErr: true, text: []string{`form "Forecast lookup" was not submitted: "City" is required`}},
		{name: "unknown name", world: "docs-and-git", setup: []step{nav(docs)}, tool: sim.BrowserClick, args: obj{"name": "Pricing"},
			isErr: true, text: []string{`no link or button named "Pricing"`, `link "Installation"`}},
		{name: "a field is not clickable", world: "weather", tool: sim.BrowserClick, args: obj{"name": "City"},
			isErr: true, text: []string{"is a form field", "browser_type"}},
		{name: "role restricts", world: "weather", tool: sim.BrowserClick, args: obj{"name": "Get forecast", "role": "link"},
			isErr: true, text: []string{"no link or button named"}},
		{name: "link and button share a name", world: edge, tool: sim.BrowserClick, args: obj{"name": "Go"},
			isErr: true, text: []string{"both a link and a button", "role"}},
		{name: "role picks the link", world: edge, tool: sim.BrowserClick, args: obj{"name": "Go", "role": "link"},
			text: []string{"now at https://edge.workbench.test/a"}, changes: true},
		{name: "links by one name to two pages", world: edge, tool: sim.BrowserClick, args: obj{"name": "Docs"},
			isErr: true, text: []string{"2 links named \"Docs\" lead to different pages"}},
		{name: "links by one name to one page", world: edge, tool: sim.BrowserClick, args: obj{"name": "Same"},
			text: []string{"now at https://edge.workbench.test/a"}, changes: true},
		{name: "no page open", world: "docs-and-git", tool: sim.BrowserClick, args: obj{"name": "README"},
			isErr: true, text: []string{"no page is open"}},
		{name: "bad role", world: "weather", tool: sim.BrowserClick, args: obj{"name": "Get forecast", "role": "checkbox"},
			isErr: true, text: []string{"invalid arguments", "/role"}},
		{name: "empty name", world: "weather", tool: sim.BrowserClick, args: obj{"name": ""},
			isErr: true, text: []string{"invalid arguments", "/name"}},
	})
}

func TestBrowserType(t *testing.T) {
	runCases(t, []toolCase{
		{name: "by label", world: "weather", tool: sim.BrowserType, args: obj{"field": "City", "text": "Paris"},
			text: []string{`Typed "Paris" into textbox "City" of form "Forecast lookup"`}, changes: true},
		{name: "by field name", world: "docs-and-git", setup: []step{nav(explore)}, tool: sim.BrowserType, args: obj{"field": "q", "text": "widget"},
			text: []string{`textbox "Repository name"`}, changes: true},
		{name: "same value twice", world: "weather", setup: []step{typ("City", "Paris")}, tool: sim.BrowserType, args: obj{"field": "City", "text": "Paris"},
			text: []string{"Typed"}, changes: false},
		{name: "select option, other case", world: "support-desk", setup: []step{nav(contact)}, tool: sim.BrowserType, args: obj{"field": "Topic", "text": "api KEYS"},
			text: []string{`Typed "API keys" into combobox "Topic"`}, changes: true},
		{name: "select, not an option", world: "support-desk", setup: []step{nav(contact)}, tool: sim.BrowserType, args: obj{"field": "Topic", "text": "Refund"},
			isErr: true, text: []string{`"Refund" is not an option of "Topic"`, `"Billing"`}},
		{name: "unknown field", world: "weather", tool: sim.BrowserType, args: obj{"field": "Country", "text": "France"},
			isErr: true, text: []string{`no field labelled "Country"`, `"City", "Units"`}},
		{name: "label in two forms", world: edge, tool: sim.BrowserType, args: obj{"field": "Name", "text": "Ada"},
			isErr: true, text: []string{`2 fields are labelled "Name"`, `"Alpha", "Beta"`}},
		{name: "form disambiguates", world: edge, tool: sim.BrowserType, args: obj{"field": "Name", "text": "Ada", "form": "beta"},
			text: []string{`of form "Beta"`}, changes: true},
		{name: "unknown form", world: edge, tool: sim.BrowserType, args: obj{"field": "Name", "text": "Ada", "form": "Gamma"},
			isErr: true, text: []string{`no form named "Gamma"`, `"Alpha", "Beta"`}},
		{name: "page without forms", world: "docs-and-git", setup: []step{nav(docs)}, tool: sim.BrowserType, args: obj{"field": "Search", "text": "x"},
			isErr: true, text: []string{"this page has no form fields"}},
		{name: "no page open", world: "docs-and-git", tool: sim.BrowserType, args: obj{"field": "q", "text": "x"},
			isErr: true, text: []string{"no page is open"}},
		{name: "missing text", world: "weather", tool: sim.BrowserType, args: obj{"field": "City"},
			isErr: true, text: []string{"invalid arguments", "text"}},
	})
}

func TestBrowserSubmit(t *testing.T) {
	runCases(t, []toolCase{
		{name: "lookup", world: "weather", setup: []step{typ("City", "Paris")}, tool: sim.BrowserSubmit,
			text: []string{"now at https://weather.workbench.test/forecast/paris", "Paris — 3-day forecast"}, changes: true},
		{name: "lookup folds case and space", world: "weather", setup: []step{typ("City", "  TOKYO ")}, tool: sim.BrowserSubmit,
			text: []string{"Tokyo — 3-day forecast"}, changes: true},
		{name: "lookup falls back", world: "weather", setup: []step{typ("City", "Atlantis")}, tool: sim.BrowserSubmit, args: obj{"form": "Forecast lookup"},
			text: []string{"City not found"}, changes: true},
		{name: "exact lookup without fallback", world: edge, setup: []step{{sim.BrowserType, obj{"field": "Name", "text": "known", "form": "Alpha"}}},
			tool: sim.BrowserSubmit, args: obj{"form": "Alpha"},
			isErr: true, text: []string{`the site has no result for "Name" "known"`}},
		{name: "exact lookup matches", world: edge, setup: []step{{sim.BrowserType, obj{"field": "Name", "text": "Known", "form": "Alpha"}}},
			tool: sim.BrowserSubmit, args: obj{"form": "Alpha"}, text: []string{"Page A"}, changes: true},
		{name: "second button", world: edge, setup: []step{{sim.BrowserType, obj{"field": "Name", "text": "KNOWN", "form": "Alpha"}}},
			tool: sim.BrowserSubmit, args: obj{"form": "Alpha", "button": "other"}, text: []string{`with button "Other"`, "Page B"}, changes: true},
		{name: "unknown button", world: edge, tool: sim.BrowserSubmit, args: obj{"form": "Alpha", "button": "Stop"},
			isErr: true, text: []string{`form "Alpha" has no button named "Stop"`, `"Go", "Other"`}},
		{name: "number field", world: edge, setup: []step{{sim.BrowserType, obj{"field": "Amount", "text": "12 apples"}}},
			tool: sim.BrowserSubmit, args: obj{"form": "Alpha"}, isErr: true, text: []string{`Amount: "12 apples" is not a number`}},
		{name: "email field", world: "support-desk", setup: []step{nav(contact), typ("Message", "hi"), typ("Your email (optional)", "me at home")},
			tool: sim.BrowserSubmit, isErr: true, text: []string{`"me at home" is not an email address`}},
		{name: "required field", world: "support-desk", setup: []step{nav(contact)}, tool: sim.BrowserSubmit,
			isErr: true, text: []string{`"Message" is required`}},
		{name: "template", world: "support-desk", setup: []step{nav(contact), typ("Message", "My key leaked."), typ("Topic", "API keys")}, tool: sim.BrowserSubmit,
			text: []string{"now at https://support.workbench.test/contact/received/SUP-48213", "Your confirmation id is SUP-48213.", "Topic: API keys."}, changes: true},
		{name: "template echoes and escapes", world: edge, setup: []step{{sim.BrowserType, obj{"field": "Name", "text": "Ada L", "form": "Beta"}}},
			tool: sim.BrowserSubmit, args: obj{"form": "Beta"},
			text: []string{"now at https://edge.workbench.test/hello/Ada%20L", `Page: "Hello Ada L"`, "Hello, Ada L! You are visitor 1; {braces} stay."}, changes: true},
		{name: "two forms, none named", world: edge, tool: sim.BrowserSubmit,
			isErr: true, text: []string{"this page has 2 forms", `"Alpha", "Beta"`}},
		{name: "no form", world: "docs-and-git", setup: []step{nav(docs)}, tool: sim.BrowserSubmit,
			isErr: true, text: []string{"this page has no form to submit"}},
		{name: "unknown form", world: "weather", tool: sim.BrowserSubmit, args: obj{"form": "Login"},
			isErr: true, text: []string{`no form named "Login"`}},
		{name: "form not a string", world: "weather", tool: sim.BrowserSubmit, args: obj{"form": true},
			isErr: true, text: []string{"invalid arguments", "/form"}},
	})
}

func TestFileList(t *testing.T) {
	runCases(t, []toolCase{
		{name: "working directory", world: "status-and-host", tool: sim.FileList, text: []string{"README.txt\nreports/"}},
		{name: "relative", world: "status-and-host", tool: sim.FileList, args: obj{"path": "reports"}, text: []string{"2026-05-20-webhooks.txt"}},
		{name: "root", world: "status-and-host", tool: sim.FileList, args: obj{"path": "/"}, text: []string{"etc/\nhome/\ntmp/"}},
		{name: "empty directory", world: "status-and-host", tool: sim.FileList, args: obj{"path": "/tmp"}, text: []string{"(empty directory)"}},
		{name: "missing", world: "status-and-host", tool: sim.FileList, args: obj{"path": "/srv"},
			isErr: true, text: []string{"cannot list /srv: no such file or directory"}},
		{name: "a file", world: "status-and-host", tool: sim.FileList, args: obj{"path": "README.txt"},
			isErr: true, text: []string{"not a directory"}},
		{name: "empty path", world: "status-and-host", tool: sim.FileList, args: obj{"path": ""},
			isErr: true, text: []string{"invalid arguments", "/path"}},
	})
}

func TestFileRead(t *testing.T) {
	runCases(t, []toolCase{
		{name: "absolute", world: "status-and-host", tool: sim.FileRead, args: obj{"path": "/etc/hostname"}, text: []string{"oncall-01"}},
		{name: "relative", world: "status-and-host", tool: sim.FileRead, args: obj{"path": "reports/2026-05-20-webhooks.txt"}, text: []string{"Delayed webhook"}},
		{name: "dot-dot", world: "status-and-host", tool: sim.FileRead, args: obj{"path": "/home/user/reports/../README.txt"}, text: []string{"On-call notes"}},
		{name: "missing", world: "status-and-host", tool: sim.FileRead, args: obj{"path": "incident.txt"},
			isErr: true, text: []string{"cannot read /home/user/incident.txt: no such file or directory"}},
		{name: "directory", world: "status-and-host", tool: sim.FileRead, args: obj{"path": "/tmp"},
			isErr: true, text: []string{"is a directory"}},
		{name: "missing path", world: "status-and-host", tool: sim.FileRead, args: obj{},
			isErr: true, text: []string{"invalid arguments", "path"}},
	})
}

func TestFileWrite(t *testing.T) {
	w := func(path, content string) step { return step{sim.FileWrite, obj{"path": path, "content": content}} }
	runCases(t, []toolCase{
		{name: "create", world: "status-and-host", tool: sim.FileWrite, args: obj{"path": "/home/user/incident.txt", "content": "EU gateway\n"},
			text: []string{"Wrote 11 bytes to /home/user/incident.txt (created)"}, changes: true},
		{name: "replace", world: "status-and-host", tool: sim.FileWrite, args: obj{"path": "README.txt", "content": "new"},
			text: []string{"(replaced)"}, changes: true},
		{name: "same content again", world: "status-and-host", setup: []step{w("a.txt", "x")}, tool: sim.FileWrite, args: obj{"path": "a.txt", "content": "x"},
			text: []string{"(replaced)"}, changes: false},
		{name: "append", world: "status-and-host", setup: []step{w("a.txt", "x")}, tool: sim.FileWrite, args: obj{"path": "a.txt", "content": "y", "append": true},
			text: []string{"(appended to)"}, changes: true},
		{name: "empty file", world: "status-and-host", tool: sim.FileWrite, args: obj{"path": "empty", "content": ""},
			text: []string{"Wrote 0 bytes"}, changes: true},
		{name: "missing directory", world: "status-and-host", tool: sim.FileWrite, args: obj{"path": "/srv/x.txt", "content": "x"},
			isErr: true, text: []string{"cannot write /srv/x.txt: no such file or directory"}},
		{name: "inside a file", world: "status-and-host", tool: sim.FileWrite, args: obj{"path": "README.txt/x", "content": "x"},
			isErr: true, text: []string{"not a directory"}},
		{name: "a directory", world: "status-and-host", tool: sim.FileWrite, args: obj{"path": "reports", "content": "x"},
			isErr: true, text: []string{"is a directory"}},
		{name: "content not a string", world: "status-and-host", tool: sim.FileWrite, args: obj{"path": "a", "content": obj{}},
			isErr: true, text: []string{"/content: got object, want string"}},
		{name: "append not a boolean", world: "status-and-host", tool: sim.FileWrite, args: obj{"path": "a", "content": "x", "append": "yes"},
			isErr: true, text: []string{"/append"}},
	})
}

func TestFileDelete(t *testing.T) {
	runCases(t, []toolCase{
		{name: "file", world: "status-and-host", tool: sim.FileDelete, args: obj{"path": "README.txt"},
			text: []string{"Deleted file /home/user/README.txt"}, changes: true},
		{name: "empty directory", world: "status-and-host", tool: sim.FileDelete, args: obj{"path": "/tmp"},
			text: []string{"Deleted directory /tmp"}, changes: true},
		{name: "non-empty directory", world: "status-and-host", tool: sim.FileDelete, args: obj{"path": "reports"},
			isErr: true, text: []string{"directory not empty"}},
		{name: "working directory", world: "edge-cases.json", setup: []step{sh("mkdir /w"), sh("cd /w")}, tool: sim.FileDelete, args: obj{"path": "/w"},
			isErr: true, text: []string{"busy"}},
		{name: "root", world: "status-and-host", tool: sim.FileDelete, args: obj{"path": "/"},
			isErr: true, text: []string{"cannot delete /"}},
		{name: "missing", world: "status-and-host", tool: sim.FileDelete, args: obj{"path": "nothing.txt"},
			isErr: true, text: []string{"no such file or directory"}},
	})
}

func TestShellExec(t *testing.T) {
	x := func(cmd string, isErr, changes bool, text ...string) toolCase {
		return toolCase{name: cmd, world: "status-and-host", tool: sim.ShellExec, args: obj{"command": cmd}, isErr: isErr, changes: changes, text: text}
	}
	cases := []toolCase{
		x("pwd", false, false, "/home/user"),
		x("pwd -P", true, false, "pwd: too many arguments", "[exit status 1]"),
		x("cd reports", false, true, "(no output)"),
		x("cd /nowhere", true, false, "cd: /nowhere: no such file or directory"),
		x("cd README.txt", true, false, "not a directory"),
		x("cd a b", true, false, "too many arguments"),
		x("ls", false, false, "README.txt\nreports"),
		x("ls -l", false, false, "-      147 README.txt", "d        0 reports"),
		x("ls reports /etc", false, false, "/etc:\nhostname\n\nreports:\n2026-05-20-webhooks.txt"),
		x("ls README.txt", false, false, "README.txt"),
		x("ls -R", true, false, "ls: unsupported option -R (supported: -a, -l, -1)", "[exit status 2]"),
		x("ls nothing", true, false, `ls: cannot access "nothing": no such file or directory`),
		x("cat README.txt", false, false, "On-call notes"),
		x("cat /etc/hostname /etc/hostname", false, false, "oncall-01\noncall-01"),
		x("cat", true, false, "reading standard input is not supported"),
		x("cat missing", true, false, "cat: missing: no such file or directory", "[exit status 1]"),
		x("cat reports", true, false, "cat: reports: is a directory"),
		x("echo hello   world", false, false, "hello world"),
		x(`echo "a  b" 'c  d' e\ f`, false, false, "a  b c  d e f"),
		x(`echo "say \"hi\""`, false, false, `say "hi"`),
		x("echo -n x", false, false, "x"),
		x("echo Elevated error rates > incident.txt", false, true, "[changed the file tree: /home/user/incident.txt]"),
		x("echo more >> README.txt", false, true, "[changed the file tree: /home/user/README.txt]"),
		x("echo x>/home/user/y.txt", false, true, "changed the file tree: /home/user/y.txt"),
		x("echo x > /srv/y.txt", true, false, "sh: /srv/y.txt: no such file or directory"),
		x("cat missing > out.txt", true, true, "cat: missing: no such file or directory", "changed the file tree: /home/user/out.txt"),
		x("echo >", true, false, "> needs a file name after it"),
		x("echo a > b > c", true, false, "only one redirection"),
		x("echo a > b c", true, false, "the redirection must come last"),
		x("mkdir notes", false, true, "changed the file tree: /home/user/notes"),
		x("mkdir reports", true, false, `mkdir: cannot create directory "reports": file exists`),
		x("mkdir a/b", true, false, "no such file or directory"),
		x("mkdir -p a/b", false, true, "changed the file tree: /home/user/a/b"),
		x("mkdir -p reports", false, false, "(no output)"),
		x("mkdir", true, false, "mkdir: missing operand"),
		x("touch new.txt", false, true, "changed the file tree: /home/user/new.txt"),
		x("touch README.txt", false, false, "(no output)"),
		x("rm README.txt", false, true, "changed the file tree: /home/user/README.txt"),
		x("rm missing", true, false, `rm: cannot remove "missing": no such file or directory`),
		x("rm -f missing", false, false, "(no output)"),
		x("rm reports", true, false, "is a directory"),
		x("rm -r reports", true, false, "rm: unsupported option -r (supported: -f)"),
		x("rm README.txt missing", true, true, "changed the file tree: /home/user/README.txt", "[exit status 1]"),
		x("rmdir /tmp", false, true, "changed the file tree: /tmp"),
		x("rmdir reports", true, false, "directory not empty"),
		x("rmdir README.txt", true, false, "not a directory"),
		x("sudo rm README.txt", true, false, "sh: sudo: command not found", "[exit status 127]"),
		x("cat README.txt | wc -l", true, false, "'|'", "pipes"),
		x("ls; pwd", true, false, "';'"),
		x("ls && pwd", true, false, "'&'"),
		x("cat < README.txt", true, false, "'<'"),
		x("echo $HOME", true, false, "variables"),
		x("echo \"$HOME\"", true, false, "variables"),
		x("echo `pwd`", true, false, "command substitution"),
		x("cat *.txt", true, false, "globs are not supported"),
		x("cat ~/README.txt", true, false, "no home directory expansion"),
		x("echo 'a", true, false, "unterminated single quote"),
		x(`echo "a`, true, false, "unterminated double quote"),
		x("echo a\\", true, false, "lone backslash"),
		x("echo a\necho b", true, false, "one command per call"),
		x("   ", true, false, "no command given"),
		x("echo '*' '~' '$HOME'", false, false, "* ~ $HOME"),
		{name: "empty command", world: "status-and-host", tool: sim.ShellExec, args: obj{"command": ""}, isErr: true, text: []string{"invalid arguments", "/command"}},
		{name: "cd back home", world: "status-and-host", setup: []step{sh("cd /tmp")}, tool: sim.ShellExec, args: obj{"command": "cd"}, changes: true, text: []string{"(no output)"}},
	}
	runCases(t, cases)
}

// A call that fails leaves the state exactly as it was: the same hash
// before and after, for every tool error any test table produces — the
// shell's partial failures aside, which report what they changed.
func TestToolErrorsChangeNothing(t *testing.T) {
	v := validator(t)
	s := load(t, v, "status-and-host")
	ctx := context.Background()
	for _, c := range []step{
		{sim.BrowserClick, obj{"name": "Nowhere"}},
		{sim.BrowserType, obj{"field": "x", "text": "y"}},
		{sim.BrowserSubmit, obj{}},
		{sim.BrowserNavigate, obj{"url": "https://status.workbench.test/none"}},
		{sim.FileWrite, obj{"path": "/srv/a", "content": "x"}},
		{sim.FileDelete, obj{"path": "/home/user/reports"}},
		{sim.ShellExec, obj{"command": "rm reports"}},
		{sim.ShellExec, obj{"command": "echo x > /srv/a"}},
		{sim.FileRead, obj{"path": 1}},
	} {
		before, _ := hashes(t, s)
		r, err := s.Call(ctx, c.tool, c.args)
		if err != nil || !r.IsError {
			t.Fatalf("%s %v: want a tool error, got %v, %+v", c.tool, c.args, err, r)
		}
		if after, _ := hashes(t, s); after != before {
			t.Errorf("%s %v changed the state", c.tool, c.args)
		}
	}
}

func TestToolList(t *testing.T) {
	v := validator(t)
	s := load(t, v, "weather")
	tools, err := s.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	type ann struct {
		readOnly, destructive, idempotent bool
		capability                        string
	}
	want := map[string]ann{
		sim.BrowserNavigate: {true, false, true, skill.CapabilityBrowser},
		sim.BrowserSnapshot: {true, false, true, skill.CapabilityBrowser},
		sim.BrowserClick:    {false, false, false, skill.CapabilityBrowser},
		sim.BrowserType:     {false, false, true, skill.CapabilityBrowser},
		sim.BrowserSubmit:   {false, false, false, skill.CapabilityBrowser},
		sim.FileList:        {true, false, true, skill.CapabilityOS},
		sim.FileRead:        {true, false, true, skill.CapabilityOS},
		sim.FileWrite:       {false, true, false, skill.CapabilityOS},
		sim.FileDelete:      {false, true, true, skill.CapabilityOS},
		sim.ShellExec:       {false, true, false, skill.CapabilityOS},
	}
	if len(tools) != len(want) {
		t.Errorf("%d tools, want %d", len(tools), len(want))
	}
	for _, tl := range tools {
		w, ok := want[tl.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tl.Name)
			continue
		}
		a := tl.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: an annotation is unset: %+v", tl.Name, a)
			continue
		}
		got := ann{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, tl.Capability}
		if got != w {
			t.Errorf("%s: annotations %+v, want %+v", tl.Name, got, w)
		}
		if *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint set in a closed simulated world", tl.Name)
		}
		if tl.Description == "" || tl.Title == "" || a.Title == "" {
			t.Errorf("%s: missing title or description", tl.Name)
		}
		// The input schema is a JSON Schema object that compiles and
		// closes its arguments.
		var doc map[string]any
		if err := json.Unmarshal(tl.InputSchema, &doc); err != nil {
			t.Errorf("%s: input schema: %v", tl.Name, err)
			continue
		}
		if doc["type"] != "object" || doc["additionalProperties"] != false {
			t.Errorf("%s: input schema must be a closed object: %s", tl.Name, tl.InputSchema)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("urn:test", doc); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("urn:test"); err != nil {
			t.Errorf("%s: input schema does not compile: %v", tl.Name, err)
		}
	}
	// Tools hands out copies: changing one changes nothing in the body.
	tools[0].InputSchema[0] = 'X'
	again, _ := s.Tools(context.Background())
	if again[0].InputSchema[0] != '{' {
		t.Error("Tools returned the body's own schema bytes")
	}
	*tools[0].Annotations.ReadOnlyHint = !*tools[0].Annotations.ReadOnlyHint
	if again, _ := s.Tools(context.Background()); *again[0].Annotations.ReadOnlyHint == *tools[0].Annotations.ReadOnlyHint {
		t.Error("Tools returned the body's own annotation hints")
	}
	// Nor does growing one piece of a list overwrite the next.
	next := string(again[1].InputSchema)
	_ = append(again[0].InputSchema, "XXXXXXXX"...)
	if string(again[1].InputSchema) != next {
		t.Error("appending to one tool's schema overwrote the next tool's")
	}
}

func TestCallErrors(t *testing.T) {
	v := validator(t)
	s := load(t, v, "weather")
	_, err := s.Call(context.Background(), "browser_teleport", obj{})
	if !errors.Is(err, sim.ErrUnknownTool) {
		t.Errorf("unknown tool: %v, want ErrUnknownTool", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before, _ := hashes(t, s)
	if _, err := s.Call(ctx, sim.BrowserType, obj{"field": "City", "text": "Paris"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	if after, _ := hashes(t, s); after != before {
		t.Error("a cancelled call changed the state")
	}
	if _, err := s.Tools(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Tools: %v", err)
	}
	if _, err := s.State(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled State: %v", err)
	}
	// Nil arguments are no arguments.
	r, err := s.Call(context.Background(), sim.BrowserSnapshot, nil)
	if err != nil || r.IsError {
		t.Errorf("snapshot with nil arguments: %v %+v", err, r)
	}
	if s.Kind() != "simulator" || s.Server() != "simulator" || s.Name() != "weather" {
		t.Errorf("Kind, Server, Name = %q, %q, %q", s.Kind(), s.Server(), s.Name())
	}
}
