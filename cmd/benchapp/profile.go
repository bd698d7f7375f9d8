package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"

	"workbench/cmd/internal/wasmsize"
	"workbench/pkg/teach/teachbench"
	"workbench/pkg/verify"
)

// profileFlow runs one flow ("tti", "import" or "skills") once under
// Chromium's sampling profiler, on a build of the app that keeps its
// function names, and writes where the page's main thread spent its time:
// by Go package (or V8's own categories), then by function.
func profileFlow(ctx context.Context, cfg config, root, work string, out io.Writer) error {
	// A site given with -site is profiled as it is (built with names, or
	// the tables name wasm functions by number); otherwise one is built.
	// A given site is profiled from a copy, which the skills flow adds
	// its seeder to.
	site := filepath.Join(work, "site-names")
	if cfg.site != "" {
		if err := os.CopyFS(site, os.DirFS(cfg.site)); err != nil {
			return setupError{fmt.Errorf("copy the site: %w", err)}
		}
	} else {
		wasm := filepath.Join(work, "app-names.wasm")
		flags, err := wasmsize.AppBuildFlags(root)
		if err != nil {
			return setupError{err}
		}
		args := append(append([]string{"build", "-trimpath"}, flags...), "-o", wasm, "./app")
		build := exec.CommandContext(ctx, "go", args...)
		build.Dir = root
		build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if msg, err := build.CombinedOutput(); err != nil {
			return setupError{fmt.Errorf("build the app with names: %v\n%s", err, msg)}
		}
		importer := filepath.Join(work, "importer-names.wasm")
		build = exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", importer, "./cmd/importer")
		build.Dir = root
		build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if msg, err := build.CombinedOutput(); err != nil {
			return setupError{fmt.Errorf("build the import worker with names: %v\n%s", err, msg)}
		}
		gen := exec.CommandContext(ctx, "go", "run", "./app", "-out", site, "-wasm", wasm, "-importer", importer, "-web", "static/web")
		gen.Dir = root
		if msg, err := gen.CombinedOutput(); err != nil {
			return setupError{fmt.Errorf("write the site: %v\n%s", err, msg)}
		}
	}
	workbench := filepath.Join(work, "workbench")
	wb := exec.CommandContext(ctx, "go", "build", "-o", workbench, "./cmd/workbench")
	wb.Dir = root
	if msg, err := wb.CombinedOutput(); err != nil {
		return setupError{fmt.Errorf("build cmd/workbench: %v\n%s", err, msg)}
	}
	srv, err := startServe(ctx, workbench, site)
	if err != nil {
		return setupError{err}
	}
	defer srv.stop()
	b, err := newBrowser(ctx, cfg.chromium)
	if err != nil {
		return err
	}
	defer b.close()

	var wall float64
	var prof *profiler.Profile
	switch cfg.profile {
	case "tti":
		if err := b.addInitScript(ttiProbe); err != nil {
			return err
		}
		// A document of the same site first, so the navigation keeps the
		// renderer the profiler runs in.
		if err := chromedp.Do(b.tab, chromedp.Navigate(srv.base+"/web/icon.svg")); err != nil {
			return err
		}
		if err := b.startProfile(); err != nil {
			return err
		}
		if err := chromedp.Do(b.tab, chromedp.Navigate(srv.base+"/")); err != nil {
			return err
		}
		if err := b.waitFor(`!!(window.__tti && window.__tti.interactive)`, 2*time.Minute); err != nil {
			return err
		}
		if prof, err = b.stopProfile(); err != nil {
			return err
		}
		r, err := eval[ttiResult](b, `window.__tti`)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "/ cold: app.wasm received %.0f ms, instantiated %.0f ms, content %.0f ms, interactive %.0f ms\n",
			r.Wasm, r.Instantiated, r.Content, r.Interactive)
		threads, err := b.threadCPU()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\n| Chromium's threads, CPU since the browser started (all of it, not only this load) | ms |\n|---|---|\n")
		keys, rest := top(threads, 20)
		for _, k := range keys {
			fmt.Fprintf(out, "| %s | %d |\n", k, threads[k])
		}
		fmt.Fprintf(out, "| others | %d |\n", rest)
		wall = r.Interactive
	case "import":
		v, err := verify.Standard()
		if err != nil {
			return err
		}
		data, _, err := teachbench.BundleOfSize(ctx, v, cfg.bundleBytes)
		if err != nil {
			return err
		}
		file := filepath.Join(work, "large.skill.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
		if err := b.open(srv.base, "/import"); err != nil {
			return err
		}
		if _, err := eval[bool](b, importProbe); err != nil {
			return err
		}
		if err := b.startProfile(); err != nil {
			return err
		}
		if err := b.drop("#dropzone", file); err != nil {
			return err
		}
		if err := b.waitFor(`!!window.__import.end`, 5*time.Minute); err != nil {
			return err
		}
		if prof, err = b.stopProfile(); err != nil {
			return err
		}
		r, err := eval[importResult](b, `window.__import`)
		if err != nil {
			return err
		}
		wall = r.End - r.Start
		fmt.Fprintf(out, "import of %.1f MB: %s after %.0f ms\n", mb(len(data)), r.Status, wall)
	case "skills":
		v, err := verify.Standard()
		if err != nil {
			return err
		}
		fixture, err := os.ReadFile(filepath.Join(root, "fixtures", "valid-skill-bundle.v0.json"))
		if err != nil {
			return err
		}
		seeds, err := librarySeed(v, fixture, cfg.skills)
		if err != nil {
			return err
		}
		packs, err := writeSeeder(ctx, root, site, seeds)
		if err != nil {
			return setupError{err}
		}
		if err := seedLibrary(b, srv.base, packs, len(seeds)); err != nil {
			return err
		}
		if err := b.open(srv.base, "/import"); err != nil {
			return err
		}
		if _, err := eval[bool](b, fmt.Sprintf("%s(%d)", listProbe, cfg.skills)); err != nil {
			return err
		}
		if err := b.startProfile(); err != nil {
			return err
		}
		if _, err := eval[bool](b, `document.querySelector('nav a[href="/skills"]').click(), true`); err != nil {
			return err
		}
		if err := b.waitFor(`!!window.__list.end`, 2*time.Minute); err != nil {
			return err
		}
		if prof, err = b.stopProfile(); err != nil {
			return err
		}
		r, err := eval[listResult](b, `window.__list`)
		if err != nil {
			return err
		}
		wall = r.End - r.Start
		fmt.Fprintf(out, "/skills with %d skills: %d rows shown after %.0f ms\n", cfg.skills, r.Rows, wall)
	default:
		return setupError{fmt.Errorf("-profile %q: want tti, import or skills", cfg.profile)}
	}
	writeProfile(out, prof)
	if cfg.profileOut != "" {
		// The profile as DevTools' Performance panel loads it.
		data, err := json.Marshal(prof)
		if err != nil {
			return err
		}
		if err := os.WriteFile(cfg.profileOut, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (b *browser) startProfile() error {
	return chromedp.Do(b.tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, profiler.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, profiler.Start, cdp.Empty{})
		return err
	}))
}

func (b *browser) stopProfile() (*profiler.Profile, error) {
	var p *profiler.Profile
	err := chromedp.Do(b.tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		r, err := cdp.Call(ctx, t, profiler.Stop, cdp.Empty{})
		p = r.Profile
		return err
	}))
	if err == nil && (p == nil || len(p.Samples) == 0) {
		err = fmt.Errorf("the profile has no samples")
	}
	return p, err
}

// writeProfile writes the profile's self time by package and by function.
func writeProfile(w io.Writer, p *profiler.Profile) {
	each := (p.EndTime - p.StartTime) / float64(len(p.Samples)) / 1000 // ms per sample
	byPkg, byFunc := map[string]int{}, map[string]int{}
	total := 0
	for _, n := range p.Nodes {
		name := n.CallFrame.FunctionName
		if name == "" {
			name = "(anonymous " + n.CallFrame.URL + ")"
		}
		byFunc[name] += int(n.HitCount)
		byPkg[goPackage(name)] += int(n.HitCount)
		total += int(n.HitCount)
	}
	fmt.Fprintf(w, "\nmain thread: %d samples, %.0f ms, %.0f ms of them busy (not idle)\n", total, float64(total)*each, float64(total-byFunc["(idle)"])*each)
	for _, t := range []struct {
		title string
		m     map[string]int
	}{{"self time by Go package (or V8 category)", byPkg}, {"self time by function", byFunc},
		{"total time by function (self and callees; who pays for the time above)", inclusive(p)}} {
		fmt.Fprintf(w, "\n| %s | ms | share |\n|---|---|---|\n", t.title)
		keys, _ := top(t.m, 150)
		for _, k := range keys {
			fmt.Fprintf(w, "| %s | %.0f | %.1f %% |\n", k, float64(t.m[k])*each, 100*float64(t.m[k])/float64(total))
		}
	}
}

// inclusive returns the samples of each function counting those of its
// callees: a sample counts once for every distinct function on its stack.
func inclusive(p *profiler.Profile) map[string]int {
	byID := map[int64]*profiler.ProfileNode{}
	for _, n := range p.Nodes {
		byID[n.ID] = n
	}
	children := map[int64][]*profiler.ProfileNode{}
	for _, n := range p.Nodes {
		for _, c := range n.Children {
			children[n.ID] = append(children[n.ID], byID[c])
		}
	}
	var root *profiler.ProfileNode
	if len(p.Nodes) > 0 {
		root = p.Nodes[0] // V8 lists the root first
	}
	out := map[string]int{}
	onStack := map[string]int{}
	var walk func(n *profiler.ProfileNode) int
	walk = func(n *profiler.ProfileNode) int {
		name := n.CallFrame.FunctionName
		if name == "" {
			name = "(anonymous " + n.CallFrame.URL + ")"
		}
		onStack[name]++
		hits := int(n.HitCount)
		for _, c := range children[n.ID] {
			hits += walk(c)
		}
		onStack[name]--
		// Only the outermost frame of a recursive function counts.
		if onStack[name] == 0 {
			out[name] += hits
		}
		return hits
	}
	if root != nil {
		walk(root)
	}
	delete(out, "(root)")
	return out
}

// top returns the n largest entries of m, largest first, and the sum of
// the rest.
func top(m map[string]int, n int) ([]string, int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	rest := 0
	if len(keys) > n {
		for _, k := range keys[n:] {
			rest += m[k]
		}
		keys = keys[:n]
	}
	return keys, rest
}

// goPackage is the package of a function's name in the module's "name"
// section, where Go writes "github.com/a/b.(*T).M" as
// "github.com_a_b.__T_.M": the text before the first dot that is not the
// dot of a leading domain.
func goPackage(sym string) string {
	if sym == "" {
		return "(unnamed)"
	}
	start := 0
	if m := domain.FindStringIndex(sym); m != nil {
		start = m[1]
	}
	if dot := strings.Index(sym[start:], "."); dot >= 0 {
		return sym[:start+dot]
	}
	return sym
}

var domain = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|in|io|net|dev)_`)
