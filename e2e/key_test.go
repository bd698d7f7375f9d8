package e2e

import (
	"strings"
	"testing"
)

// storageDump is every value the page can reach in IndexedDB (every
// database, every object store, every record), localStorage, cookies and
// Cache Storage, as one string.
const storageDump = `(async () => {
  const out = [];
  for (const info of await indexedDB.databases()) {
    const db = await new Promise((ok, fail) => { const r = indexedDB.open(info.name); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
    for (const name of db.objectStoreNames) {
      const all = await new Promise((ok, fail) => { const r = db.transaction(name).objectStore(name).getAll(); r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
      out.push("idb " + info.name + "/" + name + " " + JSON.stringify(all));
    }
    db.close();
  }
  for (let i = 0; i < localStorage.length; i++) { const k = localStorage.key(i); out.push("local " + k + "=" + localStorage.getItem(k)); }
  out.push("cookie " + document.cookie);
  for (const name of await caches.keys()) { out.push("cache " + name); }
  return out.join("\n");
})()`

// Acceptance criterion 2: the key entered on / is checked against the
// stand-in through the proxy (its label shown), lives in sessionStorage,
// and after the session is found in no IndexedDB database, localStorage,
// cookie or cache.
func TestKeyCheckedAndKeptInSessionOnly(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/")
	s.typeInto("#key", s.OR.Key)
	s.click("#key-check")
	s.waitVisible("#key-label")
	label := s.text("#key-label")
	if label == "" || strings.Contains(s.OR.Key, label) && label == s.OR.Key {
		t.Errorf("label %q: want OpenRouter's masked label, not the key", label)
	}
	if !strings.Contains(label, "...") {
		t.Errorf("label %q is not the stand-in's masked label", label)
	}
	if got := s.text("#key-usage"); !strings.HasPrefix(got, "$") {
		t.Errorf("usage %q", got)
	}
	if got := s.text("#key-limit"); got != "no limit" {
		t.Errorf("limit %q, want no limit (the stand-in sets none)", got)
	}
	// The field does not keep showing the key.
	if v := eval[string](s, `document.querySelector("#key").value`); v != "" {
		t.Errorf("the key field still holds %d characters", len(v))
	}
	// The request reached the stand-in through the proxy, with the key.
	var sawKey bool
	for _, r := range s.OR.Requests() {
		if r.Route == "/key" && r.Header.Get("Authorization") == "Bearer "+s.OR.Key {
			sawKey = true
		}
	}
	if !sawKey {
		t.Error("the stand-in saw no GET /key with the key")
	}
	if got := eval[string](s, `sessionStorage.getItem("workbench.openrouter_key")`); got != s.OR.Key {
		t.Error("the key is not in sessionStorage")
	}

	// A session: other pages, back, a reload (the key is checked again).
	s.open("/skills")
	s.open("/import")
	s.load("/")
	s.waitVisible("#key-label")

	dump := eval[string](s, storageDump)
	if strings.Contains(dump, s.OR.Key) {
		t.Errorf("the key was found outside sessionStorage:\n%s", dump)
	}
	// Forget removes it from the session too.
	s.click("#key-forget")
	s.waitText("#key-status", "No key yet")
	if got := eval[bool](s, `sessionStorage.getItem("workbench.openrouter_key") === null`); !got {
		t.Error("the key is still in sessionStorage after Forget key")
	}
}

// A key the stand-in does not know shows OpenRouter's exact error.
func TestWrongKeyShowsTheError(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.expectConsole("401") // the browser logs the failed fetch
	s.open("/")
	s.typeInto("#key", "sk-or-v1-not-a-key-the-server-knows")
	s.click("#key-check")
	s.waitVisible("#key-error")
	got := s.text("#key-error")
	if !strings.Contains(got, "401") || !strings.Contains(got, "User not found.") {
		t.Errorf("error %q: want the 401 and OpenRouter's message", got)
	}
	if strings.Contains(got, "not-a-key") {
		t.Errorf("the error text contains the key: %q", got)
	}
	if !strings.Contains(s.text("#key-status"), "refused the key") {
		t.Errorf("status %q", s.text("#key-status"))
	}
}

// Without an MCP server configured or a paired computer, browser and host
// say so, point to "This computer" (never to an operator's command), and
// cannot be picked; the simulator is picked and the choice is kept in
// sessionStorage.
func TestBodyChoice(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/")
	s.waitText("#body-browser-note", "pair this computer below")
	s.waitVisible("#pair-command")
	if got := s.text("#pair-command"); got != "make bodies ORIGIN="+s.base {
		t.Errorf("the pairing command is %q", got)
	}
	if strings.Contains(s.text("main"), "serve --mcp") {
		t.Errorf("a visitor is told to run an operator's command: %s", s.text("main"))
	}
	if !eval[bool](s, `document.querySelector("#body-browser").disabled && document.querySelector("#body-host").disabled`) {
		t.Error("browser and host can be picked with no MCP server configured")
	}
	if !eval[bool](s, `document.querySelector("#body-simulator").checked`) {
		t.Error("the simulator is not picked by default")
	}
	if got := eval[string](s, `sessionStorage.getItem("workbench.body")`); got != "simulator" {
		t.Errorf("sessionStorage workbench.body = %q", got)
	}
}

// A key pressed while the page is still answering the one before is
// kept: the page never writes an older value back into the key field.
// The race is made deterministic: one input event is fired, then another
// character lands in the field before the page had a frame to answer.
func TestKeyFieldKeepsWhatIsTyped(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	s.open("/")
	s.waitVisible("#key")
	got := typingRace(s, "#key", "sk-or-v1-abc")
	if got != "sk-or-v1-abcdef" {
		t.Errorf("the key field holds %q after typing %q", got, "sk-or-v1-abcdef")
	}
	// The key checked is the one typed, to the last character.
	s.expectConsole("401 (Unauthorized)")
	s.setField("#key", "sk-or-v1-abcdef", "input")
	s.click("#key-check")
	s.waitVisible("#key-error")
	var sent []string
	for _, r := range s.OR.Requests() {
		if r.Route == "/key" {
			sent = append(sent, r.Header.Get("Authorization"))
		}
	}
	if len(sent) != 1 || sent[0] != "Bearer sk-or-v1-abcdef" {
		t.Errorf("the key check sent Authorization %q, want once %q", sent, "Bearer sk-or-v1-abcdef")
	}
}
