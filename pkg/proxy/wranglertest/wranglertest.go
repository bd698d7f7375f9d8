// Package wranglertest runs the repository's Worker and site under
// `wrangler dev` for tests: an offline environment for wrangler, and the
// repository's wrangler.toml rewritten so that a test's dev server neither
// runs the [build] step (the test layer has built both parts) nor depends
// on the directory it starts in. Its environment names the test binary as
// the owner of what wrangler starts, so that an interrupted binary that
// handles the interrupt (package interrupt) ends it. It is imported only
// by tests.
package wranglertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"workbench/internal/interrupt"
)

// Env is the environment wrangler runs in under test: offline (no
// metrics, no Cloudflare lookups), with its logs in tmp, not in the tree,
// and with the test binary's mark as its owner (interrupt.Env).
func Env(tmp string) []string {
	return append(interrupt.Env(os.Environ()),
		"WRANGLER_SEND_METRICS=false", "CI=true", "CLOUDFLARE_CF_FETCH_ENABLED=false",
		"WRANGLER_LOG_PATH="+filepath.Join(tmp, "logs"),
	)
}

// buildTable is wrangler.toml's [build] table, up to the blank line that
// ends it.
var buildTable = regexp.MustCompile(`(?ms)^\[build\]\n.*?\n\n`)

// WriteConfig writes the wrangler.toml of the repository at root into dir
// with each key of replace replaced by its value, without its [build]
// table, and with the Worker's and the site's paths made absolute; it
// returns the file's path.
func WriteConfig(root, dir string, replace map[string]string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "wrangler.toml"))
	if err != nil {
		return "", err
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return "", err
	}
	s := string(b)
	for old, new := range replace {
		if !strings.Contains(s, old) {
			return "", fmt.Errorf("wrangler.toml has no %q to replace", old)
		}
		s = strings.Replace(s, old, new, 1)
	}
	if !buildTable.MatchString(s) {
		return "", fmt.Errorf("wrangler.toml has no [build] table ending in a blank line")
	}
	s = buildTable.ReplaceAllString(s, "")
	for old, new := range map[string]string{
		`main = "build/worker/index.mjs"`: `main = "` + filepath.Join(root, "build/worker/index.mjs") + `"`,
		`directory = "build/site"`:        `directory = "` + filepath.Join(root, "build/site") + `"`,
		`migrations_dir = "migrations"`:   `migrations_dir = "` + filepath.Join(root, "migrations") + `"`,
	} {
		s = strings.Replace(s, old, new, 1)
	}
	path := filepath.Join(dir, "wrangler.toml")
	return path, os.WriteFile(path, []byte(s), 0o644)
}

// Migrate applies the repository's D1 migrations (migrations/*.sql, the
// registry's index) to the local database that a dev server started with
// config and --persist-to persist will use, as `wrangler d1 migrations
// apply` does for a deployment; bin is wrangler and tmp the test's
// directory for its logs.
func Migrate(bin, config, persist, tmp string) error {
	cmd := exec.Command(bin, "d1", "migrations", "apply", "REGISTRY_DB", "--local",
		"--persist-to", persist, "--config", config)
	cmd.Dir = filepath.Dir(config)
	cmd.Env = Env(tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("wrangler d1 migrations apply: %w\n%s", err, out)
	}
	return nil
}
