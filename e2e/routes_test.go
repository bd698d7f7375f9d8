package e2e

import (
	"strings"
	"testing"
)

const footer = "Workbench v0.1.0 · [&] Protocol v0.1.0 · PULSE v0.1.1"

// Every route loads in the frame — nav with the five links, the footer —
// including deep links the host serves through its single-page fallback,
// and paths that are no route at all.
func TestRoutesLoad(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	for _, tc := range []struct {
		path, heading, current string
	}{
		{"/", "Skill Workbench", "/"},
		{"/teach", "Teach a skill", "/teach"},
		{"/skills", "Skills", "/skills"},
		{"/import", "Import skill bundles", "/import"},
		{"/registry", "Registry", "/registry"},
		{"/skills/0190a1b2-0000-7000-8000-000000000000", "No such skill", "/skills"},
		{"/skills/0190a1b2-0000-7000-8000-000000000000/replay", "No such skill", "/skills"},
		{"/no/such/page", "Page not found", ""},
		{"/skills/0190a1b2-0000-7000-8000-000000000000/nonsense", "Page not found", ""},
	} {
		t.Run(strings.TrimPrefix(tc.path, "/"), func(t *testing.T) {
			defer s.as(t)()
			s.open(tc.path)
			if got := s.waitText("main h1", tc.heading); got != tc.heading {
				t.Errorf("h1 = %q, want %q", got, tc.heading)
			}
			if got := s.text("footer"); got != footer {
				t.Errorf("footer = %q, want %q", got, footer)
			}
			links := eval[[]string](s, `[...document.querySelectorAll("nav a.wb-navlink")].map((a) => a.textContent + " " + a.getAttribute("href"))`)
			if want := []string{"Home /", "Teach /teach", "Skills /skills", "Import /import", "Registry /registry"}; strings.Join(links, "|") != strings.Join(want, "|") {
				t.Errorf("nav links = %q, want %q", links, want)
			}
			current := eval[[]string](s, `[...document.querySelectorAll("nav a[aria-current=page]")].map((a) => a.getAttribute("href"))`)
			if tc.current == "" && len(current) != 0 || tc.current != "" && (len(current) != 1 || current[0] != tc.current) {
				t.Errorf("aria-current on %q, want %q", current, tc.current)
			}
		})
	}
}

// Navigating through the nav bar stays in the app (no reload) and lands
// on the page.
func TestNavigateByLinks(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/")
	eval[bool](s, `(window.__sameDocument = true)`)
	s.click(`nav a[href="/import"]`)
	s.waitText("main h1", "Import")
	s.click(`nav a[href="/skills"]`)
	s.waitText("main h1", "Skills")
	if !eval[bool](s, `window.__sameDocument === true`) {
		t.Error("following a nav link reloaded the page")
	}
}

// The served pages carry the CSP and the security headers, and the site
// has no service worker script to register.
func TestHeaders(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/")
	got := eval[map[string]string](s, `fetch("/skills/0190a1b2-0000-7000-8000-000000000000/replay").then((r) => ({
		status: String(r.status),
		csp: r.headers.get("content-security-policy") || "",
		nosniff: r.headers.get("x-content-type-options") || "",
		frame: r.headers.get("x-frame-options") || "",
	}))`)
	if got["status"] != "200" {
		t.Errorf("deep link status %s", got["status"])
	}
	for _, d := range []string{"default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "worker-src *:*/web/importer.js;", "connect-src 'self' http://127.0.0.1:* http://localhost:*;", "frame-ancestors 'none'"} {
		if !strings.Contains(got["csp"], d) {
			t.Errorf("CSP %q lacks %q", got["csp"], d)
		}
	}
	if got["nosniff"] != "nosniff" || got["frame"] != "DENY" {
		t.Errorf("security headers: %v", got)
	}
	// No worker script: the path falls back to the app's page.
	if body := eval[string](s, `fetch("/app-worker.js").then((r) => r.text())`); !strings.HasPrefix(body, "<!doctype html>") {
		t.Errorf("/app-worker.js is served: %.80q", body)
	}
	// The CSP lets the page start the import worker's loader and no other
	// worker script, and register no service worker. The violations the
	// probe causes are its own; the end-of-test check sees the others.
	s.expectConsole(`violates the following Content Security Policy directive: "worker-src`)
	workers := eval[map[string]string](s, `(async () => {
  const blocked = new Set();
  document.addEventListener("securitypolicyviolation", (e) => {
    if (e.effectiveDirective === "worker-src") blocked.add(new URL(e.blockedURI).pathname);
  });
  const importer = new Worker("/web/importer.js?v=probe");
  const heard = new Promise((ok) => { importer.onmessage = (m) => ok(JSON.parse(m.data).kind); });
  new Worker("/app.js");
  new Worker("/wasm_exec.js");
  const sw = await navigator.serviceWorker.register("/app.js").then(() => "registered", (e) => e.name);
  const kind = await heard;
  importer.terminate();
  for (let i = 0; i < 100 && blocked.size < 2; i++) await new Promise((r) => setTimeout(r, 50));
  window.__cspViolations = window.__cspViolations.filter((v) => !v.startsWith("worker-src"));
  return {blocked: [...blocked].sort().join(" "), serviceWorker: sw, importer: kind};
})()`)
	for k, want := range map[string]string{"blocked": "/app.js /wasm_exec.js", "serviceWorker": "SecurityError", "importer": "ready"} {
		if workers[k] != want {
			t.Errorf("workers: %s %q, want %q", k, workers[k], want)
		}
	}
}
