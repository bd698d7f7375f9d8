// Command mcpsize compares, for GOOS=js GOARCH=wasm, the size of a small
// program using this project's MCP client (package mcp) with the same
// program using the go-sdk client, and a floor program that only POSTs
// JSON with net/http. Each is built with -trimpath -ldflags='-s -w'; the
// table gives raw and gzip -9 sizes and what each adds to the floor.
//
// With -browser it also runs both probes in headless Chromium, where
// net/http goes through fetch, against a go-sdk server served on the
// page's origin (SSE and JSON response modes), and reports whether each
// listed the tools, got the echo's text and structured content, and saw
// the progress notifications.
//
// Usage:
//
//	mcpsize [-browser] [-chromium /usr/bin/chromium]
//
// It exits 1 when a probe fails in the browser and 2 when a build or the
// browser cannot run.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"workbench/internal/headless"
)

//go:embed page
var page embed.FS

// probe is one program measured.
type probe struct {
	name, pkg string
	raw, gz   int
	buildErr  string
	browser   map[string]string // mode → "PASS" or what went wrong
}

func main() {
	browser := flag.Bool("browser", false, "also run the probes in headless Chromium against a go-sdk server")
	chromium := flag.String("chromium", "/usr/bin/chromium", "Chromium binary")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	code, err := run(ctx, *browser, *chromium, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpsize:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func run(ctx context.Context, browser bool, chromium string, out io.Writer) (int, error) {
	work, err := os.MkdirTemp("", "mcpsize")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(work)
	probes := []*probe{
		{name: "baseline", pkg: "./cmd/mcpsize/baseline"},
		{name: "ours", pkg: "./cmd/mcpsize/ours"},
		{name: "gosdk", pkg: "./cmd/mcpsize/gosdk"},
	}
	for _, p := range probes {
		if err := build(ctx, p, filepath.Join(work, p.name+".wasm")); err != nil {
			return 0, err
		}
	}
	code := 0
	if browser {
		if code, err = runBrowser(ctx, work, chromium, probes[1:]); err != nil {
			return 0, err
		}
	}
	report(out, probes, browser)
	return code, nil
}

func build(ctx context.Context, p *probe, dst string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", dst, p.pkg)
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		p.buildErr = strings.Join(strings.Fields(string(msg)), " ")
		return nil
	}
	data, err := os.ReadFile(dst)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	p.raw, p.gz = len(data), buf.Len()
	return nil
}

func report(w io.Writer, probes []*probe, browser bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "program\tbuilds\traw bytes\tgzip -9 bytes\t+raw over baseline\t+gzip over baseline\t"
	if browser {
		head += "browser SSE\tbrowser JSON\t"
	}
	fmt.Fprintln(tw, head)
	base := probes[0]
	for _, p := range probes {
		if p.buildErr != "" {
			fmt.Fprintf(tw, "%s\tno\t\t\t\t\t\n", p.name)
			continue
		}
		line := fmt.Sprintf("%s\tyes\t%d\t%d\t%+d\t%+d\t", p.name, p.raw, p.gz, p.raw-base.raw, p.gz-base.gz)
		if browser && p.browser != nil {
			line += p.browser["sse"] + "\t" + p.browser["json"] + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	for _, p := range probes {
		if p.buildErr != "" {
			fmt.Fprintf(w, "%s does not build for js/wasm: %s\n", p.name, p.buildErr)
		}
	}
}

// echoIn and echoOut are the probe server's echo tool.
type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Echoed string `json:"echoed"`
}

func newServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "mcpsize", Version: "0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echoes its text, with two progress notifications."},
		func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 2; i++ {
					req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2})
				}
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, echoOut{Echoed: in.Text}, nil
		})
	return s
}

func runBrowser(ctx context.Context, work, chromium string, probes []*probe) (int, error) {
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return 0, fmt.Errorf("go env GOROOT: %w", err)
	}
	s := newServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp-sse", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	mux.Handle("/mcp-json", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	mux.HandleFunc("/wasm_exec.js", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	})
	for _, p := range probes {
		mux.HandleFunc("/"+p.name+".wasm", func(w http.ResponseWriter, r *http.Request) {
			http.ServeFile(w, r, filepath.Join(work, p.name+".wasm"))
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		b, _ := page.ReadFile("page/index.html")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	origin := "http://" + ln.Addr().String()

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, headless.Options(chromium, filepath.Join(work, "profile"))...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()
	if err := chromedp.Do(tab,
		chromedp.Navigate(origin+"/"),
		chromedp.Poll[chromedp.Void](`globalThis.pageReady`, chromedp.WithPollingTimeout(time.Minute)),
	); err != nil {
		return 0, fmt.Errorf("load page: %w", err)
	}
	code := 0
	for _, p := range probes {
		if p.buildErr != "" {
			continue
		}
		p.browser = map[string]string{}
		for _, mode := range []string{"sse", "json"} {
			js := fmt.Sprintf(`runProbe(%q, %q)`, p.name, origin+"/mcp-"+mode)
			res, err := chromedp.Run(tab, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
			if err != nil {
				return 0, fmt.Errorf("%s in the browser: %w", p.name, err)
			}
			p.browser[mode] = verdict(res, mode)
			if p.browser[mode] != "PASS" {
				code = 1
			}
			fmt.Fprintf(os.Stderr, "%s %s in Chromium:\n  %s\n", p.name, mode, strings.ReplaceAll(res, "\n", "\n  "))
		}
	}
	return code, nil
}

// verdict checks a probe's output: one tool, the echoed text and
// structured content, and (SSE only; a JSON response cannot carry them)
// both progress notifications.
func verdict(out, mode string) string {
	want := []string{"tools 1", "text wasm", `structured {"echoed":"wasm"}`, "PASS"}
	if mode == "sse" {
		want = append(want, "progress 2")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			return "FAIL (no " + w + ")"
		}
	}
	return "PASS"
}
