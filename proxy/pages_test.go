//go:build !js

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
	"workbench/pkg/proxy/wranglertest"
	"workbench/pkg/registry"
)

// startPagesDev runs `wrangler pages dev` in the Pages project dir
// (cmd/pagesite's output), which reads the project's own wrangler.toml:
// its vars, and RL bound to the limiter Worker, found through the dev
// registry at registry.
func startPagesDev(bin, dir, registry string) (*devServer, error) {
	d, inspector, err := newDevServer()
	if err != nil {
		return nil, err
	}
	d.env = []string{"WRANGLER_REGISTRY_PATH=" + registry}
	args := []string{"pages", "dev", "--ip", "127.0.0.1", "--port", d.port(), "--inspector-port", inspector,
		"--persist-to", filepath.Join(d.tmp, "state"), "--show-interactive-dev-session=false", "--log-level", "log"}
	if err := d.launch(bin, dir, args); err != nil {
		return nil, err
	}
	return d, nil
}

// startRegistered runs the Worker of the wrangler configuration config
// (relative to the repository) under wrangler dev, registered in the dev
// registry at registry for other dev servers to bind, with wrangler's
// further arguments extra (--var NAME:value). It need not serve anything
// on its own: it is ready when wrangler says so.
func startRegistered(bin, config, registry string, extra ...string) (*devServer, error) {
	return startRegisteredEnv(bin, config, registry, nil, extra...)
}

// startRegisteredEnv is startRegistered with env added to wrangler's
// environment.
func startRegisteredEnv(bin, config, registry string, env []string, extra ...string) (*devServer, error) {
	d, args, err := newRegistered(config, registry, env, extra...)
	if err != nil {
		return nil, err
	}
	if err := d.launch(bin, "..", args); err != nil {
		return nil, err
	}
	return d, nil
}

// newRegistered is the dev server startRegisteredEnv launches, with the
// arguments it launches it with.
func newRegistered(config, registry string, env []string, extra ...string) (*devServer, []string, error) {
	d, inspector, err := newDevServer()
	if err != nil {
		return nil, nil, err
	}
	d.env = append([]string{"WRANGLER_REGISTRY_PATH=" + registry}, env...)
	d.readyLog = "Ready on http://" + d.addr
	args := append([]string{"dev", "--local", "--ip", "127.0.0.1", "--port", d.port(), "--inspector-port", inspector,
		"--persist-to", filepath.Join(d.tmp, "state"), "--show-interactive-dev-session=false", "--log-level", "log",
		"--config", config}, extra...)
	return d, args, nil
}

// A port taken between being picked and wrangler binding it stops
// wrangler at once ("Address already in use"); launch starts it again on
// new ports, and the server is ready at its new address.
func TestLaunchMovesTakenPort(t *testing.T) {
	requireWorker(t)
	d, args, err := newRegistered("proxy/limiter/wrangler.toml", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	taken := d.addr
	l, err := net.Listen("tcp", taken)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := d.launch(os.Getenv("WORKBENCH_WRANGLER"), "..", args); err != nil {
		t.Fatal(err)
	}
	defer d.stop()
	if d.addr == taken || !strings.Contains(d.logs.String(), "Ready on http://"+d.addr) {
		t.Errorf("ready at %s (the taken port was %s):\n%s", d.addr, taken, d.logs)
	}
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

// clientFrom is an HTTP client whose connections come from the loopback
// address ip: to wrangler dev, a client of its own (CF-Connecting-IP),
// with a rate-limit budget of its own.
func clientFrom(ip string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext}}
}

// TestPagesDev runs the Pages deployment as `make deploy-pages` makes it —
// the project cmd/pagesite writes (the site with the Go Worker as its
// advanced-mode _worker.js, and a wrangler.toml with the vars and the
// service binding RL) under `wrangler pages dev`, beside the limiter
// Worker (proxy/limiter) under `wrangler dev` — and checks:
//
//   - the site's rules hold as under wrangler dev (checkStaticRules);
//   - the proxy and the relay behave as in the Worker deployment, with no
//     ALLOWED_ORIGIN (the same-origin default) and the vars from the
//     project's wrangler.toml;
//   - the 601st request of one client in a minute gets 429;
//   - wrangler's validation of a Pages configuration, which `wrangler
//     pages deploy` runs before uploading, accepts the project's and
//     refuses a rate-limiting binding (why the limiter exists);
//   - with the limiter gone, every /api/ request fails closed (500).
func TestPagesDev(t *testing.T) {
	d := requireWorker(t)
	bin := os.Getenv("WORKBENCH_WRANGLER")
	site, wasm, version := standInSite(t)
	compat, err := compatibilityDate()
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(t.TempDir(), "pages")
	build := exec.Command("go", "run", "./cmd/pagesite", "-site", site, "-worker", "build/worker", "-out", project,
		"-compatibility-date", compat, "-var", "OPENROUTER_UPSTREAM="+d.up.URL,
		"-var", "MCP_SERVERS="+d.rec.Entries(), "-var", "MCP_FORWARD_AUTHORIZATION="+proxytest.MCPRecorderAuth)
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cmd/pagesite: %v\n%s", err, out)
	}

	// The limiter and the test's spender start together; the Pages
	// project after the limiter, so that its binding finds it.
	devRegistry := t.TempDir()
	var lim, sp *devServer
	var limErr, spErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		lim, limErr = startRegistered(bin, "proxy/limiter/wrangler.toml", devRegistry)
	}()
	go func() {
		defer wg.Done()
		sp, spErr = startRegistered(bin, "proxy/testdata/spender/wrangler.toml", devRegistry)
	}()
	wg.Wait()
	if lim != nil {
		defer lim.stop()
	}
	if sp != nil {
		defer sp.stop()
	}
	if err := errors.Join(limErr, spErr); err != nil {
		t.Fatal(err)
	}
	p, err := startPagesDev(bin, project, devRegistry)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()

	t.Run("static rules", func(t *testing.T) { checkStaticRules(t, p.origin, wasm, version) })

	t.Run("proxy", func(t *testing.T) {
		proxytest.RunForwarding(t, proxytest.Target{
			Addr: p.addr, Origin: p.origin, Layer: proxytest.Workerd, Upstream: d.up,
			TransportHeaders: []string{"Content-Length", "Accept-Encoding", "Transfer-Encoding", "Connection", "Cf-Worker"},
			Settle:           p.settleFront,
		})
	})
	t.Run("relay", func(t *testing.T) {
		proxytest.RunMCPForwarding(t, proxytest.MCPTarget{
			Addr: p.addr, Origin: p.origin, Layer: proxytest.Workerd, Recorder: d.rec,
			Names:            []string{proxytest.MCPRecorder, proxytest.MCPRecorderAuth},
			TransportHeaders: []string{"Content-Length", "Accept-Encoding", "Transfer-Encoding", "Connection", "Cf-Worker"},
			Settle:           p.settleFront,
		})
	})

	t.Run("no registry", func(t *testing.T) {
		// The Pages project runs the proxy's program alone: its status
		// says it has no registry, and every other registry route is 501.
		client := clientFrom("127.0.0.5")
		status, body := pagesGet(t, client, p.origin+registry.MountPath, p.origin)
		var st registry.Status
		if err := json.Unmarshal(body, &st); status != 200 || err != nil || st.Available || !strings.Contains(st.Reason, "no registry") {
			t.Errorf("GET %s → %d %s; want 200 and no registry", registry.MountPath, status, body)
		}
		for _, path := range []string{registry.SkillsPath, registry.BundlesPath + "/sha256:" + strings.Repeat("ab", 32)} {
			if status, body := pagesGet(t, client, p.origin+path, p.origin); status != 501 || !bytes.Contains(body, []byte(`"registry_unavailable"`)) {
				t.Errorf("GET %s → %d %s; want 501 registry_unavailable", path, status, body)
			}
		}
	})

	t.Run("the 601st request in a minute", func(t *testing.T) { checkPagesRateLimit(t, p, sp) })

	t.Run("Pages configuration", func(t *testing.T) { checkPagesConfig(t, bin, project, compat) })

	t.Run("a missing limiter fails closed", func(t *testing.T) {
		lim.stop()
		mark, markMCP := d.up.Len(), d.rec.Len()
		client := clientFrom("127.0.0.4")
		var status int
		var body []byte
		// The dev registry notices the limiter is gone within moments.
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			status, body = pagesGet(t, client, p.origin+proxy.MountPath+"key", p.origin)
			if status != 200 {
				break
			}
		}
		if status != 500 || !bytes.Contains(body, []byte(`"proxy_misconfigured"`)) || !bytes.Contains(body, []byte("binding RL")) {
			t.Fatalf("→ %d %s; want 500 proxy_misconfigured naming the RL binding", status, body)
		}
		for _, path := range []string{proxy.MCPMountPath, proxy.MCPMountPath + proxytest.MCPRecorder, "/api/other"} {
			if status, body := pagesGet(t, client, p.origin+path, p.origin); status != 500 {
				t.Errorf("GET %s → %d %s; want 500", path, status, body)
			}
		}
		if d.up.Len() != mark || d.rec.Len() != markMCP {
			t.Errorf("a Worker without its limiter reached an upstream")
		}
		// The log names the binding and why it failed: the limiter not
		// found, once the dev registry has noticed it is gone, or the
		// connection to it lost, before.
		whys := []string{`rate limit: RL.limit: Error: Worker "skill-workbench-limiter" not found`,
			`rate limit: RL.limit: Error: Network connection lost.`}
		said := func(out string) bool {
			return slices.ContainsFunc(whys, func(why string) bool { return strings.Contains(out, why) })
		}
		var out string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if out = p.logs.String(); said(out) {
				break
			}
		}
		if !said(out) {
			t.Errorf("the Worker's log does not say why the limiter failed:\n%s", tail(out, 4<<10))
		}
	})
}

// pagesGet GETs url with Origin origin and the stand-in key and returns
// the status and body.
func pagesGet(t *testing.T, client *http.Client, url, origin string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Origin", origin)
	req.Header.Set("Authorization", proxytest.Key)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// checkPagesRateLimit spends one new client's budget of proxy.RateLimit
// requests within one minute: a few through the Pages project, the rest
// through the spender Worker, which calls the limiter through the same
// service binding at a rate the Go Worker cannot match on a loaded
// machine (each of its requests starts a Go instance). Exactly the
// remainder is granted, so the Pages requests were counted; the next
// request through Pages, the 601st, gets 429 with Retry-After; another
// client is still served. The binding counts in whole minutes of the
// clock, so the run starts where it fits in one and is repeated, once,
// with a fresh client if it crossed into the next.
func checkPagesRateLimit(t *testing.T, p, sp *devServer) {
	const throughPages = 10
	for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		if now := time.Now(); now.Sub(now.Truncate(time.Minute)) > 35*time.Second {
			time.Sleep(now.Truncate(time.Minute).Add(time.Minute + 100*time.Millisecond).Sub(now))
		}
		window := time.Now().Truncate(time.Minute)
		client := clientFrom(ip)
		listing := p.origin + proxy.MCPMountPath
		for i := 0; i < throughPages; i++ {
			if status, body := pagesGet(t, client, listing, p.origin); status != 200 {
				t.Fatalf("request %d from %s → %d %s; want 200", i+1, ip, status, body)
			}
		}
		resp, err := http.Get(fmt.Sprintf("%s/?key=%s&max=%d", sp.origin, ip, proxy.RateLimit))
		if err != nil {
			t.Fatal(err)
		}
		var spent struct{ Succeeded int }
		err = json.NewDecoder(resp.Body).Decode(&spent)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("the spender's answer: %v", err)
		}
		req, _ := http.NewRequest("GET", listing, nil)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		last, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(last.Body)
		last.Body.Close()
		if time.Now().Truncate(time.Minute) != window {
			t.Logf("the run from %s crossed into the next minute; once more", ip)
			continue
		}
		if want := proxy.RateLimit - throughPages; spent.Succeeded != want {
			t.Errorf("after %d requests through Pages the limiter granted %d more, want %d", throughPages, spent.Succeeded, want)
		}
		if last.StatusCode != 429 || last.Header.Get("Retry-After") != "60" || !bytes.Contains(body, []byte(`"rate_limited"`)) {
			t.Errorf("request %d → %d Retry-After %q %s; want 429 rate_limited, Retry-After 60", proxy.RateLimit+1, last.StatusCode, last.Header.Get("Retry-After"), body)
		}
		if status, body := pagesGet(t, clientFrom("127.0.0.5"), listing, p.origin); status != 200 {
			t.Errorf("another client → %d %s; want 200", status, body)
		}
		return
	}
	t.Fatal("both runs crossed a minute boundary")
}

// checkPagesConfig runs wrangler's validation of a Pages configuration
// (`wrangler pages functions build-env`, what `wrangler pages deploy`
// runs before uploading) on the project's wrangler.toml, which it must
// accept, and on one declaring the Worker deployment's rate-limiting
// binding, which it refuses: the reason the limiter Worker exists.
func checkPagesConfig(t *testing.T, bin, project, compat string) {
	conf, err := os.ReadFile("../wrangler.toml")
	if err != nil {
		t.Fatal(err)
	}
	rl := regexp.MustCompile(`(?s)\[\[ratelimits\]\].*?period = \d+\n`).Find(conf)
	if rl == nil {
		t.Fatal("wrangler.toml has no [[ratelimits]] block")
	}
	withRL := t.TempDir()
	pagesConf := "name = \"skill-workbench\"\npages_build_output_dir = \"" + filepath.Join(project, "site") + "\"\ncompatibility_date = \"" + compat + "\"\n\n" + string(rl)
	if err := os.WriteFile(filepath.Join(withRL, "wrangler.toml"), []byte(pagesConf), 0o644); err != nil {
		t.Fatal(err)
	}
	buildEnv := func(dir string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		tmp := t.TempDir()
		cmd := exec.CommandContext(ctx, bin, "pages", "functions", "build-env", dir, "--outfile", filepath.Join(tmp, "env.json"))
		cmd.Dir = dir
		cmd.Env = wranglertest.Env(tmp)
		return cmd.CombinedOutput()
	}
	var ours, theirs []byte
	var oursErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ours, oursErr = buildEnv(project) }()
	go func() { defer wg.Done(); theirs, _ = buildEnv(withRL) }()
	wg.Wait()
	if oursErr != nil {
		t.Errorf("wrangler refused the Pages project's configuration: %v\n%s", oursErr, ours)
	}
	const refusal = `Configuration file for Pages projects does not support "ratelimits"`
	if !bytes.Contains(theirs, []byte(refusal)) {
		t.Errorf("wrangler accepted a Pages configuration with a rate-limiting binding; the limiter Worker may no longer be needed (docs/decisions.md, \"Cloudflare Pages\"):\n%s", theirs)
	}
}

// movePorts moves the server's port wherever the arguments name it, and
// leaves a longer port that merely starts with it alone.
func TestMovePorts(t *testing.T) {
	d := &devServer{addr: "127.0.0.1:4361", origin: "http://127.0.0.1:4361", readyLog: "Ready on http://127.0.0.1:4361"}
	args := []string{"dev", "--port", "4361", "--inspector-port", "9229",
		"--var", "ALLOWED_ORIGIN:http://127.0.0.1:4361", "--var", "UP:http://127.0.0.1:43615/v1"}
	moved, err := d.movePorts(args)
	if err != nil {
		t.Fatal(err)
	}
	port := strings.TrimPrefix(d.addr, "127.0.0.1:")
	want := []string{"dev", "--port", port, "--inspector-port", moved[4],
		"--var", "ALLOWED_ORIGIN:http://" + d.addr, "--var", "UP:http://127.0.0.1:43615/v1"}
	if d.addr == "127.0.0.1:4361" || moved[4] == "9229" || !slices.Equal(moved, want) ||
		d.origin != "http://"+d.addr || d.readyLog != "Ready on http://"+d.addr {
		t.Errorf("moved to %s: %q, origin %s, readyLog %q", d.addr, moved, d.origin, d.readyLog)
	}
	if args[2] != "4361" {
		t.Errorf("the caller's arguments changed: %q", args)
	}
}
