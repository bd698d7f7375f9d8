package library_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"workbench/pkg/library"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// exports returns the fixture bundle exported under each profile.
func exports(t *testing.T, v *verify.Verifier) map[string][]byte {
	t.Helper()
	b, _, err := skill.Decode(fixture(t, "valid-skill-bundle.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, p := range []string{skill.RedactionNone, skill.RedactionTranscriptPII, skill.RedactionFull} {
		f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, p, true)
		if err != nil {
			t.Fatalf("export %s: %v", p, err)
		}
		out[p] = f.Data
	}
	return out
}

func decode(t *testing.T, data []byte) *skill.Bundle {
	t.Helper()
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func options() library.Options {
	return library.Options{
		Now:   func() time.Time { return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) },
		NewID: skill.NewID,
	}
}

// TestCollide is the decision rule: two copies of one version under
// different profiles collide, and the copy that keeps more is suggested.
func TestCollide(t *testing.T) {
	v := verifier(t)
	ex := exports(t, v)
	none, pii, full := decode(t, ex[skill.RedactionNone]), decode(t, ex[skill.RedactionTranscriptPII]), decode(t, ex[skill.RedactionFull])
	edited := decode(t, ex[skill.RedactionNone])
	edited.Manifest.Description += " (edited)"
	if err := v.SealWithProof(edited); err != nil {
		t.Fatal(err)
	}
	otherVersion := decode(t, ex[skill.RedactionNone])
	otherVersion.SkillVersion++
	tests := []struct {
		name             string
		stored, incoming *skill.Bundle
		want             library.Choice // "" for no collision
		differs          []string
	}{
		{"full stored, none arrives", full, none, library.Replace,
			[]string{"the stored copy is full, this file is none", "fields stripped:"}},
		{"none stored, full arrives", none, full, library.KeepBoth, []string{"the stored copy is none, this file is full"}},
		{"full stored, transcript_pii arrives", full, pii, library.Replace, []string{"this file is transcript_pii"}},
		{"transcript_pii stored, full arrives", pii, full, library.KeepBoth, nil},
		{"same profile, edited: the version changed", none, edited, "", nil},
		{"the same bundle", none, none, "", nil},
		{"another version", none, otherVersion, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := library.Collide(tc.stored, tc.incoming)
			if tc.want == "" {
				if c != nil {
					t.Fatalf("collision %+v, want none", c)
				}
				return
			}
			if c == nil {
				t.Fatal("no collision")
			}
			if c.Suggested != tc.want {
				t.Errorf("suggested %q, want %q", c.Suggested, tc.want)
			}
			if c.Stored.ContentHash != tc.stored.ContentHash || c.Incoming.ContentHash != tc.incoming.ContentHash {
				t.Errorf("copies %+v / %+v", c.Stored, c.Incoming)
			}
			all := strings.Join(c.Differences, "\n")
			for _, w := range tc.differs {
				if !strings.Contains(all, w) {
					t.Errorf("differences %q do not say %q", all, w)
				}
			}
		})
	}
}

// Importing `full` and then `none` of one version does not keep the
// stripped copy silently: the second file collides, nothing is written,
// and Replace puts the full copy in its place.
func TestImportFullThenNoneReplace(t *testing.T) {
	ctx := context.Background()
	st, v := mem.New(), verifier(t)
	ex := exports(t, v)
	first, err := library.Import(ctx, st, v, "full.json", ex[skill.RedactionFull])
	if err != nil || first.Status != library.Accepted {
		t.Fatalf("import full: %v %+v", err, first)
	}
	res, err := library.Import(ctx, st, v, "none.json", ex[skill.RedactionNone])
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != library.Collided || res.Collision == nil || res.Collision.Suggested != library.Replace {
		t.Fatalf("second import: status %q collision %+v", res.Status, res.Collision)
	}
	id := first.Skill.ID
	bs, err := st.Bundles(ctx, id)
	if err != nil || len(bs) != 1 || bs[0].ContentHash != first.Report.ContentHash {
		t.Fatalf("after the collision the library holds %d bundles (%v); want the full copy alone", len(bs), err)
	}

	res, err = library.Resolve(ctx, st, v, "none.json", ex[skill.RedactionNone], library.Replace, options())
	if err != nil || res.Status != library.Accepted {
		t.Fatalf("replace: %v %+v", err, res)
	}
	bs, err = st.Bundles(ctx, id)
	if err != nil || len(bs) != 1 || bs[0].ContentHash != res.Report.ContentHash {
		t.Fatalf("after Replace: %d bundles (%v), want the none copy alone", len(bs), err)
	}
	if got := decode(t, bs[0].Data).Evidence.RedactionProfile; got != skill.RedactionNone {
		t.Errorf("stored profile %q after Replace", got)
	}
	if res.Skill.BundleHash != res.Report.ContentHash {
		t.Errorf("the skill record describes %s, not the new copy", res.Skill.BundleHash)
	}
	// Resolving again finds the same copy stored: a duplicate.
	res, err = library.Resolve(ctx, st, v, "none.json", ex[skill.RedactionNone], library.Replace, options())
	if err != nil || res.Status != library.Duplicate {
		t.Fatalf("second Resolve: %v status %q", err, res.Status)
	}
}

// Keep both stores the file's content as the next version; the stored copy
// stays as it was and the new version verifies.
func TestImportNoneThenFullKeepBoth(t *testing.T) {
	ctx := context.Background()
	st, v := mem.New(), verifier(t)
	ex := exports(t, v)
	first, err := library.Import(ctx, st, v, "none.json", ex[skill.RedactionNone])
	if err != nil || first.Status != library.Accepted {
		t.Fatalf("import none: %v %+v", err, first)
	}
	res, err := library.Import(ctx, st, v, "full.json", ex[skill.RedactionFull])
	if err != nil || res.Status != library.Collided || res.Collision.Suggested != library.KeepBoth {
		t.Fatalf("second import: %v %+v", err, res)
	}
	res, err = library.Resolve(ctx, st, v, "full.json", ex[skill.RedactionFull], library.KeepBoth, options())
	if err != nil || res.Status != library.Accepted {
		t.Fatalf("keep both: %v %+v", err, res)
	}
	bs, err := st.Bundles(ctx, first.Skill.ID)
	if err != nil || len(bs) != 2 {
		t.Fatalf("%d bundles (%v), want 2", len(bs), err)
	}
	if bs[0].ContentHash != first.Report.ContentHash {
		t.Error("the stored copy changed")
	}
	want := first.Skill.Version + 1
	if bs[1].SkillVersion != want || res.Skill.Version != want {
		t.Errorf("kept as version %d (record %d), want %d", bs[1].SkillVersion, res.Skill.Version, want)
	}
	rep, err := v.Bytes(bs[1].Data)
	if err != nil {
		t.Fatalf("the new version does not verify: %v", err)
	}
	nb := decode(t, bs[1].Data)
	if nb.Evidence.RedactionProfile != skill.RedactionFull {
		t.Errorf("new version's profile %q", nb.Evidence.RedactionProfile)
	}
	for _, g := range rep.Derived.ProofGates {
		if (g.ID == skill.GateRedactionVerify || g.ID == skill.GateContentHash) && g.Verdict == skill.VerdictFail {
			t.Errorf("the new version fails %s: %s", g.ID, g.Reason)
		}
	}
}

// A choice that is neither is an error; a file that no longer collides
// is imported as Import would.
func TestResolveChoices(t *testing.T) {
	ctx := context.Background()
	st, v := mem.New(), verifier(t)
	ex := exports(t, v)
	if _, err := library.Resolve(ctx, st, v, "x.json", ex[skill.RedactionNone], "merge", options()); err == nil {
		t.Error("an unknown choice was accepted")
	}
	// Nothing stored: the file is simply accepted.
	res, err := library.Resolve(ctx, st, v, "full.json", ex[skill.RedactionFull], library.Replace, options())
	if err != nil || res.Status != library.Accepted || res.Collision != nil {
		t.Fatalf("resolve into an empty library: %v %+v", err, res)
	}
	st.Close()
	if _, err := library.Resolve(ctx, st, v, "none.json", ex[skill.RedactionNone], library.Replace, options()); !errors.Is(err, store.ErrClosed) {
		t.Errorf("closed store: %v, want ErrClosed", err)
	}
}

func TestSummary(t *testing.T) {
	tests := []struct {
		results []library.Status
		failed  int
		want    string
	}{
		{nil, 0, "0 accepted, 0 rejected, 0 already stored"},
		{[]library.Status{library.Accepted, library.Accepted, library.Rejected, library.Duplicate}, 0, "2 accepted, 1 rejected, 1 already stored"},
		{[]library.Status{library.Collided, library.Accepted}, 1, "1 accepted, 0 rejected, 0 already stored, 1 waiting for a choice, 1 not imported (error)"},
	}
	for _, tc := range tests {
		var s library.Summary
		for _, st := range tc.results {
			s.Add(library.Result{Status: st}, nil)
		}
		for range tc.failed {
			s.Add(library.Result{}, errors.New("store failed"))
		}
		if got := s.String(); got != tc.want {
			t.Errorf("summary %q, want %q", got, tc.want)
		}
	}
}
