package verify_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// The files under testdata/foreign are written in the shapes the other
// implementation of the spec writes, as read from its bundle builder,
// replay, redaction and verifier (the values are the workbench's own):
//   - taught.json: a teach session on a browser body — user, perception
//     and assistant edges, each with one state_hash of its observation —
//     claiming pass on every gate and an exact replay that never ran;
//   - recorded-transcript_pii.json: an ingested session under its
//     transcript_pii masks ([REDACTED_API_KEY], [REDACTED_EMAIL]), the
//     profile in proof.redaction_result, the masked edge without its
//     state_hash, and a token its patterns do not know left in place;
//   - full.json: its full profile, edges reduced to index, ts, kind,
//     capability and a tool call without arguments;
//   - undeclared.json: an edge using a capability the manifest does not
//     declare, which its producer honestly claims as fail.
func readForeignFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "foreign", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestForeignBundles: a bundle in the other implementation's shape is not
// taken for a bundle (it fails the schema), and is read for what it
// claims, gate by gate, beside what its contents support under spec v0.1.
func TestForeignBundles(t *testing.T) {
	v, files := setup(t)
	taught := readForeignFile(t, "taught.json")
	oneMark := generic(t, taught)
	delete(oneMark["proof"].(map[string]any), "ia_substrate")
	for _, g := range oneMark["proof"].(map[string]any)["proof_gates"].([]any) {
		delete(g.(map[string]any), "law")
		delete(g.(map[string]any), "invariant_family")
	}
	delete(oneMark["evidence"].(map[string]any), "scenario_ref")

	type gateWant struct{ verdict, why string }
	for _, tc := range []struct {
		name    string
		data    []byte
		claimed string
		verdict string
		gates   map[string]gateWant
		over    []string // overclaims that must be listed
		head    string
	}{
		{
			name: "taught, claiming pass", data: taught, claimed: skill.VerdictPass, verdict: skill.VerdictFail,
			gates: map[string]gateWant{
				skill.GateContentHash:        {skill.VerdictPass, "as its producer sealed it"},
				skill.GateTraceCompleteness:  {skill.VerdictFail, "3 carry one `state_hash`, the hash of the edge's own recorded observation"},
				skill.GateReplayFidelity:     {skill.VerdictInconclusive, "no replay record in the bundle (spec §5.3): the claimed `success` rests on re-hashing the observations recorded on 3 edges"},
				skill.GateAuthority:          {skill.VerdictFail, "its one action records no authorization decision"},
				skill.GateRedactionVerify:    {skill.VerdictNotApplicable, "redaction profile none"},
				skill.GateNoHiddenCapability: {skill.VerdictPass, "2 edges that do not act name none"},
			},
			over: []string{skill.GateTraceCompleteness, skill.GateReplayFidelity, skill.GateReplayFidelity + ".level", skill.GateAuthority, skill.GateRedactionVerify, "overall_verdict"},
			head: "it claims PASS; under spec v0.1 its contents give FAIL (6 overclaims); content hash intact",
		},
		{
			name: "recorded under its transcript_pii", data: readForeignFile(t, "recorded-transcript_pii.json"), claimed: skill.VerdictPass, verdict: skill.VerdictFail,
			gates: map[string]gateWant{
				skill.GateContentHash:        {skill.VerdictPass, ""},
				skill.GateTraceCompleteness:  {skill.VerdictFail, "1 carries no state hash at all"},
				skill.GateAuthority:          {skill.VerdictFail, "none of its 2 actions records an authorization decision"},
				skill.GateRedactionVerify:    {skill.VerdictFail, "recorded in proof.redaction_result, where spec §6 puts evidence.redaction_profile; 1 edge keeps an observation without its state_hash"},
				skill.GateNoHiddenCapability: {skill.VerdictPass, ""},
			},
			over: []string{skill.GateRedactionVerify, "overall_verdict"},
			head: "content hash intact",
		},
		{
			name: "its full profile", data: readForeignFile(t, "full.json"), claimed: skill.VerdictPass, verdict: skill.VerdictFail,
			gates: map[string]gateWant{
				skill.GateTraceCompleteness: {skill.VerdictFail, "3 carry no state hash at all"},
				skill.GateReplayFidelity:    {skill.VerdictInconclusive, "rests on walking the recorded edges again without running them"},
				skill.GateRedactionVerify:   {skill.VerdictInconclusive, "no `fields_stripped` says what was removed"},
			},
			over: []string{skill.GateReplayFidelity, skill.GateRedactionVerify},
		},
		{
			name: "an undeclared capability, claimed as fail", data: readForeignFile(t, "undeclared.json"), claimed: skill.VerdictFail, verdict: skill.VerdictFail,
			gates: map[string]gateWant{
				skill.GateNoHiddenCapability: {skill.VerdictFail, "edge 1 used &body.os, which capabilities_required does not declare"},
				skill.GateAuthority:          {skill.VerdictFail, ""},
			},
			over: []string{skill.GateTraceCompleteness},
			head: "it claims FAIL; under spec v0.1 its contents give FAIL",
		},
		{
			name: "changed after it was sealed", data: bytes.Replace(taught, []byte("all 12 checks"), []byte("all 13 checks"), 1),
			claimed: skill.VerdictPass, verdict: skill.VerdictFail,
			gates: map[string]gateWant{skill.GateContentHash: {skill.VerdictFail, "changed after it was sealed"}},
			over:  []string{skill.GateContentHash},
			head:  "content hash STALE",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := v.Bytes(tc.data)
			var ie *verify.InvalidError
			if !errors.As(err, &ie) || ie.Stage != verify.StageSchema {
				t.Fatalf("err %v; want a schema *InvalidError: it is not a conforming bundle", err)
			}
			f := ie.Foreign
			if f == nil {
				t.Fatalf("not read as the other implementation's bundle; headline %q", ie.Headline())
			}
			if len(f.Marks) != 3 {
				t.Errorf("marks %q; want all three", f.Marks)
			}
			if f.Claimed != tc.claimed || f.Verdict != tc.verdict {
				t.Errorf("claimed %s, verdict %s; want %s, %s", f.Claimed, f.Verdict, tc.claimed, tc.verdict)
			}
			if len(f.Gates) != 6 {
				t.Fatalf("%d gates, want the spec's six", len(f.Gates))
			}
			for _, g := range f.Gates {
				if g.Claimed == "" || g.Why == "" {
					t.Errorf("%s: claimed %q, why %q; want both", g.ID, g.Claimed, g.Why)
				}
				w, ok := tc.gates[g.ID]
				if !ok {
					continue
				}
				if g.Verdict != w.verdict || !strings.Contains(g.Why, w.why) {
					t.Errorf("%s: %s, %q; want %s, containing %q", g.ID, g.Verdict, g.Why, w.verdict, w.why)
				}
			}
			listed := map[string]bool{}
			for _, o := range f.Overclaims {
				listed[o.What] = true
			}
			for _, w := range tc.over {
				if !listed[w] {
					t.Errorf("overclaims %v lack %s", f.Overclaims, w)
				}
			}
			h := ie.Headline()
			if !strings.HasPrefix(h, "a bundle in the other implementation's shape, not spec v0.1's, read only") || !strings.Contains(h, tc.head) {
				t.Errorf("headline %q; want it to contain %q", h, tc.head)
			}
		})
	}

	// Neither the workbench's own bundles nor a bundle with only one of
	// the marks is read as the other implementation's.
	for name, data := range map[string][]byte{
		"ours, without content_hash": files[fixtures.MissingContentHashFile],
		"one mark only":              marshal(t, oneMark),
	} {
		_, err := v.Bytes(data)
		var ie *verify.InvalidError
		if !errors.As(err, &ie) {
			t.Fatalf("%s: err %v; want an *InvalidError", name, err)
		}
		if ie.Foreign != nil || strings.Contains(ie.Headline(), "other implementation") {
			t.Errorf("%s: read as the other implementation's bundle: %q", name, ie.Headline())
		}
	}
	if _, err := v.Bytes(files[fixtures.ValidBundleFile]); err != nil {
		t.Errorf("our fixture: %v", err)
	}
}
