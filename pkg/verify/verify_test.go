package verify_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/schemas"
)

// setup returns a verifier with a fixed clock and the committed fixture
// files, which pkg/assemble's TestFixtureFiles keeps up to date.
func setup(t testing.TB) (*verify.Verifier, map[string][]byte) {
	t.Helper()
	sv, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	all, err := fixtures.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	v := verify.New(sv, all, func() time.Time { return time.Date(2026, 5, 25, 13, 0, 0, 0, time.UTC) })
	files := map[string][]byte{}
	for _, name := range []string{fixtures.ValidBundleFile, fixtures.MissingContentHashFile, fixtures.RedactedTranscriptPIIFile} {
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	return v, files
}

func decode(t *testing.T, data []byte) *skill.Bundle {
	t.Helper()
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gate(p skill.ProofResult, id string) skill.Gate {
	g, _ := p.Gate(id)
	return g
}

func invariant(p skill.ProofResult, id string) any {
	for _, r := range p.InvariantResults {
		if r.ID == id {
			return r.Held
		}
	}
	return nil
}

func TestReferenceBundlePasses(t *testing.T) {
	v, files := setup(t)
	r, err := v.Bytes(files[fixtures.ValidBundleFile])
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != skill.VerdictPass || len(r.Overclaims) != 0 {
		t.Fatalf("verdict %s, overclaims %v; gates %+v", r.Verdict, r.Overclaims, r.Derived.ProofGates)
	}
	for _, g := range r.Derived.ProofGates {
		want := skill.VerdictPass
		if g.ID == skill.GateRedactionVerify {
			want = skill.VerdictNotApplicable
		}
		if g.Verdict != want {
			t.Errorf("%s: %s (%s), want %s", g.ID, g.Verdict, g.Reason, want)
		}
	}
	if l := gate(r.Derived, skill.GateReplayFidelity).Level; l != skill.LevelExact {
		t.Errorf("replay level %s, want exact: same input on the deterministic simulator, no model parameters", l)
	}
	if got := r.Derived.ConformanceCheck.FixturesPassed; len(got) != 1 || got[0] != "skill.replay_fidelity" {
		t.Errorf("fixtures passed %v, failed %v", got, r.Derived.ConformanceCheck.FixturesFailed)
	}
}

func TestRedactedFixtureVerifies(t *testing.T) {
	v, files := setup(t)
	data := files[fixtures.RedactedTranscriptPIIFile]
	r, err := v.Bytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if g := gate(r.Derived, skill.GateRedactionVerify); g.Verdict != skill.VerdictPass {
		t.Fatalf("redaction gate %s: %s", g.Verdict, g.Reason)
	}
	if r.Verdict != skill.VerdictPass {
		t.Fatalf("verdict %s, overclaims %v", r.Verdict, r.Overclaims)
	}
	sc, err := fixtures.ScenarioByID(fixtures.RedactedExport)
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range sc.SeededSecrets {
		if strings.Contains(string(data), sec.Value) {
			t.Fatalf("the seeded %s survived redaction", sec.Kind)
		}
	}
}

func TestMissingContentHashIsInvalid(t *testing.T) {
	v, files := setup(t)
	_, err := v.Bytes(files[fixtures.MissingContentHashFile])
	var ie *verify.InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want an InvalidError", err)
	}
	if !strings.Contains(ie.Error(), "content_hash") {
		t.Errorf("error does not name content_hash: %v", ie)
	}
}

func TestHostileInputIsInvalid(t *testing.T) {
	v, _ := setup(t)
	for name, in := range map[string]string{
		"not json":       "hello",
		"array root":     "[1,2]",
		"duplicate key":  `{"a":1,"a":2}`,
		"empty object":   `{}`,
		"lone surrogate": `{"a":"\ud800"}`,
	} {
		_, err := v.Bytes([]byte(in))
		var ie *verify.InvalidError
		if !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want an InvalidError", name, err)
		}
	}
}

// mutate decodes the reference bundle, changes it, and re-encodes it:
// reseal seals again (as an honest producer would) and reprove also
// re-derives the embedded proof.
func mutate(t *testing.T, v *verify.Verifier, data []byte, change func(b *skill.Bundle), reseal, reprove bool) *verify.Report {
	t.Helper()
	b := decode(t, data)
	change(b)
	switch {
	case reprove:
		if err := v.SealWithProof(b); err != nil {
			t.Fatal(err)
		}
	case reseal:
		if err := b.Seal(); err != nil {
			t.Fatal(err)
		}
	}
	out, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Bytes(out)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func replayRecord(t testing.TB, b *skill.Bundle) (*skill.ReplayRecord, func()) {
	t.Helper()
	i := len(b.Evidence.Events) - 1
	if b.Evidence.Events[i].Type != skill.EventReplayExecuted {
		t.Fatal("the reference bundle's last event is not its replay")
	}
	var rec skill.ReplayRecord
	raw, _ := json.Marshal(b.Evidence.Events[i].Data)
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	return &rec, func() { b.Evidence.Events[i].Data = rec }
}

func TestGatesFail(t *testing.T) {
	v, files := setup(t)
	valid := files[fixtures.ValidBundleFile]
	tests := []struct {
		name    string
		change  func(b *skill.Bundle)
		reseal  bool
		reprove bool
		gate    string
		verdict string
		reason  string
		inv     string // an invariant that must not hold
	}{
		{name: "tampered field", change: func(b *skill.Bundle) { b.Manifest.Description = "something else" },
			gate: skill.GateContentHash, verdict: skill.VerdictFail, reason: "hashes to"},
		{name: "undeclared capability", reprove: true, change: func(b *skill.Bundle) {
			b.Trace.Edges[1].Capability = skill.CapabilityOS
		}, gate: skill.GateNoHiddenCapability, verdict: skill.VerdictFail, reason: "edge 1 used &body.os"},
		{name: "edge without capability", reprove: true, change: func(b *skill.Bundle) {
			b.Trace.Edges[1].Capability, b.Trace.Edges[1].Provenance.Capability = "", ""
		}, gate: skill.GateNoHiddenCapability, verdict: skill.VerdictFail, reason: "edge 1 does not say"},
		{name: "missing authorization", reprove: true, change: func(b *skill.Bundle) { b.Trace.Edges[0].Authorization = nil },
			gate: skill.GateAuthority, verdict: skill.VerdictFail, reason: "edge 0 has no authorization", inv: skill.InvEveryActionAuthorized},
		{name: "denied and stopped", reprove: true, change: func(b *skill.Bundle) {
			e := &b.Trace.Edges[1]
			e.Authorization.Decision, e.Authorization.Reason = skill.DecisionDeny, "host writes need destructive mode"
			e.OutcomeStatus, e.StateAfter = skill.OutcomeDenied, e.StateBefore
		}, gate: skill.GateAuthority, verdict: skill.VerdictFail, reason: "edge 1 was denied"},
		{name: "denied but acted", reprove: true, change: func(b *skill.Bundle) {
			b.Trace.Edges[1].Authorization.Decision = skill.DecisionDeny
		}, gate: skill.GateAuthority, verdict: skill.VerdictFail, reason: "acted although", inv: skill.InvEveryActionAuthorized},
		{name: "foreign policy", reprove: true, change: func(b *skill.Bundle) { b.Trace.Edges[0].Authorization.PolicyID = "other" },
			gate: skill.GateAuthority, verdict: skill.VerdictFail, reason: "under policy"},
		{name: "index gap", reprove: true, change: func(b *skill.Bundle) { b.Trace.Edges[1].Index = 5 },
			gate: skill.GateTraceCompleteness, verdict: skill.VerdictFail, reason: "has index 5"},
		{name: "time runs backwards", reprove: true, change: func(b *skill.Bundle) { b.Trace.Edges[1].Provenance.Timestamp = b.Trace.StartedAt },
			gate: skill.GateTraceCompleteness, verdict: skill.VerdictFail, reason: "before edge 0"},
		{name: "no replay", reprove: true, change: func(b *skill.Bundle) { b.Evidence.Events = b.Evidence.Events[:len(b.Evidence.Events)-1] },
			gate: skill.GateReplayFidelity, verdict: skill.VerdictInconclusive, reason: "no replay"},
		{name: "replay misreports a match", reprove: true, change: func(b *skill.Bundle) {
			rec, put := replayRecord(t, b)
			rec.Edges[1].Match = skill.MatchStructural
			put()
		}, gate: skill.GateReplayFidelity, verdict: skill.VerdictFail, reason: "claims structural"},
		{name: "replay committed a divergent edge", reprove: true, change: func(b *skill.Bundle) {
			rec, put := replayRecord(t, b)
			rec.Edges[1].ObservedStateAfter = skill.HashBytes([]byte("other state"))
			rec.Edges[1].ObservedShapeAfter = skill.HashBytes([]byte("other"))
			rec.Edges[1].Match = skill.MatchMismatch
			put()
		}, gate: skill.GateReplayFidelity, verdict: skill.VerdictFail, reason: "diverged"},
		{name: "replay halted", reprove: true, change: func(b *skill.Bundle) {
			rec, put := replayRecord(t, b)
			rec.Edges[1].ObservedStateAfter = skill.HashBytes([]byte("other state"))
			rec.Edges[1].ObservedShapeAfter = skill.HashBytes([]byte("other"))
			rec.Edges[1].Match, rec.Edges[1].Committed = skill.MatchMismatch, false
			rec.Report.EdgesAttempted, rec.Report.EdgesCommitted, rec.Report.Fidelity = 2, 1, 0.5
			rec.Report.Status, rec.Report.FidelityLevel, rec.Report.HaltedAtEdge = skill.StatusHalted, skill.LevelFailed, new(int)
			*rec.Report.HaltedAtEdge = 1
			put()
		}, gate: skill.GateReplayFidelity, verdict: skill.VerdictFail, reason: "halted at edge 1"},
		{name: "surprises where exact was expected", reprove: true, change: func(b *skill.Bundle) {
			rec, put := replayRecord(t, b)
			rec.Edges[1].ObservedStateAfter = skill.HashBytes([]byte("same shape, other text"))
			rec.Edges[1].Match = skill.MatchStructural
			rec.ExpectedLevel = skill.LevelExact
			rec.Report.Status, rec.Report.FidelityLevel = skill.StatusCompletedWithSurprises, skill.LevelStructural
			put()
		}, gate: skill.GateReplayFidelity, verdict: skill.VerdictPartial},
		{name: "wrong fidelity arithmetic", reprove: true, change: func(b *skill.Bundle) {
			rec, put := replayRecord(t, b)
			rec.Report.EdgesCommitted = 2
			rec.Report.Fidelity = 0.5
			put()
		}, gate: skill.GateReplayFidelity, verdict: skill.VerdictFail, reason: "attempted"},
		{name: "claims redaction that did not happen", reprove: true, change: func(b *skill.Bundle) {
			b.Evidence.RedactionProfile = skill.RedactionTranscriptPII
		}, gate: skill.GateRedactionVerify, verdict: skill.VerdictFail, inv: skill.InvRedactedBundleStillVerify},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mutate(t, v, valid, tt.change, tt.reseal, tt.reprove)
			g := gate(r.Derived, tt.gate)
			if g.Verdict != tt.verdict {
				t.Fatalf("%s: %s (%s), want %s", tt.gate, g.Verdict, g.Reason, tt.verdict)
			}
			if !strings.Contains(g.Reason, tt.reason) {
				t.Errorf("%s reason %q does not mention %q", tt.gate, g.Reason, tt.reason)
			}
			if tt.inv != "" && invariant(r.Derived, tt.inv) == true {
				t.Errorf("%s held", tt.inv)
			}
			if r.Verdict == skill.VerdictPass {
				t.Errorf("overall verdict pass despite %s %s", tt.gate, g.Verdict)
			}
			if tt.reprove && len(r.Overclaims) > 0 {
				t.Errorf("an honest re-proved bundle was flagged as overclaiming: %v", r.Overclaims)
			}
		})
	}
}

// A producer proves a bundle before any schema check: the gates must catch
// what the schema would, too.
func TestProveWithoutSchema(t *testing.T) {
	v, files := setup(t)
	b := decode(t, files[fixtures.ValidBundleFile])
	b.Trace.Edges[1].StateAfter = "sha256:" + strings.Repeat("0", 63) + "g"
	p, err := v.Prove(b)
	if err != nil {
		t.Fatal(err)
	}
	if g := gate(p, skill.GateTraceCompleteness); g.Verdict != skill.VerdictFail || !strings.Contains(g.Reason, "edge 1 lacks") {
		t.Errorf("trace gate %s: %s", g.Verdict, g.Reason)
	}
	if invariant(p, skill.InvStateHashPerEdge) != false {
		t.Error("state hash invariant held")
	}
	if p.OverallVerdict != skill.VerdictFail {
		t.Errorf("overall %s", p.OverallVerdict)
	}
}

func TestOverclaimIsCaught(t *testing.T) {
	v, files := setup(t)
	// Drop the replay but keep the claim that replay passed, then seal
	// honestly: the hash verifies, the claim does not.
	r := mutate(t, v, files[fixtures.ValidBundleFile], func(b *skill.Bundle) {
		b.Evidence.Events = b.Evidence.Events[:len(b.Evidence.Events)-1]
	}, true, false)
	if r.Verdict != skill.VerdictFail {
		t.Fatalf("verdict %s, want fail", r.Verdict)
	}
	var saw []string
	for _, o := range r.Overclaims {
		saw = append(saw, o.What)
	}
	for _, want := range []string{skill.GateReplayFidelity, "overall_verdict", "replay_result.fidelity_level"} {
		if !strings.Contains(strings.Join(saw, " "), want) {
			t.Errorf("overclaims %v miss %s", saw, want)
		}
	}
	if g := gate(r.Derived, skill.GateContentHash); g.Verdict != skill.VerdictPass {
		t.Errorf("content hash %s: the overclaim test should isolate the claim", g.Verdict)
	}
}

func TestOverclaims(t *testing.T) {
	pass := func(id, verdict string) skill.Gate { return skill.Gate{ID: id, Verdict: verdict} }
	tests := []struct {
		claimed, derived string
		over             bool
	}{
		{skill.VerdictPass, skill.VerdictPass, false},
		{skill.VerdictPass, skill.VerdictFail, true},
		{skill.VerdictPass, skill.VerdictInconclusive, true},
		{skill.VerdictPartial, skill.VerdictPass, false},
		{skill.VerdictInconclusive, skill.VerdictFail, true},
		{skill.VerdictFail, skill.VerdictPass, false},
		{skill.VerdictNotApplicable, skill.VerdictNotApplicable, false},
		{skill.VerdictNotApplicable, skill.VerdictFail, true},
		{skill.VerdictPass, skill.VerdictNotApplicable, true},
		{skill.VerdictFail, skill.VerdictNotApplicable, false},
	}
	for _, tt := range tests {
		c := skill.ProofResult{ProofGates: []skill.Gate{pass(skill.GateAuthority, tt.claimed)}, OverallVerdict: skill.VerdictFail}
		d := skill.ProofResult{ProofGates: []skill.Gate{pass(skill.GateAuthority, tt.derived)}, OverallVerdict: skill.VerdictFail}
		got := len(verify.Overclaims(c, d)) > 0
		if got != tt.over {
			t.Errorf("claimed %s, derived %s: overclaim %v, want %v", tt.claimed, tt.derived, got, tt.over)
		}
	}
}

// TestOtherProducersMembersRead: a bundle carrying what another producer
// writes and the spec allows — proof.ia_substrate, a slug that is spec
// §4's [a-z0-9-]+ but not this workbench's kebab-case — is read and judged
// on its evidence, not refused.
func TestOtherProducersMembersRead(t *testing.T) {
	v, files := setup(t)
	r := mutate(t, v, files[fixtures.ValidBundleFile], func(b *skill.Bundle) {
		b.Proof.IASubstrate = map[string]any{"version": "0.3", "laws_exercised": []any{"L11", "L14"}}
		b.Manifest.Slug = "summarize--repo-"
	}, true, false)
	if r.Verdict != skill.VerdictPass {
		t.Errorf("verdict %s, overclaims %v", r.Verdict, r.Overclaims)
	}
	if got := r.Claimed.IASubstrate["version"]; got != "0.3" {
		t.Errorf("claimed ia_substrate version %v, want it kept", got)
	}
}

// TestInexactNumberWarns: a number spelled with more digits than a double
// holds is read as that double (RFC 8785), as a JavaScript producer reads
// it. The bundle still verifies, its hash being that of the canonical
// form, and the report warns with the number's pointer.
func TestInexactNumberWarns(t *testing.T) {
	v, files := setup(t)
	const exact, inexact = `"end_unix_nano":15000000,`, `"end_unix_nano":15000000.0000000000000000001,`
	data := files[fixtures.ValidBundleFile]
	if bytes.Count(data, []byte(exact)) != 1 {
		t.Fatalf("the reference bundle holds %s %d times, want once", exact, bytes.Count(data, []byte(exact)))
	}
	r, err := v.Bytes(bytes.Replace(data, []byte(exact), []byte(inexact), 1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != skill.VerdictPass {
		t.Errorf("verdict %s: %+v", r.Verdict, r.Derived.ProofGates)
	}
	if len(r.Warnings) != 1 || r.WarningsOmitted != 0 {
		t.Fatalf("warnings %+v (+%d), want one", r.Warnings, r.WarningsOmitted)
	}
	w := r.Warnings[0]
	if !strings.HasPrefix(w.Pointer, "/evidence/trace/spans/") || !strings.HasSuffix(w.Pointer, "/end_unix_nano") ||
		!strings.Contains(w.Message, "is read as 15000000") || w.Offset != bytes.Index(data, []byte(exact))+len(`"end_unix_nano":`) {
		t.Errorf("warning %+v", w)
	}
	if r, err := v.Bytes(data); err != nil || len(r.Warnings) != 0 {
		t.Errorf("the reference bundle: %v, warnings %+v", err, r.Warnings)
	}
}
