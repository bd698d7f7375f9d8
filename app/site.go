//go:build !wasm

package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/importworker"
)

// generate is the native half of the program: it writes the deployable
// static site, with the routes registerRoutes(e) registered, and exits.
func generate(e *env) {
	fl := flag.NewFlagSet("app", flag.ContinueOnError)
	out := fl.String("out", "build/site", "`directory` to write the site to (replaced)")
	wasm := fl.String("wasm", "build/app.wasm", "the app compiled with GOOS=js GOARCH=wasm")
	importer := fl.String("importer", "build/importer.wasm", "the import worker (cmd/importer) compiled with GOOS=js GOARCH=wasm")
	web := fl.String("web", "static/web", "`directory` of CSS and icons, copied to /web/")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := buildSite(siteConfig{Out: *out, Wasm: *wasm, Importer: *importer, Web: *web, Env: e}); err != nil {
		fmt.Fprintln(os.Stderr, "app: build failed:", err)
		os.Exit(1)
	}
	fmt.Printf("app: wrote the site to %s\n", *out)
}

// siteConfig says where buildSite reads and writes.
type siteConfig struct {
	Out  string // the site directory; replaced as a whole
	Wasm string // app.wasm built for js/wasm
	// Importer is the import worker's module (cmd/importer) built for
	// js/wasm, published as importerWasm.
	Importer string
	Web      string // static files published under /web/
	Env      *env   // what the pages rendered natively share
}

// contentSecurityPolicy is DESIGN §10's policy. 'wasm-unsafe-eval' lets
// the page compile app.wasm and nothing else; there is no inline script or
// style anywhere in the site. The page connects to its own origin and, for
// the bodies a visitor pairs from their own machine (`workbench bodies`),
// to loopback addresses and to no other origin.
//
// worker-src allows one script: the import worker's loader. A source
// expression with a path needs a host, and the site does not know the
// origin it is served from, so the host and port are wildcards: a
// dedicated worker's script must be of the page's own origin anyway (the
// Worker constructor refuses any other), which leaves exactly
// importerScript. No service worker can be registered (spec §7.5): none
// is that script, and the site has no other.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self' " + loopbackSources + "; worker-src *:*" + importerScript + "; object-src 'none'; base-uri 'none'; " +
	"frame-ancestors 'none'; form-action 'self'"

// loopbackSources are the paired bodies' origins: this computer, any
// port (the visitor chooses it), plain http (a loopback address is a
// secure context's own machine, never the network).
const loopbackSources = "http://127.0.0.1:* http://localhost:*"

// headersFile is the site's _headers (Workers static assets' format, also
// applied by `workbench serve`). Referrer-Policy is same-origin rather than
// no-referrer: under no-referrer a browser sends "Origin: null" on a
// same-origin POST, which the proxy's CSRF rule must refuse.
// Cross-Origin-Embedder-Policy: require-corp makes the page
// cross-origin isolated; everything it loads is its own, so nothing
// breaks (measured in Chromium, docs/decisions.md). Trusted Types are not
// required: go-app writes app.Raw through innerHTML, and requiring them
// stopped the /skills table (measured; docs/decisions.md).
var headersFile = `/*
  Content-Security-Policy: ` + contentSecurityPolicy + `
  X-Content-Type-Options: nosniff
  X-Frame-Options: DENY
  Referrer-Policy: same-origin
  Cross-Origin-Opener-Policy: same-origin
  Cross-Origin-Resource-Policy: same-origin
  Cross-Origin-Embedder-Policy: require-corp
  Permissions-Policy: camera=(), microphone=(), geolocation=(), payment=(), usb=()
  Strict-Transport-Security: max-age=31536000; includeSubDomains
  Cache-Control: no-cache
` + wasmPath + `
  ! Cache-Control
  Cache-Control: ` + immutable + `
` + importerWasm + `
  ! Cache-Control
  Cache-Control: ` + immutable + `
`

// wasmPath is where the site serves the app's module. The loader asks for
// it with the build's version in the query (wasmLoader), so the module
// can be kept for a year: every build's module has its own URL.
const wasmPath = "/web/app.wasm"

// importerPage is the page that starts the import worker: the site's
// loader starts it early when a visit begins there.
const importerPage = "/import"

// importerWasm is the import worker's module. Its loader asks for it
// with its version in the query, so it is kept as app.wasm is.
const importerWasm = "/web/importer.wasm"

// immutable is the Cache-Control of app.wasm and importer.wasm. The _headers rule for it
// first detaches the "no-cache" of the /* rule: both match, and the
// platform joins the values of a header that two rules set unless the
// later one detaches it first.
const immutable = "public, max-age=31536000, immutable"

// redirectsFile is the site's _redirects: "/" is served from home.html
// (a rewrite, status 200: the address stays "/"), because index.html is
// the neutral shell the host serves for every path it has no file for
// (deep links) and must show no page's text.
const redirectsFile = "/ /home 200\n"

// assetsIgnoreFile keeps the precompressed copies out of the Worker's
// upload: Cloudflare compresses the assets it serves itself
// (docs/proxy.md "Compression and caching").
const assetsIgnoreFile = "*.br\n*.gz\n"

// swCall is go-app's service-worker registration in app.js.
var swCall = regexp.MustCompile(`(?m)^[ \t]*goappInitServiceWorker\(\);[ \t]*\n?`)

// swCallAnywhere finds a call that survived, in any form: the name
// followed by "(" but not as the function's own declaration.
var swCallAnywhere = regexp.MustCompile(`(^|[^\w])goappInitServiceWorker\s*\(`)

func buildSite(cfg siteConfig) error {
	wasm, err := os.ReadFile(cfg.Wasm)
	if err != nil {
		return fmt.Errorf("reading the wasm: %w", err)
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return fmt.Errorf("%s is not a WebAssembly module", cfg.Wasm)
	}
	sum := sha256.Sum256(wasm)
	importer, err := os.ReadFile(cfg.Importer)
	if err != nil {
		return fmt.Errorf("reading the import worker: %w", err)
	}
	if !bytes.HasPrefix(importer, []byte("\x00asm")) {
		return fmt.Errorf("%s is not a WebAssembly module", cfg.Importer)
	}
	importerSum := sha256.Sum256(importer)
	h := &app.Handler{
		Name:        "Skill Workbench",
		ShortName:   "Workbench",
		Title:       "Skill Workbench",
		Description: "Teach an agent a task once, keep it as a portable skill, replay it with proof.",
		Lang:        "en",
		Icon: app.Icon{
			Default: "/web/icon-192.png",
			Large:   "/web/icon-512.png",
			SVG:     "/web/icon.svg",
		},
		BackgroundColor: "#ffffff",
		ThemeColor:      "#1f3a5f",
		// No {progress}: the site's loader (wasmLoader) writes its own
		// label, from the moment app.js runs.
		LoadingLabel: "Loading the workbench…",
		Styles:       []string{"/web/workbench.css"},
		// The version is the wasm's hash: the same build gives the same
		// site, and the loader puts it in app.wasm's URL.
		Version: hex.EncodeToString(sum[:8]),
		// The module's size, for the loader's "so many MB of the total".
		WasmContentLength: strconv.Itoa(len(wasm)),
		// The import worker's version, for its module's URL.
		Env: map[string]string{importerVersionEnv: hex.EncodeToString(importerSum[:8])},
	}

	// The neutral shell: the frame and the loader, no page's text.
	app.Route(shellPath, func() app.Composer { return &shell{env: cfg.Env, Page: &loadingPage{}} })

	tmp := cfg.Out + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := app.GenerateStaticWebsite(tmp, h, shellPath); err != nil {
		return fmt.Errorf("generating the pages: %w", err)
	}
	if err := placeShell(tmp); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "web", "app.wasm"), wasm, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, filepath.FromSlash(importerWasm)), importer, 0o644); err != nil {
		return err
	}
	if err := copyDir(cfg.Web, filepath.Join(tmp, "web")); err != nil {
		return fmt.Errorf("copying %s: %w", cfg.Web, err)
	}
	if err := removeServiceWorker(tmp); err != nil {
		return err
	}
	if err := replaceLoader(tmp); err != nil {
		return err
	}
	if err := scrubWasmExec(tmp); err != nil {
		return err
	}
	for name, body := range map[string]string{"_headers": headersFile, "_redirects": redirectsFile, ".assetsignore": assetsIgnoreFile} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	if err := checkSite(tmp); err != nil {
		return err
	}
	if err := precompress(tmp); err != nil {
		return err
	}
	return replaceContents(cfg.Out, tmp)
}

// shellPath is the route the neutral shell is rendered from; the build
// writes it as index.html (placeShell). The browser app has no such route.
const shellPath = "/loading-shell"

// loadingPage is the neutral shell's page: the frame alone, whose main
// region rendered natively says the workbench is loading.
type loadingPage struct{ app.Compo }

func (*loadingPage) Render() app.UI { return frame("") }

// placeShell makes index.html the neutral shell and moves the home page
// to home.html. The host serves index.html for every path it has no file
// for (deep links such as /skills/<id>), which must show no page's text;
// "/" reaches home.html through the _redirects rewrite.
func placeShell(dir string) error {
	if err := os.Rename(filepath.Join(dir, "index.html"), filepath.Join(dir, "home.html")); err != nil {
		return fmt.Errorf("placing the home page: %w", err)
	}
	shellFile := filepath.Join(dir, strings.TrimPrefix(shellPath, "/")+".html")
	if err := os.Rename(shellFile, filepath.Join(dir, "index.html")); err != nil {
		return fmt.Errorf("placing the neutral shell: %w", err)
	}
	return nil
}

// minPrecompress is the smallest file the build compresses: below it a
// compressed copy saves less than a packet.
const minPrecompress = 1024

// compressible are the file types the build writes compressed copies of;
// images (PNG) are compressed already.
var compressible = map[string]bool{
	".wasm": true, ".js": true, ".css": true, ".html": true, ".svg": true, ".webmanifest": true, ".json": true,
}

// brotliQuality is the brotli level of the precompressed copies: level 11
// gives app.wasm ≈ 8 % less than this one but takes minutes on the 2-core
// build machine (docs/app-size.md "Precompressed").
const brotliQuality = 7

// precompress writes name.br (brotli) and name.gz (gzip, best
// compression) beside every compressible file of dir of at least
// minPrecompress bytes, for a server that serves them by Accept-Encoding
// (workbench serve). A copy that would not be smaller is not written.
func precompress(dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !compressible[filepath.Ext(p)] {
			return err
		}
		if info, err := d.Info(); err != nil || info.Size() < minPrecompress {
			return err
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// The two encodings of a file are written side by side: app.wasm's
		// take a few seconds each.
		var wg sync.WaitGroup
		errs := make([]error, len(encodings))
		for i, enc := range encodings {
			wg.Go(func() { errs[i] = writeCompressed(p+enc.suffix, b, enc.new) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	return nil
}

// encodings are the compressed copies precompress writes.
var encodings = []struct {
	suffix string
	new    func(io.Writer) io.WriteCloser
}{
	{".br", func(w io.Writer) io.WriteCloser {
		return brotli.NewWriterOptions(w, brotli.WriterOptions{Quality: brotliQuality, LGWin: 24})
	}},
	{".gz", func(w io.Writer) io.WriteCloser {
		zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // the level is valid
		return zw
	}},
}

// writeCompressed writes b compressed by a writer of newWriter to name,
// unless that is no smaller than b.
func writeCompressed(name string, b []byte, newWriter func(io.Writer) io.WriteCloser) error {
	var buf bytes.Buffer
	zw := newWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return fmt.Errorf("compressing %s: %w", name, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("compressing %s: %w", name, err)
	}
	if buf.Len() >= len(b) {
		return nil
	}
	return os.WriteFile(name, buf.Bytes(), 0o644)
}

// replaceContents makes dir hold what src holds, moving src's entries in
// and removing src. The directory itself stays, so a server that opened
// it (workbench serve) goes on serving the new site.
func replaceContents(dir, src string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range old {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	fresh, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range fresh {
		if err := os.Rename(filepath.Join(src, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Remove(src)
}

// removeServiceWorker takes go-app's service worker out of the site (spec
// §7.5 forbids registering one): the registration call leaves app.js and
// app-worker.js is deleted. go-app has no switch for this.
func removeServiceWorker(dir string) error {
	name := filepath.Join(dir, "app.js")
	js, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if n := len(swCall.FindAllIndex(js, -1)); n != 1 {
		return fmt.Errorf("app.js: found %d goappInitServiceWorker() calls where go-app v10 has one; the build cannot remove the service worker", n)
	}
	js = swCall.ReplaceAll(js, nil)
	if err := os.WriteFile(name, js, 0o644); err != nil {
		return err
	}
	err = os.Remove(filepath.Join(dir, "app-worker.js"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// wasmLoader is the site's goappInitWebAssembly, in place of go-app's.
// go-app's loader wraps the app.wasm response in a ReadableStream to show
// a percentage, copying all of its megabytes chunk by chunk through
// JavaScript on the main thread before the compiler sees a byte; this one
// hands the response to WebAssembly.instantiateStreaming as it is, so the
// browser compiles the module off the main thread while it arrives. The
// progress comes from a clone of the response, which the browser tees
// natively: the loader only counts the clone's chunks (their bytes are
// the module's, decompressed, as is goappWasmContentLength, the size the
// build wrote) and says in the label what it is doing — downloading (so
// many MB of the total), compiling, starting; "starting" is painted
// before Go takes the main thread for its first render.
//
// The module's URL carries the build's version (the wasm's hash, go-app's
// GOAPP_VERSION), so a host may let browsers keep it for a year: a new
// build is a new URL. A failed load (no network, an HTTP error, a module
// that does not compile) is said in the label and logged, the icon stops
// spinning and a "Try again" button loads the module anew; a failure
// after Go has started offers a reload instead, since a second Go must
// not run beside the first. A panic in Go before the first render keeps
// go-app's own message there. It needs nothing of the CSP but
// 'wasm-unsafe-eval': it is part of app.js and builds the button with the
// DOM, no inline handler.
const wasmLoader = `async function goappInitWebAssembly() {
  const loader = document.getElementById("app-wasm-loader");
  if (!goappCanLoadWebAssembly()) {
    loader.remove();
    return;
  }
  const loaderIcon = document.getElementById("app-wasm-loader-icon");
  const loaderLabel = document.getElementById("app-wasm-loader-label");
  const say = (text) => {
    if (loaderLabel.textContent !== text) {
      loaderLabel.textContent = text;
    }
  };
  // On /import the import worker starts now, beside the app's own
  // compiling, and keeps what it says until the app adopts it
  // (importworker.Start): a file dropped as soon as the page answers
  // waits less for the worker. The app starts one itself otherwise.
  if (location.pathname === "` + importerPage + `" && typeof Worker === "function" && !self.` + importworker.EarlyGlobal + `) {
    try {
      const url = "` + importerScript + `?v=" + encodeURIComponent(goappEnv.` + importerVersionEnv + ` || "");
      const worker = new Worker(url);
      const early = [];
      worker.onmessage = (e) => early.push({data: e.data});
      worker.onerror = (e) => early.push({error: e.message || ""});
      self.` + importworker.EarlyGlobal + ` = {url, worker, early};
    } catch (err) {
      // The app starts the worker itself, and says why it cannot.
    }
  }
  const total = Number(goappWasmContentLength) || 0;
  const megabytes = (n) => (n / 1048576).toFixed(1);
  let compiled = false;
  let started = false;
  loaderIcon.className = "goapp-logo goapp-spin";
  document.getElementById("app-wasm-retry")?.remove();
  try {
    const go = new Go();
    say("Downloading the workbench…");
    const response = fetch("/web/app.wasm?v=" + goappEnv.GOAPP_VERSION).then((r) => {
      if (!r.ok) {
        throw new Error("the server answered " + r.status + " " + r.statusText + " for /web/app.wasm");
      }
      workbenchCountDownload(r.clone(), (received) => {
        if (!compiled) {
          say("Downloading the workbench: " + megabytes(received) + (total ? " of " + megabytes(total) : "") + " MB");
        }
      }).then(() => {
        if (!compiled) {
          say("Compiling the workbench…");
        }
      }, () => {
        // The module's own promise reports the failure.
      });
      return r;
    });
    const module = WebAssembly.instantiateStreaming(response, go.importObject);
    // Go's first steps read localStorage (go-app) and sessionStorage (the
    // key); the browser opens each on first use, making the main thread
    // wait for it. Opening them now does that wait during the download.
    try {
      localStorage.length;
      sessionStorage.length;
    } catch (err) {
      // Storage refused: the app says so itself.
    }
    const wasm = await module;
    compiled = true;
    say("Starting the workbench…");
    // Go's start holds the main thread until its first render: let the
    // browser paint the label first (one frame; a hidden tab, which
    // paints nothing, waits 50 ms at most).
    await new Promise((resolve) => {
      requestAnimationFrame(() => setTimeout(resolve, 0));
      setTimeout(resolve, 50);
    });
    started = true;
    go.run(wasm.instance);
    loader.remove();
  } catch (err) {
    loaderIcon.className = "goapp-logo";
    const reason = "The workbench could not load: " + ((err && err.message) || err) + ".";
    console.error("loading app.wasm failed:", err);
    if (started) {
      say(reason + " Reload the page to try again.");
      return;
    }
    say(reason + " Try again, or reload the page.");
    const retry = document.createElement("button");
    retry.type = "button";
    retry.id = "app-wasm-retry";
    retry.textContent = "Try again";
    retry.addEventListener("click", () => goappInitWebAssembly());
    loader.appendChild(retry);
  }
}

// workbenchCountDownload reads a clone of app.wasm's response to its end,
// telling progress the bytes received so far.
async function workbenchCountDownload(response, progress) {
  const reader = response.body.getReader();
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return received;
    }
    received += value.byteLength;
    progress(received);
  }
}
`

// goappLoader and goappProgress match go-app v10's loader function and
// its progress stream in app.js, each from its declaration to the brace
// that closes it at the start of a line.
var (
	goappLoader   = regexp.MustCompile(`(?ms)^async function goappInitWebAssembly\(\) \{\n.*?^\}\n`)
	goappProgress = regexp.MustCompile(`(?ms)^async function fetchWithProgress\(url, progess\) \{\n.*?^\}\n?`)
)

// goappLoaderMarks are what go-app v10.1's loader does that wasmLoader
// replaces. A loader without them is not the one this build knows how to
// replace; a go-app that changed it must be looked at, not patched blind.
var goappLoaderMarks = []string{
	`fetchWithProgress("/web/app.wasm", showProgress)`,
	"instantiateStreaming(",
	"go.run(wasm.instance);",
	"loader.remove();",
}

// replaceLoader puts wasmLoader in app.js in place of go-app's
// goappInitWebAssembly and removes fetchWithProgress. It fails, so the
// build fails, when app.js is not what go-app v10.1 writes.
func replaceLoader(dir string) error {
	name := filepath.Join(dir, "app.js")
	js, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	loaders := goappLoader.FindAll(js, -1)
	if len(loaders) != 1 {
		return fmt.Errorf("app.js: found %d goappInitWebAssembly functions where go-app v10 has one; the build cannot replace the wasm loader", len(loaders))
	}
	for _, m := range goappLoaderMarks {
		if !bytes.Contains(loaders[0], []byte(m)) {
			return fmt.Errorf("app.js: go-app's goappInitWebAssembly no longer has %q (a new go-app?); see wasmLoader in app/site.go before replacing it", m)
		}
	}
	if n := len(goappProgress.FindAllIndex(js, -1)); n != 1 {
		return fmt.Errorf("app.js: found %d fetchWithProgress functions where go-app v10 has one; the build cannot replace the wasm loader", n)
	}
	js = goappLoader.ReplaceAllLiteral(js, []byte(wasmLoader))
	js = goappProgress.ReplaceAllLiteral(js, nil)
	return os.WriteFile(name, js, 0o644)
}

// scrubWasmExec rewrites the one comment of Go's wasm_exec.js that names
// another host, so the site's files name no host but its own.
func scrubWasmExec(dir string) error {
	name := filepath.Join(dir, "wasm_exec.js")
	js, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	js = bytes.ReplaceAll(js, []byte("https://github.com/golang/go/issues/28975"), []byte("Go issue 28975"))
	return os.WriteFile(name, js, 0o644)
}

// namespaces are URIs that name an XML vocabulary and are never fetched;
// an SVG file must carry the first.
var namespaces = []string{
	"http://www.w3.org/2000/svg",
	"http://www.w3.org/1999/xlink",
	"http://www.w3.org/1999/xhtml",
}

// absURL finds anything that would point a browser at another host: an
// absolute http(s) URL or a scheme-relative //host reference in an
// attribute or url().
var absURL = regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)

// checkSite fails the build for what must never ship: a 404.html (it would
// replace the single-page-app fallback), a service worker, a reference to
// another host in any text file, inline script or style attributes, an
// app.js that copies app.wasm through JavaScript instead of wasmLoader.
func checkSite(dir string) error {
	for _, name := range []string{"404.html", "app-worker.js"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("the site has %s", name)
		}
	}
	var problems []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch filepath.Ext(p) {
		case ".wasm", ".png":
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if swCallAnywhere.Match(b) {
			for _, m := range swCallAnywhere.FindAllIndex(b, -1) {
				if !bytes.HasSuffix(b[:m[1]], []byte("function goappInitServiceWorker(")) {
					problems = append(problems, rel+": still calls goappInitServiceWorker()")
					break
				}
			}
		}
		if rel == "app.js" {
			if !bytes.Contains(b, []byte(wasmLoader)) {
				problems = append(problems, "app.js: lacks the site's wasm loader")
			}
			for _, s := range []string{"fetchWithProgress", "ReadableStream"} {
				if bytes.Contains(b, []byte(s)) {
					problems = append(problems, fmt.Sprintf("app.js: still streams app.wasm through JavaScript (%s)", s))
				}
			}
		}
		text := string(b)
		for _, ns := range namespaces {
			text = strings.ReplaceAll(text, `"`+ns+`"`, `""`)
		}
		if m := absURL.FindString(text); m != "" {
			problems = append(problems, fmt.Sprintf("%s: refers to another host (%s)", rel, m))
		}
		if filepath.Ext(p) == ".html" {
			low := strings.ToLower(text)
			if strings.Contains(low, " style=") {
				problems = append(problems, rel+": has a style attribute (the CSP blocks it)")
			}
			for _, tag := range scriptTag.FindAllString(low, -1) {
				if !strings.Contains(tag, " src=") {
					problems = append(problems, rel+": has an inline script (the CSP blocks it)")
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("site check:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// scriptTag matches a <script> start tag.
var scriptTag = regexp.MustCompile(`<script(\s[^>]*)?>`)

func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
