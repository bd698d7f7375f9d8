package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"workbench/pkg/body/localbody"
	"workbench/pkg/pairing"
	"workbench/pkg/proxy"
)

// runBodies serves the two local bodies to one deployed workbench page:
// the pairing server of package pairing on a loopback port, in front of
// the browser and host bodies package localbody starts and owns.
func runBodies(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bodies", flag.ContinueOnError)
	fl.SetOutput(stderr)
	origin := fl.String("allow-origin", "", "the `origin` of the workbench page that may use the bodies, https://… (required)")
	addr := fl.String("addr", pairing.DefaultAddr, "`127.0.0.1:PORT` to serve the bodies on (loopback only)")
	var bf localBodyFlags
	bf.register(fl)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: workbench bodies --allow-origin https://<the workbench's origin> [flags]")
		fmt.Fprintln(stderr, "Runs a browser and a host body on this machine for one workbench page, at http://127.0.0.1:PORT/mcp/browser and /mcp/host,")
		fmt.Fprintln(stderr, "behind a pairing secret it prints at start. Ctrl+C stops them and everything they started.")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "workbench bodies: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	if *origin == "" {
		fmt.Fprintln(stderr, "workbench bodies: --allow-origin is required: the origin of the workbench page that may use the bodies, e.g. https://workbench.example")
		return 2
	}
	if err := pairing.CheckOrigin(*origin); err != nil {
		fmt.Fprintf(stderr, "workbench bodies: --allow-origin %s: %v\n", *origin, err)
		return 2
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil || (host != "127.0.0.1" && host != "localhost") {
		fmt.Fprintf(stderr, "workbench bodies: --addr %s: want 127.0.0.1:PORT or localhost:PORT; the bodies are served on the loopback interface only\n", *addr)
		return 2
	}
	// localhost is served on 127.0.0.1 alone: a Host of [::1] is refused.
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		fmt.Fprintf(stderr, "workbench bodies: --addr: %v\n", err)
		return 1
	}
	defer ln.Close()
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	bodies, err := bf.start(ctx, logger, true, true)
	if err != nil {
		fmt.Fprintf(stderr, "workbench bodies: %v\n", err)
		return 1
	}
	defer localbody.StopAll(bodies)
	base := "http://" + ln.Addr().String() + pairing.MountPath
	var servers []proxy.MCPServer
	for _, b := range bodies {
		servers = append(servers, proxy.MCPServer{Name: b.Name(), URL: b.URL()})
	}
	secret := pairing.NewSecret()
	h, err := pairing.New(pairing.Config{Origin: *origin, Addr: ln.Addr().String(), Secret: secret, Servers: servers,
		Doer: proxy.NewHTTPDoer(), Log: logRequests(logger)})
	if err != nil {
		fmt.Fprintf(stderr, "workbench bodies: %v\n", err)
		return 2
	}
	srv := &http.Server{Handler: h}
	defaultServerTimeouts.apply(srv)
	for _, b := range bodies {
		fmt.Fprintf(stdout, "workbench: %s body: %s, at %s%s\n", b.Name(), b.About(), base, b.Name())
	}
	fmt.Fprintf(stdout, "workbench: serving the bodies at %s to the page at %s only; Ctrl+C stops them\n", base, *origin)
	fmt.Fprintf(stdout, "pairing secret: %s\n", secret)
	return serveUntilDone(ctx, srv, ln, stderr, "workbench bodies")
}

// localBodyFlags are the flags of the local bodies, shared by serve and
// bodies.
type localBodyFlags struct {
	hostDir string
	headed  bool
}

func (bf *localBodyFlags) register(fl *flag.FlagSet) {
	fl.StringVar(&bf.hostDir, "host-dir", localbody.DefaultHostDir, "the one `directory` the host body may list, read and write (created if missing)")
	fl.BoolVar(&bf.headed, "headed", false, "show the browser body's window (on a desktop); headless by default")
}

// start starts the browser body and the host body (those asked for),
// each restarted by localbody's default policy, its restarts logged.
func (bf *localBodyFlags) start(ctx context.Context, logger *slog.Logger, browser, host bool) ([]*localbody.Body, error) {
	var b *localbody.Browser
	var h *localbody.Host
	if browser {
		b = &localbody.Browser{Headed: bf.headed}
	}
	if host {
		h = &localbody.Host{Dir: bf.hostDir}
	}
	return localbody.Start(ctx, localbody.Options{Restart: localbody.DefaultRestart(), Log: logger}, b, h)
}

// logRequests logs one line per MCP request, as serve does.
func logRequests(logger *slog.Logger) func(proxy.MCPEvent) {
	return func(e proxy.MCPEvent) {
		logger.Info("mcp", "method", e.Method, "server", e.Server, "status", e.Status, "code", e.Code, "duration", e.Duration)
	}
}

// serveUntilDone serves srv on ln until ctx ends (Ctrl+C, SIGTERM), then
// shuts it down within 5 s.
func serveUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, stderr io.Writer, who string) int {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "%s: %v\n", who, err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "%s: shutdown: %v\n", who, err)
		return 1
	}
	return 0
}
