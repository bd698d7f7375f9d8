// Package mcpbodytest starts the real MCP servers that body tests drive,
// each in a test's lifetime, through the production package localbody:
// Playwright MCP on Debian's Chromium for the browser body, and the
// reference filesystem server behind its HTTP bridge for the host body;
// and serves Shop, a site to teach a browser skill on and then change.
//
// A server whose npm package or browser is missing skips the test, or
// fails it when WORKBENCH_BODIES_REQUIRED is set (make test-bodies and
// make test-e2e set it after installing them). A server a test starts is
// never restarted: a test that stops one sees the outage. It is imported
// only by tests; no production path reaches it.
package mcpbodytest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"workbench/pkg/body/localbody"
	"workbench/pkg/modtest"
)

// Chromium is the browser Playwright MCP drives: $CHROMIUM, or Debian's
// /usr/bin/chromium.
func Chromium() string { return localbody.Browser{}.ChromiumPath() }

// missing skips t, or fails it when the servers are required.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("WORKBENCH_BODIES_REQUIRED") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (make test-bodies and make test-e2e install it)")
}

// Options are the localbody options of a test: the module's
// node_modules, and no restarts.
func Options(t testing.TB) localbody.Options {
	return localbody.Options{NodeModules: filepath.Join(modtest.Root(t), "node_modules")}
}

// Require skips t, or fails it when the servers are required, unless
// both bodies' packages and Chromium are installed: for a test that
// starts them through a command.
func Require(t testing.TB) {
	t.Helper()
	if err := localbody.Check(Options(t), &localbody.Browser{Chromium: Chromium()}, &localbody.Host{}); err != nil {
		missing(t, "%v", err)
	}
}

// Server is a body a test started.
type Server struct {
	// URL is the server's streamable HTTP endpoint.
	URL  string
	body *localbody.Body
}

// Stop ends the server and everything it started. It may be called more
// than once, and is called when the test ends.
func (s *Server) Stop() { s.body.Stop() }

// Playwright starts the browser body (localbody.StartBrowser): Playwright
// MCP on Chromium, headless, on a free loopback port, each MCP session in
// an in-memory browser context of its own. It returns once an MCP client
// completes the handshake.
func Playwright(t testing.TB) *Server {
	t.Helper()
	return started(t, func(ctx context.Context) (*localbody.Body, error) {
		return localbody.StartBrowser(ctx, Options(t), localbody.Browser{Chromium: Chromium()})
	})
}

// Filesystem starts the host body (localbody.StartHost) on dir: the
// reference filesystem server (@modelcontextprotocol/server-filesystem)
// behind the bridge that serves it over streamable HTTP. The files are
// read and written by the real server.
func Filesystem(t testing.TB, dir string) *Server {
	t.Helper()
	return started(t, func(ctx context.Context) (*localbody.Body, error) {
		return localbody.StartHost(ctx, Options(t), localbody.Host{Dir: dir})
	})
}

func started(t testing.TB, start func(context.Context) (*localbody.Body, error)) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := start(ctx)
	var me *localbody.MissingError
	if errors.As(err, &me) {
		missing(t, "%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Stop()
		if t.Failed() {
			t.Logf("output of the %s body:\n%s", b.Name(), b.Output())
		}
	})
	return &Server{URL: b.URL(), body: b}
}
