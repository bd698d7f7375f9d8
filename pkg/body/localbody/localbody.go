// Package localbody starts and owns the workbench's two bodies on this
// machine: the browser body, Playwright MCP driving Debian's Chromium, and
// the host body, the reference filesystem server on one folder, bridged
// from stdio to streamable HTTP with the go-sdk. `workbench serve` relays
// them as browser and host; `workbench bodies` serves them to a paired
// page (package pairing).
//
// It guarantees:
//
//   - Each body listens on a free loopback port chosen at start and
//     answers MCP over streamable HTTP at Body.URL, for its own Host only
//     (127.0.0.1:PORT or localhost:PORT): a DNS-rebinding page gets 403.
//   - Each body runs in a process group of its own, and everything it
//     started ends with it: Stop ends the group, then every process that
//     carries the body's mark in its environment (Chromium runs in a
//     group of its own, its crash handlers are re-parented to init) and
//     the groups they lead. On Linux the body's first process gets
//     SIGKILL when the owner dies, even by SIGKILL (Pdeathsig); Chromium
//     then ends on its own when its DevTools pipe to Playwright closes
//     (verified by the bodies tests, which SIGKILL the owning command).
//   - A body that dies is restarted at the same URL with a doubling
//     delay, a bounded number of times in a row (Restart); while it is
//     down its URL fails (connection refused, or 503 from the host's
//     bridge), so an MCP handshake there fails. Each death, restart and
//     the final giving up is one log line saying why.
//   - What is missing (Node.js, an npm package, Chromium, a display for a
//     headed browser) is a *MissingError naming it and the make target
//     that installs it, before anything is started.
//
// The host body has file tools only: the reference filesystem server
// offers no shell, and no well-kept MCP server confines a shell to a
// folder (docs/decisions.md).
package localbody

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Names of the two bodies: the names the relay and the pairing server
// list them under, and the app asks for.
const (
	BrowserName = "browser"
	HostName    = "host"
)

// DefaultHostDir is the folder the host body serves when none is given,
// relative to the working directory.
const DefaultHostDir = "workspace"

// startTimeout bounds one start of a body, up to its first answered
// handshake: Playwright MCP is ready in about 2 s on two cores.
const startTimeout = time.Minute

// Options are what every body needs.
type Options struct {
	// NodeModules is the project's node_modules directory, where
	// `make node-deps` installs Playwright MCP and the filesystem
	// server; empty means node_modules in the working directory.
	NodeModules string
	// Node is the Node.js executable; empty means node on PATH.
	Node string
	// Restart says how a body that dies is restarted; the zero value
	// never restarts one. DefaultRestart is the commands' policy.
	Restart Restart
	// Log gets one line when a body dies, is restarted or is given up;
	// nil discards them.
	Log *slog.Logger
}

// Restart is how a body that dies is restarted: after Delay, doubled for
// each next attempt up to MaxDelay, at most Attempts times in a row. A
// body that stayed up for Healthy starts counting again.
type Restart struct {
	Attempts int
	Delay    time.Duration
	MaxDelay time.Duration
	Healthy  time.Duration
}

// DefaultRestart is the policy of workbench serve and workbench bodies:
// five attempts, 1 s, 2 s, 4 s, 8 s and 16 s after a death (about half a
// minute in all), counted afresh once a body has stayed up for a minute.
func DefaultRestart() Restart {
	return Restart{Attempts: 5, Delay: time.Second, MaxDelay: 16 * time.Second, Healthy: time.Minute}
}

// delay is the wait before the given attempt (1-based).
func (r Restart) delay(attempt int) time.Duration {
	d := r.Delay
	for i := 1; i < attempt && d < r.MaxDelay; i++ {
		d *= 2
	}
	if r.MaxDelay > 0 && d > r.MaxDelay {
		d = r.MaxDelay
	}
	return d
}

// MissingError says that something a body needs is not installed, and
// which make target installs it.
type MissingError struct {
	What string // "Playwright MCP", "Chromium", …
	Path string // where it was looked for
	Make string // the make target that installs it, or "" when none does
	Hint string // what else to do, when there is no target
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("%s is missing (%s)", e.What, e.Path)
	if e.Make != "" {
		msg += ": `make " + e.Make + "` installs it"
	}
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// node returns the Node.js executable, or a *MissingError.
func (o Options) node() (string, error) {
	n := o.Node
	if n == "" {
		n = "node"
	}
	p, err := exec.LookPath(n)
	if err != nil {
		return "", &MissingError{What: "Node.js", Path: n, Make: "node"}
	}
	return p, nil
}

// script returns the path of a file of an npm package in NodeModules, or
// a *MissingError naming the package.
func (o Options) script(what string, rel ...string) (string, error) {
	dir := o.NodeModules
	if dir == "" {
		dir = "node_modules"
	}
	p := filepath.Join(append([]string{dir}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		return "", &MissingError{What: what, Path: p, Make: "node-deps", Hint: "run it in the workbench's clone"}
	}
	// A body runs in a directory of its own.
	return filepath.Abs(p)
}

// instance is one run of a body's processes.
type instance interface {
	// done is closed when the instance has died.
	done() <-chan struct{}
	// why says why it died, once done is closed.
	why() error
	// stop ends the instance and everything it started, and waits for
	// them. It may be called more than once.
	stop()
}

// Body is a body this process started and owns.
type Body struct {
	name, about, url string
	restart          Restart
	log              *slog.Logger
	start            func(ctx context.Context) (instance, error)
	out              *tail
	cleanup          func() // after the last instance has stopped

	mu   sync.Mutex
	down error // nil while up

	stopOnce sync.Once
	stopc    chan struct{} // closed by Stop
	donec    chan struct{} // closed when the supervisor has stopped the last instance
}

// Name is the body's name: BrowserName or HostName.
func (b *Body) Name() string { return b.name }

// URL is the body's streamable HTTP endpoint on the loopback interface.
// It stays the same across restarts.
func (b *Body) URL() string { return b.url }

// About says what the body is: "Playwright MCP on Chromium (headless)",
// "the reference filesystem server on /abs/dir (file tools only)".
func (b *Body) About() string { return b.about }

// Err is nil while the body is up, and otherwise says why it is down:
// restarting, given up, or stopped.
func (b *Body) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.down
}

// Output is the end of what the body's processes wrote (at most 16 KiB),
// for a log when something went wrong.
func (b *Body) Output() string { return b.out.String() }

func (b *Body) setDown(err error) {
	b.mu.Lock()
	b.down = err
	b.mu.Unlock()
}

// Stop ends the body and everything it started, waits for them, and
// restarts nothing after. It may be called more than once.
func (b *Body) Stop() {
	b.stopOnce.Do(func() {
		close(b.stopc)
		<-b.donec
		b.setDown(fmt.Errorf("the %s body was stopped", b.name))
		if b.cleanup != nil {
			b.cleanup()
		}
	})
}

// run starts the body's first instance and, when that answers, its
// supervisor.
func (b *Body) run(ctx context.Context) error {
	b.stopc, b.donec = make(chan struct{}), make(chan struct{})
	inst, err := b.startOne(ctx)
	if err != nil {
		close(b.donec)
		if b.cleanup != nil {
			b.cleanup()
		}
		return err
	}
	go b.supervise(inst)
	return nil
}

// startOne starts an instance within startTimeout; Stop cancels it.
func (b *Body) startOne(ctx context.Context) (instance, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	go func() {
		select {
		case <-b.stopc:
			cancel()
		case <-ctx.Done():
		}
	}()
	return b.start(ctx)
}

// supervise waits for the instance to die and restarts it by the policy,
// until Stop.
func (b *Body) supervise(inst instance) {
	defer close(b.donec)
	up := time.Now()
	attempt := 0
	for {
		select {
		case <-b.stopc:
			inst.stop()
			return
		case <-inst.done():
		}
		why := inst.why()
		// Down from now on, before its leftovers are ended.
		b.setDown(fmt.Errorf("the %s body is down (%v)", b.name, why))
		inst.stop()
		if time.Since(up) >= b.restart.Healthy {
			attempt = 0
		}
		for {
			attempt++
			if attempt > b.restart.Attempts {
				var down error
				if b.restart.Attempts == 0 {
					down = fmt.Errorf("the %s body stopped (%v) and is not restarted", b.name, why)
				} else {
					down = fmt.Errorf("the %s body is down and is not restarted: it stopped %d times in a row, the last time: %v", b.name, attempt, why)
				}
				b.setDown(down)
				b.logf("%v", down)
				<-b.stopc
				return
			}
			d := b.restart.delay(attempt)
			b.setDown(fmt.Errorf("the %s body is down (%v); restarting in %s, attempt %d of %d", b.name, why, d, attempt, b.restart.Attempts))
			b.logf("%v", b.Err())
			select {
			case <-b.stopc:
				return
			case <-time.After(d):
			}
			next, err := b.startOne(context.Background())
			if err == nil {
				inst, up = next, time.Now()
				b.setDown(nil)
				b.logf("the %s body was restarted at %s", b.name, b.url)
				break
			}
			why = err
		}
	}
}

func (b *Body) logf(format string, args ...any) {
	if b.log != nil {
		b.log.Info(fmt.Sprintf(format, args...), "body", b.name)
	}
}

// Check reports, without starting anything, what the browser body (when
// browser is not nil) and the host body (when host is not nil) need and
// do not find: a *MissingError, or nil when everything is installed.
func Check(o Options, browser *Browser, host *Host) error {
	if browser != nil {
		if _, _, _, err := browser.installed(o); err != nil {
			return err
		}
	}
	if host != nil {
		if _, _, err := host.installed(o); err != nil {
			return err
		}
	}
	return nil
}

// Start starts the browser body when browser is not nil and the host body
// when host is not nil, side by side, and returns them in that order. If
// one cannot start, the other is stopped and the error says why.
func Start(ctx context.Context, o Options, browser *Browser, host *Host) ([]*Body, error) {
	type result struct {
		b   *Body
		err error
	}
	var starts []func() (*Body, error)
	if browser != nil {
		starts = append(starts, func() (*Body, error) { return StartBrowser(ctx, o, *browser) })
	}
	if host != nil {
		starts = append(starts, func() (*Body, error) { return StartHost(ctx, o, *host) })
	}
	results := make([]chan result, len(starts))
	for i, start := range starts {
		results[i] = make(chan result, 1)
		go func() {
			b, err := start()
			results[i] <- result{b, err}
		}()
	}
	var bodies []*Body
	var errs []error
	for _, c := range results {
		r := <-c
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		bodies = append(bodies, r.b)
	}
	if err := errors.Join(errs...); err != nil {
		StopAll(bodies)
		return nil, err
	}
	return bodies, nil
}

// StopAll stops the bodies side by side and returns when all have
// stopped.
func StopAll(bodies []*Body) {
	var wg sync.WaitGroup
	for _, b := range bodies {
		wg.Go(b.Stop)
	}
	wg.Wait()
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// hosts are the Host values a body on port answers for.
func hosts(port int) []string {
	p := strconv.Itoa(port)
	return []string{"127.0.0.1:" + p, "localhost:" + p}
}

// newMark returns the environment entry that marks every process of one
// body: inherited by everything the body starts, it is how Stop finds
// what left the body's process group.
func newMark(name string) string {
	return markVar + "=" + name + "-" + rand.Text()
}

// markVar is the environment variable that carries a body's mark.
const markVar = "WORKBENCH_BODY"

// withMark is the environment of a body's first process: the owner's,
// with the body's mark in place of any it inherited.
func withMark(mark string) []string {
	env := os.Environ()
	out := env[:0:0]
	for _, e := range env {
		if len(e) > len(markVar) && e[:len(markVar)+1] == markVar+"=" {
			continue
		}
		out = append(out, e)
	}
	return append(out, mark)
}
