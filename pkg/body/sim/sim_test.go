package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/canonjson"
	"workbench/pkg/skill"
	"workbench/schemas"
)

var update = flag.Bool("update", false, "rewrite testdata/hashes.golden")

func TestNewRejects(t *testing.T) {
	base := func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal(worldBytes(t, edge), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// at walks a decoded world by slash-separated members and indices.
	at := func(m any, path string) any {
		for _, tok := range strings.Split(path, "/") {
			switch n := m.(type) {
			case map[string]any:
				m = n[tok]
			case []any:
				var i int
				fmt.Sscan(tok, &i)
				m = n[i]
			}
		}
		return m
	}
	page0 := func(m map[string]any) map[string]any { return at(m, "pages/0").(map[string]any) }
	alpha := func(m map[string]any) map[string]any { return at(m, "pages/0/forms/0").(map[string]any) }
	lookup := func(m map[string]any) map[string]any {
		return at(m, "pages/0/forms/0/buttons/0/submit/lookup").(map[string]any)
	}
	tmpl := func(m map[string]any) map[string]any {
		return at(m, "pages/0/forms/1/buttons/0/submit/template").(map[string]any)
	}
	cases := []struct {
		name    string
		raw     string // used instead of edit when set
		edit    func(m map[string]any)
		pointer string
		reason  string
	}{
		{name: "not JSON", raw: `{"schema": `, pointer: "/schema", reason: "byte 11"},
		{name: "duplicate member", raw: `{"name": "a", "name": "b"}`, pointer: "/name", reason: "duplicate"},
		{name: "not an object", raw: `[]`, pointer: "", reason: "must be an object"},
		{name: "missing pages", edit: func(m map[string]any) { delete(m, "pages") }, pointer: "/pages", reason: "is required"},
		{name: "extra member", edit: func(m map[string]any) { m["code"] = "alert(1)" }, pointer: "/code", reason: "not an allowed member"},
		{name: "wrong schema", edit: func(m map[string]any) { m["schema"] = schemas.Scenario }, pointer: "/schema", reason: "must be"},
		{name: "bad name", edit: func(m map[string]any) { m["name"] = "Edge Cases" }, pointer: "/name", reason: "pattern"},
		{name: "http URL", edit: func(m map[string]any) { page0(m)["url"] = "http://edge.workbench.test/" }, pointer: "/pages/0/url", reason: "pattern"},
		{name: "URL not in normal form", edit: func(m map[string]any) { at(m, "pages/1").(map[string]any)["url"] = "https://EDGE.workbench.test" },
			pointer: "/pages/1/url", reason: "normal form: https://edge.workbench.test/"},
		{name: "repeated URL", edit: func(m map[string]any) { at(m, "pages/2").(map[string]any)["url"] = "https://edge.workbench.test/a" },
			pointer: "/pages/2/url", reason: "repeats the URL of /pages/1"},
		{name: "dead link", edit: func(m map[string]any) {
			at(m, "pages/0/links/1").(map[string]any)["href"] = "https://edge.workbench.test/c"
		},
			pointer: "/pages/0/links/1/href", reason: "no page of this world has the URL https://edge.workbench.test/c"},
		{name: "dead start URL", edit: func(m map[string]any) { m["start_url"] = "https://else.workbench.test/" },
			pointer: "/start_url", reason: "no page"},
		{name: "bad block kind", edit: func(m map[string]any) { at(m, "pages/0/blocks/0").(map[string]any)["kind"] = "script" },
			pointer: "/pages/0/blocks/0/kind", reason: "must be one of"},
		{name: "repeated form name", edit: func(m map[string]any) { at(m, "pages/0/forms/1").(map[string]any)["name"] = "Alpha" },
			pointer: "/pages/0/forms/1/name", reason: "repeats the name of form 0"},
		{name: "repeated field name", edit: func(m map[string]any) { at(m, "pages/0/forms/0/fields/1").(map[string]any)["name"] = "n" },
			pointer: "/pages/0/forms/0/fields/1/name", reason: "repeats the name of field 0"},
		{name: "repeated label", edit: func(m map[string]any) { at(m, "pages/0/forms/0/fields/1").(map[string]any)["label"] = "name" },
			pointer: "/pages/0/forms/0/fields/1/label", reason: "repeats the label"},
		{name: "repeated button", edit: func(m map[string]any) { at(m, "pages/0/forms/0/buttons/1").(map[string]any)["name"] = "GO" },
			pointer: "/pages/0/forms/0/buttons/1/name", reason: "repeats the name of button 0"},
		{name: "no buttons", edit: func(m map[string]any) { alpha(m)["buttons"] = []any{} },
			pointer: "/pages/0/forms/0/buttons", reason: "must not be empty"},
		{name: "select without options", edit: func(m map[string]any) { at(m, "pages/0/forms/0/fields/0").(map[string]any)["type"] = "select" },
			pointer: "/pages/0/forms/0/fields/0/options", reason: "is required"},
		{name: "options on a text field", edit: func(m map[string]any) { at(m, "pages/0/forms/0/fields/0").(map[string]any)["options"] = []any{"a"} },
			pointer: "/pages/0/forms/0/fields/0/options", reason: "only a select field has options"},
		{name: "initial value not a number", edit: func(m map[string]any) { at(m, "pages/0/forms/0/fields/1").(map[string]any)["value"] = "Infinity" },
			pointer: "/pages/0/forms/0/fields/1/value", reason: "is not a number"},
		{name: "two rules", edit: func(m map[string]any) {
			at(m, "pages/0/forms/0/buttons/0/submit").(map[string]any)["template"] = tmpl(m)
		}, pointer: "/pages/0/forms/0/buttons/0/submit", reason: "maxProperties: got 2, want 1"},
		{name: "no rule", edit: func(m map[string]any) {
			at(m, "pages/0/forms/0/buttons/0").(map[string]any)["submit"] = map[string]any{}
		},
			pointer: "/pages/0/forms/0/buttons/0/submit", reason: "minProperties: got 0, want 1"},
		{name: "lookup on a missing field", edit: func(m map[string]any) { lookup(m)["field"] = "who" },
			pointer: "/pages/0/forms/0/buttons/0/submit/lookup/field", reason: `this form has no field named "who"`},
		{name: "lookup to a dead page", edit: func(m map[string]any) { lookup(m)["otherwise"] = "https://edge.workbench.test/c" },
			pointer: "/pages/0/forms/0/buttons/0/submit/lookup/otherwise", reason: "no page"},
		{name: "lookup keys that fold together", edit: func(m map[string]any) {
			l := at(m, "pages/0/forms/0/buttons/1/submit/lookup").(map[string]any)
			l["table"].(map[string]any)["KNOWN "] = "https://edge.workbench.test/a"
		}, pointer: "/pages/0/forms/0/buttons/1/submit/lookup/table/known", reason: `matches the same values as the key "KNOWN "`},
		{name: "template names a missing field", edit: func(m map[string]any) {
			tmpl(m)["blocks"] = []any{map[string]any{"kind": "p", "text": "Hi {name}"}}
		}, pointer: "/pages/0/forms/1/buttons/0/submit/template/blocks/0/text", reason: "{name} names no field of this form"},
		{name: "template with a lone brace", edit: func(m map[string]any) { tmpl(m)["title"] = "Hello }" },
			pointer: "/pages/0/forms/1/buttons/0/submit/template/title", reason: "lone }"},
		{name: "template URL that is no URL", edit: func(m map[string]any) { tmpl(m)["url"] = "https://:{who}" },
			pointer: "/pages/0/forms/1/buttons/0/submit/template/url", reason: "does not give a URL"},
		{name: "file inside a file", edit: func(m map[string]any) {
			at(m, "host/files").(map[string]any)["/srv/data.txt/x"] = ""
		}, pointer: "/host/files/~1srv~1data.txt~1x", reason: "lies inside /srv/data.txt, which is a file"},
		{name: "relative file path", edit: func(m map[string]any) { at(m, "host/files").(map[string]any)["srv/x"] = "" },
			pointer: "/host/files/srv~1x", reason: "not an allowed member"},
		{name: "unclean directory", edit: func(m map[string]any) { at(m, "host").(map[string]any)["dirs"] = []any{"/a/../b"} },
			pointer: "/host/dirs/0", reason: "clean absolute path (/b)"},
		{name: "missing working directory", edit: func(m map[string]any) { at(m, "host").(map[string]any)["cwd"] = "/home" },
			pointer: "/host/cwd", reason: "/home is not a directory of this host"},
		{name: "file content not a string", edit: func(m map[string]any) { at(m, "host/files").(map[string]any)["/srv/data.txt"] = 1 },
			pointer: "/host/files/~1srv~1data.txt", reason: "must be a string"},
	}
	v := validator(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := []byte(c.raw)
			if c.raw == "" {
				m := base()
				c.edit(m)
				var err error
				if data, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			_, err := sim.NewWithValidator(data, v)
			var we *sim.WorldError
			if !errors.As(err, &we) {
				t.Fatalf("error %v (%T), want a *WorldError", err, err)
			}
			if we.Pointer != c.pointer {
				t.Errorf("pointer %q, want %q (%v)", we.Pointer, c.pointer, err)
			}
			if !strings.Contains(err.Error(), c.reason) {
				t.Errorf("error does not say %q:\n%v", c.reason, err)
			}
		})
	}
	// The unmodified base world loads.
	if _, err := sim.NewWithValidator(worldBytes(t, edge), v); err != nil {
		t.Fatal(err)
	}
	// Strict parsing errors keep their type.
	_, err := sim.New([]byte(`{"a": 1e400}`))
	var ce *canonjson.Error
	if !errors.As(err, &ce) {
		t.Errorf("out-of-range number: %v, want a *canonjson.Error inside", err)
	}
}

func TestMutate(t *testing.T) {
	v := validator(t)
	ctx := context.Background()

	t.Run("edit the page on screen", func(t *testing.T) {
		s := load(t, v, "docs-and-git")
		run(t, s, nav(gs))
		st0, sh0 := hashes(t, s)
		err := s.Mutate(func(w *sim.World) error {
			for i := range w.Pages {
				if w.Pages[i].URL == gs {
					w.Pages[i].Blocks[0].Text = "Getting started with Widget 3"
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		st1, sh1 := hashes(t, s)
		if st0 == st1 {
			t.Error("state hash unchanged by an edit of the page")
		}
		if sh0 != sh1 {
			t.Error("shape changed by an edit of text alone")
		}
		r := run(t, s, step{sim.BrowserSnapshot, nil})
		if !strings.Contains(r.Text, "Widget 3") {
			t.Errorf("snapshot does not show the edit:\n%s", r.Text)
		}
	})

	t.Run("remove the page on screen and a link target", func(t *testing.T) {
		s := load(t, v, "docs-and-git")
		run(t, s, nav(docs))
		err := s.Mutate(func(w *sim.World) error {
			w.Pages = slices.DeleteFunc(w.Pages, func(p sim.Page) bool {
				return p.URL == docs || p.URL == "https://docs.workbench.test/install"
			})
			return nil
		})
		if err != nil {
			t.Fatalf("a world with dead links is a valid live world: %v", err)
		}
		r, _ := s.Call(ctx, sim.BrowserSnapshot, nil)
		if !r.IsError || !strings.Contains(r.Text, "no longer exists") {
			t.Errorf("snapshot of a removed page: %+v", r)
		}
		run(t, s, nav(gs))
		r, _ = s.Call(ctx, sim.BrowserClick, obj{"name": "Installation"})
		if !r.IsError || !strings.Contains(r.Text, "HTTP 404") {
			t.Errorf("dead link: %+v", r)
		}
	})

	t.Run("invalid edits change nothing", func(t *testing.T) {
		s := load(t, v, "weather")
		before, _ := hashes(t, s)
		err := s.Mutate(func(w *sim.World) error {
			w.Pages = append(w.Pages, w.Pages[0])
			return nil
		})
		var we *sim.WorldError
		if !errors.As(err, &we) || !strings.HasSuffix(we.Pointer, "/url") {
			t.Errorf("repeated page: %v", err)
		}
		err = s.Mutate(func(w *sim.World) error {
			w.Pages[0].Blocks[0].Kind = "marquee"
			return nil
		})
		if !errors.As(err, &we) || we.Pointer != "/pages/0/blocks/0/kind" {
			t.Errorf("schema violation: %v", err)
		}
		stop := errors.New("changed my mind")
		err = s.Mutate(func(w *sim.World) error {
			w.Pages[0].Title = "half-done"
			return stop
		})
		if !errors.Is(err, stop) {
			t.Errorf("edit error: %v", err)
		}
		if after, _ := hashes(t, s); after != before {
			t.Error("a rejected edit changed the world")
		}
	})

	t.Run("typed values of removed fields go", func(t *testing.T) {
		s := load(t, v, "support-desk")
		run(t, s, nav(contact), typ("Your email (optional)", "ada@example.test"), typ("Message", "hi"))
		var saved sim.Field
		edit := func(remove bool) func(w *sim.World) error {
			return func(w *sim.World) error {
				for i := range w.Pages {
					if w.Pages[i].URL != contact {
						continue
					}
					f := &w.Pages[i].Forms[0]
					if remove {
						saved = f.Fields[0]
						f.Fields = f.Fields[1:]
					} else {
						f.Fields = append([]sim.Field{saved}, f.Fields...)
					}
				}
				return nil
			}
		}
		if err := s.Mutate(edit(true)); err != nil {
			t.Fatal(err)
		}
		if err := s.Mutate(edit(false)); err != nil {
			t.Fatal(err)
		}
		r := run(t, s, step{sim.BrowserSnapshot, nil})
		if !strings.Contains(r.Text, `[email]: ""`) || !strings.Contains(r.Text, `[multiline, required]: "hi"`) {
			t.Errorf("values after removing and restoring the email field:\n%s", r.Text)
		}
	})

	t.Run("result pages are valid world pages", func(t *testing.T) {
		s := load(t, v, edge)
		// A template that echoes only an optional field left empty, and
		// one that echoes a long value.
		err := s.Mutate(func(w *sim.World) error {
			tm := w.Pages[0].Forms[1].Buttons[0].Submit.Template
			tm.Title = "{mail}"
			tm.Blocks = []sim.Block{{Kind: "p", Text: "{mail}"}, {Kind: "h1", Text: "{who}"}}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("é", 300)
		r := run(t, s, step{sim.BrowserType, obj{"field": "Name", "form": "Beta", "text": long}}, step{sim.BrowserSubmit, obj{"form": "Beta"}})
		want(t, r.Text, `Page: "https://edge.workbench.test/hello/%C3%A9`, "…", `heading "`+long+`"`)
		if strings.Contains(r.Text, "paragraph") {
			t.Errorf("a block echoing an empty field was kept:\n%s", r.Text)
		}
		// The world holding the result page is still a valid world.
		if err := s.Mutate(func(*sim.World) error { return nil }); err != nil {
			t.Errorf("the world with a result page is invalid: %v", err)
		}
	})

	t.Run("files in new directories", func(t *testing.T) {
		s := load(t, v, "status-and-host")
		err := s.Mutate(func(w *sim.World) error {
			w.Host.Files["/srv/www/index.html"] = "<h1>hi</h1>"
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		r := run(t, s, sh("ls /srv"))
		if r.Text != "www" {
			t.Errorf("ls /srv = %q", r.Text)
		}
		if w := s.World(); !slices.Contains(w.Host.Dirs, "/srv/www") {
			t.Errorf("dirs after the edit: %v", w.Host.Dirs)
		}
	})
}

func TestCloneAndReset(t *testing.T) {
	v := validator(t)
	s := load(t, v, "support-desk")
	fresh, _ := hashes(t, s)
	run(t, s, nav(contact), typ("Message", "hello"), step{sim.BrowserSubmit, nil})
	mid, _ := hashes(t, s)

	c := s.Clone()
	if h, _ := hashes(t, c); h != mid {
		t.Fatal("a clone starts in a different state")
	}
	r := run(t, c, nav(contact), typ("Message", "again"), step{sim.BrowserSubmit, nil}, sh("touch /home/user/x"))
	if !strings.Contains(r.Text, "changed the file tree") {
		t.Fatal(r.Text)
	}
	if h, _ := hashes(t, s); h != mid {
		t.Error("acting on a clone changed the original")
	}
	// The clone counted its own submission: its next id is the second.
	r = run(t, c, step{sim.BrowserSnapshot, nil})
	if !strings.Contains(r.Text, "SUP-48214") {
		t.Errorf("clone's second submission:\n%s", r.Text)
	}
	// And the original's next submission is its own second.
	r = run(t, s, nav(contact), typ("Message", "x"), step{sim.BrowserSubmit, nil})
	if !strings.Contains(r.Text, "SUP-48214") {
		t.Errorf("original's second submission:\n%s", r.Text)
	}
	s.Reset()
	if h, _ := hashes(t, s); h != fresh {
		t.Error("Reset does not return to the world as loaded")
	}
	r = run(t, s, nav(contact), typ("Message", "x"), step{sim.BrowserSubmit, nil})
	if !strings.Contains(r.Text, "SUP-48213") {
		t.Errorf("first submission after Reset:\n%s", r.Text)
	}
}

func TestEffect(t *testing.T) {
	v := validator(t)
	type eff struct {
		capability         string
		write, destructive bool
	}
	b, o := skill.CapabilityBrowser, skill.CapabilityOS
	cases := []struct {
		world string
		setup []step
		call  step
		want  eff
	}{
		{"docs-and-git", nil, nav(docs), eff{b, false, false}},
		{"docs-and-git", []step{nav(docs)}, click("Getting started"), eff{b, false, false}},
		{"weather", nil, click("Get forecast"), eff{b, true, false}},
		{"weather", nil, step{sim.BrowserClick, obj{"name": "Get forecast", "role": "link"}}, eff{b, false, false}},
		{"docs-and-git", nil, click("README"), eff{b, false, false}},
		{"weather", nil, typ("City", "Paris"), eff{b, true, false}},
		{"weather", nil, step{sim.BrowserSubmit, obj{}}, eff{b, true, false}},
		{"weather", nil, step{sim.BrowserSnapshot, nil}, eff{b, false, false}},
		{"status-and-host", nil, step{sim.FileRead, obj{"path": "README.txt"}}, eff{o, false, false}},
		{"status-and-host", nil, step{sim.FileList, nil}, eff{o, false, false}},
		{"status-and-host", nil, step{sim.FileWrite, obj{"path": "new.txt", "content": "x"}}, eff{o, true, false}},
		{"status-and-host", nil, step{sim.FileWrite, obj{"path": "README.txt", "content": "x"}}, eff{o, true, true}},
		{"status-and-host", nil, step{sim.FileWrite, obj{"path": "README.txt", "content": "x", "append": true}}, eff{o, true, false}},
		{"status-and-host", nil, step{sim.FileDelete, obj{"path": "README.txt"}}, eff{o, true, true}},
		{"status-and-host", nil, sh("cat README.txt"), eff{o, false, false}},
		{"status-and-host", nil, sh("ls -l reports"), eff{o, false, false}},
		{"status-and-host", nil, sh("cd reports"), eff{o, false, false}},
		{"status-and-host", nil, sh("echo hi > new.txt"), eff{o, true, false}},
		{"status-and-host", nil, sh("echo hi > README.txt"), eff{o, true, true}},
		{"status-and-host", nil, sh("echo hi >> README.txt"), eff{o, true, false}},
		{"status-and-host", nil, sh("mkdir a"), eff{o, true, false}},
		{"status-and-host", nil, sh("touch a"), eff{o, true, false}},
		{"status-and-host", nil, sh("rm README.txt"), eff{o, true, true}},
		{"status-and-host", nil, sh("rmdir /tmp"), eff{o, true, true}},
		{"status-and-host", nil, sh("ls; rm README.txt"), eff{o, false, false}},
		// Arguments the tool rejects get the tool's worst case.
		{"status-and-host", nil, step{sim.ShellExec, obj{}}, eff{o, true, true}},
		{"weather", nil, step{sim.BrowserClick, obj{"name": 1}}, eff{b, true, false}},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s %v", c.call.tool, c.call.args), func(t *testing.T) {
			s := load(t, v, c.world)
			run(t, s, c.setup...)
			e, err := s.Effect(c.call.tool, c.call.args)
			if err != nil {
				t.Fatal(err)
			}
			if got := (eff{e.Capability, e.Write, e.Destructive}); got != c.want {
				t.Errorf("effect %+v, want %+v", got, c.want)
			}
			// What Effect calls a read changes neither the world nor what
			// would be sent to a site: the page set, the submissions and
			// the file tree stay as they were.
			before := s.World()
			r, err := s.Call(ctx, c.call.tool, c.call.args)
			if err != nil {
				t.Fatal(err)
			}
			if !e.Write {
				after := s.World()
				after.Host.Cwd = before.Host.Cwd
				if !jsonEqual(t, before, after) {
					t.Errorf("a read changed the world: %s", r.Text)
				}
			}
		})
	}
	s := load(t, v, "weather")
	if _, err := s.Effect("browser_teleport", nil); !errors.Is(err, sim.ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
}

func jsonEqual(t *testing.T, a, b any) bool {
	t.Helper()
	ha, err := skill.HashValue(a)
	if err != nil {
		t.Fatal(err)
	}
	hb, err := skill.HashValue(b)
	if err != nil {
		t.Fatal(err)
	}
	return ha == hb
}

// script is a fixed sequence of calls per world whose state hashes are
// recorded in testdata/hashes.golden. It covers every tool, successes and
// failures, and a world edit.
var script = []struct {
	world string
	steps []step
}{
	{"weather", []step{
		{sim.BrowserSnapshot, nil},
		typ("City", "Paris"),
		typ("Units", "Imperial"),
		click("Get forecast"),
		click("Forecasts"),
		typ("City", "Atlantis"),
		{sim.BrowserSubmit, obj{}},
		{sim.FileList, nil},
		{sim.FileRead, obj{"path": "cities.txt"}},
		sh("echo nairobi >> cities.txt"),
		sh("mkdir -p /tmp/out"),
		{sim.FileWrite, obj{"path": "/tmp/out/report.txt", "content": "Paris: 21 °C\n"}},
		sh("cat /tmp/out/report.txt missing"),
		{sim.FileDelete, obj{"path": "/tmp/out/report.txt"}},
		sh("cd /tmp"),
		nav("https://weather.workbench.test/nowhere"),
	}},
	{"support-desk", []step{
		nav(contact),
		typ("Message", "Please revoke my key, it leaked."),
		typ("Topic", "API keys"),
		{sim.BrowserSubmit, nil},
		nav(contact),
		typ("Message", "Second message"),
		click("Send message"),
	}},
	{"docs-and-git", []step{
		nav("git.workbench.test/acme/widget"),
		click("README"),
		click("Changelog"),
		nav(explore),
		typ("Repository name", "Gadget"),
		click("Search"),
	}},
	{"status-and-host", []step{
		nav("https://status.workbench.test/"),
		click("Incident details"),
		{sim.FileWrite, obj{"path": "/home/user/incident.txt", "content": "Elevated error rates on the EU API gateway\n"}},
		sh("rm reports/2026-05-20-webhooks.txt"),
		sh("ls -la"),
	}},
}

// The same world and the same calls give the same state hashes, run after
// run, in a clone, and on every platform: the golden file is shared by the
// native and the js/wasm test runs.
func TestStateHashesGolden(t *testing.T) {
	v := validator(t)
	ctx := context.Background()
	record := func() []string {
		var lines []string
		for _, sc := range script {
			s := load(t, v, sc.world)
			st, sh := hashes(t, s)
			lines = append(lines, fmt.Sprintf("%s 0 start ok %s %s", sc.world, st, sh))
			for i, stp := range sc.steps {
				r, err := s.Call(ctx, stp.tool, stp.args)
				if err != nil {
					t.Fatal(err)
				}
				outcome := "ok"
				if r.IsError {
					outcome = "error"
				}
				st, sh := hashes(t, s)
				if h, err := s.StateHash(); err != nil || h != st {
					t.Fatalf("StateHash %s, %v; skill.StateHash of State %s", h, err, st)
				}
				lines = append(lines, fmt.Sprintf("%s %d %s %s %s %s", sc.world, i+1, stp.tool, outcome, st, sh))
			}
			// A world edit is part of the script: it changes the state,
			// not the shape.
			if err := s.Mutate(func(w *sim.World) error {
				w.Pages[0].Title += " (edited)"
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			st, sh = hashes(t, s)
			lines = append(lines, fmt.Sprintf("%s %d mutate ok %s %s", sc.world, len(sc.steps)+1, st, sh))
		}
		return lines
	}
	got := record()
	if again := record(); !slices.Equal(got, again) {
		t.Fatal("two runs of the same script gave different hashes")
	}
	golden := filepath.Join("testdata", "hashes.golden")
	text := strings.Join(got, "\n") + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != text {
		wl := strings.Split(string(want), "\n")
		for i, l := range got {
			if i >= len(wl) || wl[i] != l {
				t.Errorf("line %d:\n got %s\nwant %s", i+1, l, wl[min(i, len(wl)-1)])
			}
		}
		t.Fatal("state hashes differ from testdata/hashes.golden")
	}
}

// A demonstration replayed with another input passes through states of
// the same shape: that is what structural fidelity compares.
func TestShapeIgnoresInputs(t *testing.T) {
	v := validator(t)
	trace := func(city string) (states, shapes []string) {
		s := load(t, v, "weather")
		for _, st := range []step{typ("City", city), click("Get forecast"), {sim.BrowserSnapshot, nil}} {
			run(t, s, st)
			a, b := hashes(t, s)
			states, shapes = append(states, a), append(shapes, b)
		}
		return
	}
	s1, p1 := trace("Paris")
	s2, p2 := trace("London")
	if !slices.Equal(p1, p2) {
		t.Error("the same steps with another city changed the shape")
	}
	for i := range s1 {
		if s1[i] == s2[i] {
			t.Errorf("step %d: equal states for different cities", i+1)
		}
	}
}

// Each scenario names a world that has what its task needs.
func TestScenarioWorlds(t *testing.T) {
	v := validator(t)
	scenarios, err := fixtures.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios {
		t.Run(sc.ID, func(t *testing.T) {
			name, err := fixtures.WorldFor(sc.ID)
			if err != nil {
				t.Fatal(err)
			}
			s := load(t, v, name)
			in := sc.ExampleInput()
			for _, input := range sc.Inputs {
				if input.Type == "url" {
					run(t, s, nav(input.Example.(string)))
				}
			}
			var r string
			switch sc.ID {
			case fixtures.BasicPromptToManifest:
				r = run(t, s, nav(in["page_url"].(string))).Text
				want(t, r, `heading "Getting started with Widget" [level=1]`)
			case fixtures.ReplayFidelity:
				run(t, s, nav(in["repo_url"].(string)))
				r = run(t, s, click("README")).Text
				want(t, r, "paragraph: Widget is a small Go library")
			case fixtures.ModelComparison:
				r = run(t, s, nav(in["changelog_url"].(string))).Text
				want(t, r, "Changelog", `heading "v2.4.1 — 2026-05-12" [level=2]`)
			case fixtures.AuthorityDenied:
				r = run(t, s, nav(in["status_url"].(string))).Text
				want(t, r, "Open incident", "Elevated error rates on the EU API gateway")
				// The host write the policy must deny would work if
				// allowed, and is a write of &body.os.
				w := step{sim.FileWrite, obj{"path": in["report_path"], "content": "Elevated error rates on the EU API gateway\n"}}
				e, err := s.Effect(w.tool, w.args)
				if err != nil || e.Capability != skill.CapabilityOS || !e.Write {
					t.Errorf("effect of the report write: %+v, %v", e, err)
				}
				run(t, s.Clone(), w)
			case fixtures.RedactedExport:
				run(t, s, nav(in["form_url"].(string)), typ("Message", in["notes"].(string)))
				r = run(t, s, step{sim.BrowserSubmit, nil}).Text
				want(t, r, "Your confirmation id is SUP-48213.")
				// The confirmation does not echo the message, so once it
				// is submitted no seeded secret is in the state.
				st, _ := s.State(context.Background())
				for _, sec := range sc.SeededSecrets {
					if strings.Contains(string(st.(json.RawMessage)), sec.Value) {
						t.Errorf("seeded %s is in the state after submission", sec.Kind)
					}
				}
			default:
				t.Fatalf("no check for scenario %s", sc.ID)
			}
		})
	}
}

func want(t *testing.T, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("missing %q in:\n%s", s, text)
		}
	}
}

// State is canonical JSON: parsing and re-canonicalizing gives the same
// bytes, and every fixture world's start state round-trips.
func TestStateIsCanonical(t *testing.T) {
	v := validator(t)
	for _, name := range fixtures.Worlds() {
		s := load(t, v, name)
		st, err := s.State(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		raw := st.(json.RawMessage)
		c, err := canonjson.Transform(raw)
		if err != nil {
			t.Fatal(err)
		}
		if string(c) != string(raw) {
			t.Errorf("%s: state is not in canonical form", name)
		}
		raw[0] = 'X' // the caller's copy; the body's cache is untouched
		if h, _ := s.StateHash(); h != skill.HashBytes(c) {
			t.Errorf("%s: State handed out the cached bytes", name)
		}
	}
}

// The cached StateHashes equal hashing the encoded State, after every kind
// of change.
func TestStateHashesMatchState(t *testing.T) {
	ctx := context.Background()
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	check := func(step string) {
		t.Helper()
		st, err := s.State(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantH, wantS, err := skill.StateHashes(st)
		if err != nil {
			t.Fatal(err)
		}
		h, sh, err := s.StateHashes(ctx)
		if err != nil || h != wantH || sh != wantS {
			t.Fatalf("%s: StateHashes %s %s, State gives %s %s (%v)", step, h, sh, wantH, wantS, err)
		}
	}
	check("start")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}},
		{"browser_click", map[string]any{"name": "README"}},
		{"file_write", map[string]any{"path": "/home/user/notes.txt", "content": "x"}},
		{"shell_exec", map[string]any{"command": "mkdir -p /home/user/d"}},
	} {
		if _, err := s.Call(ctx, c.tool, c.args); err != nil {
			t.Fatal(err)
		}
		check(c.tool)
	}
	if err := s.Mutate(func(w *sim.World) error { w.Pages[0].Title = "Edited"; return nil }); err != nil {
		t.Fatal(err)
	}
	check("mutate")
}
