//go:build !wasm

package main

import (
	"bytes"
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
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// generate is the native half of the program: it writes the deployable
// static site and exits.
func generate() {
	fl := flag.NewFlagSet("app", flag.ContinueOnError)
	out := fl.String("out", "build/site", "`directory` to write the site to (replaced)")
	wasm := fl.String("wasm", "build/app.wasm", "the app compiled with GOOS=js GOARCH=wasm")
	web := fl.String("web", "static/web", "`directory` of CSS and icons, copied to /web/")
	if err := fl.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := buildSite(siteConfig{Out: *out, Wasm: *wasm, Web: *web}); err != nil {
		fmt.Fprintln(os.Stderr, "app: build failed:", err)
		os.Exit(1)
	}
	fmt.Printf("app: wrote the site to %s\n", *out)
}

// siteConfig says where buildSite reads and writes.
type siteConfig struct {
	Out  string // the site directory; replaced as a whole
	Wasm string // app.wasm built for js/wasm
	Web  string // static files published under /web/
}

// contentSecurityPolicy is DESIGN §10's policy. 'wasm-unsafe-eval' lets
// the page compile app.wasm and nothing else; there is no inline script or
// style anywhere in the site, no worker, no other origin.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; worker-src 'none'; object-src 'none'; base-uri 'none'; " +
	"frame-ancestors 'none'; form-action 'self'"

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
`

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
		// No {progress}: the site's loader (wasmLoader) shows no
		// percentage, the spinning icon says it is working.
		LoadingLabel: "Loading the workbench…",
		Styles:       []string{"/web/workbench.css"},
		// The version is the wasm's hash: the same build gives the same site.
		Version: hex.EncodeToString(sum[:8]),
	}

	tmp := cfg.Out + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	if err := app.GenerateStaticWebsite(tmp, h); err != nil {
		return fmt.Errorf("generating the pages: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "web", "app.wasm"), wasm, 0o644); err != nil {
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
	if err := os.WriteFile(filepath.Join(tmp, "_headers"), []byte(headersFile), 0o644); err != nil {
		return err
	}
	if err := checkSite(tmp); err != nil {
		return err
	}
	return replaceContents(cfg.Out, tmp)
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
// JavaScript on the main thread and rewriting the label for each chunk;
// this one hands the response to WebAssembly.instantiateStreaming as it
// is, so the browser compiles the module off the main thread while it
// arrives. A failed load (no network, an HTTP error, a module that does
// not compile) is said in the loader's label and logged; a panic in Go
// before the first render keeps go-app's own message there. It needs
// nothing of the CSP but 'wasm-unsafe-eval'.
const wasmLoader = `async function goappInitWebAssembly() {
  const loader = document.getElementById("app-wasm-loader");
  if (!goappCanLoadWebAssembly()) {
    loader.remove();
    return;
  }
  const loaderIcon = document.getElementById("app-wasm-loader-icon");
  const loaderLabel = document.getElementById("app-wasm-loader-label");
  try {
    const go = new Go();
    const response = fetch("/web/app.wasm").then((r) => {
      if (!r.ok) {
        throw new Error("the server answered " + r.status + " " + r.statusText + " for /web/app.wasm");
      }
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
    go.run(wasm.instance);
    loader.remove();
  } catch (err) {
    loaderIcon.className = "goapp-logo";
    loaderLabel.innerText = "The workbench could not load: " + ((err && err.message) || err) + ". Reload the page to try again.";
    console.error("loading app.wasm failed:", err);
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
