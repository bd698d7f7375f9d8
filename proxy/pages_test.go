//go:build !js

package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
)

// startPagesDev runs `wrangler pages dev` over the Pages project dir
// (cmd/pagesite's output) with the given vars as bindings, ALLOWED_ORIGIN
// its own origin. It runs in a directory of its own, so that no
// configuration file is read: a Pages project deployed without one has
// exactly the vars it is given.
func startPagesDev(bin, dir string, vars map[string]string) (*devServer, error) {
	d, inspector, err := newDevServer()
	if err != nil {
		return nil, err
	}
	compat, err := compatibilityDate()
	if err != nil {
		return nil, err
	}
	args := []string{"pages", "dev", dir, "--ip", "127.0.0.1", "--port", d.port(), "--inspector-port", inspector,
		"--persist-to", filepath.Join(d.tmp, "state"), "--show-interactive-dev-session=false", "--log-level", "log",
		"--compatibility-date", compat, "--binding", "ALLOWED_ORIGIN=" + d.origin}
	for k, v := range vars {
		args = append(args, "--binding", k+"="+v)
	}
	if err := d.launch(bin, d.tmp, args); err != nil {
		return nil, err
	}
	return d, nil
}

// compatibilityDate is wrangler.toml's compatibility_date, which the
// Pages project is run with too.
func compatibilityDate() (string, error) {
	b, err := os.ReadFile("../wrangler.toml")
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^compatibility_date = "([0-9-]+)"`).FindSubmatch(b)
	if m == nil {
		return "", os.ErrNotExist
	}
	return string(m[1]), nil
}

// TestPagesDev runs the Pages project `cmd/pagesite` writes — the site
// with the Go Worker as its advanced-mode _worker.js — under `wrangler
// pages dev` (workerd with Pages' asset handling) and checks:
//
//   - the site's rules hold as under wrangler dev (checkStaticRules: the
//     _headers rules, the versioned module's cache rule, the "/" rewrite,
//     the single-page fallback, no compressed copy served);
//   - _routes.json sends /api/* to the Go Worker, which starts and
//     answers there;
//   - but the Worker has no RL binding on Pages, so it fails closed: every
//     /api/ request is refused with 500 proxy_misconfigured and no
//     upstream is reached. Without the binding the proxy rules cannot
//     hold (docs/decisions.md, "Cloudflare Pages");
//   - and the binding cannot be given: wrangler's validation of a Pages
//     configuration file, which `wrangler pages deploy` runs before
//     uploading, refuses the [[ratelimits]] block of wrangler.toml.
func TestPagesDev(t *testing.T) {
	d := requireWorker(t)
	bin := os.Getenv("WORKBENCH_WRANGLER")
	site, wasm, version := standInSite(t)
	project := filepath.Join(t.TempDir(), "pages")
	build := exec.Command("go", "run", "./cmd/pagesite", "-site", site, "-worker", "build/worker", "-out", project)
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cmd/pagesite: %v\n%s", err, out)
	}
	p, err := startPagesDev(bin, project, map[string]string{"OPENROUTER_UPSTREAM": d.up.URL, "MCP_SERVERS": d.rec.Entries()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()

	t.Run("static rules", func(t *testing.T) { checkStaticRules(t, p.origin, wasm, version) })

	t.Run("the Worker fails closed without RL", func(t *testing.T) {
		mark, markMCP := d.up.Len(), d.rec.Len()
		for _, path := range []string{proxy.MountPath + "key", proxy.MCPMountPath, proxy.MCPMountPath + proxytest.MCPRecorder, "/api/other"} {
			req, _ := http.NewRequest("GET", p.origin+path, nil)
			req.Header.Set("Origin", p.origin)
			req.Header.Set("Authorization", proxytest.Key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 500 || !bytes.Contains(body, []byte(`"proxy_misconfigured"`)) || !bytes.Contains(body, []byte("binding RL")) {
				t.Errorf("GET %s → %d %s; want 500 proxy_misconfigured naming the RL binding", path, resp.StatusCode, body)
			}
			// The Worker's own edge headers, not the site's.
			if got := resp.Header.Get("Content-Security-Policy"); got != "default-src 'none'; sandbox" {
				t.Errorf("GET %s: Content-Security-Policy %q: not the Worker's answer", path, got)
			}
		}
		if d.up.Len() != mark || d.rec.Len() != markMCP {
			t.Errorf("a Worker without its rate limit reached an upstream")
		}
		var out string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if out = p.logs.String(); strings.Contains(out, "rate limit: no binding RL") {
				break
			}
		}
		if !strings.Contains(out, "rate limit: no binding RL") {
			t.Errorf("the Worker's log does not say the binding is missing:\n%s", out)
		}
	})

	t.Run("Pages refuses the RL binding", func(t *testing.T) {
		conf, err := os.ReadFile("../wrangler.toml")
		if err != nil {
			t.Fatal(err)
		}
		rl := regexp.MustCompile(`(?s)\[\[ratelimits\]\].*?period = \d+\n`).Find(conf)
		if rl == nil {
			t.Fatal("wrangler.toml has no [[ratelimits]] block")
		}
		compat, err := compatibilityDate()
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		pagesConf := "name = \"skill-workbench\"\npages_build_output_dir = \"" + project + "\"\ncompatibility_date = \"" + compat + "\"\n\n" + string(rl)
		if err := os.WriteFile(filepath.Join(dir, "wrangler.toml"), []byte(pagesConf), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "pages", "functions", "build-env", dir, "--outfile", filepath.Join(dir, "env.json"))
		cmd.Dir = dir
		cmd.Env = wranglerEnv(dir)
		out, _ := cmd.CombinedOutput()
		const refusal = `Configuration file for Pages projects does not support "ratelimits"`
		if !bytes.Contains(out, []byte(refusal)) {
			t.Errorf("wrangler accepted a Pages configuration with the RL binding; Pages may now run the Worker with its rate limit (docs/decisions.md):\n%s", out)
		}
		t.Logf("wrangler pages functions build-env: %s", refusal)
	})
}
