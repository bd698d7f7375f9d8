// Command pagesite writes the workbench as a Cloudflare Pages project in
// advanced mode: the built site (make build) with the Go Worker (make
// worker) as its _worker.js, so that one Pages deployment serves the site
// and runs the OpenRouter proxy and MCP relay under /api/ — the layout
// `make deploy` gives one Worker with static assets (docs/deploy.md,
// "Cloudflare Pages").
//
// Usage:
//
//	pagesite -site build/site -worker build/worker -out build/pages \
//	    -compatibility-date 2026-04-01 [-name skill-workbench] \
//	    [-limiter skill-workbench-limiter] [-var NAME=value …]
//
// The output directory is the project: its wrangler.toml, which `wrangler
// pages deploy` and `wrangler pages dev` read there, names the project,
// the build output directory (site/), the compatibility date, the vars
// given with -var, and the service binding RL to the limiter Worker
// (proxy/limiter), which holds the rate-limiting binding a Pages project
// cannot declare. site/ holds:
//
//   - every file of the site but the compressed copies (name.br, name.gz)
//     and .assetsignore, which are for `workbench serve` and Workers
//     static assets: Pages uploads every file it is given and compresses
//     on its own;
//   - _worker.js/, a directory: the Worker's module as index.js beside the
//     runtime.mjs, wasm_exec.js and app.wasm it imports;
//   - _routes.json, so that only /api/* runs the Worker; every other path
//     is a static asset (with the site's _headers and _redirects, and the
//     single-page fallback to index.html, since the site has no 404.html).
//
// site/ is replaced as a whole and wrangler.toml rewritten. A site that already has a
// _worker.js, a _routes.json or a top-level 404.html is refused: each
// would change what Pages does with the Worker or with deep links.
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// routesJSON sends /api/* to the Worker and nothing else.
const routesJSON = `{"version":1,"include":["/api/*"],"exclude":[]}
`

// workerFiles are the files of make worker's output that Pages needs, and
// the names they get in _worker.js/: the entry module must be index.js.
var workerFiles = []struct{ from, to string }{
	{"worker.mjs", "index.js"},
	{"runtime.mjs", "runtime.mjs"},
	{"wasm_exec.js", "wasm_exec.js"},
	{"app.wasm", "app.wasm"},
}

func main() {
	site := flag.String("site", "build/site", "the built site (`directory`)")
	worker := flag.String("worker", "build/worker", "the built Worker (`directory`)")
	out := flag.String("out", "build/pages", "the Pages project to write (`directory`, replaced)")
	cfg := pagesConfig{Vars: map[string]string{}}
	flag.StringVar(&cfg.Name, "name", "skill-workbench", "the Pages project's `name`")
	flag.StringVar(&cfg.Limiter, "limiter", "skill-workbench-limiter", "the `name` of the limiter Worker bound as RL")
	flag.StringVar(&cfg.CompatibilityDate, "compatibility-date", "", "the Worker's compatibility `date` (wrangler.toml's)")
	flag.Func("var", "a var of the Pages project, `NAME=value` (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("want NAME=value")
		}
		cfg.Vars[k] = v
		return nil
	})
	flag.Parse()
	if err := writeProject(*site, *worker, *out, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "pagesite:", err)
		os.Exit(1)
	}
	fmt.Printf("pagesite: wrote the Pages project to %s\n", *out)
}

// writeProject writes the project directory out: the site in out/site
// (write) and the configuration out/wrangler.toml (writeConfig). Nothing
// is written when cfg is invalid.
func writeProject(site, worker, out string, cfg pagesConfig) error {
	conf, err := cfg.toml()
	if err != nil {
		return err
	}
	if err := write(site, worker, filepath.Join(out, "site")); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "wrangler.toml"), conf, 0o644)
}

// write writes the Pages project assembled from site and worker to out.
func write(site, worker, out string) error {
	for _, name := range []string{"index.html", "_headers"} {
		if _, err := os.Stat(filepath.Join(site, name)); err != nil {
			return fmt.Errorf("site %s: %w (run make build)", site, err)
		}
	}
	for _, name := range []string{"_worker.js", "_routes.json", "404.html"} {
		if _, err := os.Stat(filepath.Join(site, name)); err == nil {
			return fmt.Errorf("site %s has a %s of its own; the Pages project writes the Worker's routes itself and relies on the single-page fallback", site, name)
		}
	}
	for _, f := range workerFiles {
		if _, err := os.Stat(filepath.Join(worker, f.from)); err != nil {
			return fmt.Errorf("worker %s: %w (run make worker)", worker, err)
		}
	}
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	if a, s := abs(out), abs(site); a == s || strings.HasPrefix(a, s+string(filepath.Separator)) || strings.HasPrefix(s, a+string(filepath.Separator)) {
		return fmt.Errorf("out %s and site %s overlap", out, site)
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	err := filepath.WalkDir(site, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(site, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(out, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case !d.Type().IsRegular():
			return fmt.Errorf("site file %s is not a regular file", path)
		case strings.HasSuffix(rel, ".br"), strings.HasSuffix(rel, ".gz"), d.Name() == ".assetsignore":
			return nil
		}
		return copyFile(path, dst)
	})
	if err != nil {
		return fmt.Errorf("copy the site: %w", err)
	}
	dir := filepath.Join(out, "_worker.js")
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for _, f := range workerFiles {
		if err := copyFile(filepath.Join(worker, f.from), filepath.Join(dir, f.to)); err != nil {
			return fmt.Errorf("copy the Worker: %w", err)
		}
	}
	return os.WriteFile(filepath.Join(out, "_routes.json"), []byte(routesJSON), 0o644)
}

func copyFile(from, to string) (err error) {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := io.Copy(dst, src); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return nil
}
