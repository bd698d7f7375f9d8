package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"workbench/cmd/benchapp/seedpack"
)

// seedDir is where, in benchapp's copy of the site, the seeder's page and
// packs are written: a path the app has no route for.
const seedDir = "bench-seed"

// bundlesPerPack is how many bundles one pack holds: about 13 MB of the
// fixture's 26 KB bundles, so the seeder's memory stays small.
const bundlesPerPack = 500

// seedPage loads wasm_exec.js and the seeder, as files: the site's CSP
// allows scripts from its own origin only.
const seedPage = `<!doctype html>
<meta charset="utf-8">
<title>benchapp seeder</title>
<script src="wasm_exec.js"></script>
<script src="seed.js"></script>
`

const seedScript = `(() => {
  const go = new Go();
  WebAssembly.instantiateStreaming(fetch("seed.wasm"), go.importObject)
    .then((r) => go.run(r.instance))
    .catch((e) => { window.__seed = {done: true, error: "loading the seeder: " + e}; });
})();
`

// writeSeeder builds the seeder (cmd/benchapp/seeder) and writes it, its
// page and the bundles, in packs, under site/bench-seed. It returns the
// number of packs.
func writeSeeder(ctx context.Context, root, site string, bundles [][]byte) (int, error) {
	dir := filepath.Join(site, seedDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, "seed.wasm"), "./cmd/benchapp/seeder")
	build.Dir = root
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("build the seeder: %v\n%s", err, msg)
	}
	glue, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return 0, fmt.Errorf("the Go wasm glue: %w", err)
	}
	for name, data := range map[string][]byte{"index.html": []byte(seedPage), "seed.js": []byte(seedScript), "wasm_exec.js": glue} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return 0, err
		}
	}
	packs := 0
	for i := 0; i < len(bundles); i += bundlesPerPack {
		pack, err := seedpack.Append(nil, bundles[i:min(i+bundlesPerPack, len(bundles))]...)
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("pack-%d.bin", packs)), pack, 0o644); err != nil {
			return 0, err
		}
		packs++
	}
	return packs, nil
}

// seedResult is the seeder's window.__seed.
type seedResult struct {
	Added int    `json:"added"`
	Done  bool   `json:"done"`
	Error string `json:"error"`
}

// seedLibrary runs the seeder written by writeSeeder in the browser's
// profile, on the app's origin, and checks that it added want bundles.
func seedLibrary(b *browser, base string, packs, want int) error {
	if err := b.navigate(fmt.Sprintf("%s/%s/index.html?packs=%d", base, seedDir, packs)); err != nil {
		return err
	}
	if err := b.waitFor(`!!(window.__seed && window.__seed.done)`, 30*time.Minute); err != nil {
		return fmt.Errorf("seeding: %w", err)
	}
	r, err := eval[seedResult](b, `window.__seed`)
	if err != nil {
		return err
	}
	if r.Error != "" {
		return fmt.Errorf("seeding: after %d bundles: %s", r.Added, r.Error)
	}
	if r.Added != want {
		return fmt.Errorf("seeding: %d bundles added, want %d", r.Added, want)
	}
	return nil
}
