package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"workbench/fixtures"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// nativeReport verifies a bundle file natively, for comparison with what
// the page shows.
func nativeReport(t *testing.T, file string) *verify.Report {
	t.Helper()
	v := appVerifier(t)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Bytes(data)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Acceptance criterion 10: the skill page shows a conformance panel with
// each of the six proof gates (claimed beside re-verified), the four
// invariants and one overall verdict badge; the header says Signed: false
// and names the content hash and redaction profile.
func TestSkillConformancePanel(t *testing.T) {
	t.Parallel()
	file := fixturePath("valid-skill-bundle.v0.json")
	want := nativeReport(t, file)
	s := newSession(t)
	id := s.importBundle(file)
	s.openSkill(id)

	if got := s.text("#skill-signed"); got != "false" {
		t.Errorf("signed: %q", got)
	}
	if got := s.text("#skill-hash"); got != want.ContentHash {
		t.Errorf("content hash %q, want %q", got, want.ContentHash)
	}
	if got := s.text("#skill-redaction"); got != skill.RedactionNone {
		t.Errorf("redaction profile %q", got)
	}
	if n := s.countOf("#overall-verdict .verdict"); n != 1 {
		t.Errorf("%d overall badges, want one", n)
	}
	if got := s.text("#overall-verdict .verdict"); got != want.Verdict {
		t.Errorf("overall badge %q, want %q", got, want.Verdict)
	}
	gates := s.textsOf("#gates tbody th")
	if !slices.Equal(gates, []string{skill.GateAuthority, skill.GateTraceCompleteness, skill.GateReplayFidelity,
		skill.GateRedactionVerify, skill.GateContentHash, skill.GateNoHiddenCapability}) {
		t.Errorf("gates %q", gates)
	}
	derived := s.textsOf("#gates tbody .gate-derived .verdict")
	claimed := s.textsOf("#gates tbody .gate-claimed .verdict")
	for i, g := range want.Derived.ProofGates {
		if i >= len(derived) || derived[i] != g.Verdict {
			t.Errorf("gate %s re-verified %q, want %q", g.ID, at(derived, i), g.Verdict)
		}
		if i >= len(claimed) || claimed[i] != want.Claimed.ProofGates[i].Verdict {
			t.Errorf("gate %s claimed %q, want %q", g.ID, at(claimed, i), want.Claimed.ProofGates[i].Verdict)
		}
	}
	if invs := s.textsOf("#invariants tbody th"); len(invs) != 4 {
		t.Errorf("invariants %q", invs)
	}
	// A passing bundle: only pass looks like success.
	if s.countOf("#overall-verdict .verdict-pass") != 1 {
		t.Error("a passing bundle's badge does not look like a pass")
	}

	// Audit is a trace viewer: the steps, and for the selected one its
	// call, answer, observations, state, authorization and events.
	b := decodeFile(t, file)
	s.click("#tab-audit")
	s.waitVisible("#audit-edges")
	if n := s.countOf("#audit-edges > li"); n != len(b.Trace.Edges) {
		t.Errorf("%d steps for %d edges", n, len(b.Trace.Edges))
	}
	e := b.Trace.Edges[1]
	s.click("#audit-edge-1 .audit-edge-select")
	s.waitVisible("#audit-detail-heading")
	if got := s.text("#audit-detail-heading"); got != "Step 1: "+e.Tool.Name {
		t.Errorf("detail heading %q", got)
	}
	if got := s.text("#audit-request"); !strings.Contains(got, `"name": "`+e.Tool.Name+`"`) {
		t.Errorf("request %q", got)
	}
	// The observations as snapshot text, not only hashes: the page the
	// step before ended on, and the one this step ended on.
	if got := s.text("#audit-obs-before"); !strings.Contains(got, "title: acme/widget") {
		t.Errorf("observation before %.300q", got)
	}
	if got := s.text("#audit-obs-after"); !strings.Contains(got, "title: ") {
		t.Errorf("observation after %.300q", got)
	}
	wantChanged := map[bool]string{true: "changed", false: "unchanged"}[e.StateAfter != e.StateBefore]
	if got := s.text("#audit-detail-changed"); got != wantChanged {
		t.Errorf("state %q, want %q", got, wantChanged)
	}
	if got := s.text("#audit-detail-state"); !strings.Contains(got, e.StateBefore) || !strings.Contains(got, e.StateAfter) {
		t.Errorf("state hashes %q", got)
	}
	if got := s.text("#audit-detail-auth"); !strings.Contains(got, "allowed") || !strings.Contains(got, e.Authorization.PolicyID) || !strings.Contains(got, e.Authorization.BlockID) {
		t.Errorf("authorization %q", got)
	}
	for _, tc := range b.Evidence.ToolCalls {
		if tc.EdgeIndex != nil && *tc.EdgeIndex == 1 {
			if got := s.text("#audit-detail-hashes"); !strings.Contains(got, tc.RequestHash) || !strings.Contains(got, tc.ResponseHash) {
				t.Errorf("tool call hashes %q", got)
			}
		}
	}
	if got := s.text("#audit-detail-time"); got != e.Provenance.Timestamp {
		t.Errorf("time %q", got)
	}
	if s.countOf("#audit-detail-replays li") != len(b.ReplayRecords()) {
		t.Errorf("the step's replays are not listed: %q", s.text("#audit-detail-replays"))
	}
	// The arrow keys move through the steps, the focus with them.
	s.press(kb.ArrowUp)
	s.waitJS(`document.querySelector("#audit-edge-0 .audit-edge-select").getAttribute("aria-pressed") === "true" &&
  document.activeElement === document.querySelector("#audit-edge-0 .audit-edge-select")`)
	s.waitText("#audit-detail-heading", "Step 0")
	// The whole-bundle views: every event, authorization, tool call, turn.
	s.click("#audit-view-events")
	s.waitVisible("#audit-events")
	if n := s.countOf("#audit-events tbody tr"); n != len(b.Evidence.Events) {
		t.Errorf("%d event rows for %d events", n, len(b.Evidence.Events))
	}
	s.click("#audit-view-tools")
	s.waitVisible("#audit-tools")
	if n := s.countOf("#audit-tools tbody tr"); n != len(b.Evidence.ToolCalls) {
		t.Errorf("%d tool call rows for %d tool calls", n, len(b.Evidence.ToolCalls))
	}
	for _, tc := range b.Evidence.ToolCalls {
		s.waitText("#audit-tools", tc.RequestHash)
		s.waitText("#audit-tools", tc.ResponseHash)
	}
	s.click("#audit-view-transcript")
	s.waitVisible("#audit-transcript")
	if n := s.countOf("#audit-transcript tbody tr"); n != len(b.Evidence.Transcript) {
		t.Errorf("%d transcript rows for %d turns", n, len(b.Evidence.Transcript))
	}
	s.click("#audit-view-auth")
	s.waitVisible("#audit-auth")
	if n := s.countOf("#audit-auth tbody tr"); n < len(b.Trace.Edges) {
		t.Errorf("%d authorization rows for %d edges", n, len(b.Trace.Edges))
	}

	// Memory: no Graphonomous server is relayed here, and nothing is made up.
	s.click("#tab-memory")
	s.waitText("#memory-status", "Graphonomous is not configured")

	// A tab keeps what it holds while another is open: back on Audit,
	// the view last chosen, and in the steps the step selected.
	s.click("#tab-audit")
	s.waitVisible("#audit-auth")
	s.click("#audit-view-steps")
	s.waitJS(`!!document.querySelector('#audit-edge-0 .audit-edge-select[aria-pressed="true"]')`)
	s.waitText("#audit-detail-heading", "Step 0")

	// Keyboard: the tabs follow the arrow keys.
	s.click("#tab-manifest")
	s.waitVisible("#manifest-form")
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(missing)"
}

// appVerifier is the verifier the app uses (verify.Standard).
func appVerifier(tb testing.TB) *verify.Verifier {
	tb.Helper()
	v, err := verify.Standard()
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// decodeFile reads and strictly decodes a bundle file.
func decodeFile(t testing.TB, file string) *skill.Bundle {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The Manifest tab validates name, slug and description on every
// keystroke, beside the field, and saves an edit as a new version.
func TestSkillManifestEdit(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	id := s.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	s.openSkill(id)
	version := s.text("#skill-version")

	s.setValue("#edit-name", "", "input")
	s.waitText("#edit-name-error", "must not be empty")
	if !s.isDisabled("#manifest-save") {
		t.Error("save is enabled with an empty name")
	}
	s.setValue("#edit-slug", "Not A Slug", "input")
	s.waitText("#edit-slug-error", "must match pattern")
	s.setValue("#edit-name", "Read the widget README", "input")
	s.setValue("#edit-slug", "read-widget-readme", "input")
	s.setValue("#edit-description", "Read <README> & summarise", "input")
	s.waitJS(`!document.querySelector("#edit-name-error") && !document.querySelector("#edit-slug-error")`)
	if s.isDisabled("#manifest-save") {
		t.Fatal("save is disabled for a valid edit")
	}
	s.click("#manifest-save")
	s.waitText("#skill-saved", "as version")
	s.waitText("#skill-name", "Read the widget README")
	if got := s.text("#skill-version"); got == version {
		t.Errorf("version still %s after saving an edit", got)
	}
	if got := s.text("#skill-slug"); got != "read-widget-readme" {
		t.Errorf("slug %q", got)
	}
	// The manifest JSON shows & and < as they are, as text.
	manifest := s.text("#manifest-json")
	if !strings.Contains(manifest, `"description": "Read <README> & summarise"`) || strings.Contains(manifest, `\u00`) {
		t.Errorf("manifest JSON: %.400q", manifest)
	}
	if s.countOf("#manifest-json *") != 0 {
		t.Error("the manifest JSON made elements of its text")
	}

	// Both versions stay; the older one is shown on asking, read-only.
	if n := s.countOf("#skill-versions a"); n != 2 {
		t.Fatalf("%d versions listed, want 2", n)
	}
	s.click(`#skill-versions a[href$="?v=` + version + `"]`)
	s.waitText("#skill-version", version)
	s.waitVisible("#skill-old-version")
	if got := s.text("#skill-name"); got == "Read the widget README" {
		t.Error("the older version shows the edited name")
	}
	s.setValue("#edit-name", "Another name", "input")
	if !s.isDisabled("#manifest-save") {
		t.Error("an older version's manifest can be saved over the newest")
	}
	s.open("/skills/" + id + "?v=9")
	s.waitText("#skill-error", "no such version")
}

// A skill id that is not in this browser's library says so.
func TestSkillNotFound(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	for _, path := range []string{"/skills/0190a1b2-0000-7000-8000-000000000000", "/skills/0190a1b2-0000-7000-8000-000000000000/replay"} {
		s.open(path)
		s.waitText("#skill-missing", "in this browser's library")
		if got := s.text("main h1"); got != "No such skill" {
			t.Errorf("%s: h1 %q", path, got)
		}
	}
}

// Acceptance criterion 8: a bundle exported from one browser and imported
// in a fresh browser profile has the same content_hash, byte for byte.
func TestSkillExportImportSameHash(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	dir := s.allowDownloads()
	id := s.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	s.openSkill(id)
	stored := s.text("#skill-hash")
	s.click("#export-open")
	s.waitVisible("#export-dialog")
	// Never silently none: transcript_pii is pre-selected.
	if !eval[bool](s, `document.querySelector("#export-profile-transcript_pii").checked`) {
		t.Error("transcript_pii is not pre-selected")
	}
	s.click("#export-profile-none")
	s.waitText("#export-chosen", "none")
	s.click("#export-download")
	s.waitVisible("#export-done")
	name := s.text("#export-filename")
	b := decodeFile(t, fixturePath("valid-skill-bundle.v0.json"))
	if want := skill.ExportFilename(b.Manifest.Slug, b.SkillVersion); name != want {
		t.Errorf("file name %q, want %q", name, want)
	}
	if got := s.text("#export-done-profile"); got != skill.RedactionNone {
		t.Errorf("profile shown %q", got)
	}
	data := waitFile(t, dir, name)
	var head struct {
		ContentHash string `json:"content_hash"`
		Evidence    struct {
			RedactionProfile string `json:"redaction_profile"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		t.Fatal(err)
	}
	if head.ContentHash != stored || head.Evidence.RedactionProfile != skill.RedactionNone {
		t.Errorf("exported content_hash %s (profile %s), stored %s", head.ContentHash, head.Evidence.RedactionProfile, stored)
	}
	if code, out := workbenchVerify(t, filepath.Join(dir, name)); code == 2 {
		t.Errorf("the exported file is not a valid bundle:\n%s", out)
	}

	fresh := newSession(t)
	id2 := fresh.importBundle(filepath.Join(dir, name))
	fresh.openSkill(id2)
	if got := fresh.text("#skill-hash"); got != head.ContentHash {
		t.Errorf("re-imported content_hash %s, exported %s", got, head.ContentHash)
	}
}

// Acceptance criterion 11: a demonstration carrying fake secrets; the
// export dialog warns, lists their kinds and pre-selects transcript_pii;
// none needs an explicit confirmation; the transcript_pii download
// verifies (workbench verify) and holds none of the secrets.
func TestSkillRedactedExport(t *testing.T) {
	t.Parallel()
	sc, err := fixtures.ScenarioByID(fixtures.RedactedExport)
	if err != nil {
		t.Fatal(err)
	}
	notes := sc.ExampleInput()["notes"].(string)
	file := teachBundle(t, fixtures.RedactedExport,
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://support.workbench.test/contact"}),
		openroutertest.ToolCall("browser_type", map[string]any{"field": "Message", "text": notes}),
		openroutertest.ToolCall("browser_submit", map[string]any{"button": "Send message"}),
		openroutertest.Answer("Sent; the confirmation page shows the id."),
	)
	plain, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range sc.SeededSecrets {
		if !bytes.Contains(plain, []byte(sec.Value)) {
			t.Fatalf("the taught bundle does not carry the seeded %s; the test would prove nothing", sec.Kind)
		}
	}

	s := newSession(t)
	dir := s.allowDownloads()
	id := s.importBundle(file)
	s.openSkill(id)
	s.click("#export-open")
	s.waitVisible("#export-dialog")
	warning := s.text("#export-secrets")
	for _, kind := range []string{"openrouter", "aws", "jwt"} {
		if !strings.Contains(strings.ToLower(warning), kind) {
			t.Errorf("the secret warning does not list %s: %q", kind, warning)
		}
	}
	if !eval[bool](s, `document.querySelector("#export-profile-transcript_pii").checked`) {
		t.Error("transcript_pii is not pre-selected")
	}
	// none with secrets: download only after the explicit confirmation.
	s.click("#export-profile-none")
	s.waitVisible("#export-confirm")
	if !s.isDisabled("#export-download") {
		t.Error("download is enabled for none without confirming the secrets")
	}
	s.click("#export-profile-transcript_pii")
	s.waitText("#export-chosen", "transcript_pii")
	s.click("#export-download")
	s.waitVisible("#export-done")
	if got := s.text("#export-done-profile"); got != skill.RedactionTranscriptPII {
		t.Errorf("profile shown %q", got)
	}
	// The copy's redaction gate as re-derived; the proof it carries was
	// sealed before redaction and claims n/a, which the panel says.
	if got := s.text("#export-done-redaction"); !strings.Contains(got, skill.VerdictPass) || strings.Contains(got, skill.VerdictFail) {
		t.Errorf("redaction gate shown %q", got)
	}
	if got := s.text("#export-done-redaction-claim"); !strings.Contains(got, "claims n/a") || !strings.Contains(got, "it is pass") {
		t.Errorf("the differing claim is said as %q", got)
	}
	name := s.text("#export-filename")
	data := waitFile(t, dir, name)
	for _, sec := range sc.SeededSecrets {
		if bytes.Contains(data, []byte(sec.Value)) {
			t.Errorf("the transcript_pii export still holds the seeded %s", sec.Kind)
		}
	}
	code, out := workbenchVerify(t, filepath.Join(dir, name))
	if code == 2 {
		t.Fatalf("the redacted export is not a valid bundle:\n%s", out)
	}
	for _, line := range []string{"redaction: transcript_pii", "gate.redaction_verify", "gate.content_hash"} {
		if !strings.Contains(out, line) {
			t.Errorf("verify output lacks %q:\n%s", line, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && (f[0] == skill.GateRedactionVerify || f[0] == skill.GateContentHash) && f[2] != skill.VerdictPass {
			t.Errorf("%s re-verified %s, want pass:\n%s", f[0], f[2], out)
		}
	}
}

// A bundle whose signature member holds a string nothing has verified is
// shown as not signed, with the signature present and not verified, and
// keeps the verdict of the same bundle without one (spec §7.5).
func TestSkillUnverifiedSignature(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(fixturePath("valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "signed.skill.json")
	if err := os.WriteFile(file, bytes.Replace(data, []byte(`"signature":null`), []byte(`"signature":"ed25519:forged"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	want := nativeReport(t, file)
	if want.Signed || want.Signature != verify.SignatureUnverified || want.Verdict != skill.VerdictPass {
		t.Fatalf("natively: signed %t, signature %s, verdict %s", want.Signed, want.Signature, want.Verdict)
	}
	s := newSession(t)
	id := s.importBundle(file)
	s.openSkill(id)
	if got := s.text("#skill-signed"); got != "false (signature present, not verified)" {
		t.Errorf("signed: %q", got)
	}
	if got := s.text("#overall-verdict .verdict"); got != want.Verdict {
		t.Errorf("overall badge %q, want %q as without a signature", got, want.Verdict)
	}
}

// Acceptance criterion 12: fixture 3 (authority denied) shows a failure,
// not a success, with the denial visible.
func TestSkillAuthorityDeniedShowsFail(t *testing.T) {
	t.Parallel()
	file := teachBundle(t, fixtures.AuthorityDenied,
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://status.workbench.test/"}),
		openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/incident.txt", "content": "Degraded API latency"}),
		openroutertest.Answer("I could not save the file: the action was refused."),
	)
	want := nativeReport(t, file)
	if want.Verdict != skill.VerdictFail {
		t.Fatalf("the taught fixture 3 bundle verifies as %s natively; the scenario needs fail", want.Verdict)
	}
	s := newSession(t)
	id := s.importBundle(file)
	s.openSkill(id)
	if got := s.text("#overall-verdict .verdict"); got != skill.VerdictFail {
		t.Errorf("overall badge %q, want fail", got)
	}
	if s.countOf("#overall-verdict .verdict-fail") != 1 || s.countOf("#conformance .overall .verdict-pass") != 0 {
		t.Error("the failing bundle's overall badge does not look like a failure, or something in it looks like a pass")
	}
	// No replay ran: the replay gate is inconclusive, said once (its
	// level, inconclusive too, is not printed beside it again).
	if got := s.text("#gate-gate-replay_fidelity .gate-derived"); got != skill.VerdictInconclusive {
		t.Errorf("replay gate reads %q, want %q once", got, skill.VerdictInconclusive)
	}
	for _, g := range want.Derived.ProofGates {
		if g.Verdict != skill.VerdictFail {
			continue
		}
		sel := "#gate-" + strings.ReplaceAll(g.ID, ".", "-") + " .gate-derived .verdict-fail"
		if s.countOf(sel) != 1 {
			t.Errorf("gate %s fails natively but is not shown failing", g.ID)
		}
	}
	s.click("#tab-audit")
	s.waitVisible("#audit-edges")
	// The denied step is marked in the list; its detail says so.
	if s.countOf("#audit-edges .step-denied") == 0 {
		t.Fatal("no step of the list is marked denied")
	}
	s.click("#audit-edges .step-denied .audit-edge-select")
	s.waitText("#audit-detail-auth", "denied")
	if got := s.text("#audit-detail-changed"); got != "unchanged" {
		t.Errorf("a denied step's state %q, want unchanged", got)
	}
	s.click("#audit-view-auth")
	s.waitVisible("#audit-auth")
	if s.countOf("#audit-auth .auth-deny") == 0 {
		t.Error("the audit shows no denied authorization block")
	}
}

// A bundle stored already redacted opens the export dialog on its own
// profile and offers nothing weaker: what was stripped cannot come back.
// Redaction is idempotent, so the export keeps the stored content_hash.
func TestSkillExportKeepsStoredRedaction(t *testing.T) {
	t.Parallel()
	s := newSession(t)
	dir := s.allowDownloads()
	id := s.importBundle(fixturePath("redacted-transcript_pii.v0.json"))
	s.openSkill(id)
	if got := s.text("#skill-redaction"); got != "transcript PII" {
		t.Errorf("stored profile shown as %q, want it in words", got)
	}
	if got := eval[string](s, `document.querySelector("#skill-redaction").dataset.value`); got != skill.RedactionTranscriptPII {
		t.Fatalf("stored profile %q", got)
	}
	stored := s.text("#skill-hash")
	s.click("#export-open")
	s.waitVisible("#export-floor")
	if !eval[bool](s, `document.querySelector("#export-profile-transcript_pii").checked`) {
		t.Error("the stored profile is not pre-selected")
	}
	if !s.isDisabled("#export-profile-none") || s.isDisabled("#export-profile-full") {
		t.Error("none must be unavailable and full available for a transcript_pii bundle")
	}
	s.click("#export-download")
	s.waitVisible("#export-done")
	if got := s.text("#export-done-hash"); got != stored {
		t.Errorf("exported content_hash %s, stored %s", got, stored)
	}
	data := waitFile(t, dir, s.text("#export-filename"))
	if !bytes.Contains(data, []byte(`"redaction_profile":"transcript_pii"`)) {
		t.Error("the downloaded bundle's header does not record transcript_pii")
	}
}

// The states the route-level axe check does not reach — the export dialog,
// the audit tables, a halted replay with its surprise, an input error —
// have no serious or critical axe-core violation either.
func TestSkillStatesAccessible(t *testing.T) {
	t.Parallel()
	src := axeSource(t)
	file := teachBundle(t, fixtures.ReplayFidelity, fidelitySteps...)
	s := newSession(t)
	id := s.importBundle(file)
	check := func(state string) {
		t.Helper()
		for _, v := range s.axeRun(src) {
			t.Errorf("%s: %s", state, v)
		}
	}
	s.openSkill(id)
	s.click("#export-open")
	s.waitVisible("#export-dialog")
	check("export dialog")
	s.click("#tab-audit")
	s.click("#audit-edge-0 .audit-edge-select")
	s.waitVisible("#audit-detail-heading")
	check("audit tab, a step selected")
	s.click("#audit-view-transcript")
	s.waitVisible("#audit-transcript")
	check("audit transcript")

	s.open("/skills/" + id + "/replay")
	s.waitVisible("#replay-form")
	s.setValue("#replay-input-repo_url", "https://git.workbench.test/acme/nothing", "input")
	s.click("#replay-run")
	s.waitVisible("#replay-outcome")
	check("halted replay")
	s.setValue("#replay-input-repo_url", "nope", "input")
	s.click("#replay-run")
	s.waitVisible("#replay-input-repo_url-error")
	check("replay input error")
}

// With a server named graphonomous on the relay, the Memory tab says it is
// configured and offers to sync and read; until it is asked, it shows no
// node but the references the bundle itself recorded.
func TestSkillMemoryConfigured(t *testing.T) {
	t.Parallel()
	s := newSession(t, withServeFlags("--mcp", "graphonomous=http://127.0.0.1:9/mcp"))
	id := s.importBundle(fixturePath("valid-skill-bundle.v0.json"))
	s.openSkill(id)
	s.click("#tab-memory")
	s.waitText("#memory-status", "An MCP server named graphonomous is configured")
	if got := s.text("#memory-refs"); !strings.Contains(got, "records no Graphonomous nodes") {
		t.Errorf("memory refs: %q", got)
	}
	if s.countOf("#memory-sync") != 1 || s.countOf("#memory-retrieve") != 1 {
		t.Error("a configured Graphonomous offers no sync or read")
	}
}
