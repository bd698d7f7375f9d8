package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// files writes name → content under dir.
func files(t *testing.T, dir string, m map[string]string) {
	t.Helper()
	for name, content := range m {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree lists the files under dir, slash-separated, sorted.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

var (
	site = map[string]string{
		"index.html":        "<!doctype html>shell",
		"index.html.br":     "br",
		"index.html.gz":     "gz",
		"skills.html":       "<!doctype html>skills",
		"_headers":          "/*\n  X-Content-Type-Options: nosniff\n",
		"_redirects":        "/ /home 200\n",
		".assetsignore":     "*.br\n*.gz\n",
		"web/app.wasm":      "\x00asm",
		"web/app.wasm.br":   "br",
		"web/workbench.css": "body{}",
	}
	worker = map[string]string{
		"worker.mjs":   "import './runtime.mjs'",
		"runtime.mjs":  "export {}",
		"wasm_exec.js": "// go",
		"app.wasm":     "\x00asm worker",
	}
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	s, w, out := filepath.Join(dir, "site"), filepath.Join(dir, "worker"), filepath.Join(dir, "pages")
	files(t, s, site)
	files(t, w, worker)
	// A file from an earlier run is gone: the output is replaced.
	files(t, out, map[string]string{"stale.html": "old"})
	if err := write(s, w, out); err != nil {
		t.Fatal(err)
	}
	want := []string{"_headers", "_redirects", "_routes.json",
		"_worker.js/app.wasm", "_worker.js/index.js", "_worker.js/runtime.mjs", "_worker.js/wasm_exec.js",
		"index.html", "skills.html", "web/app.wasm", "web/workbench.css"}
	if got := tree(t, out); !slices.Equal(got, want) {
		t.Errorf("files\n got %q\nwant %q", got, want)
	}
	for name, from := range map[string]string{
		"_worker.js/index.js": worker["worker.mjs"], "_worker.js/app.wasm": worker["app.wasm"],
		"_headers": site["_headers"], "web/app.wasm": site["web/app.wasm"],
		"_routes.json": `{"version":1,"include":["/api/*"],"exclude":[]}` + "\n",
	} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || string(b) != from {
			t.Errorf("%s = %q, %v; want %q", name, b, err, from)
		}
	}
}

func TestWriteRefuses(t *testing.T) {
	for _, tc := range []struct {
		name        string
		site, extra map[string]string
		drop        string // a worker file left out
		out         string // relative to the site when not ""
		want        string
	}{
		{name: "no site", site: map[string]string{}, want: "run make build"},
		{name: "no _headers", site: map[string]string{"index.html": "x"}, want: "_headers"},
		{name: "a worker of its own", site: site, extra: map[string]string{"_worker.js": "x"}, want: "has a _worker.js of its own"},
		{name: "routes of its own", site: site, extra: map[string]string{"_routes.json": "{}"}, want: "has a _routes.json of its own"},
		{name: "a 404 page", site: site, extra: map[string]string{"404.html": "x"}, want: "has a 404.html of its own"},
		{name: "worker not built", site: site, drop: "app.wasm", want: "run make worker"},
		{name: "output inside the site", site: site, out: "pages", want: "overlap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s, w, out := filepath.Join(dir, "site"), filepath.Join(dir, "worker"), filepath.Join(dir, "pages")
			if err := os.MkdirAll(s, 0o755); err != nil {
				t.Fatal(err)
			}
			files(t, s, tc.site)
			files(t, s, tc.extra)
			files(t, w, worker)
			if tc.drop != "" {
				os.Remove(filepath.Join(w, tc.drop))
			}
			if tc.out != "" {
				out = filepath.Join(s, tc.out)
			}
			err := write(s, w, out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("write: %v, want an error containing %q", err, tc.want)
			}
			if _, err := os.Stat(out); err == nil && tc.out == "" {
				t.Errorf("a refused run wrote %s", out)
			}
		})
	}
}

func TestWriteProject(t *testing.T) {
	dir := t.TempDir()
	s, w, out := filepath.Join(dir, "site"), filepath.Join(dir, "worker"), filepath.Join(dir, "pages")
	files(t, s, site)
	files(t, w, worker)
	cfg := pagesConfig{Name: "skill-workbench", Limiter: "skill-workbench-limiter", CompatibilityDate: "2026-04-01",
		Vars: map[string]string{"MCP_SERVERS": `browser=https://mcp.example/mcp?a="b"\c`, "MCP_ALLOW_HTTP": "false"}}
	if err := writeProject(s, w, out, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "site", "_worker.js", "index.js")); err != nil {
		t.Errorf("no site: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "wrangler.toml"))
	if err != nil {
		t.Fatal(err)
	}
	conf := string(b)
	for _, want := range []string{
		"name = \"skill-workbench\"\npages_build_output_dir = \"site\"\ncompatibility_date = \"2026-04-01\"\n",
		"[vars]\nMCP_ALLOW_HTTP = \"false\"\nMCP_SERVERS = \"browser=https://mcp.example/mcp?a=\\\"b\\\"\\\\c\"\n",
		"[[services]]\nbinding = \"RL\"\nservice = \"skill-workbench-limiter\"\n",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("wrangler.toml lacks %q:\n%s", want, conf)
		}
	}
	for _, tc := range []struct {
		change func(*pagesConfig)
		want   string
	}{
		{func(c *pagesConfig) { c.Name = "Skill" }, "project name"},
		{func(c *pagesConfig) { c.Limiter = "-x" }, "limiter name"},
		{func(c *pagesConfig) { c.CompatibilityDate = "" }, "compatibility date"},
		{func(c *pagesConfig) { c.Vars = map[string]string{"mcp": "x"} }, "var name"},
		{func(c *pagesConfig) { c.Vars = map[string]string{"X": "a\nb"} }, "control character"},
	} {
		c := cfg
		tc.change(&c)
		out := filepath.Join(t.TempDir(), "pages")
		if err := writeProject(s, w, out, c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error containing %q", c, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("a refused configuration wrote %s", out)
		}
	}
}
