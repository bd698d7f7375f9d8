//go:build !js

package main

// These tests run the built Worker under `wrangler dev` — real workerd,
// offline — against a loopback upstream, and check the deployment bundle.
// They need node_modules and a built Worker, so they run only when
// WORKBENCH_WRANGLER names the wrangler executable (make test-worker sets
// it, and WORKBENCH_WORKER_WASM, after building); plain `go test ./...`
// skips them.

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/andybalholm/brotli"

	"workbench/internal/interrupt"
	"workbench/pkg/proxy"
	"workbench/pkg/proxy/proxytest"
	"workbench/pkg/proxy/wranglertest"
	"workbench/pkg/registry"
)

// MaxWasmGzip is the ceiling on the Worker's gzipped wasm: well inside the
// free plan's 3 MiB, with room for the handler to grow.
const MaxWasmGzip = 2 << 20

// workerTimeouts are the handlers' clocks in the Worker under test, set
// through its *_TIMEOUT vars: short, so that RunTimeouts can watch each
// fire, with room for a 4 MiB body through wrangler dev.
var workerTimeouts = proxytest.Timeouts{Body: 5 * time.Second, Header: 3 * time.Second, Idle: 3 * time.Second}

// worker is the wrangler dev instance TestMain starts when
// WORKBENCH_WRANGLER is set; nil otherwise.
var worker *devServer

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	// The servers below run in process groups of their own, which a
	// terminal's Ctrl+C does not reach; what the run writes to the
	// temporary directory (the clone, the servers' state) goes with it.
	removeTemp, err := interrupt.TempDir("wb-proxy-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer removeTemp()
	defer interrupt.Handle(removeTemp)()
	bin := os.Getenv("WORKBENCH_WRANGLER")
	if bin == "" {
		return m.Run()
	}
	up := proxytest.StartUpstream()
	defer up.Close()
	rec := proxytest.StartMCPUpstream()
	defer rec.Close()
	sse, js := proxytest.StartMCPServer(false), proxytest.StartMCPServer(true)
	defer sse.Close()
	defer js.Close()
	tok := proxytest.StartTokenMCPServer()
	defer tok.Close()
	// The deployment from a clone is checked while the suite runs: its
	// build is CPU the suite, mostly waiting on wrangler dev, leaves idle.
	// A run of benchmarks alone (make bench-worker) does without it.
	flag.Parse()
	if willRun("TestDeployFromClone") {
		ctx, cancel := context.WithCancel(context.Background())
		var stopped <-chan struct{}
		cloneDeploy, stopped = startCloneDeploy(ctx, bin)
		// A run that ends before TestDeployFromClone has read the outcome
		// (-failfast after a failure) stops the deployment's processes,
		// waits for them and removes the clone: wrangler's bundler, left
		// behind, kept gigabytes and a core for a quarter of an hour after
		// its test had gone.
		defer func() {
			cancel()
			<-stopped
			select {
			case r := <-cloneDeploy:
				os.RemoveAll(r.dir)
			default:
			}
		}()
	}
	d, err := startDevWith(bin, "", map[string]string{
		"OPENROUTER_UPSTREAM": up.URL,
		"BODY_TIMEOUT":        workerTimeouts.Body.String(),
		"HEADER_TIMEOUT":      workerTimeouts.Header.String(),
		"IDLE_TIMEOUT":        workerTimeouts.Idle.String(),
		// Both separators the var allows.
		"MCP_SERVERS": rec.Entries() + " everything-sse=" + sse.URL + ",everything-json=" + js.URL +
			",locked=" + tok.URL + ",keyed=" + tok.URL,
		"MCP_FORWARD_AUTHORIZATION": proxytest.MCPRecorderAuth,
	}, map[string]string{proxy.MCPHeaderVar("keyed"): proxytest.MCPOperatorHeader}, true)
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting wrangler dev: %v\n", err)
		return 1
	}
	defer d.stop()
	d.up, d.rec, d.sse, d.json, d.tok = up, rec, sse, js, tok
	worker = d
	code := m.Run()
	if code != 0 {
		// What workerd and the Worker logged says whether a failure was
		// the Worker's answer or the dev server's (a reload, a restart).
		fmt.Fprintf(os.Stderr, "--- wrangler dev's log (at most its last 256 KiB):\n%s\n", tail(d.logs.String(), 256<<10))
	}
	return code
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// devServer is a running `wrangler dev`.
type devServer struct {
	addr   string // 127.0.0.1:port
	origin string // http://127.0.0.1:port
	up     *proxytest.Upstream
	rec    *proxytest.MCPUpstream
	sse    *proxytest.MCPServer
	json   *proxytest.MCPServer
	tok    *proxytest.MCPServer // requires proxytest.MCPToken; relayed as locked and keyed
	cmd    *exec.Cmd
	logs   *syncBuffer
	tmp    string
	done   chan struct{}
	// env is added to wrangler's environment; readyLog, when set, is the
	// line whose appearance in the log means ready, for a Worker that
	// does not serve the site (ready).
	env      []string
	readyLog string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// startDev starts wrangler dev from the repository root with the given
// vars; ALLOWED_ORIGIN is set to the dev server's own origin when
// withOrigin is true.
func startDev(bin string, vars map[string]string, withOrigin bool) (*devServer, error) {
	return startDevConfig(bin, "", vars, withOrigin)
}

// startDevConfig is startDev with the wrangler configuration file config
// instead of the repository's wrangler.toml when it is not "".
func startDevConfig(bin, config string, vars map[string]string, withOrigin bool) (*devServer, error) {
	return startDevWith(bin, config, vars, nil, withOrigin)
}

// startDevWith is startDevConfig with secrets too, given to wrangler dev
// the way a developer's .dev.vars gives them (an --env-file): wrangler
// lists them as "(hidden)", unlike vars. The repository's wrangler.toml
// is used without its [build]: make test-worker has built the Worker,
// and each dev server would otherwise build it again.
func startDevWith(bin, config string, vars, secrets map[string]string, withOrigin bool) (*devServer, error) {
	return startDevEnv(bin, config, vars, secrets, withOrigin, nil)
}

// startDevEnv is startDevWith with env added to wrangler's environment
// (WRANGLER_REGISTRY_PATH, for a Worker whose service bindings name
// Workers under dev servers of their own).
func startDevEnv(bin, config string, vars, secrets map[string]string, withOrigin bool, env []string) (*devServer, error) {
	d, inspector, err := newDevServer()
	if err != nil {
		return nil, err
	}
	d.env = env
	if config == "" {
		// The proxy's and the relay's tests run a Worker without the
		// registry's bucket and database: a deployment without them,
		// which must lose nothing else (TestWorkerdRegistry).
		if config, err = writeWranglerConfig(d.tmp, withoutRegistry()); err != nil {
			os.RemoveAll(d.tmp)
			return nil, err
		}
	}
	args := []string{"dev", "--local", "--ip", "127.0.0.1", "--port", d.port(), "--inspector-port", inspector,
		"--persist-to", filepath.Join(d.tmp, "state"), "--show-interactive-dev-session=false", "--log-level", "log",
		"--config", config}
	if len(secrets) > 0 {
		var env strings.Builder
		for k, v := range secrets {
			fmt.Fprintf(&env, "%s=%q\n", k, v)
		}
		path := filepath.Join(d.tmp, "secrets.env")
		if err := os.WriteFile(path, []byte(env.String()), 0o600); err != nil {
			os.RemoveAll(d.tmp)
			return nil, err
		}
		args = append(args, "--env-file", path)
	}
	if withOrigin {
		args = append(args, "--var", "ALLOWED_ORIGIN:"+d.origin)
	}
	for k, v := range vars {
		args = append(args, "--var", k+":"+v)
	}
	if err := d.launch(bin, "..", args); err != nil { // the repository root, where wrangler.toml is
		return nil, err
	}
	return d, nil
}

// newDevServer picks the ports and the temporary directory of a dev
// server yet to be launched; inspector is the port for its inspector.
func newDevServer() (d *devServer, inspector string, err error) {
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	if inspector, err = freePort(); err != nil {
		return nil, "", err
	}
	tmp, err := os.MkdirTemp("", "workbench-wrangler-")
	if err != nil {
		return nil, "", err
	}
	return &devServer{addr: "127.0.0.1:" + port, origin: "http://127.0.0.1:" + port, logs: &syncBuffer{}, tmp: tmp, done: make(chan struct{})}, inspector, nil
}

// port is the port the dev server listens on.
func (d *devServer) port() string { return strings.TrimPrefix(d.addr, "127.0.0.1:") }

// launch runs wrangler with args in dir and waits until d answers. The
// ports in args were picked free and then released for wrangler to bind
// (newDevServer), so another process can take one in between; wrangler
// then stops at once with "Address already in use", and launch runs it
// again on new ports, three times at most.
func (d *devServer) launch(bin, dir string, args []string) error {
	for attempt := 1; ; attempt++ {
		err := d.launchOnce(bin, dir, args)
		if err == nil {
			return nil
		}
		if attempt < 3 && errors.Is(err, errPortTaken) {
			if args, err = d.movePorts(args); err == nil {
				continue
			}
		}
		os.RemoveAll(d.tmp)
		return err
	}
}

// errPortTaken is why wrangler stopped when a port picked for it was
// taken before it bound it.
var errPortTaken = errors.New("a port picked for wrangler was taken")

// movePorts picks new ports for the server and its inspector and returns
// args with them in place of the old ones, wherever those appear (the
// flags, and an origin passed as a var); d's address, origin and readyLog
// follow, and its log starts again.
func (d *devServer) movePorts(args []string) ([]string, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	inspector, err := freePort()
	if err != nil {
		return nil, err
	}
	// The old address, and not a longer port it is the start of (an
	// upstream's 127.0.0.1:43615 when the server's was 127.0.0.1:4361).
	oldAddr := regexp.MustCompile(regexp.QuoteMeta(d.addr) + `\b`)
	newAddr := "127.0.0.1:" + port
	moved := make([]string, len(args))
	for i, a := range args {
		switch {
		case i > 0 && args[i-1] == "--port":
			a = port
		case i > 0 && args[i-1] == "--inspector-port":
			a = inspector
		default:
			a = oldAddr.ReplaceAllLiteralString(a, newAddr)
		}
		moved[i] = a
	}
	d.addr, d.origin = newAddr, "http://"+newAddr
	d.readyLog = oldAddr.ReplaceAllLiteralString(d.readyLog, newAddr)
	d.logs, d.done = &syncBuffer{}, make(chan struct{})
	return moved, nil
}

// launchOnce runs wrangler with args in dir and waits until d answers; on
// failure it leaves no process, and d.tmp for launch to reuse or remove.
func (d *devServer) launchOnce(bin, dir string, args []string) error {
	d.cmd = exec.Command(bin, args...)
	d.cmd.Dir = dir
	d.cmd.Env = append(wranglertest.Env(d.tmp), d.env...)
	d.cmd.Stdout, d.cmd.Stderr = d.logs, d.logs
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so stop reaches workerd too
	if err := d.cmd.Start(); err != nil {
		return err
	}
	go func() { d.cmd.Wait(); close(d.done) }()

	deadline := time.Now().Add(90 * time.Second)
	for {
		select {
		case <-d.done:
			d.kill()
			if strings.Contains(d.logs.String(), "Address already in use") {
				return fmt.Errorf("wrangler %s exited early: %w:\n%s", args[0], errPortTaken, d.logs)
			}
			return fmt.Errorf("wrangler %s exited early:\n%s", args[0], d.logs)
		default:
		}
		if d.readyLog != "" && strings.Contains(d.logs.String(), d.readyLog) {
			return nil
		}
		if d.readyLog == "" && d.ready() {
			// wrangler dev's watcher can reload the Worker just after it
			// starts (it sees the freshly built files), and a request
			// meeting the reload fails. Wait a moment, then check that every
			// reload the log shows has finished and the Worker answers.
			time.Sleep(3 * time.Second)
			if d.settled() && d.ready() {
				return nil
			}
		}
		if time.Now().After(deadline) {
			d.kill()
			return fmt.Errorf("wrangler %s not ready after 90s:\n%s", args[0], d.logs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ready reports whether the dev server serves the site and the Worker
// itself answers a POST. The site's files are served without the Worker,
// and workerd retries a GET, not a POST, that meets the Worker while it
// (re)starts — so only a POST that is answered, not met with workerd's
// 503 "restarted mid-request", shows the Worker is up.
func (d *devServer) ready() bool {
	resp, err := http.Get(d.origin + "/")
	if err != nil {
		return false
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false
	}
	status, _, err := d.probe()
	return err == nil && status != http.StatusServiceUnavailable
}

// probe POSTs to the relay what the Worker refuses on its own (no
// Origin), reaching no upstream, and returns the answer's status and
// body: the Worker's 403, or the front's 503 when the request never
// reached the Worker.
func (d *devServer) probe() (int, []byte, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Post(d.origin+"/api/mcp/probe", "application/json", strings.NewReader("{}"))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, nil
}

// settleFront sends probes until one is answered by the Worker. After an
// upload the Worker answered before the body's end, wrangler dev's front
// (its ProxyWorker) sometimes fails its next request to the Worker at
// once, as if the Worker had restarted: a POST or DELETE then gets the
// front's 503 "Your worker restarted mid-request" or 500, and a GET is
// queued for a retry that, for a GET carrying a body, never comes. The
// Worker's log shows none of them. A POST, which the front never
// retries, spends that failure here.
func (d *devServer) settleFront() (seen string, err error) {
	for range 10 {
		status, b, err := d.probe()
		if err != nil {
			return seen, err
		}
		if status != http.StatusServiceUnavailable {
			return seen, nil
		}
		seen += fmt.Sprintf("the front answered a probe %d %.120q; ", status, b)
		time.Sleep(100 * time.Millisecond)
	}
	return seen, fmt.Errorf("the front still fails the Worker's requests: %s", seen)
}

// settled reports whether every reload of the Worker in wrangler's log
// has finished.
func (d *devServer) settled() bool {
	out := d.logs.String()
	return strings.Count(out, "Reloading local server") == strings.Count(out, "Local server updated and ready")
}

// stop ends the wrangler process group it started.
func (d *devServer) stop() {
	d.kill()
	os.RemoveAll(d.tmp)
}

// kill ends wrangler and the workerd it started.
func (d *devServer) kill() {
	if d.cmd.Process != nil {
		syscall.Kill(-d.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
			<-d.done
		}
	}
}

func requireWorker(t testing.TB) *devServer {
	t.Helper()
	if worker == nil {
		t.Skip("set WORKBENCH_WRANGLER to run the Worker under wrangler dev (make test-worker)")
	}
	return worker
}

func target(d *devServer) proxytest.Target {
	return proxytest.Target{
		Addr: d.addr, Origin: d.origin, Layer: proxytest.Workerd, Upstream: d.up,
		// What workerd's fetch adds on its own; CF-Worker names the
		// Worker making a subrequest, as Cloudflare's edge does too.
		TransportHeaders: []string{"Content-Length", "Accept-Encoding", "Transfer-Encoding", "Connection", "Cf-Worker"},
		Settle:           d.settleFront,
	}
}

func mcpTarget(d *devServer) proxytest.MCPTarget {
	return proxytest.MCPTarget{
		Addr: d.addr, Origin: d.origin, Layer: proxytest.Workerd, Recorder: d.rec,
		Names:            []string{"everything-json", "everything-sse", "keyed", "locked", proxytest.MCPRecorder, proxytest.MCPRecorderAuth},
		TransportHeaders: []string{"Content-Length", "Accept-Encoding", "Transfer-Encoding", "Connection", "Cf-Worker"},
		Settle:           d.settleFront,
	}
}

func TestWorkerdMCPAttacks(t *testing.T) { proxytest.RunMCPAttacks(t, mcpTarget(requireWorker(t))) }

func TestWorkerdMCPForwarding(t *testing.T) {
	proxytest.RunMCPForwarding(t, mcpTarget(requireWorker(t)))
}

func TestWorkerdMCPSSE(t *testing.T) { proxytest.RunMCPSSE(t, mcpTarget(requireWorker(t))) }

// TestWorkerdMCPSession talks MCP through the Worker to the go-sdk's
// server, whose DNS-rebinding check refuses a non-loopback Host.
func TestWorkerdMCPSession(t *testing.T) {
	d := requireWorker(t)
	t.Run("sse", func(t *testing.T) { proxytest.RunMCPSession(t, mcpTarget(d), "everything-sse", d.sse) })
	t.Run("json", func(t *testing.T) { proxytest.RunMCPSession(t, mcpTarget(d), "everything-json", d.json) })
}

// TestWorkerdMCPOperatorHeader relays to an MCP server that requires a
// bearer token, configured twice: as "keyed", whose header is the secret
// MCP_HEADER_KEYED (given as a secret, as `wrangler secret put` would),
// and as "locked", with none.
func TestWorkerdMCPOperatorHeader(t *testing.T) {
	d := requireWorker(t)
	proxytest.RunMCPOperatorHeader(t, mcpTarget(d), "locked", "keyed", d.tok)
}

func TestWorkerdAttacks(t *testing.T) { proxytest.RunAttacks(t, target(requireWorker(t))) }

func TestWorkerdEdge(t *testing.T) { proxytest.RunEdge(t, target(requireWorker(t))) }

func TestWorkerdMCPEdge(t *testing.T) { proxytest.RunMCPEdge(t, mcpTarget(requireWorker(t))) }

// abortedText is the error the Worker errors a broken-off body stream
// with (errAborted, in the Worker's own build), which workerd logs.
const abortedText = "the upstream's body broke off or stalled; the response is aborted"

// TestWorkerdErrorsBrokenBodies: where workerd ends a broken-off chunked
// body as if whole (RunEdge records it), the Worker has still done its
// part: it errored the body stream, and workerd's log shows the error it
// was given, once for each such reply, through the proxy and the relay.
func TestWorkerdErrorsBrokenBodies(t *testing.T) {
	d := requireWorker(t)
	for _, fault := range []string{proxytest.FaultUnfinishedChunks, proxytest.FaultReset} {
		for _, route := range []string{"proxy", "relay"} {
			t.Run(route+"-"+fault, func(t *testing.T) {
				before := strings.Count(d.logs.String(), abortedText)
				var req *http.Request
				if route == "proxy" {
					req, _ = http.NewRequest("GET", d.origin+proxy.MountPath+fault, nil)
					req.Header.Set("Authorization", proxytest.Key)
				} else {
					req, _ = http.NewRequest("POST", d.origin+proxy.MCPMountPath+proxytest.MCPRecorder,
						strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"test/`+fault+`"}`))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
				}
				req.Header.Set("Origin", d.origin)
				resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, rerr := io.ReadAll(resp.Body)
				resp.Body.Close()
				t.Logf("%d, %d bytes, read error %v", resp.StatusCode, len(b), rerr)
				// The front may fail the next request after this one.
				defer func() {
					if seen, err := d.settleFront(); err != nil {
						t.Fatalf("after the broken-off reply: %v", err)
					} else if seen != "" {
						t.Logf("after the broken-off reply: %s", seen)
					}
				}()
				deadline := time.Now().Add(10 * time.Second)
				for strings.Count(d.logs.String(), abortedText) <= before {
					if time.Now().After(deadline) {
						t.Fatalf("the runtime's log does not show the body stream errored with %q", abortedText)
					}
					time.Sleep(100 * time.Millisecond)
				}
			})
		}
	}
}

func TestWorkerdTimeouts(t *testing.T) {
	proxytest.RunTimeouts(t, target(requireWorker(t)), workerTimeouts)
}

func TestWorkerdMCPTimeouts(t *testing.T) {
	proxytest.RunMCPTimeouts(t, mcpTarget(requireWorker(t)), workerTimeouts)
}

// TestWorkerdIdleConnections: wrangler dev's own front closes idle
// connections (after about 15 s, measured); the Worker has no say in it,
// and on Cloudflare the edge terminates connections.
func TestWorkerdIdleConnections(t *testing.T) {
	d := requireWorker(t)
	proxytest.RunIdleConnections(t, d.addr, "/", 8, 25*time.Second)
}

// TestWorkerdRateLimit runs a Worker of its own (a fresh rate-limit
// state) and spends one client's budget through the RL binding. Its
// configuration is wrangler.toml with the limit lowered to testRateLimit
// per period: spending the real 600 within one minute takes ten Worker
// requests a second, more than a shared test machine reliably serves
// (one run took 300 s for 1200). TestRateLimitMatchesWrangler holds the
// real numbers.
func TestWorkerdRateLimit(t *testing.T) {
	d := requireWorker(t)
	const testRateLimit = 20
	config := lowerRateLimit(t, testRateLimit)
	rl, err := startDevConfig(os.Getenv("WORKBENCH_WRANGLER"), config, map[string]string{"OPENROUTER_UPSTREAM": d.up.URL}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.stop()
	mark := d.up.Len()
	// startDev's readiness probes are POSTs under /api/ from the same
	// client, counted like any other: a handful at most.
	proxytest.RunRateLimit(t, rl.addr, rl.origin, testRateLimit, 10)
	if d.up.Len() != mark {
		t.Errorf("the rate-limit run reached the upstream")
	}
}

// TestRateLimitMatchesWrangler holds wrangler.toml's binding, and the
// Pages deployment's limiter's, to the numbers `workbench serve` and the
// Worker's 429 message use.
func TestRateLimitMatchesWrangler(t *testing.T) {
	for _, config := range []string{"../wrangler.toml", "limiter/wrangler.toml"} {
		limit, period := wranglerRateLimit(t, config)
		if limit != proxy.RateLimit || time.Duration(period)*time.Second != proxy.RatePeriod {
			t.Errorf("%s limits %d per %d s; proxy.RateLimit %d per %s", config, limit, period, proxy.RateLimit, proxy.RatePeriod)
		}
	}
}

// lowerRateLimit writes a copy of wrangler.toml whose RL binding allows
// limit requests per period, with its paths made absolute so that it
// works from a temporary directory, and returns its path.
func lowerRateLimit(t *testing.T, limit int) string {
	t.Helper()
	return wranglerConfig(t, map[string]string{"limit = " + strconv.Itoa(proxy.RateLimit): "limit = " + strconv.Itoa(limit)})
}

// wranglerRateLimit reads the RL binding's limit and period from the
// wrangler configuration file config.
func wranglerRateLimit(t *testing.T, config string) (limit, period int) {
	t.Helper()
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\[\[ratelimits\]\]\s*name = "RL".*?\[ratelimits\.simple\]\s*limit = (\d+)\s*period = (\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal(config + " has no [[ratelimits]] RL binding with [ratelimits.simple] limit and period")
	}
	limit, _ = strconv.Atoi(string(m[1]))
	period, _ = strconv.Atoi(string(m[2]))
	return limit, period
}

func TestWorkerdForwarding(t *testing.T) { proxytest.RunForwarding(t, target(requireWorker(t))) }

func TestWorkerdSSE(t *testing.T) { proxytest.RunSSE(t, target(requireWorker(t))) }

// TestWorkerdRoutes checks the one-origin layout: the site at /, deep
// links falling back to it, the Worker answering /api/*.
func TestWorkerdRoutes(t *testing.T) {
	d := requireWorker(t)
	get := func(path string, hdr ...string) (int, http.Header, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", d.origin+path, nil)
		for i := 0; i < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, b
	}
	st, h, index := get("/")
	if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") || !bytes.Contains(bytes.ToLower(index), []byte("<!doctype html")) {
		t.Fatalf("GET / → %d %q %.100q", st, h.Get("Content-Type"), index)
	}
	// What a browser sends when the user opens a deep link.
	st, _, deep := get("/skills/0190b3c2-7d4e-7000-8000-000000000001/replay",
		"Accept", "text/html,application/xhtml+xml", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document")
	// The single-page fallback is index.html: the neutral shell of a built
	// site ("/" itself is then the home page, TestWorkerdStaticAssets), or
	// the placeholder.
	shell, err := os.ReadFile("../build/site/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if st != 200 || !bytes.Equal(deep, shell) {
		t.Errorf("deep link → %d, body equal to index.html: %v", st, bytes.Equal(deep, shell))
	}
	st, h, body := get("/api/other")
	if st != 404 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || !bytes.Contains(body, []byte(`"not_found"`)) {
		t.Errorf("GET /api/other → %d %q %s; want the Worker's JSON 404", st, h.Get("Content-Type"), body)
	}
}

// TestWorkerdLogsHoldNoSecrets reads everything wrangler and the Worker
// printed during the whole run (every test above sent the key and the body
// sentinels) and finds neither the key nor a body in it.
func TestWorkerdLogsHoldNoSecrets(t *testing.T) {
	d := requireWorker(t)
	req, _ := http.NewRequest("POST", d.origin+proxy.MountPath+"chat/completions",
		strings.NewReader(`{"messages":[{"role":"user","content":"`+proxytest.BodySentinel+`"}]}`))
	req.Header.Set("Origin", d.origin)
	req.Header.Set("Authorization", proxytest.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// The Worker's console lines reach wrangler's output asynchronously.
	var out string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		out = d.logs.String()
		if strings.Contains(out, `proxy method=POST path="chat/completions" status=200`) {
			break
		}
	}
	if !strings.Contains(out, `proxy method=POST path="chat/completions" status=200`) {
		t.Fatalf("the Worker's own log line never appeared, so the capture is blind:\n%s", out)
	}
	// The relay's line, once RunMCPForwarding has run.
	proxytest.RunMCPForwarding(t, mcpTarget(d))
	const mcpLine = `mcp method=DELETE server="rec" status=204`
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out = d.logs.String(); strings.Contains(out, mcpLine) {
			break
		}
	}
	if !strings.Contains(out, mcpLine) {
		t.Fatalf("the relay's log line never appeared:\n%s", out)
	}
	token := strings.TrimSpace(strings.TrimPrefix(proxytest.Key, "Bearer"))
	for _, secret := range []string{token, token[:20], proxytest.BodySentinel, proxytest.ResponseSentinel, "part0", proxytest.MCPSession, proxytest.MCPToken} {
		if strings.Contains(out, secret) {
			t.Errorf("wrangler/Worker output contains %q", secret)
		}
	}
	t.Logf("checked %d bytes of wrangler and Worker output", len(out))
}

// TestWorkerdSameOrigin runs a second Worker without ALLOWED_ORIGIN, as
// `wrangler deploy` from a clone leaves it: the same-origin default. From
// its own origin the key check goes through to the upstream and the relay
// lists its servers; a foreign origin and a rebinding Host (a name that
// is not the Worker's, whose page is same-origin with itself) are refused
// and reach nothing.
func TestWorkerdSameOrigin(t *testing.T) {
	d := requireWorker(t)
	w, err := startDev(os.Getenv("WORKBENCH_WRANGLER"), map[string]string{"OPENROUTER_UPSTREAM": d.up.URL, "MCP_SERVERS": d.rec.Entries()}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.stop()
	rebind := "rebind.example:" + w.port()
	for _, tc := range []struct {
		name, path, host, origin string
		status                   int
		code                     string
	}{
		{"key check from its own origin", proxy.MountPath + "key", "", w.origin, 200, ""},
		{"listing from its own origin", proxy.MCPMountPath, "", w.origin, 200, ""},
		{"foreign origin", proxy.MountPath + "key", "", "https://evil.example", 403, proxy.CodeOriginForbidden},
		{"foreign origin to the relay", proxy.MCPMountPath + proxytest.MCPRecorder, "", "https://evil.example", 403, proxy.CodeOriginForbidden},
		{"rebinding Host", proxy.MountPath + "key", rebind, "http://" + rebind, 421, proxy.CodeHostForbidden},
		{"rebinding Host to the relay", proxy.MCPMountPath + proxytest.MCPRecorder, rebind, "http://" + rebind, 421, proxy.CodeHostForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mark, markMCP := d.up.Len(), d.rec.Len()
			req, _ := http.NewRequest("GET", w.origin+tc.path, nil)
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Authorization", proxytest.Key)
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || tc.code != "" && !bytes.Contains(body, []byte(`"`+tc.code+`"`)) {
				t.Fatalf("→ %d %s; want %d %s", resp.StatusCode, body, tc.status, tc.code)
			}
			reached := d.up.Len() != mark || d.rec.Len() != markMCP
			if want := tc.status == 200 && strings.HasPrefix(tc.path, proxy.MountPath); reached != want {
				t.Errorf("upstream reached: %v, want %v", reached, want)
			}
		})
	}
}

// TestWorkerdMCPFailsClosed runs a Worker whose MCP_SERVERS holds an entry
// the relay refuses (plain http to a non-loopback host): every relayed
// request, even to the valid entry, gets 500 without the bad URL in it,
// and the OpenRouter proxy beside it keeps working.
func TestWorkerdMCPFailsClosed(t *testing.T) {
	d := requireWorker(t)
	bad, err := startDev(os.Getenv("WORKBENCH_WRANGLER"), map[string]string{
		"OPENROUTER_UPSTREAM": d.up.URL,
		"MCP_SERVERS":         proxytest.MCPRecorder + "=" + d.rec.URL + ",lan=http://10.0.0.5:8931/mcp",
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer bad.stop()
	mark := d.rec.Len()
	for _, path := range []string{proxy.MCPMountPath, proxy.MCPMountPath + proxytest.MCPRecorder} {
		req, _ := http.NewRequest("POST", bad.origin+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Origin", bad.origin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || !bytes.Contains(body, []byte(`"proxy_misconfigured"`)) || bytes.Contains(body, []byte("10.0.0.5")) {
			t.Errorf("POST %s → %d %s; want 500 proxy_misconfigured not naming the URL", path, resp.StatusCode, body)
		}
	}
	if d.rec.Len() != mark {
		t.Errorf("a misconfigured relay reached an MCP server")
	}
	req, _ := http.NewRequest("GET", bad.origin+proxy.MountPath+"key", nil)
	req.Header.Set("Origin", bad.origin)
	req.Header.Set("Authorization", proxytest.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("the OpenRouter proxy beside a misconfigured relay → %d, want 200", resp.StatusCode)
	}
	var out string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if out = bad.logs.String(); strings.Contains(out, "mcp relay misconfigured") {
			break
		}
	}
	if !strings.Contains(out, `MCP server "lan": URL "http://10.0.0.5:8931/mcp": plain http is allowed only to a loopback host`) {
		t.Errorf("the Worker's log does not say what is wrong:\n%s", out)
	}
}

// cloneDeploy is the deployment from a clone that TestMain starts in the
// background (startCloneDeploy); TestDeployFromClone reads its outcome.
var cloneDeploy <-chan cloneResult

type cloneResult struct {
	makeN        []byte // `make -n deploy-pages`, before anything was built
	makeBrowserN []byte // `make -n deploy BROWSER_BODY=1`
	out          []byte // `wrangler deploy --dry-run`
	browserOut   []byte // the same for the browser body (proxy/browser)
	boundOut     []byte // the same for the Worker bound to it (make's bound configuration)
	err          error
	dir          string // the clone, removed once read
	took         time.Duration
}

// startCloneDeploy copies the repository as a clone has it — the files
// git tracks or would (so the change under test, and never build/ or
// node_modules/) — links the installed npm packages into it, and there
// runs `make -n deploy-pages`, `make -n deploy BROWSER_BODY=1` and then
// `wrangler deploy --dry-run`, which must build the Worker and the site
// itself through wrangler.toml's [build]; then the dry runs of the
// browser body and of the Worker bound to it, from the configuration
// make writes for `make deploy BROWSER_BODY=1`.
//
// Each command runs in a process group of its own, which ctx's end
// kills whole (wrangler starts node, which starts the bundler). stopped
// is closed once the last command has ended and the result is sent.
func startCloneDeploy(ctx context.Context, bin string) (result <-chan cloneResult, stopped <-chan struct{}) {
	done := make(chan cloneResult, 1)
	end := make(chan struct{})
	go func() {
		defer close(end)
		start := time.Now()
		r := cloneResult{}
		r.dir, r.err = copyRepository()
		cmdCtx, cancel := context.WithTimeout(ctx, 12*time.Minute)
		defer cancel()
		run := func(out *[]byte, name string, args ...string) {
			if r.err != nil {
				return
			}
			if name == "wrangler" {
				name = filepath.Join(r.dir, "node_modules", ".bin", filepath.Base(bin))
			}
			cmd := exec.CommandContext(cmdCtx, name, args...)
			cmd.Dir = r.dir
			cmd.Env = wranglertest.Env(r.dir)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			cmd.WaitDelay = 10 * time.Second
			*out, r.err = cmd.CombinedOutput()
		}
		var made []byte
		run(&r.makeN, "make", "-n", "deploy-pages")
		run(&r.makeBrowserN, "make", "-n", "deploy", "BROWSER_BODY=1")
		run(&r.out, "wrangler", "deploy", "--dry-run", "--outdir", filepath.Join(r.dir, "dry-run"))
		run(&r.browserOut, "wrangler", "deploy", "--dry-run", "--config", "proxy/browser/wrangler.toml", "--outdir", filepath.Join(r.dir, "dry-run-browser"))
		run(&made, "make", boundConfigPath)
		run(&r.boundOut, "wrangler", "deploy", "--dry-run", "--config", boundConfigPath, "--outdir", filepath.Join(r.dir, "dry-run-bound"))
		r.took = time.Since(start)
		done <- r
	}()
	return done, end
}

// willRun reports whether this run's -run and -skip flags let the top-level
// test name run.
func willRun(name string) bool {
	match := func(flagName string) (matched, set bool) {
		f := flag.Lookup(flagName)
		if f == nil || f.Value.String() == "" {
			return false, false
		}
		pat, _, _ := strings.Cut(f.Value.String(), "/")
		ok, err := regexp.MatchString(pat, name)
		return ok && err == nil, true
	}
	if ok, set := match("test.run"); set && !ok {
		return false
	}
	if ok, _ := match("test.skip"); ok {
		return false
	}
	return true
}

// boundConfigPath is where make writes the Worker's configuration with
// the browser body's service binding (mk/proxy.mk, BOUND_CONFIG).
const boundConfigPath = "build/deploy-bound/wrangler.toml"

// copyRepository copies the repository's files into a new temporary
// directory, with node_modules a link to the installed packages, and
// returns the directory.
func copyRepository() (string, error) {
	ls := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	ls.Dir = ".."
	list, err := ls.Output()
	if err != nil {
		return "", fmt.Errorf("git ls-files: %w", err)
	}
	dir, err := os.MkdirTemp("", "workbench-clone-")
	if err != nil {
		return "", err
	}
	for _, name := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join("..", name))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the working tree, not yet in the index
		}
		if err != nil {
			return dir, err
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return dir, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return dir, err
		}
	}
	modules, err := filepath.Abs("../node_modules")
	if err != nil {
		return dir, err
	}
	return dir, os.Symlink(modules, filepath.Join(dir, "node_modules"))
}

// TestDeployFromClone: in a copy of the repository without build/,
// `make -n deploy-pages` names both parts of the Pages deployment in
// order, and `wrangler deploy --dry-run` — nothing else run first —
// builds the Worker and the site through wrangler.toml's [build] and
// bundles the Worker exactly as `wrangler deploy` would, without
// uploading it, with no ALLOWED_ORIGIN (the same-origin default) and its
// rate-limiting binding. `make -n deploy BROWSER_BODY=1` deploys the
// browser body before the Worker bound to it; the browser body bundles
// with its Browser Rendering and Durable Object bindings, and the
// configuration make writes for the bound Worker bundles with the
// service binding and every binding of wrangler.toml.
func TestDeployFromClone(t *testing.T) {
	requireWorker(t)
	if cloneDeploy == nil {
		t.Skip("not started")
	}
	var r cloneResult
	select {
	case r = <-cloneDeploy:
	case <-time.After(15 * time.Minute):
		t.Fatal("the deployment from a clone did not end")
	}
	if r.dir != "" {
		defer os.RemoveAll(r.dir)
	}
	t.Logf("copy, make -n and dry run: %s", r.took.Round(time.Second))
	if r.err != nil {
		t.Fatalf("%v\nmake -n deploy-pages:\n%s\nmake -n deploy BROWSER_BODY=1:\n%s\nwrangler deploy --dry-run:\n%s\nof the browser body:\n%s\nbound to it:\n%s",
			r.err, r.makeN, r.makeBrowserN, r.out, r.browserOut, r.boundOut)
	}
	limiter := bytes.Index(r.makeN, []byte("deploy --config proxy/limiter/wrangler.toml"))
	pages := bytes.Index(r.makeN, []byte("pages deploy"))
	if limiter < 0 || pages < 0 || pages < limiter {
		t.Errorf("make -n deploy-pages does not deploy the limiter Worker, then the Pages project:\n%s", r.makeN)
	}
	browser := bytes.Index(r.makeBrowserN, []byte("deploy --config proxy/browser/wrangler.toml"))
	bound := bytes.Index(r.makeBrowserN, []byte("deploy --config "+boundConfigPath+" --var 'MCP_SERVERS:browser=binding:BROWSER_MCP/mcp'"))
	if browser < 0 || bound < 0 || bound < browser {
		t.Errorf("make -n deploy BROWSER_BODY=1 does not deploy the browser body, then the Worker bound to it:\n%s", r.makeBrowserN)
	}
	for _, want := range []string{"Total Upload: ", "env.BROWSER ", "env.MCP_OBJECT (BrowserMCP)"} {
		if !strings.Contains(string(r.browserOut), want) {
			t.Errorf("the browser body's dry run printed no %q:\n%s", want, r.browserOut)
		}
	}
	for _, want := range []string{"[custom build] Running: make", "Total Upload: ", "env.BROWSER_MCP (skill-workbench-browser)",
		"env.RL (600 requests/60s)", "env.REGISTRY_DB"} {
		if !strings.Contains(string(r.boundOut), want) {
			t.Errorf("the bound Worker's dry run printed no %q:\n%s", want, r.boundOut)
		}
	}
	for _, o := range []struct {
		what string
		out  []byte
	}{{"the browser body", r.browserOut}, {"the Worker bound to it", r.boundOut}} {
		if m := regexp.MustCompile(`Total Upload: [^\n]*`).Find(o.out); m != nil {
			t.Logf("%s: %s", o.what, m)
		}
	}
	out := string(r.out)
	for _, want := range []string{"[custom build] Running: make", "Total Upload: ", "env.RL (600 requests/60s)",
		"env.REGISTRY_DB", "env.REGISTRY_BUCKET", "env.REGISTRY_RL (10 requests/60s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run printed no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "env.ALLOWED_ORIGIN") {
		t.Errorf("the Worker deploys with an ALLOWED_ORIGIN var; a clone's must have none (the same-origin default):\n%s", out)
	}
	if m := regexp.MustCompile(`Total Upload: [^\n]*`).FindString(out); m != "" {
		t.Logf("%s", m)
	}
	for _, f := range []string{"build/worker/app.wasm", "build/worker/registry/app.wasm", "build/site/index.html", "build/site/web/app.wasm", "dry-run/index.js"} {
		if _, err := os.Stat(filepath.Join(r.dir, f)); err != nil {
			t.Errorf("after the dry run: %v", err)
		}
	}
}

// TestWorkerWasmSize fails when the Worker's wasm, gzipped as Cloudflare
// measures uploads, exceeds MaxWasmGzip.
func TestWorkerWasmSize(t *testing.T) {
	path := os.Getenv("WORKBENCH_WORKER_WASM")
	if path == "" {
		t.Skip("set WORKBENCH_WORKER_WASM to the built Worker wasm (make test-worker)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.DefaultCompression)
	zw.Write(raw)
	zw.Close()
	t.Logf("Worker wasm: %d bytes, %d gzipped (limit %d)", len(raw), z.Len(), MaxWasmGzip)
	if z.Len() > MaxWasmGzip {
		t.Errorf("Worker wasm gzips to %d bytes, over the %d-byte limit", z.Len(), MaxWasmGzip)
	}
}

// BenchmarkWorkerdAddedLatency is BenchmarkAddedLatency of package proxy
// through workerd: each iteration calls the loopback upstream directly
// and through the Worker.
func BenchmarkWorkerdAddedLatency(b *testing.B) {
	d := requireWorker(b)
	body := `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct{ name, method, path, body string }{
		{"GET-key", "GET", "key", ""},
		{"POST-completion", "POST", "chat/completions", body},
	} {
		b.Run(c.name, func(b *testing.B) {
			proxytest.MeasureAddedLatency(b, c.method, d.up.URL+"/"+c.path, d.origin+proxy.MountPath+c.path, d.origin, c.body)
		})
	}
}

// BenchmarkWorkerdMCPAddedLatency is BenchmarkMCPAddedLatency of package
// proxy through workerd.
func BenchmarkWorkerdMCPAddedLatency(b *testing.B) {
	d := requireWorker(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	proxytest.MeasureAddedLatency(b, "POST", d.rec.URL, d.origin+proxy.MCPMountPath+proxytest.MCPRecorder, d.origin, body)
}

// TestWorkerdStaticAssets runs a Worker of its own over a site the app's
// build writes (standInSite) and checks the site's rules as workerd
// applies them (checkStaticRules): app.wasm, asked
// for by its versioned URL, is kept for a year (the _headers rule detaches
// the no-cache of /*), pages revalidate; "/" is the home page through the
// _redirects rewrite while deep links get the neutral shell; the
// precompressed copies are not served (.assetsignore keeps them out of
// the upload), an ETag revalidation gets 304. wrangler dev compresses
// on the fly (gzip or brotli, by Accept-Encoding); in production
// Cloudflare's edge compresses (docs/proxy.md).
func TestWorkerdStaticAssets(t *testing.T) {
	d := requireWorker(t)
	site, wasm, version := standInSite(t)
	w, err := startDevConfig(os.Getenv("WORKBENCH_WRANGLER"), wranglerConfig(t, map[string]string{`directory = "build/site"`: `directory = "` + site + `"`}),
		map[string]string{"OPENROUTER_UPSTREAM": d.up.URL}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.stop()
	checkStaticRules(t, w.origin, wasm, version)
}

// standInSite writes the site the app's build writes, from a stand-in
// module (so no js/wasm build is needed), and returns its directory, the
// module's bytes and the version its URL carries.
func standInSite(t *testing.T) (site string, wasm []byte, version string) {
	t.Helper()
	tmp := t.TempDir()
	wasm = append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("stand-in module "), 4096)...)
	if err := os.WriteFile(filepath.Join(tmp, "app.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	site = filepath.Join(tmp, "site")
	build := exec.Command("go", "run", "./app", "-out", site, "-wasm", filepath.Join(tmp, "app.wasm"), "-web", "static/web")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the site: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(site, "web", "app.wasm.br")); err != nil {
		t.Fatalf("the build wrote no compressed copy to leave out: %v", err)
	}
	sum := sha256.Sum256(wasm)
	return site, wasm, hex.EncodeToString(sum[:8])
}

// checkStaticRules checks the site's rules as the host at origin applies
// them to the stand-in site (standInSite).
func checkStaticRules(t *testing.T, origin string, wasm []byte, version string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path string, hdr ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest("GET", origin+path, nil)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
		for i := 0; i < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	const immutable = "public, max-age=31536000, immutable"
	navigate := []string{"Accept", "text/html,application/xhtml+xml", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}
	mainOf := func(page []byte) string {
		s := string(page)
		i, j := strings.Index(s, "<main"), strings.Index(s, "</main>")
		if i < 0 || j < i {
			return ""
		}
		return s[i:j]
	}
	for _, tc := range []struct {
		name, path, contentType, cache, heading string
	}{
		{"home through the rewrite", "/", "text/html", "no-cache", "<h1>Skill Workbench</h1>"},
		{"exact route", "/skills", "text/html", "no-cache", "<h1>Skills</h1>"},
		{"deep link gets the shell", "/skills/0190b3c2-7d4e-7000-8000-000000000001/replay", "text/html", "no-cache", ""},
		{"compressed copy left out", "/web/app.wasm.br", "text/html", "no-cache", ""},
		{"versioned module", "/web/app.wasm?v=" + version, "application/wasm", immutable, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(tc.path, navigate...)
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.contentType) {
				t.Fatalf("→ %d %q, want 200 %s", resp.StatusCode, resp.Header.Get("Content-Type"), tc.contentType)
			}
			if got := resp.Header.Get("Cache-Control"); got != tc.cache {
				t.Errorf("Cache-Control %q, want %q", got, tc.cache)
			}
			// What Chromium asks for; wrangler dev answers gzip.
			if got := resp.Header.Get("Content-Encoding"); got != "gzip" {
				t.Errorf("Content-Encoding %q, want gzip as wrangler dev was seen to send", got)
			}
			body = decodeBody(t, resp.Header.Get("Content-Encoding"), body)
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q: the /* rule was not applied", got)
			}
			if tc.contentType == "application/wasm" {
				if !bytes.Equal(body, wasm) {
					t.Errorf("the module's bytes differ (%d bytes, want %d)", len(body), len(wasm))
				}
			} else if main := mainOf(body); tc.heading == "" && strings.Contains(main, "<h1") || !strings.Contains(main, tc.heading) {
				t.Errorf("main = %.300q, want the heading %q", main, tc.heading)
			}
			etag := resp.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			if again, _ := get(tc.path, "If-None-Match", etag); again.StatusCode != http.StatusNotModified {
				t.Errorf("revalidation with %s → %d, want 304", etag, again.StatusCode)
			}
		})
	}

	// The encoding wrangler dev chose for each Accept-Encoding, seen on
	// the module: it compresses on the fly, gzip first when the request
	// lists it, brotli when only brotli is accepted, never zstd, and sends
	// no Vary. The body decodes to the module every time.
	for _, tc := range []struct{ accept, encoding string }{
		{"gzip, deflate, br, zstd", "gzip"},
		{"br", "br"},
		{"gzip", "gzip"},
		{"zstd", ""},
		{"identity", ""},
		{"", ""},
	} {
		req, _ := http.NewRequest("GET", origin+"/web/app.wasm?v="+version, nil)
		if tc.accept != "" {
			req.Header.Set("Accept-Encoding", tc.accept)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("Content-Encoding"); got != tc.encoding {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", tc.accept, got, tc.encoding)
		}
		if got := decodeBody(t, resp.Header.Get("Content-Encoding"), b); !bytes.Equal(got, wasm) {
			t.Errorf("Accept-Encoding %q: the module decodes to %d bytes, want %d", tc.accept, len(got), len(wasm))
		}
		if got := resp.Header.Get("Cache-Control"); got != immutable {
			t.Errorf("Accept-Encoding %q: Cache-Control %q", tc.accept, got)
		}
	}
}

// decodeBody undoes a Content-Encoding of gzip or br.
func decodeBody(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	var r io.Reader
	switch coding {
	case "":
		return b
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(bytes.NewReader(b))
	default:
		t.Fatalf("unexpected Content-Encoding %q", coding)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("decoding %s: %v", coding, err)
	}
	return out
}

// wranglerConfig writes wrangler.toml with each key of replace replaced
// by its value, and main and the assets directory absolute (those not
// replaced are the repository's), for a Worker of a test's own.
func wranglerConfig(t *testing.T, replace map[string]string) string {
	t.Helper()
	path, err := writeWranglerConfig(t.TempDir(), replace)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// writeWranglerConfig writes the repository's wrangler.toml, edited by
// replace and without its [build] step, into dir (wranglertest.WriteConfig).
func writeWranglerConfig(dir string, replace map[string]string) (string, error) {
	return wranglertest.WriteConfig("..", dir, replace)
}

// BenchmarkWorkerdCPU measures the CPU time spent per /api/ request under
// wrangler dev: the user and system time of the dev server's workerd
// processes (read from /proc) across b.N requests, divided by b.N. That
// holds what Cloudflare counts against a Worker's CPU limit (starting the
// Go instance, the handler, the rate-limit call) and more: workerd's HTTP
// serving and wrangler dev's front, which runs in workerd too. The
// "js-baseline" case measures that overhead alone, with the limiter
// Worker (a few lines of JavaScript answering 404) under its own wrangler
// dev. Clients rotate through loopback addresses so that the rate limit
// never answers instead of the Worker.
func BenchmarkWorkerdCPU(b *testing.B) {
	d := requireWorker(b)
	base, err := startRegistered(os.Getenv("WORKBENCH_WRANGLER"), "proxy/limiter/wrangler.toml", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer base.stop()
	clients := map[int]*http.Client{}
	sent := 0
	for _, c := range []struct {
		name, path, origin string
		dev                *devServer
		status             int
	}{
		{"key-check", proxy.MountPath + "key", d.origin, d, 200},
		{"refused", proxy.MountPath + "key", "https://evil.example", d, 403},
		{"mcp-listing", proxy.MCPMountPath, d.origin, d, 200},
		// The registry's program (proxy/registry), which links the
		// verifier: its status, which reads no storage.
		{"registry-status", registry.MountPath, d.origin, d, 200},
		{"js-baseline", "/", base.origin, base, 404},
	} {
		b.Run(c.name, func(b *testing.B) {
			get := func() {
				k := sent / (proxy.RateLimit / 2)
				sent++
				if clients[k] == nil {
					clients[k] = clientFrom(fmt.Sprintf("127.0.%d.%d", 2+k/250, 1+k%250))
				}
				req, _ := http.NewRequest("GET", c.dev.origin+c.path, nil)
				req.Header.Set("Origin", c.origin)
				req.Header.Set("Authorization", proxytest.Key)
				resp, err := clients[k].Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != c.status {
					b.Fatalf("request %d → %d, want %d", sent, resp.StatusCode, c.status)
				}
			}
			get() // a warm instance, as a deployed Worker's would be
			before, err := workerdCPU(c.dev)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				get()
			}
			b.StopTimer()
			after, err := workerdCPU(c.dev)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(after-before)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// workerdCPU is the user and system time so far of the workerd processes
// in d's process group, from /proc/<pid>/stat (in clock ticks of 10 ms,
// Linux's USER_HZ).
func workerdCPU(d *devServer) (time.Duration, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	var ticks int64
	found := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // ended meanwhile
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open || s[open+1:end] != "workerd" {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 || f[2] != strconv.Itoa(d.cmd.Process.Pid) {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks += u + st
		found++
	}
	if found == 0 {
		return 0, errors.New("no workerd process in the dev server's process group")
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}
