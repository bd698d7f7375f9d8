package localbody

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Host is the host body's settings.
type Host struct {
	// Dir is the one folder the body may list, read and write; empty
	// means DefaultHostDir. It is created if missing.
	Dir string
}

// StartHost starts the host body: the reference filesystem server
// (@modelcontextprotocol/server-filesystem) confined to one folder. It
// speaks MCP over stdio only, so it is served over streamable HTTP on a
// free loopback port through a bridge of go-sdk parts: a stdio client of
// the real server and an HTTP server offering the same tools, each call
// forwarded as it is. The files are read and written by the real server.
// While the server is down the bridge answers 503.
func StartHost(ctx context.Context, o Options, h Host) (*Body, error) {
	node, js, err := h.installed(o)
	if err != nil {
		return nil, err
	}
	dir, err := hostDir(h.Dir)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the host body: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	b := &Body{
		name:    HostName,
		about:   "filesystem server on " + dir + ", file tools only",
		url:     fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		restart: o.Restart,
		log:     o.Log,
		out:     &tail{},
	}
	br := &bridge{body: b}
	srv := &http.Server{Handler: br.handler(hosts(port)), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	b.cleanup = func() { srv.Close() }
	mark := newMark(HostName)
	b.start = func(ctx context.Context) (instance, error) {
		return br.start(ctx, exec.Command(node, js, dir), mark)
	}
	if err := b.run(ctx); err != nil {
		return nil, err
	}
	return b, nil
}

// installed returns Node.js and the filesystem server's script, or a
// *MissingError for the first that is not installed.
func (Host) installed(o Options) (node, js string, err error) {
	if node, err = o.node(); err != nil {
		return
	}
	js, err = o.script("the filesystem MCP server", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	return
}

// hostDir makes dir (DefaultHostDir when empty) if it is missing and
// returns its absolute path, symbolic links resolved as the filesystem
// server resolves them.
func hostDir(dir string) (string, error) {
	if dir == "" {
		dir = DefaultHostDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("the host body's folder: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("the host body's folder %s: %w", dir, err)
	}
	return abs, nil
}

// bridge serves the filesystem server it is attached to over streamable
// HTTP. Its HTTP sessions outlive a restart of the server: the next call
// goes to the new one.
type bridge struct {
	body *Body

	mu    sync.Mutex
	cs    *sdk.ClientSession // nil while the server is down
	srv   *sdk.Server        // made at the first attach, with the server's name
	tools []string           // the names srv offers
}

// handler is the bridge's HTTP side: the go-sdk's streamable HTTP
// handler (its own DNS-rebinding and cross-origin protection on) at /mcp,
// for the Host values hosts only, and 503 while the server is down.
func (br *bridge) handler(hosts []string) http.Handler {
	h := http.NewCrossOriginProtection().Handler(sdk.NewStreamableHTTPHandler(
		func(*http.Request) *sdk.Server { return br.server() }, &sdk.StreamableHTTPOptions{SessionTimeout: time.Hour}))
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(hosts, r.Host) {
			http.Error(w, "this server answers for "+hosts[0]+" only", http.StatusForbidden)
			return
		}
		if br.session() == nil {
			msg := "the host body is down"
			if err := br.body.Err(); err != nil {
				msg = err.Error()
			}
			w.Header().Set("Retry-After", "1")
			http.Error(w, msg, http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	})
	return mux
}

func (br *bridge) session() *sdk.ClientSession {
	br.mu.Lock()
	defer br.mu.Unlock()
	return br.cs
}

func (br *bridge) server() *sdk.Server {
	br.mu.Lock()
	defer br.mu.Unlock()
	return br.srv
}

// start runs the filesystem server and attaches the bridge to it.
func (br *bridge) start(ctx context.Context, cmd *exec.Cmd, mark string) (instance, error) {
	// The server speaks on its stdin and stdout; the pipes are the
	// bridge's own so that the process is started and waited for like
	// any other body's.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	p, err := startProcess("the filesystem server", cmd, mark, br.body.out)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("the host body: start the filesystem server: %w", err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "workbench-host-bridge", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err == nil {
		err = br.attach(ctx, cs)
		if err != nil {
			cs.Close()
		}
	}
	if err != nil {
		// Ended before it answered: its own exit says more.
		select {
		case <-p.done():
			err = p.why()
		default:
			err = fmt.Errorf("%w%s", err, lastWords(br.body.out))
		}
		inW.Close()
		outR.Close()
		p.stop()
		return nil, fmt.Errorf("the host body: the filesystem server did not answer: %w", err)
	}
	return &hostRun{br: br, cs: cs, p: p}, nil
}

// attach makes cs the server the bridge forwards to, offering its tools
// as they are now.
func (br *bridge) attach(ctx context.Context, cs *sdk.ClientSession) error {
	var tools []*sdk.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing its tools: %w", err)
		}
		tools = append(tools, t)
	}
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.srv == nil {
		res := cs.InitializeResult()
		info := sdk.Implementation{Name: "filesystem", Version: "unknown"}
		var instructions string
		if res != nil && res.ServerInfo != nil {
			info = sdk.Implementation{Name: res.ServerInfo.Name, Version: res.ServerInfo.Version}
		}
		if res != nil {
			instructions = res.Instructions
		}
		br.srv = sdk.NewServer(&info, &sdk.ServerOptions{Instructions: instructions})
	}
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	var gone []string
	for _, n := range br.tools {
		if !slices.Contains(names, n) {
			gone = append(gone, n)
		}
	}
	br.srv.RemoveTools(gone...)
	for _, t := range tools {
		br.srv.AddTool(t, br.forward)
	}
	br.tools, br.cs = names, cs
	return nil
}

// forward passes a call to the server attached now.
func (br *bridge) forward(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	cs := br.session()
	if cs == nil {
		return nil, errors.New("the host body is down")
	}
	return cs.CallTool(ctx, &sdk.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
}

// detach stops forwarding to cs, if it is still the one attached.
func (br *bridge) detach(cs *sdk.ClientSession) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.cs == cs {
		br.cs = nil
	}
}

// hostRun is one run of the filesystem server behind the bridge.
type hostRun struct {
	br   *bridge
	cs   *sdk.ClientSession
	p    *process
	once sync.Once
}

func (h *hostRun) done() <-chan struct{} { return h.p.done() }

func (h *hostRun) why() error { return h.p.why() }

// stop detaches the bridge, ends the session (the server exits when its
// stdin closes) and then the process.
func (h *hostRun) stop() {
	h.once.Do(func() {
		h.br.detach(h.cs)
		h.cs.Close()
		select {
		case <-h.p.done():
		case <-time.After(2 * time.Second):
		}
		h.p.stop()
	})
}
