package mcpbody

import (
	"reflect"
	"strings"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/skill"
)

// page builds a browser_snapshot result as Playwright MCP 0.0.83 writes
// it (the layout of these texts is copied from its real output).
func page(url, title, console, yml string) string {
	s := "### Page\n- Page URL: " + url + "\n- Page Title: " + title + "\n"
	if console != "" {
		s += "- Console: " + console + "\n"
	}
	return s + "### Snapshot\n```yaml\n" + yml + "\n```\n"
}

const homeYAML = `- generic [active] [ref=e1]:
  - heading "Welcome" [level=1] [ref=e2]
  - paragraph [ref=e3]: Some text here.
  - link "About us" [ref=e4] [cursor=pointer]:
    - /url: /about.html
  - generic [ref=e6]:
    - generic [ref=e7]:
      - text: Name
      - textbox "Name" [ref=e8]
    - button "Send" [ref=e9]`

func hashes(t *testing.T, text string) (hash, shape string, v pageView) {
	t.Helper()
	v, err := parsePage(text)
	if err != nil {
		t.Fatalf("parsePage: %v\n%s", err, text)
	}
	hash, shape, err = skill.StateHashes(v.state)
	if err != nil {
		t.Fatal(err)
	}
	return hash, shape, v
}

func TestPageNormalization(t *testing.T) {
	const url = "http://127.0.0.1:8080/index.html"
	base := page(url, "Home", "1 errors, 0 warnings", homeYAML)
	h0, s0, v0 := hashes(t, base)
	for _, tc := range []struct {
		name                string
		text                string
		sameHash, sameShape bool
	}{
		// A second visit: the server prefixes its references with the
		// frame's number, and the favicon's 404 is not counted again.
		{"second visit", page(url, "Home", "", strings.ReplaceAll(homeYAML, "ref=e", "ref=f1e")), true, true},
		// Playwright numbers elements created later after the others.
		{"other server numbering", page(url, "Home", "", strings.NewReplacer("ref=e4]", "ref=e40]", "ref=e9]", "ref=e4]").Replace(homeYAML)), true, true},
		{"other text", page(url, "Home", "", strings.ReplaceAll(homeYAML, "Welcome", "Hello")), false, true},
		{"other title", page(url, "Start", "", homeYAML), false, true},
		{"other layout", page(url, "Home", "", strings.ReplaceAll(homeYAML, `heading "Welcome" [level=1]`, `list "Welcome"`)), false, false},
		{"more elements", page(url, "Home", "", homeYAML+"\n  - img \"Logo\" [ref=e10]"), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, s, _ := hashes(t, tc.text)
			if (h == h0) != tc.sameHash || (s == s0) != tc.sameShape {
				t.Errorf("same hash %v (want %v), same shape %v (want %v)", h == h0, tc.sameHash, s == s0, tc.sameShape)
			}
		})
	}
	want := map[string]any{
		"url": url, "title": "Home",
		"page": []any{map[string]any{"generic": "", "active": true, "ref": "e1", "children": []any{
			map[string]any{"heading": "Welcome", "level": "1", "ref": "e2"},
			map[string]any{"paragraph": "", "ref": "e3", "children": []any{map[string]any{"text": "Some text here."}}},
			map[string]any{"link": "About us", "ref": "e4", "cursor": "pointer", "/url": "/about.html"},
			map[string]any{"generic": "", "ref": "e5", "children": []any{
				map[string]any{"generic": "", "ref": "e6", "children": []any{
					map[string]any{"text": "Name"},
					map[string]any{"textbox": "Name", "ref": "e7"},
				}},
				map[string]any{"button": "Send", "ref": "e8"},
			}},
		}}},
	}
	if !reflect.DeepEqual(v0.state, want) {
		t.Errorf("state\n%#v\nwant\n%#v", v0.state, want)
	}
	// The server's e6 is the body's e5: references are renumbered in
	// document order, and the text a model reads uses the body's.
	if v0.refs.toLive["e5"] != "e6" || v0.refs.toNorm["e9"] != "e8" {
		t.Errorf("refs %v", v0.refs)
	}
	if !strings.Contains(v0.text, `button "Send" [ref=e8]`) || strings.Contains(v0.text, "Console") {
		t.Errorf("text for the model:\n%s", v0.text)
	}
}

func TestPageErrors(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no snapshot", "### Page\n- Page URL: about:blank\n", "no inline ### Snapshot"},
		{"snapshot in a file", "### Page\n- Page URL: x\n### Snapshot\n- [Snapshot](out/page.yml)\n", "written to a file"},
		{"not a list", page("x", "t", "", "a: b"), "not a sequence"},
		{"bad element", page("x", "t", "", `- link "About [ref=e1]`), "unterminated name"},
		{"bad attribute", page("x", "t", "", `- link "About" [ref=e1`), "unterminated attribute"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parsePage(tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestEmptyPage(t *testing.T) {
	v, err := parsePage("### Page\n- Page URL: about:blank\n### Snapshot\n```yaml\n\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	if v.state["url"] != "about:blank" || len(v.state["page"].([]any)) != 0 {
		t.Errorf("state %v", v.state)
	}
}

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		key, role, name string
		attrs           [][2]string
	}{
		{`generic`, "generic", "", nil},
		{`link "Say \"hi\": now" [ref=e4] [cursor=pointer]`, "link", `Say "hi": now`, [][2]string{{"ref", "e4"}, {"cursor", "pointer"}}},
		{`checkbox "Agree" [checked] [disabled]`, "checkbox", "Agree", [][2]string{{"checked", ""}, {"disabled", ""}}},
	} {
		role, name, attrs, err := parseKey(tc.key)
		if err != nil || role != tc.role || name != tc.name || !reflect.DeepEqual(attrs, tc.attrs) {
			t.Errorf("parseKey(%s) = %q %q %v %v", tc.key, role, name, attrs, err)
		}
	}
}

func TestTranslateArgs(t *testing.T) {
	m := map[string]string{"e4": "f1e4", "e8": "f1e9"}
	args := map[string]any{
		"target": "e4", "element": "e4", "text": "e8",
		"fields": []any{map[string]any{"target": "e8", "value": "x"}, map[string]any{"target": "#id"}},
	}
	got := translateArgs(args, DefaultRefKeys(), m)
	want := map[string]any{
		"target": "f1e4", "element": "e4", "text": "e8",
		"fields": []any{map[string]any{"target": "f1e9", "value": "x"}, map[string]any{"target": "#id"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v", got)
	}
	if args["target"] != "e4" {
		t.Error("the caller's arguments were changed")
	}
	if !hasRefArg(args, DefaultRefKeys()) || hasRefArg(map[string]any{"url": "x"}, DefaultRefKeys()) {
		t.Error("hasRefArg")
	}
}

func TestNormalizeHost(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want any
	}{
		{"json", `[{"name":"a.txt","type":"file"}]`, []any{map[string]any{"name": "a.txt", "type": "file"}}},
		{"lines", "[FILE] a.txt\n[DIR] sub\n", map[string]any{"lines": []any{"[FILE] a.txt", "[DIR] sub"}}},
		{"json then junk", `{"a":1} x`, map[string]any{"lines": []any{`{"a":1} x`}}},
	} {
		got, err := NormalizeHost(body.Result{Text: tc.text, Structured: map[string]any{"content": tc.text}})
		if err != nil {
			t.Fatal(err)
		}
		h1, _ := skill.HashValue(got)
		h2, _ := skill.HashValue(tc.want)
		if h1 != h2 {
			t.Errorf("%s: got %#v", tc.name, got)
		}
	}
	structured := map[string]any{"files": []any{"a.txt"}}
	if got, _ := NormalizeHost(body.Result{Text: "a.txt", Structured: structured}); !reflect.DeepEqual(got, structured) {
		t.Errorf("structured content was not used: %#v", got)
	}
}
