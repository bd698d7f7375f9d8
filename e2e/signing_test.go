package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"workbench/pkg/signature"
)

// runWorkbench runs the command line built for the tests and returns its
// exit status and output.
func runWorkbench(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(setup.workbench, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// A bundle signed in the browser, with its non-extractable WebCrypto key,
// verifies with the command line against the pin set the browser offers,
// and against no other; a bundle signed by the command line reads as
// signed by an unknown key in the browser until its pin set is trusted
// there, then as signed by the name given; a signature changed by one
// byte is shown as invalid by both.
func TestSigningCrossesBrowserAndCommandLine(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	s := newSession(t)
	dir := s.allowDownloads()

	// The browser's key and its pin set.
	s.open("/import")
	s.waitVisible("#signing-create")
	s.click("#signing-create")
	s.waitVisible("#signing-key-id")
	keyID := s.text("#signing-key-id")
	browserPins := filepath.Join(tmp, "browser.pub.json")
	if err := os.WriteFile(browserPins, []byte(s.text("#signing-pin")), 0o644); err != nil {
		t.Fatal(err)
	}

	// Browser signs, command line verifies.
	id := s.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	s.openSkill(id)
	s.click("#export-open")
	s.waitVisible("#export-dialog")
	s.click("#export-sign")
	s.click("#export-download")
	s.waitVisible("#export-done")
	if got := s.text("#export-done-signed"); got != "by this browser's key "+keyID {
		t.Errorf("export says signed %q, want by %s", got, keyID)
	}
	exported := filepath.Join(dir, s.text("#export-filename"))
	waitFile(t, dir, filepath.Base(exported))
	code, out := runWorkbench(t, "verify", "--trust", browserPins, exported)
	if code != 0 || !strings.Contains(out, "signed: true (signed by workbench browser key, key "+keyID+")") {
		t.Fatalf("the command line on the browser-signed file: exit %d\n%s", code, out)
	}
	if code, out := runWorkbench(t, "verify", exported); code != 0 || !strings.Contains(out, "signed: false (signature present, not verified)") {
		t.Errorf("without a pin set: exit %d\n%s", code, out)
	}

	// Command line signs, browser verifies.
	key := filepath.Join(tmp, "release.key")
	if code, out := runWorkbench(t, "keygen", "--out", key); code != 0 {
		t.Fatalf("keygen: exit %d\n%s", code, out)
	}
	if code, out := runWorkbench(t, "verify", "--trust", key+".pub.json", exported); code != 0 || !strings.Contains(out, "signed: false (signed by an unknown key "+keyID+")") {
		t.Errorf("the browser's signature against the command line's pin set: exit %d\n%s", code, out)
	}
	cliSigned := filepath.Join(tmp, "cli.skill.json")
	if code, out := runWorkbench(t, "sign", "--key", key, "--out", cliSigned, fixturePath("redacted-transcript_pii.v0.json")); code != 0 {
		t.Fatalf("sign: exit %d\n%s", code, out)
	}
	pinText, err := os.ReadFile(key + ".pub.json")
	if err != nil {
		t.Fatal(err)
	}
	var ps signature.PinSet
	if err := json.Unmarshal(pinText, &ps); err != nil || len(ps.Signers) != 1 {
		t.Fatalf("pin set %s: %v", pinText, err)
	}
	cliKeyID := ps.Signers[0].KeyID

	cliID := s.importBundle(cliSigned)
	if got := s.text("#import-results > li:last-child .import-signed"); got != "Signed: false (signed by an unknown key "+cliKeyID+")" {
		t.Errorf("import of the CLI-signed file, key not trusted: %q", got)
	}
	s.openSkill(cliID)
	if got := s.text("#skill-signed"); got != "false (signed by an unknown key "+cliKeyID+")" {
		t.Errorf("skill page, key not trusted: %q", got)
	}

	// Trusted from the library: the row's "Trust this signer…" opens
	// the dialog; Cancel pins nothing, Trust pins the key under the name
	// given and the row says so.
	s.open("/skills")
	trust := `#skills-table .signer-trust[data-key-id="` + cliKeyID + `"]`
	s.waitVisible(trust)
	s.click(trust)
	s.waitVisible("#trust-dialog")
	if got := s.text("#trust-dialog-key"); got != cliKeyID {
		t.Errorf("the trust dialog on /skills shows the fingerprint %q, want %q", got, cliKeyID)
	}
	s.click("#trust-dialog-cancel")
	s.waitJS(`!document.querySelector("#trust-dialog").open`)
	if s.countOf(trust) != 1 {
		t.Error("Cancel in the trust dialog pinned the key")
	}
	s.click(trust)
	s.waitVisible("#trust-dialog")
	s.setField("#trust-dialog-name", "release (library)", "input")
	s.click("#trust-dialog-confirm")
	s.waitJS(`Array.from(document.querySelectorAll("#skills-table td.skill-signer")).some(td => td.textContent === "trusted — release (library)")`)
	if s.countOf(trust) != 0 {
		t.Error("a row still offers to trust the pinned key")
	}

	// The trust form renames the pin, the name kept with the key.
	s.open("/import")
	s.waitVisible("#trust-form")
	s.setField("#trust-name", "release (command line)", "input")
	s.setField("#trust-key", string(pinText), "input")
	s.click("#trust-add")
	s.waitText("#trusted-signers", "release (command line)")
	s.openSkill(cliID)
	if got := s.text("#skill-signed"); got != "true (signed by release (command line), key "+cliKeyID+")" {
		t.Errorf("skill page, key trusted: %q", got)
	}

	// One byte of the signature changed: invalid, loudly, on import and
	// on the skill page; the command line exits 1.
	data, err := os.ReadFile(cliSigned)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Signature signature.Signature `json:"signature"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(doc.Signature.Value)
	raw[0] ^= 1
	tampered := filepath.Join(tmp, "tampered.skill.json")
	bad := bytes.Replace(data, []byte(doc.Signature.Value), []byte(base64.StdEncoding.EncodeToString(raw)), 1)
	if err := os.WriteFile(tampered, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	// Its content is the stored bundle's: the import is a duplicate,
	// and still says the signature is invalid.
	s.open("/import")
	s.upload("#import-files", tampered)
	s.waitVisible("#import-results > li:last-child .signature-invalid")
	if got := s.text("#import-results > li:last-child .signature-invalid"); !strings.HasPrefix(got, "false (SIGNATURE INVALID: ") {
		t.Errorf("import of a tampered signature: %q", got)
	}
	if code, out := runWorkbench(t, "verify", "--trust", key+".pub.json", tampered); code != 1 || !strings.Contains(out, "SIGNATURE INVALID") {
		t.Errorf("the command line on a tampered signature: exit %d\n%s", code, out)
	}

	// A pin set that is not one is refused and says so, trusting
	// nothing; Remove takes a signer out, and its bundles read as signed
	// by an unknown key again.
	s.setField("#trust-name", "not a key", "input")
	s.setField("#trust-key", `{"signers": [{"name": "x"}]}`, "input")
	s.click("#trust-add")
	// Where and what: "pin set: /signers/0 (x): public key: 0 bytes, want 32".
	if got := s.waitText("#trust-error", "Not trusted: "); !strings.Contains(got, "/signers/0") || !strings.Contains(got, "public key") {
		t.Errorf("the refused pin set: %q", got)
	}
	if got := s.text("#trusted-signers"); strings.Contains(got, "not a key") {
		t.Errorf("a refused pin set was trusted: %q", got)
	}
	if !eval[bool](s, `(() => { const li = [...document.querySelectorAll("#trusted-signers li.trusted-signer")].find(l => l.querySelector(".trusted-key-id").textContent === `+jsQuote(cliKeyID)+`);
  if (!li) return false; li.querySelector("button").id = "remove-cli-key"; return true; })()`) {
		t.Fatalf("no Remove for key %s in %q", cliKeyID, s.text("#trusted-signers"))
	}
	s.click("#remove-cli-key")
	s.waitJS(`!(document.querySelector("#trusted-signers") || {textContent: ""}).textContent.includes(` + jsQuote(cliKeyID) + `)`)
	s.openSkill(cliID)
	if got := s.text("#skill-signed"); got != "false (signed by an unknown key "+cliKeyID+")" {
		t.Errorf("skill page, key removed: %q", got)
	}
}
