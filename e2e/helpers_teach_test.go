package e2e

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"
)

// keepKey enters key on the landing page, where it is kept in the tab's
// sessionStorage (whether or not OpenRouter accepts it), and waits for the
// check to answer.
func (s *session) keepKey(key string) {
	s.t.Helper()
	s.open("/")
	s.typeInto("#key", key)
	if got := eval[string](s, `document.querySelector("#key").value`); got != key {
		s.t.Fatalf("the key field holds %d characters after typing the %d of the key (%q…)", len(got), len(key), got[:min(len(got), 12)])
	}
	s.click("#key-check")
	s.do(chromedp.Poll[chromedp.Void](`!!document.querySelector("#key-label, #key-error")`, chromedp.WithPollingTimeout(30*time.Second)))
	if key == s.OR.Key && s.countOf("#key-error") > 0 {
		s.t.Fatalf("the key check failed: %s", s.text("#key-error"))
	}
}

// setField sets a form control's value as typing or picking would, and
// fires the event the page listens to ("input" or "change").
func (s *session) setField(sel, value, event string) {
	s.t.Helper()
	eval[bool](s, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) throw new Error("no element " + %q);
  e.value = %q; e.dispatchEvent(new Event(%q, {bubbles: true})); return true; })()`, sel, sel, value, event))
}

// waitFor polls a JavaScript condition until it holds.
func (s *session) waitFor(cond string) {
	s.t.Helper()
	s.do(chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingTimeout(30*time.Second)))
}

// disabled reports whether the element is disabled.
func (s *session) disabled(sel string) bool {
	s.t.Helper()
	return eval[bool](s, fmt.Sprintf(`document.querySelector(%q).disabled`, sel))
}

// library is what the page's IndexedDB library holds: its skill records
// and the bundles stored beside them (parsed from their stored bytes,
// which the store keeps as a Uint8Array).
type library struct {
	Exists bool `json:"exists"`
	Skills []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Slug        string `json:"slug"`
		Description string `json:"description"`
		TraceID     string `json:"trace_id"`
		BundleHash  string `json:"bundle_hash"`
	} `json:"skills"`
	Bundles []struct {
		ContentHash string `json:"content_hash"`
		Manifest    struct {
			SkillID            string `json:"skill_id"`
			Name               string `json:"name"`
			Slug               string `json:"slug"`
			Description        string `json:"description"`
			DerivedFromTraceID string `json:"derived_from_trace_id"`
		} `json:"manifest"`
		Trace struct {
			TraceID string `json:"trace_id"`
			Edges   []any  `json:"edges"`
		} `json:"interaction_trace"`
	} `json:"bundles"`
}

// readLibrary reads workbench-v0 in the page. It never creates the
// database: when the app has not made it, the library is empty.
const readLibrary = `(async () => {
  const names = (await indexedDB.databases()).map((d) => d.name);
  if (!names.includes("workbench-v0")) return JSON.stringify({exists: false, skills: [], bundles: []});
  const db = await new Promise((ok, fail) => { const r = indexedDB.open("workbench-v0"); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const all = (name) => new Promise((ok, fail) => { const r = db.transaction(name).objectStore(name).getAll(); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const text = (v) => typeof v === "string" ? v : new TextDecoder().decode(v);
  const skills = (await all("skills")).map((s) => JSON.parse(text(s)));
  const bundles = (await all("bundles")).map((b) => JSON.parse(text(b.data)));
  db.close();
  return JSON.stringify({exists: true, skills, bundles});
})()`

func (s *session) library() library {
	s.t.Helper()
	var l library
	if err := json.Unmarshal([]byte(eval[string](s, readLibrary)), &l); err != nil {
		s.t.Fatalf("reading the library: %v", err)
	}
	return l
}
