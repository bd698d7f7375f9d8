package workbench_test

import (
	"context"
	"strings"
	"testing"

	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/workbench"
)

// TestSaveManifest: an edit is stored as the next version with a proof of
// its own; an edit the schema refuses, a missing dependency or a failed
// write stores nothing, and the caller's bundle is never changed.
func TestSaveManifest(t *testing.T) {
	v, b := setup(t)
	good := workbench.EditOf(b.Manifest)
	good.Name, good.Description = "Read a repository's open issues", "Opens the issues page and reads the first ones."
	badSlug := good
	badSlug.Slug = "Not A Slug"
	for _, tc := range []struct {
		name    string
		w       func(st store.Store) *workbench.Flows
		edit    workbench.ManifestEdit
		wantErr string
	}{
		{"saved as the next version", func(st store.Store) *workbench.Flows {
			return workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(st)})
		}, good, ""},
		{"a slug the schema refuses", func(st store.Store) *workbench.Flows {
			return workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(st)})
		}, badSlug, "slug"},
		{"no verifier", func(st store.Store) *workbench.Flows {
			return workbench.New(workbench.Deps{Store: workbench.UseStore(st)})
		}, good, "no verifier"},
		{"no library", func(store.Store) *workbench.Flows {
			return workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)})
		}, good, "no library"},
		{"store full", func(st store.Store) *workbench.Flows {
			return workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v), Store: workbench.UseStore(fullStore{st})})
		}, good, "storage quota exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			st := mem.New()
			before := b.ContentHash
			nb, err := tc.w(st).SaveManifest(ctx, b, tc.edit)
			if b.ContentHash != before || b.Manifest.Name == good.Name {
				t.Fatal("the caller's bundle was changed")
			}
			stored, lerr := st.Skills(ctx)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				if len(stored) != 0 {
					t.Errorf("%d skills stored after a failed save", len(stored))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if nb.SkillVersion != b.SkillVersion+1 || nb.Manifest.Name != good.Name || nb.SkillID != b.SkillID {
				t.Errorf("saved v%d %q of %s, want v%d %q of %s", nb.SkillVersion, nb.Manifest.Name, nb.SkillID, b.SkillVersion+1, good.Name, b.SkillID)
			}
			sb, err := st.Bundle(ctx, nb.ContentHash)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := v.Bytes(sb.Data)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Overclaims) != 0 || rep.Version != nb.SkillVersion {
				t.Errorf("the stored version re-verifies as v%d with overclaims %v", rep.Version, rep.Overclaims)
			}
			if len(stored) != 1 || stored[0].Version != nb.SkillVersion {
				t.Errorf("stored %+v, want the skill at v%d", stored, nb.SkillVersion)
			}
		})
	}
}
