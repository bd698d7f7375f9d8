// Package storetest is the conformance suite of store.Store: the behaviour
// every implementation must share, run natively against store/mem and in
// real Chromium against store/idb. It also builds the sealed test bundles
// the suite stores.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/pkg/store"
)

// Run runs the conformance suite. open must return a new, empty store for
// the test it is given and arrange for its cleanup.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"AddAndRead", testAddAndRead},
		{"ExactBytes", testExactBytes},
		{"Duplicate", testDuplicate},
		{"Conflict", testConflict},
		{"NewVersion", testNewVersion},
		{"OlderVersionLate", testOlderVersionLate},
		{"SkillsNewestFirst", testSkillsNewestFirst},
		{"ListSkills", testListSkills},
		{"ListSkillsEmpty", testListSkillsEmpty},
		{"ListSkillsSorted", testListSkillsSorted},
		{"SaveReplay", testSaveReplay},
		{"SaveReplayUnknownSkill", testSaveReplayUnknownSkill},
		{"CarriedReplays", testCarriedReplays},
		{"FailedAddLeavesNothing", testFailedAddLeavesNothing},
		{"FailedReplayLeavesNothing", testFailedReplayLeavesNothing},
		{"UnencodableReplayLeavesNothing", testUnencodableReplay},
		{"NotFound", testNotFound},
		{"Invalid", testInvalid},
		{"SaveComparison", testSaveComparison},
		{"Clear", testClear},
		{"DeleteSkill", testDeleteSkill},
		{"DeleteSkillNotFound", testDeleteSkillNotFound},
		{"DeleteSkillCancelled", testDeleteSkillCancelled},
		{"ReplaceBundle", testReplaceBundle},
		{"ReplaceBundleRefused", testReplaceBundleRefused},
		{"ReplaceKeepsCarriedTraces", testReplaceKeepsCarriedTraces},
		{"Concurrent", testConcurrent},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

// Bundle returns a sealed bundle file of the given skill and version whose
// manifest has the given name, encoded canonically.
func Bundle(t testing.TB, skillID string, version int, name string) store.BundleFile {
	t.Helper()
	f, err := store.EncodeBundle(NewBundle(skillID, version, name))
	if err != nil {
		t.Fatalf("encode test bundle: %v", err)
	}
	return f
}

// NewBundle returns a small sealed bundle: one edge, the given skill id,
// version and name.
func NewBundle(skillID string, version int, name string) *skill.Bundle {
	at := fmt.Sprintf("2026-01-02T03:04:%02dZ", version%60)
	traceID := "trace-" + skillID
	b := &skill.Bundle{
		BundleVersion:    skill.BundleVersion,
		BundleID:         fmt.Sprintf("bundle-%s-v%d", skillID, version),
		SkillID:          skillID,
		SkillVersion:     version,
		CreatedAt:        at,
		WorkbenchVersion: skill.WorkbenchVersion,
		Manifest: skill.Manifest{
			Schema:             skill.ManifestSchemaURI,
			SkillID:            skillID,
			Name:               name,
			Slug:               skill.Slugify(name),
			Description:        "Test skill " + name + " — «unicode» survives",
			Version:            version,
			DerivedFromTraceID: traceID,
			BodyChoice:         body.KindSimulator,
			CreatedAt:          at,
			UpdatedAt:          at,
		},
		Trace: skill.Trace{
			TraceID:     traceID,
			BodySubtype: "simulator",
			StartedAt:   at,
			EndedAt:     at,
			Goal:        "test " + name,
			Outcome:     "success",
			Edges: []skill.Edge{{
				Index:       0,
				EdgeID:      "edge-0",
				StateBefore: skill.HashBytes([]byte("before")),
				StateAfter:  skill.HashBytes([]byte("after")),
			}},
			Extra: map[string]json.RawMessage{"x_test": json.RawMessage(`{"kept":true}`)},
		},
		Proof: skill.ProofResult{OverallVerdict: "pass"},
	}
	if err := b.Seal(); err != nil {
		panic(fmt.Sprintf("seal test bundle: %v", err))
	}
	return b
}

// NewReplay returns a replay record of the given skill and version.
func NewReplay(skillID string, version int, fidelity float64) store.Replay {
	return store.Replay{Record: skill.ReplayRecord{
		Report: skill.ReplayReport{
			ReplayID:       skill.NewID(),
			SkillID:        skillID,
			SkillVersion:   version,
			Input:          map[string]any{"query": "x"},
			StartedAt:      "2026-01-02T03:05:00Z",
			EndedAt:        "2026-01-02T03:05:01Z",
			EdgesAttempted: 1,
			EdgesCommitted: 1,
			Status:         skill.StatusSuccess,
			Fidelity:       fidelity,
			FidelityLevel:  skill.LevelExact,
			ModelUsed:      skill.NoModel,
		},
		ExpectedLevel: skill.LevelExact,
		Edges:         []skill.ReplayEdge{{Index: 0, EdgeID: "edge-0", Committed: true, Match: skill.MatchExact}},
	}}
}

// NewComparison returns a comparison of the given skill version: two
// models by two input sets, one cell with a replay record, one whose
// model failed, and two that replayed without a model.
func NewComparison(skillID string, version int) store.Comparison {
	rec := NewReplay(skillID, version, 1).Record
	halted := 0
	inputs := []map[string]any{{"query": "x"}, {"query": "y"}}
	return store.Comparison{
		ID: skill.NewID(), SkillID: skillID, SkillVersion: version,
		BundleHash: "sha256:" + strings.Repeat("c", 64), CreatedAt: "2026-01-02T03:05:02Z",
		Models: []string{"example/a", "example/b"}, Inputs: inputs,
		Cells: []store.ComparisonCell{
			{Model: "example/a", Input: 0, Verdict: skill.VerdictPass, Status: skill.StatusSuccess, Fidelity: 1, FidelityLevel: skill.LevelExact,
				EdgesCommitted: 1, EdgesAttempted: 1, ModelUsed: "example/a", ModelCalls: 1, CostUSD: 0.002, CostKnown: true, LatencyMS: 12, Record: &rec},
			{Model: "example/a", Input: 1, Verdict: skill.VerdictFail, Status: skill.StatusHalted, HaltedAtEdge: &halted, FidelityLevel: skill.LevelFailed,
				EdgesAttempted: 1, ModelUsed: skill.NoModel, LatencyMS: 3},
			{Model: "example/b", Input: 0, Verdict: "error", ModelCalls: 1, CostKnown: true, Error: "model example/b failed at edge 0: 402 Payment Required"},
			{Model: "example/b", Input: 1, Verdict: skill.VerdictPass, Status: skill.StatusSuccess, Fidelity: 1, FidelityLevel: skill.LevelExact,
				EdgesCommitted: 1, EdgesAttempted: 1, ModelUsed: skill.NoModel, LatencyMS: 4},
		},
		Summary: [][]string{{"example/a and example/b: not compared, example/b has no result."}, {"example/a and example/b diverge."}},
	}
}

// BundleCarrying returns a sealed bundle file like Bundle's whose
// evidence carries the given replays, each as a workbench.v1.ReplayExecuted
// event, as a bundle saved from a replay or exported after replays does.
func BundleCarrying(t testing.TB, skillID string, version int, name string, replays ...store.Replay) store.BundleFile {
	t.Helper()
	b := NewBundle(skillID, version, name)
	for i, r := range replays {
		b.Evidence.Events = append(b.Evidence.Events, skill.Event{
			SpecVersion: "1.0",
			ID:          fmt.Sprintf("event-%d", i),
			Source:      "storetest",
			Type:        skill.EventReplayExecuted,
			Time:        r.Record.Report.EndedAt,
			Data:        r.Record,
		})
	}
	if err := b.Seal(); err != nil {
		t.Fatalf("seal test bundle: %v", err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil {
		t.Fatalf("encode test bundle: %v", err)
	}
	return f
}

func ctx() context.Context { return context.Background() }

// must fails the test on err.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// wantKind fails the test unless err is a *store.Error of the given kind
// whose message names op.
func wantKind(t *testing.T, what string, err, kind error, op string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("%s: got error %v, want kind %q", what, err, kind)
	}
	var se *store.Error
	if !errors.As(err, &se) {
		t.Fatalf("%s: error %T is not a *store.Error", what, err)
	}
	if !strings.Contains(err.Error(), op) {
		t.Errorf("%s: message %q does not name the operation %q", what, err, op)
	}
}

func countBundles(t *testing.T, s store.Store, skillID string) int {
	t.Helper()
	bs, err := s.Bundles(ctx(), skillID)
	must(t, "list bundles", err)
	return len(bs)
}

func testAddAndRead(t *testing.T, s store.Store) {
	id := skill.NewID()
	f := Bundle(t, id, 1, "Find the cheapest flight")
	got, err := s.AddBundle(ctx(), f)
	must(t, "add bundle", err)
	want := store.Skill{
		ID: id, Slug: "find-the-cheapest-flight", Name: "Find the cheapest flight",
		Description: f.Bundle.Manifest.Description, BodyChoice: body.KindSimulator,
		Version: 1, BundleHash: f.Bundle.ContentHash, BundleID: f.Bundle.BundleID,
		TraceID: f.Bundle.Trace.TraceID, Verdict: "pass",
		CreatedAt: f.Bundle.Manifest.CreatedAt, UpdatedAt: f.Bundle.Manifest.UpdatedAt,
	}
	if !equalJSON(got, want) {
		t.Errorf("AddBundle returned\n%s\nwant\n%s", toJSON(got), toJSON(want))
	}
	read, err := s.Skill(ctx(), id)
	must(t, "get skill", err)
	if !equalJSON(read, want) {
		t.Errorf("Skill returned\n%s\nwant\n%s", toJSON(read), toJSON(want))
	}
	list, err := s.Skills(ctx())
	must(t, "list skills", err)
	if len(list) != 1 || !equalJSON(list[0], want) {
		t.Errorf("Skills returned %s, want [%s]", toJSON(list), toJSON(want))
	}
	tr, err := s.Trace(ctx(), id, f.Bundle.Trace.TraceID)
	must(t, "get trace", err)
	if !equalJSON(tr, f.Bundle.Trace) {
		t.Errorf("Trace returned\n%s\nwant\n%s", toJSON(tr), toJSON(f.Bundle.Trace))
	}
	b, err := s.Bundle(ctx(), f.Bundle.ContentHash)
	must(t, "get bundle", err)
	if string(b.Data) != string(f.Data) {
		t.Errorf("Bundle bytes differ from the bytes added")
	}
	wantMeta := store.StoredBundle{ContentHash: f.Bundle.ContentHash, SkillID: id, SkillVersion: 1,
		BundleID: f.Bundle.BundleID, CreatedAt: f.Bundle.CreatedAt}
	b.Data = nil
	if !equalJSON(b, wantMeta) {
		t.Errorf("Bundle returned %s, want %s", toJSON(b), toJSON(wantMeta))
	}
	bs, err := s.Bundles(ctx(), id)
	must(t, "list bundles", err)
	if len(bs) != 1 || bs[0].ContentHash != f.Bundle.ContentHash || string(bs[0].Data) != string(f.Data) {
		t.Errorf("Bundles returned %d bundles, want the one added", len(bs))
	}
	dec, err := bs[0].Decode()
	must(t, "decode stored bundle", err)
	if h, err := dec.Hash(); err != nil || h != f.Bundle.ContentHash {
		t.Errorf("stored bundle re-hashes to %s (%v), want %s", h, err, f.Bundle.ContentHash)
	}
	rs, err := s.Replays(ctx(), id)
	must(t, "list replays", err)
	if rs == nil || len(rs) != 0 {
		t.Errorf("Replays of a skill never replayed = %v, want an empty list", rs)
	}
}

// testExactBytes stores a bundle file that is not in canonical form: the
// store must give back those bytes, not a re-encoding.
func testExactBytes(t *testing.T, s store.Store) {
	b := NewBundle(skill.NewID(), 1, "Pretty printed")
	pretty, err := json.MarshalIndent(b, "", "\t")
	must(t, "indent bundle", err)
	f, err := store.NewBundleFile(pretty)
	must(t, "read pretty bundle", err)
	_, err = s.AddBundle(ctx(), f)
	must(t, "add bundle", err)
	got, err := s.Bundle(ctx(), b.ContentHash)
	must(t, "get bundle", err)
	if string(got.Data) != string(pretty) {
		t.Errorf("stored bytes differ from the file's:\ngot  %.80q\nwant %.80q", got.Data, pretty)
	}
}

func testDuplicate(t *testing.T, s store.Store) {
	id := skill.NewID()
	f := Bundle(t, id, 1, "Once only")
	_, err := s.AddBundle(ctx(), f)
	must(t, "add bundle", err)
	_, err = s.AddBundle(ctx(), f)
	wantKind(t, "adding the same bundle again", err, store.ErrDuplicate, "add bundle")
	var se *store.Error
	errors.As(err, &se)
	if se.Store != store.StoreBundles || se.Key != f.Bundle.ContentHash {
		t.Errorf("duplicate error names %s %s, want %s %s", se.Store, se.Key, store.StoreBundles, f.Bundle.ContentHash)
	}
	if n := countBundles(t, s, id); n != 1 {
		t.Errorf("%d bundles stored after a duplicate, want 1", n)
	}
}

// testConflict adds a second, different bundle for a stored skill version.
// Its trace has the same key as the stored one but other content; a store
// that writes the trace before the bundle is refused must roll it back.
func testConflict(t *testing.T, s store.Store) {
	id := skill.NewID()
	first := Bundle(t, id, 1, "First")
	_, err := s.AddBundle(ctx(), first)
	must(t, "add bundle", err)
	other := Bundle(t, id, 1, "Same version, other content")
	if other.Bundle.Trace.TraceID != first.Bundle.Trace.TraceID || other.Bundle.Trace.Goal == first.Bundle.Trace.Goal {
		t.Fatal("test bundles: want the same trace id with another goal")
	}
	_, err = s.AddBundle(ctx(), other)
	wantKind(t, "adding another bundle with the same version", err, store.ErrConflict, "add bundle")
	if !strings.Contains(err.Error(), first.Bundle.ContentHash) {
		t.Errorf("conflict message %q does not name the stored bundle", err)
	}
	sk, err := s.Skill(ctx(), id)
	must(t, "get skill", err)
	if sk.Name != "First" || countBundles(t, s, id) != 1 {
		t.Errorf("after a conflict the skill is %q with %d bundles, want \"First\" with 1", sk.Name, countBundles(t, s, id))
	}
	tr, err := s.Trace(ctx(), id, first.Bundle.Trace.TraceID)
	must(t, "get trace", err)
	if tr.Goal != first.Bundle.Trace.Goal {
		t.Errorf("after a conflict the trace's goal is %q, want %q (the refused write was kept)", tr.Goal, first.Bundle.Trace.Goal)
	}
}

func testNewVersion(t *testing.T, s store.Store) {
	id := skill.NewID()
	v1 := Bundle(t, id, 1, "Old name")
	_, err := s.AddBundle(ctx(), v1)
	must(t, "add v1", err)
	_, err = s.SaveReplay(ctx(), NewReplay(id, 1, 1), nil)
	must(t, "save replay", err)
	v2 := Bundle(t, id, 2, "New name")
	got, err := s.AddBundle(ctx(), v2)
	must(t, "add v2", err)
	if got.Name != "New name" || got.Slug != "new-name" || got.Version != 2 || got.BundleHash != v2.Bundle.ContentHash {
		t.Errorf("after v2 the skill is %s", toJSON(got))
	}
	if got.ReplayCount != 1 || got.LastReplay == nil {
		t.Errorf("a new version lost the replay history: %s", toJSON(got))
	}
	if got.CreatedAt != v1.Bundle.Manifest.CreatedAt || got.UpdatedAt != v2.Bundle.Manifest.UpdatedAt {
		t.Errorf("timestamps %s / %s, want v1's created_at and v2's updated_at", got.CreatedAt, got.UpdatedAt)
	}
	bs, err := s.Bundles(ctx(), id)
	must(t, "list bundles", err)
	if len(bs) != 2 || bs[0].SkillVersion != 1 || bs[1].SkillVersion != 2 {
		t.Fatalf("Bundles = %s, want versions 1 and 2 in order", toJSON(bs))
	}
	if bs[1].Filename(got.Slug) != "new-name.v2.skill.json" {
		t.Errorf("export name %q", bs[1].Filename(got.Slug))
	}
}

func testOlderVersionLate(t *testing.T, s store.Store) {
	id := skill.NewID()
	_, err := s.AddBundle(ctx(), Bundle(t, id, 3, "Newest"))
	must(t, "add v3", err)
	got, err := s.AddBundle(ctx(), Bundle(t, id, 2, "Older"))
	must(t, "add v2", err)
	if got.Name != "Newest" || got.Version != 3 {
		t.Errorf("an older version replaced the record: %s", toJSON(got))
	}
	if n := countBundles(t, s, id); n != 2 {
		t.Errorf("%d bundles, want 2", n)
	}
}

func testSkillsNewestFirst(t *testing.T, s store.Store) {
	var ids []string
	for i := range 5 {
		id := skill.NewID()
		ids = append(ids, id)
		_, err := s.AddBundle(ctx(), Bundle(t, id, 1, fmt.Sprintf("Skill %d", i)))
		must(t, "add bundle", err)
	}
	list, err := s.Skills(ctx())
	must(t, "list skills", err)
	if len(list) != len(ids) {
		t.Fatalf("%d skills listed, want %d", len(list), len(ids))
	}
	for i, sk := range list {
		if want := ids[len(ids)-1-i]; sk.ID != want {
			t.Errorf("skill %d is %s, want %s (newest first)", i, sk.ID, want)
		}
	}
}

// testListSkills lists a library of seven skills in pages and through
// filters: the newest first, at most the limit, with the number that
// match and the number stored, each record whole.
func testListSkills(t *testing.T, s store.Store) {
	names := []string{"Book a Flight", "Cancel order", "Check FLIGHT status", "Refund", "Read mail", "Üben Straße", "Zip files"}
	ids := make([]string, len(names))
	for i, name := range names {
		ids[i] = skill.NewID()
		b := NewBundle(ids[i], 1, name)
		if name == "Refund" {
			// Matched by its description alone.
			b.Manifest.Description = "Ask for the money back after a cancelled flight"
			if err := b.Seal(); err != nil {
				t.Fatal(err)
			}
		}
		f, err := store.EncodeBundle(b)
		must(t, "encode bundle", err)
		_, err = s.AddBundle(ctx(), f)
		must(t, "add bundle", err)
	}
	// A newer version renames a skill: the listing and the filter see the
	// new name only.
	_, err := s.AddBundle(ctx(), Bundle(t, ids[1], 2, "Cancel flight order"))
	must(t, "add version 2", err)
	// A replay: listed records are whole, replay summary included.
	_, err = s.SaveReplay(ctx(), NewReplay(ids[4], 1, 0.5), nil)
	must(t, "save replay", err)

	tests := []struct {
		name     string
		q        store.SkillQuery
		want     []int // indexes into ids, in the order listed
		matching int
	}{
		{"all", store.SkillQuery{}, []int{6, 5, 4, 3, 2, 1, 0}, 7},
		{"first page", store.SkillQuery{Limit: 3}, []int{6, 5, 4}, 7},
		{"newest only", store.SkillQuery{Limit: 1}, []int{6}, 7},
		{"limit equals count", store.SkillQuery{Limit: 7}, []int{6, 5, 4, 3, 2, 1, 0}, 7},
		{"limit beyond count", store.SkillQuery{Limit: 100}, []int{6, 5, 4, 3, 2, 1, 0}, 7},
		{"negative limit", store.SkillQuery{Limit: -1}, []int{6, 5, 4, 3, 2, 1, 0}, 7},
		{"name, any case, description", store.SkillQuery{Filter: "flight"}, []int{3, 2, 1, 0}, 4},
		{"filter trimmed, with limit", store.SkillQuery{Filter: "  FLIGHT ", Limit: 2}, []int{3, 2}, 4},
		{"slug", store.SkillQuery{Filter: "zip-f"}, []int{6}, 1},
		{"non-ASCII case", store.SkillQuery{Filter: "ÜBEN"}, []int{5}, 1},
		{"old name", store.SkillQuery{Filter: "cancel order"}, []int{}, 0},
		{"blank filter", store.SkillQuery{Filter: " ", Limit: 2}, []int{6, 5}, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ListSkills(ctx(), tc.q)
			must(t, "list skills", err)
			if got.Total != len(ids) || got.Matching != tc.matching {
				t.Errorf("Total %d, Matching %d; want %d, %d", got.Total, got.Matching, len(ids), tc.matching)
			}
			if got.Skills == nil {
				t.Errorf("Skills is nil, want an empty list")
			}
			var gotIDs, wantIDs []string
			for _, sk := range got.Skills {
				gotIDs = append(gotIDs, sk.ID)
			}
			for _, i := range tc.want {
				wantIDs = append(wantIDs, ids[i])
			}
			if toJSON(gotIDs) != toJSON(wantIDs) {
				t.Fatalf("listed %v, want %v", gotIDs, wantIDs)
			}
			for _, sk := range got.Skills {
				whole, err := s.Skill(ctx(), sk.ID)
				must(t, "get skill", err)
				if !equalJSON(sk, whole) {
					t.Errorf("listed\n%s\nSkill returns\n%s", toJSON(sk), toJSON(whole))
				}
			}
			if tc.q.Filter == "" && tc.q.Limit <= 0 {
				all, err := s.Skills(ctx())
				must(t, "skills", err)
				if !equalJSON(all, got.Skills) {
					t.Errorf("Skills differs from ListSkills without a query")
				}
			}
		})
	}
}

func testListSkillsEmpty(t *testing.T, s store.Store) {
	for _, q := range []store.SkillQuery{{}, {Limit: 3}, {Filter: "x", Limit: 3}} {
		got, err := s.ListSkills(ctx(), q)
		must(t, "list skills", err)
		if got.Skills == nil || len(got.Skills) != 0 || got.Matching != 0 || got.Total != 0 {
			t.Errorf("ListSkills(%+v) of an empty store = %s, want no skills", q, toJSON(got))
		}
	}
}

func testSaveReplay(t *testing.T, s store.Store) {
	id := skill.NewID()
	_, err := s.AddBundle(ctx(), Bundle(t, id, 1, "Replayed"))
	must(t, "add bundle", err)

	first := NewReplay(id, 1, 0.5)
	got, err := s.SaveReplay(ctx(), first, nil)
	must(t, "save replay", err)
	if got.ReplayCount != 1 || got.LastReplay == nil || got.LastReplay.ReplayID != first.ID() || got.LastReplay.Fidelity != 0.5 {
		t.Fatalf("after one replay the skill is %s", toJSON(got))
	}
	second := NewReplay(id, 1, 1)
	second.Record.Report.Status = skill.StatusCompletedWithSurprises
	got, err = s.SaveReplay(ctx(), second, nil)
	must(t, "save second replay", err)
	if got.ReplayCount != 2 || got.LastReplay.ReplayID != second.ID() || got.LastReplay.Status != skill.StatusCompletedWithSurprises {
		t.Fatalf("after two replays the skill is %s", toJSON(got))
	}

	// Saving the first replay as a new bundle afterwards: counted once,
	// linked to its bundle, and the skill moves to the new version.
	v2 := Bundle(t, id, 2, "Replayed")
	got, err = s.SaveReplay(ctx(), first, &v2)
	must(t, "save replay as bundle", err)
	if got.ReplayCount != 2 || got.Version != 2 || got.BundleHash != v2.Bundle.ContentHash {
		t.Errorf("after saving a replay as a bundle the skill is %s", toJSON(got))
	}
	if got.LastReplay.ReplayID != second.ID() {
		t.Errorf("the last replay became %s, want the newer %s", got.LastReplay.ReplayID, second.ID())
	}
	stored, err := s.Skill(ctx(), id)
	must(t, "get skill", err)
	if !equalJSON(stored, got) {
		t.Errorf("stored skill %s differs from the returned %s", toJSON(stored), toJSON(got))
	}
	rs, err := s.Replays(ctx(), id)
	must(t, "list replays", err)
	if len(rs) != 2 || rs[0].ID() != second.ID() || rs[1].ID() != first.ID() {
		t.Fatalf("Replays = %s, want the two replays newest first", toJSON(rs))
	}
	if rs[1].BundleHash != v2.Bundle.ContentHash || rs[0].BundleHash != "" {
		t.Errorf("bundle links: first %q second %q, want %q and none", rs[1].BundleHash, rs[0].BundleHash, v2.Bundle.ContentHash)
	}
	if !equalJSON(rs[0].Record, second.Record) {
		t.Errorf("stored replay record\n%s\nwant\n%s", toJSON(rs[0].Record), toJSON(second.Record))
	}
	// Saving it once more without a bundle keeps the link.
	_, err = s.SaveReplay(ctx(), first, nil)
	must(t, "save replay again", err)
	rs, err = s.Replays(ctx(), id)
	must(t, "list replays", err)
	if len(rs) != 2 || rs[1].BundleHash != v2.Bundle.ContentHash {
		t.Errorf("saving a replay again dropped its bundle link: %s", toJSON(rs))
	}
	if n := countBundles(t, s, id); n != 2 {
		t.Errorf("%d bundles, want 2", n)
	}
	other, err := s.Replays(ctx(), skill.NewID())
	must(t, "list replays of another skill", err)
	if len(other) != 0 {
		t.Errorf("another skill lists %d replays", len(other))
	}
}

// testCarriedReplays stores bundles that carry replays, as an imported
// bundle does: its replays are stored with it, each counted once however
// many bundles carry it, and a failed add stores none of them.
func testCarriedReplays(t *testing.T, s store.Store) {
	id := skill.NewID()
	r1, r2 := NewReplay(id, 1, 0.5), NewReplay(id, 1, 1)
	foreign := NewReplay(skill.NewID(), 1, 0.25)
	v1 := BundleCarrying(t, id, 1, "Carried", r1, foreign, r2, r1)
	got, err := s.AddBundle(ctx(), v1)
	must(t, "add a bundle carrying replays", err)
	if got.ReplayCount != 2 || got.LastReplay == nil || got.LastReplay.ReplayID != r2.ID() || got.LastReplay.Fidelity != 1 {
		t.Fatalf("after adding a bundle carrying two replays the skill is %s", toJSON(got))
	}
	rs, err := s.Replays(ctx(), id)
	must(t, "list replays", err)
	if len(rs) != 2 || rs[0].ID() != r2.ID() || rs[1].ID() != r1.ID() {
		t.Fatalf("Replays = %s, want r2 then r1", toJSON(rs))
	}
	if rs[1].BundleHash != v1.Bundle.ContentHash || !equalJSON(rs[1].Record, r1.Record) {
		t.Errorf("carried replay stored as %s, want r1's record linked to %s", toJSON(rs[1]), v1.Bundle.ContentHash)
	}
	if other, err := s.Replays(ctx(), foreign.SkillID()); err != nil || len(other) != 0 {
		t.Errorf("the replay of another skill was stored: %s, %v", toJSON(other), err)
	}

	// A conflicting bundle (version 1 again, other content) carrying a new
	// replay is refused, and the replay with it.
	r3 := NewReplay(id, 1, 0.75)
	conflict := BundleCarrying(t, id, 1, "Carried otherwise", r3)
	_, err = s.AddBundle(ctx(), conflict)
	wantKind(t, "add a conflicting bundle", err, store.ErrConflict, "add bundle")
	if rs, _ := s.Replays(ctx(), id); len(rs) != 2 {
		t.Errorf("after the refused bundle %d replays, want 2", len(rs))
	}

	// Version 2 carries r1 and r2 again and r3: only r3 is new; r1 keeps
	// its record and its link to version 1.
	v2 := BundleCarrying(t, id, 2, "Carried", r1, r2, r3)
	got, err = s.AddBundle(ctx(), v2)
	must(t, "add version 2", err)
	if got.ReplayCount != 3 || got.LastReplay.ReplayID != r3.ID() || got.Version != 2 {
		t.Fatalf("after version 2 the skill is %s", toJSON(got))
	}
	rs, err = s.Replays(ctx(), id)
	must(t, "list replays", err)
	if len(rs) != 3 || rs[2].ID() != r1.ID() || rs[2].BundleHash != v1.Bundle.ContentHash || rs[0].BundleHash != v2.Bundle.ContentHash {
		t.Errorf("after version 2 Replays = %s", toJSON(rs))
	}

	// A replay run here, then saved as version 3 whose evidence carries it
	// and one more: each counts once.
	r4 := NewReplay(id, 2, 0.9)
	_, err = s.SaveReplay(ctx(), r4, nil)
	must(t, "save replay", err)
	r5 := NewReplay(id, 2, 0.8)
	v3 := BundleCarrying(t, id, 3, "Carried", r4, r5)
	got, err = s.SaveReplay(ctx(), r4, &v3)
	must(t, "save replay as a bundle carrying it", err)
	if got.ReplayCount != 5 || got.LastReplay.ReplayID != r5.ID() || got.Version != 3 {
		t.Errorf("after saving the replay as version 3 the skill is %s", toJSON(got))
	}
	// Saved with its bundle in one step, a replay the bundle carries
	// counts once too.
	r6 := NewReplay(id, 3, 0.7)
	v4 := BundleCarrying(t, id, 4, "Carried", r6)
	got, err = s.SaveReplay(ctx(), r6, &v4)
	must(t, "save a new replay with a bundle carrying it", err)
	if got.ReplayCount != 6 {
		t.Errorf("after saving a new replay with its bundle the skill is %s", toJSON(got))
	}
	stored, err := s.Skill(ctx(), id)
	must(t, "get skill", err)
	if !equalJSON(stored, got) {
		t.Errorf("stored skill %s differs from the returned %s", toJSON(stored), toJSON(got))
	}
	rs, err = s.Replays(ctx(), id)
	must(t, "list replays", err)
	if len(rs) != 6 || rs[0].ID() != r6.ID() || rs[0].BundleHash != v4.Bundle.ContentHash {
		t.Errorf("at the end Replays = %s", toJSON(rs))
	}
}

func testSaveReplayUnknownSkill(t *testing.T, s store.Store) {
	id := skill.NewID()
	_, err := s.SaveReplay(ctx(), NewReplay(id, 1, 1), nil)
	wantKind(t, "replay of a skill not stored", err, store.ErrNotFound, "save replay")
	rs, err := s.Replays(ctx(), id)
	must(t, "list replays", err)
	if len(rs) != 0 {
		t.Errorf("a failed replay save stored %d replays", len(rs))
	}
}

// testFailedAddLeavesNothing adds a bundle file whose bytes lack the trace
// the store keeps a copy of: the add fails and leaves nothing behind.
func testFailedAddLeavesNothing(t *testing.T, s store.Store) {
	id := skill.NewID()
	f := Bundle(t, id, 1, "Broken trace")
	f.Data = []byte(`{"skill_id":"` + id + `"}`)
	_, err := s.AddBundle(ctx(), f)
	wantKind(t, "bundle bytes without a trace", err, store.ErrInvalid, "add bundle")
	if _, err := s.Bundle(ctx(), f.Bundle.ContentHash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after the failed add, Bundle: %v, want not found", err)
	}
	if _, err := s.Skill(ctx(), id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after the failed add, Skill: %v, want not found", err)
	}
	if n := countBundles(t, s, id); n != 0 {
		t.Errorf("after the failed add, %d bundles", n)
	}
}

// testFailedReplayLeavesNothing saves a replay with a bundle that is
// already stored: the replay record, written first, must not survive, and
// the count must not move.
func testFailedReplayLeavesNothing(t *testing.T, s store.Store) {
	id := skill.NewID()
	v1 := Bundle(t, id, 1, "Replayed")
	_, err := s.AddBundle(ctx(), v1)
	must(t, "add bundle", err)
	r := NewReplay(id, 1, 1)
	_, err = s.SaveReplay(ctx(), r, &v1)
	wantKind(t, "replay saved with a bundle already stored", err, store.ErrDuplicate, "save replay")
	rs, err := s.Replays(ctx(), id)
	must(t, "list replays", err)
	if len(rs) != 0 {
		t.Errorf("the failed save left %d replays", len(rs))
	}
	sk, err := s.Skill(ctx(), id)
	must(t, "get skill", err)
	if sk.ReplayCount != 0 || sk.LastReplay != nil {
		t.Errorf("the failed save changed the skill: %s", toJSON(sk))
	}
}

func testUnencodableReplay(t *testing.T, s store.Store) {
	id := skill.NewID()
	_, err := s.AddBundle(ctx(), Bundle(t, id, 1, "Replayed"))
	must(t, "add bundle", err)
	r := NewReplay(id, 1, 1)
	r.Record.Report.Input = map[string]any{"n": math.NaN()}
	v2 := Bundle(t, id, 2, "Replayed")
	_, err = s.SaveReplay(ctx(), r, &v2)
	wantKind(t, "replay that cannot be encoded", err, store.ErrInvalid, "save replay")
	if n := countBundles(t, s, id); n != 1 {
		t.Errorf("the failed save left %d bundles, want 1", n)
	}
	sk, err := s.Skill(ctx(), id)
	must(t, "get skill", err)
	if sk.Version != 1 || sk.ReplayCount != 0 {
		t.Errorf("the failed save changed the skill: %s", toJSON(sk))
	}
}

func testNotFound(t *testing.T, s store.Store) {
	id := skill.NewID()
	_, err := s.Skill(ctx(), id)
	wantKind(t, "Skill", err, store.ErrNotFound, "get skill")
	if !strings.Contains(err.Error(), id) {
		t.Errorf("message %q does not name the key", err)
	}
	_, err = s.Trace(ctx(), id, "trace-x")
	wantKind(t, "Trace", err, store.ErrNotFound, "get trace")
	_, err = s.Bundle(ctx(), skill.HashBytes(nil))
	wantKind(t, "Bundle", err, store.ErrNotFound, "get bundle")
	bs, err := s.Bundles(ctx(), id)
	must(t, "Bundles", err)
	if bs == nil || len(bs) != 0 {
		t.Errorf("Bundles of an unknown skill = %v, want an empty list", bs)
	}
	list, err := s.Skills(ctx())
	must(t, "Skills", err)
	if list == nil || len(list) != 0 {
		t.Errorf("Skills of an empty store = %v, want an empty list", list)
	}
}

func testInvalid(t *testing.T, s store.Store) {
	good := Bundle(t, skill.NewID(), 1, "Good")
	tests := []struct {
		name string
		f    store.BundleFile
	}{
		{"no bundle", store.BundleFile{Data: good.Data}},
		{"no bytes", store.BundleFile{Bundle: good.Bundle}},
		{"unsealed", func() store.BundleFile { f := good; b := *f.Bundle; b.ContentHash = ""; f.Bundle = &b; return f }()},
		{"version 0", func() store.BundleFile { f := good; b := *f.Bundle; b.SkillVersion = 0; f.Bundle = &b; return f }()},
		{"manifest of another skill", func() store.BundleFile {
			f := good
			b := *f.Bundle
			b.Manifest.SkillID = "other"
			f.Bundle = &b
			return f
		}()},
	}
	for _, tc := range tests {
		_, err := s.AddBundle(ctx(), tc.f)
		wantKind(t, tc.name, err, store.ErrInvalid, "add bundle")
	}
	_, err := s.SaveReplay(ctx(), store.Replay{}, nil)
	wantKind(t, "replay without id", err, store.ErrInvalid, "save replay")
	other := Bundle(t, skill.NewID(), 1, "Other skill")
	_, err = s.SaveReplay(ctx(), NewReplay(good.Bundle.SkillID, 1, 1), &other)
	wantKind(t, "replay saved with another skill's bundle", err, store.ErrInvalid, "save replay")
	list, err := s.Skills(ctx())
	must(t, "list skills", err)
	if len(list) != 0 {
		t.Errorf("invalid writes stored %d skills", len(list))
	}
}

func testClear(t *testing.T, s store.Store) {
	id := skill.NewID()
	f := Bundle(t, id, 1, "Cleared")
	_, err := s.AddBundle(ctx(), f)
	must(t, "add bundle", err)
	_, err = s.SaveReplay(ctx(), NewReplay(id, 1, 1), nil)
	must(t, "save replay", err)
	must(t, "save comparison", s.SaveComparison(ctx(), NewComparison(id, 1)))
	must(t, "clear", s.Clear(ctx()))
	list, err := s.Skills(ctx())
	must(t, "list skills", err)
	if len(list) != 0 {
		t.Errorf("%d skills after Clear", len(list))
	}
	if _, err := s.Trace(ctx(), id, f.Bundle.Trace.TraceID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("trace after Clear: %v", err)
	}
	if _, err := s.Bundle(ctx(), f.Bundle.ContentHash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bundle after Clear: %v", err)
	}
	if rs, err := s.Replays(ctx(), id); err != nil || len(rs) != 0 {
		t.Errorf("replays after Clear: %d, %v", len(rs), err)
	}
	if cs, err := s.Comparisons(ctx(), id); err != nil || len(cs) != 0 {
		t.Errorf("comparisons after Clear: %d, %v", len(cs), err)
	}
	// The same bundle can be stored again: it is not reported as a duplicate.
	_, err = s.AddBundle(ctx(), f)
	must(t, "add bundle after Clear", err)
}

// testSaveComparison keeps comparisons of a stored skill as they were
// given, newest first, each replaced by a later save under its id (the
// comparison saved as a version); a comparison of a skill not stored, or
// one whose cells do not fill its matrix, is refused.
func testSaveComparison(t *testing.T, s store.Store) {
	id, other := skill.NewID(), skill.NewID()
	for _, sid := range []string{id, other} {
		_, err := s.AddBundle(ctx(), Bundle(t, sid, 1, "Compared"))
		must(t, "add bundle", err)
	}
	if cs, err := s.Comparisons(ctx(), id); err != nil || cs == nil || len(cs) != 0 {
		t.Fatalf("comparisons before any: %#v, %v; want an empty list", cs, err)
	}
	older, newer := NewComparison(id, 1), NewComparison(id, 1)
	must(t, "save the older", s.SaveComparison(ctx(), older))
	must(t, "save the newer", s.SaveComparison(ctx(), newer))
	must(t, "save the other skill's", s.SaveComparison(ctx(), NewComparison(other, 1)))
	cs, err := s.Comparisons(ctx(), id)
	must(t, "list comparisons", err)
	if len(cs) != 2 || cs[0].ID != newer.ID || cs[1].ID != older.ID {
		t.Fatalf("comparisons %s, want the newer then the older", toJSON(cs))
	}
	if !equalJSON(cs[1], older) {
		t.Errorf("stored comparison\n%s\nwant\n%s", toJSON(cs[1]), toJSON(older))
	}
	if c, ok := cs[1].Cell(1, 0); !ok || c.Model != "example/b" || c.Error == "" {
		t.Errorf("cell (1, 0) %+v, %v", c, ok)
	}
	older.SavedVersion = 2
	must(t, "save the older as a version", s.SaveComparison(ctx(), older))
	cs, err = s.Comparisons(ctx(), id)
	must(t, "list comparisons", err)
	if len(cs) != 2 || cs[1].SavedVersion != 2 {
		t.Errorf("after saving it as a version: %s", toJSON(cs))
	}

	wantKind(t, "a skill not stored", s.SaveComparison(ctx(), NewComparison(skill.NewID(), 1)), store.ErrNotFound, "save comparison")
	bad := NewComparison(id, 1)
	bad.Cells = bad.Cells[:3]
	wantKind(t, "three cells for two by two", s.SaveComparison(ctx(), bad), store.ErrInvalid, "save comparison")
	bad = NewComparison(id, 1)
	bad.ID = ""
	wantKind(t, "no id", s.SaveComparison(ctx(), bad), store.ErrInvalid, "save comparison")
	if cs, _ := s.Comparisons(ctx(), id); len(cs) != 2 {
		t.Errorf("refused comparisons were stored: %d", len(cs))
	}
}

// testConcurrent runs writes from several goroutines at once: distinct
// skills all arrive, and replays of one skill are each counted once (the
// read-modify-write of the count is inside the transaction).
func testConcurrent(t *testing.T, s store.Store) {
	const n = 8
	id := skill.NewID()
	_, err := s.AddBundle(ctx(), Bundle(t, id, 1, "Shared"))
	must(t, "add bundle", err)
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			f, err := store.EncodeBundle(NewBundle(skill.NewID(), 1, fmt.Sprintf("Parallel %d", i)))
			if err == nil {
				_, err = s.AddBundle(ctx(), f)
			}
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := s.SaveReplay(ctx(), NewReplay(id, 1, 1), nil)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, "concurrent write", err)
	}
	list, err := s.Skills(ctx())
	must(t, "list skills", err)
	if len(list) != n+1 {
		t.Errorf("%d skills after %d concurrent adds, want %d", len(list), n, n+1)
	}
	sk, err := s.Skill(ctx(), id)
	must(t, "get skill", err)
	if sk.ReplayCount != n {
		t.Errorf("replay count %d after %d concurrent replays", sk.ReplayCount, n)
	}
}

func testClosed(t *testing.T, s store.Store) {
	must(t, "close", s.Close())
	_, err := s.Skills(ctx())
	wantKind(t, "Skills after Close", err, store.ErrClosed, "list skills")
	_, err = s.ListSkills(ctx(), store.SkillQuery{Limit: 1})
	wantKind(t, "ListSkills after Close", err, store.ErrClosed, "list skills")
	_, err = s.AddBundle(ctx(), Bundle(t, skill.NewID(), 1, "Late"))
	wantKind(t, "AddBundle after Close", err, store.ErrClosed, "add bundle")
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	return string(b)
}

func equalJSON(a, b any) bool { return toJSON(a) == toJSON(b) }
