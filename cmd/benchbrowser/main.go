// Command benchbrowser measures package canonjson compiled to WebAssembly
// against the JavaScript canonicalize package, in the same headless
// Chromium, on the same document, and checks that both write the same
// bytes.
//
// It builds ./cmd/benchbrowser/wasm for GOOS=js GOARCH=wasm, serves it on
// 127.0.0.1 with Go's wasm_exec.js and node_modules/canonicalize, opens the
// page in Chromium through chromedp, and prints what the page measured with
// performance.now(): the median of -runs runs of each case, as MB/s of
// input.
//
// Usage:
//
//	benchbrowser [-runs 10] [-edges 1600 -snapshot 5000]   # benchmark, ~11 MB bundle
//	benchbrowser -check                                    # byte-identity on small documents
//
// -check compares the two on the RFC 8785 examples, a small bundle and
// random documents, and exits 1 on the first difference. Either mode exits
// 1 when the outputs differ and 2 when the browser or the build fails.
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/chromedp/chromedp"

	"workbench/internal/headless"
	"workbench/pkg/canonjson"
	"workbench/pkg/canonjson/canonjsontest"
)

//go:embed page
var pageFiles embed.FS

func main() {
	var cfg config
	flag.BoolVar(&cfg.check, "check", false, "check byte-identity on small documents instead of benchmarking")
	flag.IntVar(&cfg.runs, "runs", 10, "timed runs of each case")
	flag.IntVar(&cfg.edges, "edges", 1600, "edges of the benchmark bundle")
	flag.IntVar(&cfg.snapshot, "snapshot", 5000, "bytes of each edge's snapshot in the benchmark bundle")
	flag.StringVar(&cfg.chromium, "chromium", "/usr/bin/chromium", "Chromium binary")
	flag.StringVar(&cfg.nodeModules, "node-modules", "", "node_modules holding canonicalize (default: the module root's)")
	flag.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "give up after this long")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	ok, err := run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchbrowser:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

type config struct {
	check       bool
	runs, edges int
	snapshot    int
	chromium    string
	nodeModules string
	timeout     time.Duration
}

// run builds and serves the page, drives the browser and reports. It
// returns false when the two implementations disagree.
func run(ctx context.Context, cfg config, out *os.File) (bool, error) {
	work, err := os.MkdirTemp("", "benchbrowser-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(work)

	root, err := goEnv(ctx, "GOMOD")
	if err != nil {
		return false, err
	}
	root = filepath.Dir(root)
	if cfg.nodeModules == "" {
		cfg.nodeModules = filepath.Join(root, "node_modules")
	}
	goroot, err := goEnv(ctx, "GOROOT")
	if err != nil {
		return false, err
	}
	wasmPath := filepath.Join(work, "canon.wasm")
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", wasmPath, "./cmd/benchbrowser/wasm")
	build.Dir = root
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := build.CombinedOutput(); err != nil {
		return false, fmt.Errorf("build wasm: %v\n%s", err, msg)
	}

	files := map[string]string{
		"/canon.wasm":       wasmPath,
		"/wasm_exec.js":     filepath.Join(goroot, "lib", "wasm", "wasm_exec.js"),
		"/canonicalize.js":  filepath.Join(cfg.nodeModules, "canonicalize", "lib", "canonicalize.js"),
		"/canonicalize.pkg": filepath.Join(cfg.nodeModules, "canonicalize", "package.json"),
	}
	for _, path := range files {
		if _, err := os.Stat(path); err != nil {
			return false, fmt.Errorf("%w (run `make node_modules` for canonicalize)", err)
		}
	}
	var doc []byte
	var checkDocs []string
	if cfg.check {
		checkDocs = checkDocuments()
	} else {
		doc = canonjsontest.Bundle(cfg.edges, cfg.snapshot)
	}

	mux := http.NewServeMux()
	page, _ := fs.Sub(pageFiles, "page")
	mux.Handle("/", http.FileServerFS(page))
	for name, path := range files {
		mux.HandleFunc(name, func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(name, ".wasm") {
				w.Header().Set("Content-Type", "application/wasm")
			}
			http.ServeFile(w, r, path)
		})
	}
	mux.HandleFunc("/doc.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	})
	mux.HandleFunc("/check.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(checkDocs)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return false, err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/index.html"

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, headless.Options(cfg.chromium, filepath.Join(work, "profile"))...)
	defer cancelAlloc()
	tab, cancelTab := chromedp.NewContext(allocCtx)
	defer cancelTab()

	if err := chromedp.Do(tab,
		chromedp.Navigate(url),
		chromedp.Poll[chromedp.Void](`globalThis.pageReady || globalThis.pageError`, chromedp.WithPollingTimeout(time.Minute)),
	); err != nil {
		return false, fmt.Errorf("load page: %w", err)
	}
	if msg, err := chromedp.Run(tab, chromedp.Evaluate[string](`String(globalThis.pageError || "")`)); err != nil || msg != "" {
		return false, fmt.Errorf("page: %s%v", msg, err)
	}
	if cfg.check {
		res, err := chromedp.Run(tab, chromedp.Evaluate[string](`runCheck()`, chromedp.EvalAwaitPromise))
		if err != nil {
			return false, fmt.Errorf("runCheck: %w", err)
		}
		return reportCheck(out, checkDocs, res)
	}
	res, err := chromedp.Run(tab, chromedp.Evaluate[string](fmt.Sprintf(`runBench(%d)`, cfg.runs), chromedp.EvalAwaitPromise))
	if err != nil {
		return false, fmt.Errorf("runBench: %w", err)
	}
	return reportBench(out, cfg, res, files["/canonicalize.pkg"])
}

func goEnv(ctx context.Context, name string) (string, error) {
	b, err := exec.CommandContext(ctx, "go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" || s == os.DevNull {
		return "", fmt.Errorf("go env %s is empty: run inside the module", name)
	}
	return s, nil
}

// checkDocuments are the documents of -check: the RFC 8785 examples,
// numbers beyond 2^53 and beyond a double's precision (read, as JSON.parse
// reads them, as the nearest double), a small bundle, and random documents
// that canonjson accepts (random ones it rejects, such as a duplicate
// member name, have no canonical form to compare).
func checkDocuments() []string {
	docs := []string{
		`{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],` +
			`"string":"\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/","literals":[null,true,false]}`,
		`{"\u20ac":"Euro Sign","\r":"Carriage Return","\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",` +
			`"\ud83d\ude00":"Emoji: Grinning Face","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis"}`,
		`[5e-324,-5e-324,1.7976931348623157e308,9007199254740992,-9007199254740992,1e21,1e23,` +
			`9.999999999999997e-7,0.000001,333333333.3333332,-0.0000033333333333333333,1424953923781206.2,-0]`,
		`[1234567890123456800,9007199254740993,18446744073709551616,1e20,-9.99e20,0.12345678901234567891,` +
			`1e-400,123456789012345678901234567890,{"start_unix_nano":1780000000123456789}]`,
		string(canonjsontest.Bundle(10, 500)),
	}
	r := rand.New(rand.NewPCG(2026, 8785))
	for len(docs) < 200 {
		d := canonjsontest.Random(r, 6)
		if _, err := canonjson.Parse(d, canonjson.DefaultLimits()); err == nil {
			docs = append(docs, string(d))
		}
	}
	return docs
}

func reportCheck(out *os.File, docs []string, res string) (bool, error) {
	var r struct {
		UserAgent string
		Results   []struct {
			Index, Size, OutSize, Diff int
			Error                      string
		}
	}
	if err := json.Unmarshal([]byte(res), &r); err != nil {
		return false, fmt.Errorf("page result: %w", err)
	}
	if len(r.Results) != len(docs) {
		return false, fmt.Errorf("page checked %d documents of %d", len(r.Results), len(docs))
	}
	ok := true
	for _, c := range r.Results {
		switch {
		case c.Error != "":
			fmt.Fprintf(out, "document %d: %s\n  %.200q\n", c.Index, c.Error, docs[c.Index])
			ok = false
		case c.Diff >= 0:
			fmt.Fprintf(out, "document %d: wasm and JS outputs differ at byte %d\n  %.200q\n", c.Index, c.Diff, docs[c.Index])
			ok = false
		}
	}
	fmt.Fprintf(out, "%s\n", r.UserAgent)
	passed := 0
	for _, c := range r.Results {
		if c.Error == "" && c.Diff < 0 {
			passed++
		}
	}
	fmt.Fprintf(out, "wasm canonjson and JS canonicalize wrote byte-identical output for %d of %d documents\n", passed, len(r.Results))
	fmt.Fprintf(out, "browser-canon: %d passed, %d failed\n", passed, len(r.Results)-passed)
	return ok, nil
}

func reportBench(out *os.File, cfg config, res, pkgJSON string) (bool, error) {
	var r struct {
		UserAgent         string
		Size              int
		Check             struct{ Size, OutSize, Diff int }
		SealWasm          string
		SealWasmWebCrypto string
		SealJS            string
		Cases             []struct {
			Name  string
			Times []float64
		}
	}
	if err := json.Unmarshal([]byte(res), &r); err != nil {
		return false, fmt.Errorf("page result: %w", err)
	}
	var pkg struct{ Version string }
	if b, err := os.ReadFile(pkgJSON); err == nil {
		json.Unmarshal(b, &pkg)
	}
	fmt.Fprintf(out, "browser:  %s\n", r.UserAgent)
	fmt.Fprintf(out, "document: synthetic bundle, %d edges, %d-byte snapshots, %d bytes (%.1f MB)\n",
		cfg.edges, cfg.snapshot, r.Size, float64(r.Size)/1e6)
	fmt.Fprintf(out, "JS:       canonicalize %s; runs: %d of each, interleaved, after 2 warm-up runs\n\n", pkg.Version, cfg.runs)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\tmedian ms\tMB/s\tmin ms\tmax ms")
	medians := map[string]float64{}
	for _, c := range r.Cases {
		t := slices.Clone(c.Times)
		slices.Sort(t)
		if len(t) == 0 {
			return false, errors.New("page returned no timings")
		}
		m := median(t)
		medians[c.Name] = m
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%.1f\n", c.Name, m, float64(r.Size)/1e6/(m/1e3), t[0], t[len(t)-1])
	}
	tw.Flush()
	fmt.Fprintln(out)
	identical := r.Check.Diff < 0
	if identical {
		fmt.Fprintf(out, "canonical output: byte-identical (%d bytes)\n", r.Check.OutSize)
	} else {
		fmt.Fprintf(out, "canonical output: DIFFERS at byte %d\n", r.Check.Diff)
	}
	sealsEqual := r.SealWasm == r.SealJS && r.SealWasmWebCrypto == r.SealJS
	fmt.Fprintf(out, "seal: wasm %s, wasm+WebCrypto %s, JS %s (%s)\n", r.SealWasm, r.SealWasmWebCrypto, r.SealJS,
		map[bool]string{true: "equal", false: "DIFFERENT"}[sealsEqual])
	return identical && sealsEqual, nil
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
