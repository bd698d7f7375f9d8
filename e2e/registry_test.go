package e2e

import (
	"net/url"
	"strings"
	"testing"
)

// Two browser profiles on one workbench under wrangler dev, its registry
// in local R2 and D1: the first publishes a skill signed with its
// browser's key; the second, fresh, opens the link, imports it, reads
// "not in your trusted signers" with the key's fingerprint, pins the
// signer in one explicit action and reads "trusted" — on the import line
// and in its library. The first then withdraws it, and the second's
// import says so. A link from a registry the second never added is
// refused without a request; once added by hand, it is fetched (a second
// origin of the same Worker: localhost instead of 127.0.0.1). The
// registry's page passes the layout and accessibility checks.
func TestRegistryPublishImportTrust(t *testing.T) {
	t.Parallel()
	pub := newSession(t, withRegistry())
	recv := newSession(t, withServerOf(pub))

	// The publisher's key, and the skill it publishes.
	pub.open("/import")
	pub.waitVisible("#signing-create")
	pub.click("#signing-create")
	pub.waitVisible("#signing-key-id")
	keyID := pub.text("#signing-key-id")
	id := pub.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	pub.openSkill(id)
	pub.click("#export-open")
	pub.waitVisible("#export-dialog")
	if got := eval[string](pub, `document.querySelector("input[name=export-profile]:checked").value`); got != "transcript_pii" {
		t.Fatalf("the export dialog opens on %q", got)
	}
	pub.click("#export-publish")
	pub.waitFor(`!!document.querySelector("#publish-done, #publish-error")`)
	if eval[bool](pub, `!!document.querySelector("#publish-error")`) {
		t.Fatalf("not published: %s", pub.text("#publish-error"))
	}
	if got := pub.text("#publish-signer"); got != keyID {
		t.Errorf("published, signed by %q; the browser's key is %q", got, keyID)
	}
	link := eval[string](pub, `document.querySelector("#publish-link").getAttribute("href")`)
	u, err := url.Parse(link)
	if err != nil || u.Scheme+"://"+u.Host != pub.base || u.Path != "/import" || !strings.HasPrefix(u.Query().Get("from"), pub.base+"/api/registry/bundles/sha256:") {
		t.Fatalf("the link to send: %q", link)
	}
	hash := strings.TrimPrefix(u.Query().Get("from"), pub.base+"/api/registry/bundles/")

	// The receiver opens the link in a fresh profile.
	recv.load(u.RequestURI())
	recv.waitVisible("#link-import")
	if got := recv.text("#link-hash"); got != hash {
		t.Errorf("the link panel names %q", got)
	}
	recv.click("#link-import")
	recv.waitVisible("#import-results > li .import-signer")
	line := recv.text("#import-results > li:last-child")
	if !strings.Contains(line, "accepted") || !strings.Contains(line, "From the registry at "+pub.base) {
		t.Errorf("the import by link: %s", line)
	}
	signer := recv.text("#import-results > li:last-child .import-signer")
	if signer != "Signer: key "+keyID+" — not in your trusted signers Trust this signer…" {
		t.Errorf("before pinning: %q", signer)
	}
	recv.click("#import-results > li:last-child .signer-trust")
	recv.waitVisible("#trust-dialog")
	if got := recv.text("#trust-dialog-key"); got != keyID {
		t.Errorf("the trust dialog shows the fingerprint %q, want %q", got, keyID)
	}
	recv.setField("#trust-dialog-name", "the publisher", "input")
	recv.click("#trust-dialog-confirm")
	got := recv.waitText("#import-results > li:last-child .import-signer", "trusted —")
	if got != "Signer: trusted — the publisher (key "+keyID+")" {
		t.Errorf("after pinning: %q", got)
	}
	recv.open("/skills")
	if got := recv.waitText("#skills-table td.skill-signer", "trusted —"); got != "trusted — the publisher" {
		t.Errorf("the library's signer: %q", got)
	}

	// The registry's page, and the publisher's withdrawal.
	pub.open("/registry")
	pub.waitVisible("#registry-table")
	row := `#registry-table tr[data-hash="` + hash + `"]`
	if got := pub.text(row + " .registry-signer"); got != keyID {
		t.Errorf("the listing's signer %q", got)
	}
	if got := pub.text("#registry-table"); strings.Contains(strings.ToLower(got), "trusted") {
		t.Errorf("the listing speaks of trust: %s", got)
	}
	pub.checkLayout(t, "/registry", axeSource(t))
	pub.click(row + " .registry-withdraw")
	pub.waitVisible("#withdraw-dialog")
	pub.click("#withdraw-confirm")
	pub.waitVisible("#withdraw-done")
	if got := pub.waitText(row+" .registry-withdrawn", "withdrawn by its signer"); !strings.HasPrefix(got, "withdrawn by its signer ") {
		t.Errorf("after the withdrawal: %q", got)
	}

	// The receiver imports the link again: already stored, and withdrawn.
	recv.load(u.RequestURI())
	recv.click("#link-import")
	recv.waitVisible("#import-results > li .linked-withdrawn")
	if got := recv.text("#import-results > li:last-child"); !strings.Contains(got, "already in the library") || !strings.Contains(got, "Withdrawn by its signer") {
		t.Errorf("the withdrawn bundle's import: %s", got)
	}

	// Another registry (this Worker under another origin): refused
	// unless added by hand; fetched once added.
	other := strings.Replace(pub.base, "127.0.0.1", "localhost", 1)
	otherLink := "/import?" + url.Values{"from": {other + "/api/registry/bundles/" + hash}}.Encode()
	recv.load(otherLink)
	recv.waitVisible("#link-not-allowed")
	if eval[bool](recv, `!!document.querySelector("#link-import")`) {
		t.Error("a link from a registry not added offers Import")
	}
	recv.mu.Lock()
	recv.origins = append(recv.origins, other)
	recv.mu.Unlock()
	recv.open("/registry")
	recv.waitVisible("#registry-add-form")
	recv.setField("#registry-add-origin", "https://registry.example.org", "input")
	recv.click("#registry-add")
	if got := recv.waitText("#registry-add-error", "Content-Security-Policy"); !strings.Contains(got, "https://registry.example.org") {
		t.Errorf("a registry the page cannot connect to: %q", got)
	}
	recv.setField("#registry-add-origin", other, "input")
	recv.click("#registry-add")
	recv.waitText("#registries", other)
	recv.load(otherLink)
	recv.click("#link-import")
	recv.waitVisible("#import-results > li .linked-registry")
	if got := recv.text("#import-results > li:last-child .linked-registry"); got != other {
		t.Errorf("imported from %q, want %q", got, other)
	}
	recv.checkLayout(t, "/import (by link)", axeSource(t))
}
