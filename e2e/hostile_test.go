package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	librarypkg "workbench/pkg/library"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// hostileMarkup is what a hostile bundle puts in its text: markup that
// would run script or load something if it became elements, Markdown
// links and images, and bare URLs. "pwned" marks every URL, so a request
// for any of them shows in the network log, same origin or not.
const hostileMarkup = `<script>window.__pwned="script"</script>` +
	`<img src="pwned-img.png" onerror="window.__pwned='img'">` +
	`<a href="javascript:window.__pwned='href'">a</a>` +
	`<iframe src="https://evil.example/pwned-frame"></iframe>` +
	`<svg onload="window.__pwned='svg'"></svg>` +
	` [link](javascript:window.__pwned='md') ![img](https://evil.example/pwned-md.png)` +
	` https://evil.example/pwned-url //evil.example/pwned-relative`

// hostileValues are tried, in order, on each string of a bundle: the
// markup after the original text, the markup alone, shorter markup for
// fields of bounded length, a URL, a javascript: URL. The first the
// bundle stays importable with is kept.
var hostileValues = []func(orig string) string{
	func(o string) string { return o + " " + hostileMarkup },
	func(string) string { return hostileMarkup },
	func(string) string {
		return `<script>window.__pwned=1</script><img src=pwned.png onerror=window.__pwned=2>`
	},
	func(string) string { return `<img src=pwned.png onerror=window.__pwned=2>` },
	func(string) string { return "https://evil.example/pwned-field" },
	func(string) string { return "javascript:window.__pwned='field'" },
}

// importable says whether library.Import would accept data: it verifies
// (strict parse, schema, typed decode) and its seal holds.
func importable(v *verify.Verifier, data []byte) bool {
	if _, err := v.Bytes(data); err != nil {
		return false
	}
	f, err := store.NewBundleFile(data)
	return err == nil && f.Check("import") == nil
}

// sealJSON encodes a generic bundle document without HTML escaping (the
// file holds the markup literally) and sets its content_hash.
func sealJSON(t *testing.T, doc map[string]any) []byte {
	t.Helper()
	enc := func() []byte {
		var buf bytes.Buffer
		e := json.NewEncoder(&buf)
		e.SetEscapeHTML(false)
		if err := e.Encode(doc); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	parsed, err := skill.Parse(enc())
	if err != nil {
		t.Fatal(err)
	}
	h, err := skill.DocumentHash(parsed)
	if err != nil {
		t.Fatal(err)
	}
	doc["content_hash"] = h
	return enc()
}

// hostileBundle returns the fixture bundle with hostile text in every
// string the bundle schema and the seal let it carry, re-sealed, and how
// many strings carry it.
func hostileBundle(t *testing.T) ([]byte, int) {
	t.Helper()
	data, err := os.ReadFile(fixturePath(fixtureValid))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	v := appVerifier(t)
	if !importable(v, sealJSON(t, doc)) {
		t.Fatal("the re-sealed fixture itself is not importable")
	}
	// Every string's setter, found by a walk of the document.
	type leaf struct {
		get func() string
		set func(string)
	}
	var leaves []leaf
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if _, ok := x.(string); ok && k != "content_hash" {
					leaves = append(leaves, leaf{func() string { return v[k].(string) }, func(n string) { v[k] = n }})
				} else {
					walk(x)
				}
			}
		case []any:
			for i, x := range v {
				if _, ok := x.(string); ok {
					leaves = append(leaves, leaf{func() string { return v[i].(string) }, func(n string) { v[i] = n }})
				} else {
					walk(x)
				}
			}
		}
	}
	walk(doc)
	hostile := 0
	for _, l := range leaves {
		orig := l.get()
		kept := false
		for _, f := range hostileValues {
			l.set(f(orig))
			if importable(v, sealJSON(t, doc)) {
				kept = true
				break
			}
		}
		if kept {
			hostile++
		} else {
			l.set(orig)
		}
	}
	out := sealJSON(t, doc)
	if !importable(v, out) {
		t.Fatal("the hostile bundle is not importable")
	}
	return out, hostile
}

// domInjected lists what in the page could only have come from bundle
// text turned into markup: elements that run or load something, event
// handler attributes, and link or source attributes pointing at the
// hostile URLs.
const domInjected = `(() => {
  const bad = [];
  const own = new Set(["/wasm_exec.js", "/app.js", "/web/icon.svg"]);
  for (const e of document.querySelectorAll("script, iframe, frame, object, embed, img, image, video, audio, source, link[rel], svg, base, meta[http-equiv]")) {
    const src = e.getAttribute("src") || e.getAttribute("href") || "";
    if (e.closest("head") && e.tagName !== "SCRIPT" && e.tagName !== "BASE") continue;
    if (own.has(src)) continue;
    if (e.tagName === "svg" && !e.closest("main")) continue;
    bad.push(e.outerHTML.slice(0, 160));
  }
  for (const e of document.querySelectorAll("*")) {
    for (const a of e.attributes) {
      if (/^on/i.test(a.name)) bad.push(e.tagName + " " + a.name + "=" + a.value.slice(0, 80));
      if (["href", "src", "srcset", "action", "formaction", "xlink:href", "style", "poster", "data"].includes(a.name) &&
          /pwned|evil\.example|javascript:/i.test(a.value)) bad.push(e.tagName + " " + a.name + "=" + a.value.slice(0, 80));
    }
  }
  if (window.__pwned !== undefined) bad.push("window.__pwned = " + window.__pwned);
  return bad;
})()`

// pwnedRequests lists the requests the browser made for a hostile URL.
func (s *session) pwnedRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, u := range s.requests {
		if strings.Contains(u, "pwned") || strings.Contains(u, "evil.example") {
			out = append(out, u)
		}
	}
	return out
}

// A bundle with hostile text in every string it may carry is accepted as
// data and shown as text on every page that shows it: no element, handler
// or link is made from it, no script runs, nothing is requested (and the
// session's end checks find no CSP violation, console error or service
// worker).
func TestHostileStringsInert(t *testing.T) {
	t.Parallel()
	data, n := hostileBundle(t)
	if n < 50 {
		t.Fatalf("only %d strings carry hostile text", n)
	}
	t.Logf("%d strings of the bundle carry hostile text", n)
	// The file name is hostile too: the import page shows it.
	name := `<img src=pwned-name.png onerror=window.__pwned=9>.skill.json`
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var b struct {
		SkillID  string `json:"skill_id"`
		Manifest struct {
			Name string `json:"name"`
		} `json:"manifest"`
	}
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Manifest.Name, "<script>") {
		t.Fatalf("the manifest name carries no markup: %q", b.Manifest.Name)
	}

	s := newSession(t)
	s.open("/import")
	// The detector sees an element and a link put into the page.
	eval[bool](s, `(() => { const d = document.createElement("div"); d.id = "probe";
  d.appendChild(document.createElement("iframe"));
  const a = document.createElement("a"); a.setAttribute("href", "javascript:void 0"); d.appendChild(a);
  document.querySelector("main").appendChild(d); return true; })()`)
	if got := eval[[]string](s, domInjected); len(got) != 2 {
		t.Fatalf("the detector found %q in a page with an iframe and a javascript: link added", got)
	}
	eval[bool](s, `(document.getElementById("probe").remove(), true)`)
	s.drop("#dropzone", path)
	s.waitVisible("#import-results > li .import-status")
	if got := s.text("#import-results > li .import-status"); got != "accepted" {
		t.Fatalf("status %q: %s", got, s.text("#import-results > li"))
	}
	if got := s.text("#import-results > li .import-name"); got != name {
		t.Errorf("file name shown as %q", got)
	}
	checkPage := func(page string) {
		t.Helper()
		if bad := eval[[]string](s, domInjected); len(bad) > 0 {
			t.Errorf("%s: made from bundle text:\n  %s", page, strings.Join(bad, "\n  "))
		}
	}
	checkPage("/import")

	s.open("/skills")
	s.waitVisible("#skills-table .skill-name")
	if got := s.text("#skills-table .skill-name"); got != b.Manifest.Name {
		t.Errorf("name shown as %q, want the text itself", got)
	}
	checkPage("/skills")

	s.openSkill(b.SkillID)
	if got := s.text("main h1"); got != b.Manifest.Name {
		t.Errorf("heading %q, want the text itself", got)
	}
	checkPage("/skills/{id}")
	for _, tab := range []string{"memory", "compare", "audit", "manifest"} {
		s.click("#tab-" + tab)
		s.waitVisible("#panel-" + tab)
		checkPage("/skills/{id} tab " + tab)
	}
	s.open("/skills/" + b.SkillID + "/replay")
	checkPage("/skills/{id}/replay")

	if got := s.pwnedRequests(); len(got) > 0 {
		t.Errorf("requests for hostile URLs:\n  %s", strings.Join(got, "\n  "))
	}
}

// Files that are not bundles the library can keep are each rejected with
// a message saying what and where, and nothing is stored or requested.
func TestHostileFilesRejected(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile(fixturePath(fixtureValid))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	// 50,000 members the bundle does not allow, and the 11 it requires
	// missing: the first 100 problems are listed and the rest counted.
	var many strings.Builder
	many.WriteString(`{"x0":0`)
	for i := 1; i < 50_000; i++ {
		fmt.Fprintf(&many, `,"x%d":0`, i)
	}
	many.WriteString(`}`)
	cases := []struct {
		file string
		data []byte
		want []string // in the rejected row's text
	}{
		{"malformed.json", fixture[:len(fixture)/2], []string{"not JSON: ", "syntax error", "byte "}},
		{"trailing.json", append(bytes.Clone(fixture), []byte(`{"bundle_id":"x"}`)...), []string{"trailing data"}},
		{"duplicate-keys.json", bytes.Replace(fixture, []byte(`"bundle_id":`), []byte(`"bundle_id":"019e5f01-0000-7000-8000-000000000000","bundle_id":`), 1),
			[]string{"JSON, but not I-JSON", "duplicate member name", "/bundle_id"}},
		{"lone-surrogate.json", bytes.Replace(fixture, []byte(`"description":"`), []byte(`"description":"\ud800`), 1),
			[]string{"lone surrogate", "description"}},
		{"invalid-utf8.json", bytes.Replace(fixture, []byte(`"description":"`), []byte("\"description\":\"\xff\xfe"), 1),
			[]string{"invalid UTF-8"}},
		{"deep.json", []byte(`{"manifest": ` + deep + `}`), []string{"nesting too deep"}},
		{"not-a-bundle.json", []byte(`{"hello": "<script>window.__pwned=1</script>", "url": "https://evil.example/pwned"}`), []string{"JSON, but not a bundle, nor any other artifact of the spec", "/"}},
		{"many-problems.json", []byte(many.String()), []string{"JSON, but not a bundle", "/bundle_id", "is required", "/x0", "is not an allowed member here", "… and 49911 more problems"}},
		{"huge-number.json", bytes.Replace(fixture, []byte(`"skill_version":2`), []byte(`"skill_version":1e400`), 1), []string{"non-finite number", "/skill_version"}},
	}
	for _, c := range cases {
		if bytes.Equal(c.data, fixture) {
			t.Fatalf("%s: the fixture has no place to break", c.file)
		}
	}
	paths := make([]string, 0, len(cases)+1)
	for _, c := range cases {
		p := filepath.Join(dir, c.file)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	// Over the size limit: a sparse file, never read by the page.
	huge := filepath.Join(dir, "huge.json")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(librarypkg.MaxBundleBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	paths = append(paths, huge)
	cases = append(cases, struct {
		file string
		data []byte
		want []string
	}{"huge.json", nil, []string{fmt.Sprintf("the file is %d bytes; the workbench imports bundles of at most %d bytes", librarypkg.MaxBundleBytes+1, librarypkg.MaxBundleBytes)}})

	s := newSession(t)
	s.open("/import")
	s.drop("#dropzone", paths...)
	s.waitVisible(fmt.Sprintf("#import-results > li:nth-child(%d)", len(paths)))
	rows := s.textsOf("#import-results > li")
	classes := eval[[]string](s, `[...document.querySelectorAll("#import-results > li")].map((li) => li.className)`)
	for i, c := range cases {
		row := rows[i]
		if !strings.HasPrefix(row, c.file+" — rejected") || !strings.Contains(classes[i], "import-rejected") {
			t.Errorf("%s: not rejected: %s", c.file, row)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(row, w) {
				t.Errorf("%s: the row does not say %q: %s", c.file, w, row)
			}
		}
		// A problem is said once, not in the headline, a cause and a list.
		if n := strings.Count(row, c.want[0]); n > 1 {
			t.Errorf("%s: the row says %q %d times: %s", c.file, c.want[0], n, row)
		}
	}
	if bad := eval[[]string](s, domInjected); len(bad) > 0 {
		t.Errorf("made from file content:\n  %s", strings.Join(bad, "\n  "))
	}
	s.open("/skills")
	s.waitVisible("#skills-empty")
	if got := s.pwnedRequests(); len(got) > 0 {
		t.Errorf("requests for hostile URLs:\n  %s", strings.Join(got, "\n  "))
	}
}
