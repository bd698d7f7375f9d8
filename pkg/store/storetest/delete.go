package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/store"
)

// Snapshot describes everything s holds of skill id — its record, its
// bundles (hash and version), whether its trace is there, its replays and
// the bundles they link to, its comparisons — as one string, so a test can check that a
// failed write left the skill exactly as it was.
func Snapshot(t *testing.T, s store.Store, id, traceID string) string {
	t.Helper()
	var b strings.Builder
	sk, err := s.Skill(ctx(), id)
	if errors.Is(err, store.ErrNotFound) {
		b.WriteString("skill: none\n")
	} else {
		must(t, "get skill", err)
		fmt.Fprintf(&b, "skill: %s\n", toJSON(sk))
	}
	bs, err := s.Bundles(ctx(), id)
	must(t, "list bundles", err)
	for _, bu := range bs {
		fmt.Fprintf(&b, "bundle v%d %s %d bytes\n", bu.SkillVersion, bu.ContentHash, len(bu.Data))
	}
	if _, err := s.Trace(ctx(), id, traceID); err == nil {
		b.WriteString("trace: stored\n")
	} else if errors.Is(err, store.ErrNotFound) {
		b.WriteString("trace: none\n")
	} else {
		t.Fatalf("get trace: %v", err)
	}
	rs, err := s.Replays(ctx(), id)
	must(t, "list replays", err)
	for _, r := range rs {
		fmt.Fprintf(&b, "replay %s → %q\n", r.ID(), r.BundleHash)
	}
	cs, err := s.Comparisons(ctx(), id)
	must(t, "list comparisons", err)
	for _, c := range cs {
		fmt.Fprintf(&b, "comparison %s of v%d, saved as v%d\n", c.ID, c.SkillVersion, c.SavedVersion)
	}
	return b.String()
}

// seedDeletable stores two versions of a new skill, a replay saved with
// no bundle and one carried by the second version, a comparison of the
// second version, and returns the
// skill's id and trace id.
func seedDeletable(t *testing.T, s store.Store, name string) (id, traceID string) {
	t.Helper()
	id = skill.NewID()
	v1 := Bundle(t, id, 1, name)
	_, err := s.AddBundle(ctx(), v1)
	must(t, "add v1", err)
	_, err = s.SaveReplay(ctx(), NewReplay(id, 1, 1), nil)
	must(t, "save replay", err)
	_, err = s.AddBundle(ctx(), BundleCarrying(t, id, 2, name, NewReplay(id, 1, 0.5)))
	must(t, "add v2", err)
	must(t, "save comparison", s.SaveComparison(ctx(), NewComparison(id, 2)))
	return id, v1.Bundle.Trace.TraceID
}

// testDeleteSkill deletes one of two skills: every record of it goes, the
// other keeps all of its own, and its bundles can be stored again.
func testDeleteSkill(t *testing.T, s store.Store) {
	gone, goneTrace := seedDeletable(t, s, "Deleted")
	kept, keptTrace := seedDeletable(t, s, "Kept")
	keptBefore := Snapshot(t, s, kept, keptTrace)
	bs, err := s.Bundles(ctx(), gone)
	must(t, "list bundles", err)
	if len(bs) != 2 {
		t.Fatalf("seeded %d bundles, want 2", len(bs))
	}

	must(t, "delete skill", s.DeleteSkill(ctx(), gone))

	if got, want := Snapshot(t, s, gone, goneTrace), "skill: none\ntrace: none\n"; got != want {
		t.Errorf("after the delete the skill still has:\n%s", got)
	}
	for _, b := range bs {
		if _, err := s.Bundle(ctx(), b.ContentHash); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("bundle v%d after the delete: %v, want not found", b.SkillVersion, err)
		}
	}
	if got := Snapshot(t, s, kept, keptTrace); got != keptBefore {
		t.Errorf("the other skill changed:\nbefore\n%s\nafter\n%s", keptBefore, got)
	}
	list, err := s.ListSkills(ctx(), store.SkillQuery{})
	must(t, "list skills", err)
	if list.Total != 1 || list.Skills[0].ID != kept {
		t.Errorf("after the delete the library lists %s", toJSON(list))
	}
	// Nothing of it is left to collide with: its first version is new again.
	v1 := Bundle(t, gone, 1, "Deleted")
	sk, err := s.AddBundle(ctx(), v1)
	must(t, "add the deleted skill's v1 again", err)
	if sk.ReplayCount != 0 || sk.Version != 1 {
		t.Errorf("the skill stored again kept old counts: %s", toJSON(sk))
	}
}

func testDeleteSkillNotFound(t *testing.T, s store.Store) {
	kept, keptTrace := seedDeletable(t, s, "Kept")
	before := Snapshot(t, s, kept, keptTrace)
	err := s.DeleteSkill(ctx(), skill.NewID())
	wantKind(t, "delete of a skill not stored", err, store.ErrNotFound, "delete skill")
	if got := Snapshot(t, s, kept, keptTrace); got != before {
		t.Errorf("a failed delete changed another skill:\n%s", got)
	}
}

// testDeleteSkillCancelled: a delete whose context has ended fails and
// deletes nothing.
func testDeleteSkillCancelled(t *testing.T, s store.Store) {
	id, traceID := seedDeletable(t, s, "Survives")
	before := Snapshot(t, s, id, traceID)
	c, cancel := context.WithCancel(ctx())
	cancel()
	err := s.DeleteSkill(c, id)
	wantKind(t, "delete with a cancelled context", err, store.ErrAborted, "delete skill")
	if got := Snapshot(t, s, id, traceID); got != before {
		t.Errorf("a failed delete changed the skill:\nbefore\n%s\nafter\n%s", before, got)
	}
}

// testReplaceBundle replaces an older and then the newest version with
// another copy of the same version: the old copy goes, the replays it
// carried point at the new one, and the record describes the newest.
func testReplaceBundle(t *testing.T, s store.Store) {
	id := skill.NewID()
	carried := NewReplay(id, 1, 1)
	v1 := BundleCarrying(t, id, 1, "Stripped", carried)
	_, err := s.AddBundle(ctx(), v1)
	must(t, "add v1", err)
	v2 := Bundle(t, id, 2, "Stripped")
	_, err = s.AddBundle(ctx(), v2)
	must(t, "add v2", err)

	// Another copy of v1 (here: another name), carrying the same replay.
	v1b := BundleCarrying(t, id, 1, "Full copy", carried)
	sk, err := s.ReplaceBundle(ctx(), v1.Bundle.ContentHash, v1b)
	must(t, "replace v1", err)
	if sk.Version != 2 || sk.BundleHash != v2.Bundle.ContentHash || sk.Name != "Stripped" || sk.ReplayCount != 1 {
		t.Errorf("replacing an older version changed the record: %s", toJSON(sk))
	}
	if _, err := s.Bundle(ctx(), v1.Bundle.ContentHash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the replaced copy: %v, want not found", err)
	}
	bs, err := s.Bundles(ctx(), id)
	must(t, "list bundles", err)
	hashes := []string{}
	for _, b := range bs {
		hashes = append(hashes, b.ContentHash)
	}
	if want := []string{v1b.Bundle.ContentHash, v2.Bundle.ContentHash}; !slices.Equal(hashes, want) {
		t.Errorf("bundles %v, want %v", hashes, want)
	}
	rs, err := s.Replays(ctx(), id)
	must(t, "list replays", err)
	if len(rs) != 1 || rs[0].BundleHash != v1b.Bundle.ContentHash {
		t.Errorf("replays after the replace: %s, want the carried one linked to the new copy", toJSON(rs))
	}

	v2b := Bundle(t, id, 2, "Renamed copy")
	sk, err = s.ReplaceBundle(ctx(), v2.Bundle.ContentHash, v2b)
	must(t, "replace v2", err)
	if sk.Version != 2 || sk.BundleHash != v2b.Bundle.ContentHash || sk.Name != "Renamed copy" || sk.ReplayCount != 1 {
		t.Errorf("replacing the newest version: record %s", toJSON(sk))
	}
	got, err := s.Skill(ctx(), id)
	must(t, "get skill", err)
	if !equalJSON(got, sk) {
		t.Errorf("stored record %s, returned %s", toJSON(got), toJSON(sk))
	}
}

// testReplaceKeepsCarriedTraces replaces copies with copies that carry
// another trace: a trace stays readable while a stored bundle carries it
// and goes with the last one.
func testReplaceKeepsCarriedTraces(t *testing.T, s store.Store) {
	id := skill.NewID()
	v1, v2 := Bundle(t, id, 1, "Shared trace"), Bundle(t, id, 2, "Shared trace")
	shared := v1.Bundle.Trace
	for _, f := range []store.BundleFile{v1, v2} {
		_, err := s.AddBundle(ctx(), f)
		must(t, fmt.Sprintf("add v%d", f.Bundle.SkillVersion), err)
	}
	retraced := func(version int, traceID string) store.BundleFile {
		b := NewBundle(id, version, "Retraced")
		b.Trace.TraceID, b.Manifest.DerivedFromTraceID = traceID, traceID
		if err := b.Seal(); err != nil {
			t.Fatalf("seal: %v", err)
		}
		f, err := store.EncodeBundle(b)
		must(t, "encode", err)
		return f
	}
	readTrace := func(what, traceID string, want *skill.Trace) {
		t.Helper()
		got, err := s.Trace(ctx(), id, traceID)
		if want == nil {
			wantKind(t, what, err, store.ErrNotFound, "get trace")
			return
		}
		must(t, what, err)
		if !equalJSON(got, want) {
			t.Errorf("%s: %s, want %s", what, toJSON(got), toJSON(want))
		}
	}

	v2b := retraced(2, "trace-other")
	_, err := s.ReplaceBundle(ctx(), v2.Bundle.ContentHash, v2b)
	must(t, "replace v2", err)
	readTrace("the shared trace, still carried by v1", shared.TraceID, &shared)
	readTrace("the new copy's trace", "trace-other", &v2b.Bundle.Trace)

	v1b := retraced(1, "trace-third")
	_, err = s.ReplaceBundle(ctx(), v1.Bundle.ContentHash, v1b)
	must(t, "replace v1", err)
	readTrace("the shared trace, carried by no stored bundle", shared.TraceID, nil)
	readTrace("v1's new trace", "trace-third", &v1b.Bundle.Trace)
	readTrace("v2's trace", "trace-other", &v2b.Bundle.Trace)
}

// testReplaceBundleRefused: a replace that cannot be done changes nothing.
func testReplaceBundleRefused(t *testing.T, s store.Store) {
	id := skill.NewID()
	v1 := Bundle(t, id, 1, "Stays")
	_, err := s.AddBundle(ctx(), v1)
	must(t, "add v1", err)
	v2 := Bundle(t, id, 2, "Stays")
	_, err = s.AddBundle(ctx(), v2)
	must(t, "add v2", err)
	before := Snapshot(t, s, id, v1.Bundle.Trace.TraceID)

	_, err = s.ReplaceBundle(ctx(), skill.HashBytes([]byte("not stored")), Bundle(t, id, 1, "Other"))
	wantKind(t, "replace of a bundle not stored", err, store.ErrNotFound, "replace bundle")
	_, err = s.ReplaceBundle(ctx(), v1.Bundle.ContentHash, Bundle(t, id, 3, "Other"))
	wantKind(t, "replace by another version", err, store.ErrInvalid, "replace bundle")
	_, err = s.ReplaceBundle(ctx(), v1.Bundle.ContentHash, Bundle(t, skill.NewID(), 1, "Other"))
	wantKind(t, "replace by another skill", err, store.ErrInvalid, "replace bundle")
	_, err = s.ReplaceBundle(ctx(), v1.Bundle.ContentHash, v1)
	wantKind(t, "replace by itself", err, store.ErrDuplicate, "replace bundle")

	if got := Snapshot(t, s, id, v1.Bundle.Trace.TraceID); got != before {
		t.Errorf("refused replaces changed the skill:\nbefore\n%s\nafter\n%s", before, got)
	}
}

// testListSkillsSorted lists five skills in each order, whole and in
// pages, with and without a filter.
func testListSkillsSorted(t *testing.T, s store.Store) {
	seed := []struct{ name, updated, verdict string }{
		{"beta", "2026-03-01T00:00:00Z", "pass"},
		{"Alpha", "2026-01-01T00:00:00Z", "fail"},
		{"gamma", "2026-05-01T00:00:00Z", "partial"},
		{"alpha", "2026-04-01T00:00:00Z", "inconclusive"},
		{"Delta", "2026-02-01T00:00:00Z", "fail"},
	}
	ids := make([]string, len(seed))
	for i, sd := range seed {
		ids[i] = skill.NewID()
		b := NewBundle(ids[i], 1, sd.name)
		b.Manifest.UpdatedAt, b.Proof.OverallVerdict = sd.updated, sd.verdict
		must(t, "seal", b.Seal())
		f, err := store.EncodeBundle(b)
		must(t, "encode bundle", err)
		_, err = s.AddBundle(ctx(), f)
		must(t, "add bundle", err)
	}
	tests := []struct {
		name     string
		q        store.SkillQuery
		want     []int
		matching int
	}{
		{"newest", store.SkillQuery{Sort: store.SortNewest}, []int{4, 3, 2, 1, 0}, 5},
		// "alpha" and "Alpha" tie ignoring case: upper case first.
		{"name", store.SkillQuery{Sort: store.SortName}, []int{1, 3, 0, 4, 2}, 5},
		{"name, first page", store.SkillQuery{Sort: store.SortName, Limit: 2}, []int{1, 3}, 5},
		{"updated", store.SkillQuery{Sort: store.SortUpdated}, []int{2, 3, 0, 4, 1}, 5},
		// The two that fail tie: newest first.
		{"verdict", store.SkillQuery{Sort: store.SortVerdict}, []int{4, 1, 3, 2, 0}, 5},
		{"verdict, filtered, page", store.SkillQuery{Sort: store.SortVerdict, Filter: "a", Limit: 3}, []int{4, 1, 3}, 5},
		{"updated, filtered", store.SkillQuery{Sort: store.SortUpdated, Filter: "alpha"}, []int{3, 1}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ListSkills(ctx(), tc.q)
			must(t, "list skills", err)
			if got.Total != len(ids) || got.Matching != tc.matching {
				t.Errorf("Total %d, Matching %d; want %d, %d", got.Total, got.Matching, len(ids), tc.matching)
			}
			var gotNames, wantNames []string
			for _, sk := range got.Skills {
				gotNames = append(gotNames, sk.Name)
				if whole, err := s.Skill(ctx(), sk.ID); err != nil || !equalJSON(sk, whole) {
					t.Errorf("listed %s, stored %s (%v)", toJSON(sk), toJSON(whole), err)
				}
			}
			for _, i := range tc.want {
				wantNames = append(wantNames, seed[i].name)
			}
			if !slices.Equal(gotNames, wantNames) {
				t.Errorf("listed %q, want %q", gotNames, wantNames)
			}
		})
	}
}
