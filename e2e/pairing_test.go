package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"workbench/internal/interrupt"
	"workbench/pkg/body/mcpbody/mcpbodytest"
	"workbench/pkg/openrouter/openroutertest"
)

// pairedBodies is a `workbench bodies` the test started: where it serves
// and the secret it printed.
type pairedBodies struct {
	addr, port, secret string
}

// startBodies runs `workbench bodies` for the page origin, as a visitor
// runs it on their own machine, and reads the pairing secret it prints.
func startBodies(t testing.TB, origin string) pairedBodies {
	t.Helper()
	b := pairedBodies{port: freePort(t)}
	b.addr = "127.0.0.1:" + b.port
	cmd := exec.Command(setup.workbench, "bodies", "--allow-origin", origin, "--addr", b.addr,
		"--host-dir", filepath.Join(t.TempDir(), "workspace"))
	cmd.Dir = setup.root // node_modules holds the MCP servers
	cmd.Env = interrupt.Env(os.Environ())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuilder
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Ctrl+C, as a person stops it: it ends what it started.
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("workbench bodies' log:\n%s", logs.String())
		}
	})
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if s, ok := strings.CutPrefix(lines.Text(), "pairing secret: "); ok {
			b.secret = strings.TrimSpace(s)
			break
		}
	}
	if b.secret == "" {
		t.Fatalf("workbench bodies printed no pairing secret:\n%s", logs.String())
	}
	go func() {
		for lines.Scan() {
		}
	}()
	return b
}

// allowOrigin lets the tab reach origin as well as its own: the bodies of
// the computer it is paired with.
func (s *session) allowOrigin(origin string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.origins = append(s.origins, origin)
}

// The deployed workbench reaches the visitor's own machine: the built site
// and Worker under wrangler dev (no MCP server of its own) offer "This
// computer"; `workbench bodies` on another port is paired with the secret
// it printed; and a browser skill is taught on the paired Playwright MCP,
// saved, and replayed with one press each — the page talking MCP to the
// loopback address directly, the secret only in the tab's sessionStorage.
func TestPairingFromTheDeployedSite(t *testing.T) {
	t.Parallel()
	shop := mcpbodytest.StartShop(t)
	click := openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
		return mcpbodytest.ClickDocs(r.LastToolResult, r.LastUser, openroutertest.ToolCall, openroutertest.Answer)
	})
	const replayer = "example/replayer"
	s := newSession(t, withWrangler(), withTimeout(10*time.Minute), withOpenRouter(openroutertest.WithScript(
		openroutertest.Script{Model: teacher, CostPerCall: 0.001, Steps: []openroutertest.Step{
			openroutertest.ToolCall("browser_navigate", map[string]any{"url": shop.URL + "/"}), click, openroutertest.Answer("Getting started")}},
		openroutertest.Script{Model: replayer, Steps: []openroutertest.Step{click}},
	)))
	bodies := startBodies(t, s.base)
	s.allowOrigin("http://" + bodies.addr)

	s.keepKey(s.OR.Key)
	// No MCP server on this deployment: "This computer", with the one
	// command to run, and no operator's command anywhere.
	s.waitText("#body-browser-note", "pair this computer below")
	if got := s.text("#pair-command"); got != "make bodies ORIGIN="+s.base {
		t.Errorf("the pairing command reads %q", got)
	}
	// The command follows the port typed (8790 unless said).
	s.setField("#pair-port", bodies.port, "input")
	s.waitText("#pair-command", "make bodies ORIGIN="+s.base+" PORT="+bodies.port)
	s.typeInto("#pair-secret", bodies.secret)
	s.click("#pair-submit")
	s.waitVisible("#pairing-state")
	if got := eval[string](s, `sessionStorage.getItem("workbench.pairing.secret")`); got != bodies.secret {
		t.Errorf("sessionStorage holds the secret as %q", got)
	}
	if got := eval[string](s, `document.querySelector("#pair-secret") ? document.querySelector("#pair-secret").value : ""`); got != "" {
		t.Error("the secret is still in the field after pairing")
	}
	s.waitText("#body-browser-note", "On this computer (paired): reachable")
	s.waitText("#body-host-note", "On this computer (paired): reachable")
	s.click("#trust-browser")
	s.click("#body-browser")
	s.waitVisible("#local-policy-question")
	s.click("#local-policy-accept")
	s.waitVisible("#local-policy-notice")

	// One Start teaches.
	s.open("/teach")
	s.waitVisible("#teach-form")
	s.setField("#teach-scenario", "freeform", "change")
	s.waitVisible("#teach-task")
	s.setField("#teach-task", "Open "+shop.URL+"/ , follow the Docs link and read its heading.", "input")
	s.setField("#teach-model", teacher, "input")
	s.waitFor(`!document.querySelector("#teach-start").disabled`)
	s.click("#teach-start")
	s.waitLong(present("#teach-draft, #teach-outcome .status-error"))
	if !eval[bool](s, present("#teach-draft")) {
		t.Fatalf("no draft: %s", s.text("main"))
	}
	s.waitFor(`!document.querySelector("#teach-save").disabled`)
	s.click("#teach-save")
	s.waitLong(`location.pathname.startsWith("/skills/")`)
	l := s.library()
	if len(l.Skills) != 1 {
		t.Fatalf("%d skills stored", len(l.Skills))
	}
	if b := s.storedBundles(); len(b) != 1 || b[0].Manifest.BodyChoice != "browser" {
		t.Fatalf("stored %+v, want one browser skill", b)
	}

	// One press replays it, on the paired browser.
	s.open("/skills/" + l.Skills[0].ID + "/replay")
	s.waitVisible("#replay-form")
	s.setField("#replay-model", replayer, "input")
	s.click("#replay-run")
	s.waitLong(`!!document.querySelector("#replay-outcome, #replay-error") && !document.querySelector("#replay-run").disabled`)
	if got := s.text("#replay-status"); got != "success" {
		t.Errorf("replay status %q: %s", got, s.text("main"))
	}
	if steps := s.text("#replay-steps"); !strings.Contains(steps, "Getting started") {
		t.Errorf("the replay's steps do not say what it read: %s", steps)
	}
	// Nothing of the pairing outlives the tab.
	if got := eval[int](s, `localStorage.length`); got != 0 {
		t.Errorf("localStorage holds %d items", got)
	}
}
