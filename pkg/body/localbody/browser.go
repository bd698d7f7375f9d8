package localbody

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"workbench/pkg/mcp"
)

// Browser is the browser body's settings.
type Browser struct {
	// Chromium is the browser Playwright MCP drives; empty means
	// $CHROMIUM, else Debian's /usr/bin/chromium.
	Chromium string
	// Headed shows the browser's window, on a desktop; the default is
	// headless.
	Headed bool
}

// DefaultChromium is the browser Playwright MCP drives when neither
// Browser.Chromium nor $CHROMIUM names one: Debian's, which
// `make chromium` installs.
const DefaultChromium = "/usr/bin/chromium"

// ChromiumPath is the browser a Browser drives.
func (br Browser) ChromiumPath() string {
	switch {
	case br.Chromium != "":
		return br.Chromium
	case os.Getenv("CHROMIUM") != "":
		return os.Getenv("CHROMIUM")
	}
	return DefaultChromium
}

// chromiumArgs are Chromium's own switches. Playwright MCP 0.0.83 has no
// flag for them, so they go in its configuration file. Without the
// background-networking ones Chromium calls home and, on a closed
// network, floods it with refused connections.
func chromiumArgs() []string {
	return []string{"--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync"}
}

// StartBrowser starts the browser body: Playwright MCP on Chromium, on a
// free loopback port, each MCP session in an in-memory browser context of
// its own (--isolated). It returns once an MCP client has completed the
// handshake with it.
func StartBrowser(ctx context.Context, o Options, br Browser) (*Body, error) {
	node, cli, chromium, err := br.installed(o)
	if err != nil {
		return nil, err
	}
	dir, err := browserDir(os.TempDir())
	if err != nil {
		return nil, fmt.Errorf("the browser body: %w", err)
	}
	cfg, _ := json.Marshal(map[string]any{"browser": map[string]any{"launchOptions": map[string]any{"args": chromiumArgs()}}})
	cfgPath := filepath.Join(dir, "config.json")
	port, err := freePort()
	if err == nil {
		err = os.WriteFile(cfgPath, cfg, 0o600)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("the browser body: %w", err)
	}
	args := []string{cli, "--port", strconv.Itoa(port), "--host", "127.0.0.1", "--isolated",
		// Its own name only: Playwright's default would refuse the
		// relay's 127.0.0.1, and "*" would let a DNS-rebinding page in.
		"--allowed-hosts", strings.Join(hosts(port), ","),
		"--executable-path", chromium, "--output-dir", filepath.Join(dir, "out"), "--config", cfgPath}
	mode := "headed"
	if !br.Headed {
		args, mode = append(args, "--headless"), "headless"
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to run sandboxed as root.
		args = append(args, "--no-sandbox")
	} else {
		args = append(args, "--sandbox")
	}
	b := &Body{
		name:    BrowserName,
		about:   "Playwright MCP on Chromium, " + mode,
		url:     fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		restart: o.Restart,
		log:     o.Log,
		out:     &tail{},
		cleanup: func() { os.RemoveAll(dir) },
	}
	mark := newMark(BrowserName)
	b.start = func(ctx context.Context) (instance, error) {
		cmd := exec.Command(node, args...)
		// Playwright keeps its browser profile in TMPDIR; here it is
		// removed with the rest when the body stops.
		cmd.Dir = dir
		p, err := startProcess("Playwright MCP", cmd, mark, b.out, "TMPDIR="+dir)
		if err != nil {
			return nil, fmt.Errorf("the browser body: start Playwright MCP: %w", err)
		}
		if err := awaitHandshake(ctx, b.url, p); err != nil {
			p.stop()
			return nil, fmt.Errorf("the browser body: Playwright MCP did not answer at %s: %w", b.url, err)
		}
		return p, nil
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// installed returns Node.js, Playwright MCP's cli.js and Chromium, or a
// *MissingError for the first that is not installed.
func (br Browser) installed(o Options) (node, cli, chromium string, err error) {
	if node, err = o.node(); err != nil {
		return
	}
	if cli, err = o.script("Playwright MCP", "@playwright", "mcp", "cli.js"); err != nil {
		return
	}
	chromium = br.ChromiumPath()
	if _, serr := os.Stat(chromium); serr != nil {
		err = &MissingError{What: "Chromium", Path: chromium, Make: "chromium", Hint: "or name another with $CHROMIUM"}
		return
	}
	if br.Headed && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		err = &MissingError{What: "a display for a headed browser", Path: "neither $DISPLAY nor $WAYLAND_DISPLAY is set",
			Hint: "run it on a desktop, or leave out --headed"}
	}
	return
}

// awaitHandshake waits until an MCP client completes the handshake at
// url, or p dies, or ctx ends.
func awaitHandshake(ctx context.Context, url string, p *process) error {
	for {
		c, err := mcp.Dial(ctx, url, &mcp.Options{ProtocolVersion: mcp.ProtocolVersion, Timeout: 5 * time.Second})
		if err == nil {
			c.Close(ctx)
			return nil
		}
		select {
		case <-p.done():
			return p.why()
		case <-ctx.Done():
			return fmt.Errorf("%w (the last try: %v)%s", ctx.Err(), err, lastWords(p.out))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// lastWords is the last line a body wrote, for an error message.
func lastWords(t *tail) string {
	if l := t.lastWords(); l != "" {
		return "; it said: " + l
	}
	return ""
}

// process is one run of a body that is a process of its own.
type process struct {
	what   string // what it is, for messages: "Playwright MCP"
	cmd    *exec.Cmd
	mark   string
	out    *tail
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
	once   sync.Once
}

// startProcess starts cmd, which is what, leading a process group of its
// own, with mark and env in its environment and its output (its stdout
// unless that is taken already) into out.
func startProcess(what string, cmd *exec.Cmd, mark string, out *tail, env ...string) (*process, error) {
	cmd.Env = append(withMark(mark), env...)
	if cmd.Stdout == nil {
		cmd.Stdout = out
	}
	cmd.Stderr = out
	// What it started may hold its output open after it ends.
	cmd.WaitDelay = 2 * time.Second
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{what: what, cmd: cmd, mark: mark, out: out, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func (p *process) done() <-chan struct{} { return p.exited }

func (p *process) why() error {
	err := p.err
	if err == nil {
		err = errors.New("exit status 0")
	}
	return fmt.Errorf("%s ended: %w%s", p.what, err, lastWords(p.out))
}

// stop asks the process group to end, kills it after 3 s, and then
// waits for (or kills) everything else that carries the mark.
func (p *process) stop() {
	p.once.Do(func() {
		select {
		case <-p.exited:
		default:
			terminateGroup(p.cmd.Process.Pid)
			select {
			case <-p.exited:
			case <-time.After(3 * time.Second):
				killGroup(p.cmd.Process.Pid)
				<-p.exited
			}
		}
		sweep(p.mark, 3*time.Second)
	})
}

// browserDir makes the browser body's directory under tmp, or under /tmp
// when tmp is too long. Playwright keeps Chromium's profile there (it is
// Playwright's TMPDIR), and Chromium binds a Unix socket in it,
// <dir>/org.chromium.Chromium.XXXXXX/SingletonSocket; a socket's path has
// at most 103 bytes on macOS and 107 on Linux, and Chromium ends at once
// ("Socket path too long") beyond that, which under a long TMPDIR left
// the browser body unable to open any page. Windows has no such socket.
func browserDir(tmp string) (string, error) {
	if runtime.GOOS != "windows" && len(tmp)+len(browserDirTail) > maxSocketPath {
		tmp = "/tmp"
	}
	return os.MkdirTemp(tmp, browserDirPrefix)
}

const (
	browserDirPrefix = "workbench-browser-"
	// browserDirTail is what follows tmp in the path of Chromium's socket:
	// the body's directory (MkdirTemp adds at most 10 digits), then
	// Chromium's own.
	browserDirTail = "/" + browserDirPrefix + "0123456789" + "/org.chromium.Chromium.XXXXXX/SingletonSocket"
	// maxSocketPath is the longest Unix socket path on both macOS and
	// Linux (sun_path, less its terminating NUL: 104 and 108 bytes).
	maxSocketPath = 103
)
