//go:build !wasm

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

const appJS = "goappWatchForUpdate();\n" + swCallText + "\ngoappInitWebAssembly();\n\nasync function goappInitServiceWorker() {\n}\n"

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
		"app.js":       "async function goappInitServiceWorker() {}\ngoappInitWebAssembly();\n",
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
