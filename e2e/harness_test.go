package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"workbench/internal/interrupt"
	"workbench/pkg/openrouter/openroutertest"
)

// session is one test's workbench: a `workbench serve` process, the
// OpenRouter stand-in behind it, and one tab in a browser context of its
// own (the shared Chromium's equivalent of a fresh profile).
type session struct {
	t    testing.TB
	base string // http://127.0.0.1:<port>, the only origin the browser may reach
	OR   *openroutertest.Server
	ctx  context.Context // the tab

	mu       sync.Mutex
	origins  []string // other origins the tab may reach (a paired computer's bodies)
	requests []string // every URL the tab requested
	problems []string // console errors, exceptions, log errors
	console  []string // the page's other console output: Go's stdout and stderr
	expected []string // console texts the test provokes on purpose
}

// options adjusts a session.
type options struct {
	or       []openroutertest.Option
	serve    []string      // extra `workbench serve` flags
	timeout  time.Duration // the whole session's; 6 minutes by default (tests run side by side)
	wrangler bool          // serve the site with the Worker under wrangler dev, not workbench serve
	registry bool          // under wrangler dev, with the registry's D1 migrations applied
	base     string        // the origin of another session to share, instead of starting a server
	bodies   bool          // workbench serve starts its own browser and host bodies, as make run does
	warmup   bool          // the app's idle warm-up runs, as in a person's browser
}

// withBodies lets `workbench serve` start the browser and host bodies it
// owns, as `make run` does; other sessions run it with --no-bodies.
func withBodies() option {
	return func(o *options) { o.bodies = true }
}

// withWrangler serves the built site and the Worker under `wrangler dev`
// (workerd), as a Cloudflare deployment does, instead of `workbench serve`.
func withWrangler() option {
	return func(o *options) { o.wrangler = true }
}

// withRegistry is withWrangler with the registry's index made: the D1
// migrations applied before the dev server starts, as an operator applies
// them after deploying.
func withRegistry() option {
	return func(o *options) { o.wrangler, o.registry = true, true }
}

// withIdleWarmup lets the app's idle warm-up run (app/warmup.go). The
// tests' pages run without it, as in a browser without
// requestIdleCallback: it exists to get the compiled module into the code
// cache, which the tests' V8 never writes (it compiles with its baseline
// compiler only, startBrowser), and it changes nothing a test looks at.
// Benchmarks always run it.
func withIdleWarmup() option {
	return func(o *options) { o.warmup = true }
}

// withServerOf makes the session a second browser profile on other's
// server: a browser context of its own (empty storage, no key), the same
// origin, no server of its own.
func withServerOf(other *session) option {
	return func(o *options) { o.base = other.base }
}

type option func(*options)

// withServeFlags adds flags to `workbench serve`, e.g. --mcp name=URL.
func withServeFlags(flags ...string) option {
	return func(o *options) { o.serve = append(o.serve, flags...) }
}

// withTimeout bounds the whole session (a benchmark's setup may need
// more than the default 6 minutes).
func withTimeout(d time.Duration) option {
	return func(o *options) { o.timeout = d }
}

// withOpenRouter configures the OpenRouter stand-in.
func withOpenRouter(opts ...openroutertest.Option) option {
	return func(o *options) { o.or = append(o.or, opts...) }
}

// cspProbe records every CSP violation in the page, before any page script
// runs, so a violation the console does not show is still seen.
const cspProbe = `window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
});`

// noIdleCallback takes requestIdleCallback from the page before any page
// script runs; the app's idle warm-up then leaves itself out
// (startIdleWarmup). See withIdleWarmup.
const noIdleCallback = `window.requestIdleCallback = undefined;`

var servingAt = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+) `)

// goCrash matches the first line Go's runtime writes when the program
// ends abnormally.
var goCrash = regexp.MustCompile(`^"?(panic: |fatal error: )`)

// newSession starts everything and registers the end-of-test checks.
func newSession(t testing.TB, opts ...option) *session {
	t.Helper()
	var o options
	for _, f := range opts {
		f(&o)
	}
	s := &session{t: t, OR: openroutertest.New(t, o.or...)}
	switch {
	case o.base != "":
		s.base = o.base
	case o.wrangler:
		s.base = startWrangler(t, s.OR.URL+openroutertest.APIPath, o.registry)
	default:
		flags := o.serve
		if !o.bodies {
			flags = append([]string{"--no-bodies"}, flags...)
		}
		s.base = startServe(t, s.OR.URL+openroutertest.APIPath, flags)
	}

	// A browser context of its own: empty storage, cache and cookies.
	tab, cancelTab := chromedp.NewContext(setup.browser, chromedp.WithNewBrowserContext(), chromedp.WithListener(s.listen))
	if o.timeout == 0 {
		o.timeout = 6 * time.Minute
	}
	ctx, cancelTimeout := context.WithTimeout(tab, o.timeout)
	s.ctx = ctx
	t.Cleanup(func() { cancelTimeout(); cancelTab() })
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		probe := cspProbe
		if !o.warmup && !setup.measuring {
			probe += "\n" + noIdleCallback
		}
		_, err := cdp.Call(ctx, tt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: probe})
		if err != nil {
			return err
		}
		// Tests run in parallel tabs of one Chromium, and only one tab of
		// a window has the focus: each tab behaves as the focused one, so
		// focus, blur and :focus-visible work as for a person at it.
		_, err = cdp.Call(ctx, tt, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
		if err != nil {
			return err
		}
		// Less motion asked for, as a person may: the loading icon stands
		// still instead of being composited in software every frame on
		// the CPU the side-by-side tests share.
		_, err = cdp.Call(ctx, tt, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
		})
		return err
	}))
	// Registered after the browser's cleanup, so it runs before it.
	t.Cleanup(s.checkClean)
	return s
}

// startServe starts `workbench serve` with the built site, the OpenRouter
// proxy pointed at upstream and the extra flags, and returns its origin.
// Its host body, when it starts one, works in a folder of the test's.
func startServe(t testing.TB, upstream string, flags []string) string {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--site", setup.site,
		"--openrouter-upstream", upstream, "--host-dir", t.TempDir()}, flags...)
	cmd := exec.Command(setup.workbench, args...)
	cmd.Dir = setup.root // the bodies' MCP servers are in node_modules there
	cmd.Env = interrupt.Env(os.Environ())
	base := ""
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var serveLog strings.Builder
	cmd.Stderr = &lockedWriter{w: &serveLog}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("workbench serve log:\n%s", serveLog.String())
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if m := servingAt.FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
			break
		}
	}
	if base == "" {
		t.Fatalf("workbench serve did not say where it listens (stderr: %s)", serveLog.String())
	}
	go io.Copy(io.Discard, stdout)
	return base
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// listen runs in the tab's event loop: it only records.
func (s *session) listen(ev any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		s.requests = append(s.requests, ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		var parts []string
		for _, a := range ev.Args {
			if a.Value != nil {
				parts = append(parts, string(a.Value))
			} else {
				parts = append(parts, a.Description)
			}
		}
		text := strings.Join(parts, " ")
		switch {
		case ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert:
			s.problems = append(s.problems, "console."+string(ev.Type)+": "+text)
		case goCrash.MatchString(text):
			// wasm_exec.js writes Go's stderr with console.log: a panic
			// or a fatal error there is the app gone.
			s.problems = append(s.problems, "the Go program stopped: "+text)
		}
		s.console = append(s.console, text)
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		s.problems = append(s.problems, "exception: "+text)
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError {
			s.problems = append(s.problems, "log ("+string(ev.Entry.Source)+"): "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	}
}

// expectConsole says that a console error containing text is the test's
// own doing (a request it makes fail on purpose).
func (s *session) expectConsole(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expected = append(s.expected, text)
}

// checkClean fails the test for anything the app must never do.
func (s *session) checkClean() {
	t := s.t
	if s.ctx.Err() != nil {
		t.Error("the browser was gone before the end-of-test checks")
		return
	}
	if n, err := chromedp.Run(s.ctx, chromedp.Evaluate[int](
		`navigator.serviceWorker.getRegistrations().then((r) => r.length)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Errorf("reading service worker registrations: %v", err)
	} else if n != 0 {
		t.Errorf("%d service workers registered", n)
	}
	if v, err := chromedp.Run(s.ctx, chromedp.Evaluate[[]string](`window.__cspViolations || []`)); err != nil {
		t.Errorf("reading CSP violations: %v", err)
	} else if len(v) > 0 {
		t.Errorf("CSP violations:\n  %s", strings.Join(v, "\n  "))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.requests {
		if !sameOrigin(u, s.base) && !slices.ContainsFunc(s.origins, func(o string) bool { return sameOrigin(u, o) }) {
			t.Errorf("request to another origin: %s", u)
		}
	}
next:
	for _, p := range s.problems {
		for _, e := range s.expected {
			if strings.Contains(p, e) {
				continue next
			}
		}
		t.Errorf("console: %s", p)
	}
	if t.Failed() && len(s.console) > 0 {
		t.Logf("the page's console (its last 200 lines):\n%s", strings.Join(s.console[max(0, len(s.console)-200):], "\n"))
	}
}

func sameOrigin(raw, base string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return u.Scheme+"://"+u.Host == base
}

// as makes the session report its failures to t, a subtest of the test
// that made it, until the function it returns is called: a failed step
// must end the subtest, on the subtest's own goroutine.
func (s *session) as(t testing.TB) (restore func()) {
	prev := s.t
	s.t = t
	return func() { s.t = prev }
}

// do runs browser steps and fails the test on error.
func (s *session) do(steps ...chromedp.Action[chromedp.Void]) {
	s.t.Helper()
	if err := chromedp.Do(s.ctx, steps...); err != nil {
		s.t.Fatalf("browser: %v", err)
	}
}

// run runs one browser action that returns a value.
func run[T any](s *session, a chromedp.Action[T]) T {
	s.t.Helper()
	v, err := chromedp.Run(s.ctx, a)
	if err != nil {
		s.t.Fatalf("browser: %v", err)
	}
	return v
}

// open shows path as a person following a link would: once the app runs
// in the tab, through the app's own navigation (go-app's goappNav, no
// reload, the tab's state kept), and by loading the page otherwise or
// when path is the page already shown. A test that means a reload says
// load.
func (s *session) open(path string) {
	s.t.Helper()
	inApp := fmt.Sprintf(`(() => {
  if (typeof window.goappNav !== "function" || document.getElementById("app-wasm-loader") || document.querySelector(".wb-shell")) return false;
  const to = new URL(%q, location.origin);
  if (to.href === location.href) return false;
  window.goappNav(to.href);
  return true;
})()`, path)
	if !run(s, chromedp.Evaluate[bool](inApp)) {
		s.load(path)
		return
	}
	s.do(
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`location.href === new URL(%q, location.origin).href`, path), chromedp.WithPollingTimeout(time.Minute)),
		chromedp.WaitVisible(chromedp.CSS("main#main")),
	)
}

// load loads path (a reload when it is the page shown) and waits until the
// app has started and rendered the page (the wasm loader gone, the
// neutral shell replaced).
func (s *session) load(path string) {
	s.t.Helper()
	s.do(
		chromedp.Navigate(s.base+path),
		chromedp.WaitNotPresent(chromedp.ID("app-wasm-loader")),
		chromedp.WaitNotPresent(chromedp.CSS(".wb-shell")),
		chromedp.WaitVisible(chromedp.CSS("main#main")),
	)
}

// waitVisible waits for the first element matching a CSS selector.
//
// It gives up after two minutes, saying which element never showed, rather
// than spending the rest of the session waiting.
func (s *session) waitVisible(sel string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		s.t.Fatalf("browser: waiting for %s to be visible: %v", sel, err)
	}
}

// text returns the text of the first element matching a CSS selector,
// once there is one: its innerText when it is rendered, "" when it is not.
// The element is found and read in one evaluation: the page may replace
// it between two protocol calls (a re-render), and a node id found by the
// first is then unknown to the second ("No node with given id found").
func (s *session) text(sel string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
	defer cancel()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return null;
  return {text: e.offsetWidth || e.offsetHeight || e.getClientRects().length ? e.innerText : ""}; })()`, sel)
	v, err := chromedp.Run(ctx, chromedp.Poll[struct{ Text string }](expr, chromedp.WithPollingTimeout(0)))
	if err != nil {
		s.t.Fatalf("browser: reading the text of %s: %v", sel, err)
	}
	return v.Text
}

// click clicks the first element matching a CSS selector (see tap).
func (s *session) click(sel string) {
	s.t.Helper()
	s.tap(sel)
}

// typeInto types text into the element matching a CSS selector.
func (s *session) typeInto(sel, text string) {
	s.t.Helper()
	s.do(chromedp.SendKeys(chromedp.CSS(sel), text))
}

// upload sets the files of an <input type=file>.
func (s *session) upload(sel string, files ...string) {
	s.t.Helper()
	s.do(chromedp.SetUploadFiles(chromedp.CSS(sel), files))
}

// eval evaluates a JavaScript expression (awaiting a promise it returns).
func eval[T any](s *session, expr string) T {
	s.t.Helper()
	return run(s, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// waitText waits until the element's text contains want and returns it.
func (s *session) waitText(sel, want string) string {
	s.t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q); })()`, sel, want)
	s.do(chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(30*time.Second)))
	return s.text(sel)
}

// drop drops files on the element matching a CSS selector, as a user
// dragging them from the desktop would (Input.dispatchDragEvent).
func (s *session) drop(sel string, files ...string) {
	s.t.Helper()
	box := run(s, chromedp.Dimensions(chromedp.CSS(sel)))
	q := box.Content
	x, y := (q[0]+q[2])/2, (q[1]+q[5])/2
	data := &input.DragData{Files: files, DragOperationsMask: 1}
	s.do(chromedp.Func(func(ctx context.Context, tt *chromedp.Target) error {
		for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
			if _, err := cdp.Call(ctx, tt, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: x, Y: y, Data: data}); err != nil {
				return fmt.Errorf("%s: %w", typ, err)
			}
		}
		return nil
	}))
}
