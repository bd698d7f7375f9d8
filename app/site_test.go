//go:build !wasm

package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"workbench/pkg/importworker"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// swCallText is the service-worker call the build removes, spelt in two parts
// so that a search of the tree for the call finds only real ones.
const swCallText = "goappInitServiceWorker" + "();"

const appJS = "goappWatchForUpdate();\n" + swCallText + "\ngoappInitWebAssembly();\n\nasync function goappInitServiceWorker() {\n}\n" + wasmLoader

func TestRemoveServiceWorker(t *testing.T) {
	dir := writeFiles(t, map[string]string{"app.js": appJS, "app-worker.js": "self.addEventListener('fetch', () => {})"})
	if err := removeServiceWorker(dir); err != nil {
		t.Fatal(err)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "app.js"))
	if strings.Contains(string(js), swCallText) {
		t.Errorf("the call is still in app.js:\n%s", js)
	}
	if !strings.Contains(string(js), "goappInitWebAssembly();") {
		t.Errorf("removed more than the call:\n%s", js)
	}
	if _, err := os.Stat(filepath.Join(dir, "app-worker.js")); !os.IsNotExist(err) {
		t.Errorf("app-worker.js still there (%v)", err)
	}
	if err := checkSite(dir); err != nil {
		t.Errorf("checkSite after removal: %v", err)
	}
}

// A go-app whose app.js no longer has the call where the build expects it
// fails the build instead of shipping a worker.
func TestRemoveServiceWorkerUnexpectedForm(t *testing.T) {
	dir := writeFiles(t, map[string]string{"app.js": "goappWatchForUpdate(); " + swCallText + "\n"})
	if err := removeServiceWorker(dir); err == nil {
		t.Fatal("accepted an app.js whose call it cannot remove")
	}
}

func TestCheckSite(t *testing.T) {
	good := map[string]string{
		"index.html":   `<!doctype html><link href="/web/workbench.css" rel="stylesheet"><script defer src="/app.js"></script><a href="/skills">x</a>`,
		"app.js":       "async function goappInitServiceWorker() {}\ngoappInitWebAssembly();\n" + wasmLoader,
		"web/icon.svg": `<svg xmlns="http://www.w3.org/2000/svg"></svg>`,
	}
	if err := checkSite(writeFiles(t, good)); err != nil {
		t.Fatalf("good site refused: %v", err)
	}
	for _, tc := range []struct {
		name, file, body, want string
	}{
		{"service worker call", "app.js", swCallText, "still calls"},
		{"call after other code", "app.js", "x(); goappInitServiceWorker ();", "still calls"},
		{"worker file", "app-worker.js", "", "has app-worker.js"},
		{"404 page", "404.html", "<p>gone</p>", "has 404.html"},
		{"external script", "index.html", `<script src="https://cdn.example.com/x.js"></script>`, "another host"},
		{"scheme-relative", "web/workbench.css", `body{background:url(//tracker.example.net/p.png)}`, "another host"},
		{"inline script", "teach.html", `<script>alert(1)</script>`, "inline script"},
		{"style attribute", "skills.html", `<p style="color:red">x</p>`, "style attribute"},
		{"go-app's loader", "app.js", goappLoaderJS + goappProgressJS, "lacks the site's wasm loader"},
		{"progress stream kept", "app.js", wasmLoader + goappProgressJS, "still streams app.wasm through JavaScript (fetchWithProgress)"},
		{"stream elsewhere", "app.js", wasmLoader + "new ReadableStream({})", "(ReadableStream)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range good {
				files[k] = v
			}
			files[tc.file] = tc.body
			err := checkSite(writeFiles(t, files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("checkSite = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// goappLoaderJS and goappProgressJS have the shape of go-app v10.1's wasm
// loader and progress stream in app.js, cut down to what replaceLoader
// looks for.
const (
	goappLoaderJS = `async function goappInitWebAssembly() {
  const loader = document.getElementById("app-wasm-loader");
  try {
    const go = new Go();
    const wasm = await instantiateStreaming(
      fetchWithProgress("/web/app.wasm", showProgress),
      go.importObject
    );
    go.run(wasm.instance);
    loader.remove();
  } catch (err) {
  }
}
`
	goappProgressJS = `async function fetchWithProgress(url, progess) {
  const response = await fetch(url);
  return new Response(new ReadableStream({}));
}
`
)

func TestReplaceLoader(t *testing.T) {
	const before, between = "goappInitWebAssembly();\n\n", "\nfunction goappCanLoadWebAssembly() {\n  return true;\n}\n\n"
	dir := writeFiles(t, map[string]string{"app.js": before + goappLoaderJS + between + goappProgressJS})
	if err := replaceLoader(dir); err != nil {
		t.Fatal(err)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "app.js"))
	if want := before + wasmLoader + between; string(js) != want {
		t.Errorf("app.js after replaceLoader:\n%s\nwant:\n%s", js, want)
	}
}

// A go-app whose loader is not the one the build knows fails the build
// rather than shipping a loader nobody looked at.
func TestReplaceLoaderRefuses(t *testing.T) {
	for _, tc := range []struct{ name, js, want string }{
		{"no loader", goappProgressJS, "found 0 goappInitWebAssembly"},
		{"two loaders", goappLoaderJS + goappLoaderJS + goappProgressJS, "found 2 goappInitWebAssembly"},
		{"loader changed", strings.Replace(goappLoaderJS, "fetchWithProgress(", "fetchWithPercent(", 1) + goappProgressJS, `no longer has "fetchWithProgress(\"/web/app.wasm\", showProgress)"`},
		{"no progress stream", goappLoaderJS, "found 0 fetchWithProgress"},
		{"not at line start", "  " + goappLoaderJS + goappProgressJS, "found 0 goappInitWebAssembly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"app.js": tc.js})
			err := replaceLoader(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("replaceLoader = %v, want an error containing %q", err, tc.want)
			}
			if js, _ := os.ReadFile(filepath.Join(dir, "app.js")); string(js) != tc.js {
				t.Errorf("app.js changed although the build failed")
			}
		})
	}
}

// The site built with the go-app version in go.mod has the workbench's
// loader and no trace of go-app's progress stream: the check against the
// real app.js, which the tests above only imitate.
func TestBuildSiteLoader(t *testing.T) {
	tmp := t.TempDir()
	wasm := filepath.Join(tmp, "app.wasm")
	if err := os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "site")
	if err := buildSite(siteConfig{Out: out, Wasm: wasm, Importer: wasm, Web: filepath.Join("..", "static", "web"), Env: newEnv()}); err != nil {
		t.Fatal(err)
	}
	js, err := os.ReadFile(filepath.Join(out, "app.js"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(js), wasmLoader); n != 1 {
		t.Errorf("app.js holds the site's loader %d times, want once", n)
	}
	for _, gone := range []string{"fetchWithProgress", "ReadableStream", "showProgress", "{progress}", swCallText} {
		if strings.Contains(string(js), gone) {
			t.Errorf("app.js still has %s", gone)
		}
	}
}

// TestHeadersFile holds the site's security headers: HSTS for the
// subdomains too, cross-origin isolation, and no Trusted Types
// requirement (which go-app's app.Raw cannot meet).
func TestHeadersFile(t *testing.T) {
	lines := strings.Split(headersFile, "\n")
	if lines[0] != "/*" {
		t.Fatalf("first line %q, want the /* pattern", lines[0])
	}
	got := map[string]string{}
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ": "); ok {
			got[k] = v
		}
	}
	for k, v := range map[string]string{
		"Strict-Transport-Security":    "max-age=31536000; includeSubDomains",
		"Cross-Origin-Embedder-Policy": "require-corp",
		"Cross-Origin-Opener-Policy":   "same-origin",
		"Cross-Origin-Resource-Policy": "same-origin",
		"X-Content-Type-Options":       "nosniff",
	} {
		if got[k] != v {
			t.Errorf("%s %q, want %q", k, got[k], v)
		}
	}
	if strings.Contains(headersFile, "trusted-types") {
		t.Errorf("the site requires Trusted Types, which app.Raw breaks")
	}
}

// navSkills matches the navigation's link to /skills.
var navSkills = regexp.MustCompile(`<a [^>]*href="/skills"[^>]*>Skills</a>`)

// TestBuildSite builds the site with every route registered, as `make
// build` does, and checks what a person gets before app.wasm runs and
// what a server needs to send it compressed and cached: each exact
// route's page with its own heading and explanatory text, the neutral
// shell as index.html for deep links with "/" rewritten to the home page,
// the module's size and versioned URL in app.js, the cache rules, and
// compressed copies that decode to their originals.
func TestBuildSite(t *testing.T) {
	registerRoutes(newEnv())
	tmp := t.TempDir()
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("module body "), 1000)...)
	wasmFile := filepath.Join(tmp, "app.wasm")
	if err := os.WriteFile(wasmFile, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	importer := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("engine body "), 1000)...)
	importerFile := filepath.Join(tmp, "importer.wasm")
	if err := os.WriteFile(importerFile, importer, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "site")
	if err := buildSite(siteConfig{Out: out, Wasm: wasmFile, Importer: importerFile, Web: filepath.Join("..", "static", "web"), Env: newEnv()}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	t.Run("pages", func(t *testing.T) {
		for _, tc := range []struct{ file, heading, text string }{
			{"home.html", "Skill Workbench", "You bring an OpenRouter API key."},
			{"teach.html", "Teach a skill", "Pick a task, let a model carry it out once"},
			{"skills.html", "Skills", "The skills stored in this browser."},
			{"import.html", "Import skill bundles", "Bundles are data, never code"},
		} {
			page := read(tc.file)
			main := page[strings.Index(page, "<main"):strings.Index(page, "</main>")]
			if !strings.Contains(main, "<h1>"+tc.heading+"</h1>") || !strings.Contains(main, tc.text) {
				t.Errorf("%s: main lacks its heading %q or its text %q:\n%s", tc.file, tc.heading, tc.text, main)
			}
			if !strings.Contains(main, `class="wb-shell"`) {
				t.Errorf("%s: no loading line for what the app has yet to show:\n%s", tc.file, main)
			}
			for _, control := range []string{"<input", "<form", "<table", "<button"} {
				if strings.Contains(main, control) {
					t.Errorf("%s: main has %s, which does nothing before the app runs", tc.file, control)
				}
			}
			// go-app writes attributes in no fixed order.
			if !navSkills.MatchString(page) {
				t.Errorf("%s: no navigation", tc.file)
			}
		}
		shell := read("index.html")
		main := shell[strings.Index(shell, "<main"):strings.Index(shell, "</main>")]
		if strings.Contains(main, "<h1") || !strings.Contains(main, "Loading the workbench") {
			t.Errorf("index.html, served for deep links, is not neutral:\n%s", main)
		}
		if got := read("_redirects"); got != "/ /home 200\n" {
			t.Errorf("_redirects = %q", got)
		}
		if _, err := os.Stat(filepath.Join(out, "loading-shell.html")); !os.IsNotExist(err) {
			t.Errorf("the shell is also left under its route's name (%v)", err)
		}
	})

	t.Run("loader", func(t *testing.T) {
		js := read("app.js")
		if want := `const goappWasmContentLength = "` + strconv.Itoa(len(wasm)) + `";`; !strings.Contains(js, want) {
			t.Errorf("app.js lacks the module's size (%s)", want)
		}
		sum := sha256.Sum256(wasm)
		if want := `"GOAPP_VERSION":"` + hex.EncodeToString(sum[:8]) + `"`; !strings.Contains(js, want) {
			t.Errorf("app.js lacks the version the loader puts in app.wasm's URL (%s)", want)
		}
		if !strings.Contains(js, `fetch("/web/app.wasm?v=" + goappEnv.GOAPP_VERSION)`) {
			t.Errorf("the loader does not ask for the versioned URL")
		}
		isum := sha256.Sum256(importer)
		if want := `"IMPORTER_VERSION":"` + hex.EncodeToString(isum[:8]) + `"`; !strings.Contains(js, want) {
			t.Errorf("app.js lacks the import worker's version (%s)", want)
		}
		if !strings.Contains(js, `location.pathname === "/import"`) || !strings.Contains(js, "self."+importworker.EarlyGlobal+" = {url, worker, early}") {
			t.Errorf("the loader does not start the import worker early on /import for the app to adopt")
		}
		if got := read("web/importer.wasm"); got != string(importer) {
			t.Errorf("web/importer.wasm is not the import worker's module")
		}
	})

	t.Run("cache rules", func(t *testing.T) {
		headers := read("_headers")
		for _, m := range []string{"/web/app.wasm", "/web/importer.wasm"} {
			if !strings.Contains(headers, m+"\n  ! Cache-Control\n  Cache-Control: public, max-age=31536000, immutable\n") {
				t.Errorf("_headers lacks %s's immutable rule:\n%s", m, headers)
			}
		}
		if !strings.Contains(headers, "/*\n") || !strings.Contains(headers, "  Cache-Control: no-cache\n") {
			t.Errorf("_headers lacks no-cache for the rest:\n%s", headers)
		}
		if got := read(".assetsignore"); got != "*.br\n*.gz\n" {
			t.Errorf(".assetsignore = %q", got)
		}
	})

	t.Run("precompressed", func(t *testing.T) {
		for _, name := range []string{"web/app.wasm", "web/importer.wasm", "app.js", "wasm_exec.js", "home.html", "index.html", "web/workbench.css"} {
			orig := read(name)
			for _, enc := range []struct {
				suffix string
				open   func(io.Reader) (io.Reader, error)
			}{
				{".br", func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
				{".gz", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
			} {
				comp := read(name + enc.suffix)
				if len(comp) >= len(orig) {
					t.Errorf("%s%s is %d bytes, the original %d", name, enc.suffix, len(comp), len(orig))
				}
				r, err := enc.open(strings.NewReader(comp))
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(r)
				if err != nil || string(got) != orig {
					t.Errorf("%s%s does not decode to the original (%v)", name, enc.suffix, err)
				}
			}
		}
		// Small files and images get no copy.
		for _, name := range []string{"manifest.webmanifest", "web/icon.svg", "web/icon-512.png", "_headers"} {
			for _, suffix := range []string{".br", ".gz"} {
				if _, err := os.Stat(filepath.Join(out, name+suffix)); !os.IsNotExist(err) {
					t.Errorf("%s%s written (%v)", name, suffix, err)
				}
			}
		}
	})
}
