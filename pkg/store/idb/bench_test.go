//go:build js && wasm

package idb

import (
	"context"
	"fmt"
	"testing"

	"workbench/pkg/canonjson/canonjsontest"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/storetest"
)

// bigBundle returns a sealed bundle of about 10 MB: 1,000 edges with
// browser-sized snapshots.
func bigBundle(b *testing.B) store.BundleFile {
	b.Helper()
	sealed, _, err := skill.Decode(canonjsontest.Bundle(1000, 10_000))
	if err != nil {
		b.Fatalf("decode generated bundle: %v", err)
	}
	id := skill.NewID()
	sealed.SkillID, sealed.Manifest.SkillID, sealed.SkillVersion = id, id, 1
	if sealed.Trace.TraceID == "" {
		sealed.Trace.TraceID = "trace-" + id
	}
	if err := sealed.Seal(); err != nil {
		b.Fatal(err)
	}
	f, err := store.EncodeBundle(sealed)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkImport10MB is the store's share of importing a 10 MB bundle
// file: the strict decode and hash check (NewBundleFile) and the IndexedDB
// transaction (AddBundle), measured apart.
func BenchmarkImport10MB(b *testing.B) {
	f := bigBundle(b)
	b.Run("NewBundleFile", func(b *testing.B) {
		b.SetBytes(int64(len(f.Data)))
		for b.Loop() {
			if _, err := store.NewBundleFile(f.Data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AddBundle", func(b *testing.B) {
		ctx := context.Background()
		d := openB(b)
		b.SetBytes(int64(len(f.Data)))
		for b.Loop() {
			b.StopTimer()
			if err := d.Clear(ctx); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := d.AddBundle(ctx, f); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSkills1000 lists a library of 1,000 skills: all of them
// (Skills), the first page the /skills page shows (ListSkills with a
// limit of 100), and a filter, which reads every record.
func BenchmarkSkills1000(b *testing.B) {
	ctx := context.Background()
	d := openB(b)
	for i := range 1000 {
		if _, err := d.AddBundle(ctx, storetest.Bundle(b, skill.NewID(), 1, fmt.Sprintf("Skill %d", i))); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("All", func(b *testing.B) {
		for b.Loop() {
			list, err := d.Skills(ctx)
			if err != nil || len(list) != 1000 {
				b.Fatalf("Skills: %d, %v", len(list), err)
			}
		}
	})
	b.Run("Page100", func(b *testing.B) {
		for b.Loop() {
			list, err := d.ListSkills(ctx, store.SkillQuery{Limit: 100})
			if err != nil || len(list.Skills) != 100 || list.Total != 1000 {
				b.Fatalf("ListSkills: %d of %d, %v", len(list.Skills), list.Total, err)
			}
		}
	})
	b.Run("Filter", func(b *testing.B) {
		for b.Loop() {
			// "Skill 99" and "Skill 990" … "Skill 999".
			list, err := d.ListSkills(ctx, store.SkillQuery{Filter: "skill 99", Limit: 100})
			if err != nil || list.Matching != 11 {
				b.Fatalf("ListSkills: %d matching, %v", list.Matching, err)
			}
		}
	})
}

// BenchmarkSkillsPage is the first page the /skills page shows
// (ListSkills with a limit of 100) of libraries of 1,000 and 10,000
// skills, and the one request of it whose cost grows with the library:
// the count of all records, which IndexedDB answers by walking them.
func BenchmarkSkillsPage(b *testing.B) {
	ctx := context.Background()
	d := openB(b)
	stored := 0
	for _, n := range []int{1000, 10_000} {
		for ; stored < n; stored++ {
			if _, err := d.AddBundle(ctx, storetest.Bundle(b, skill.NewID(), 1, fmt.Sprintf("Skill %d", stored))); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) {
			for b.Loop() {
				list, err := d.ListSkills(ctx, store.SkillQuery{Limit: 100})
				if err != nil || len(list.Skills) != 100 || list.Total != n {
					b.Fatalf("ListSkills: %d of %d, %v", len(list.Skills), list.Total, err)
				}
			}
		})
		b.Run(fmt.Sprintf("skills=%d/count", n), func(b *testing.B) {
			for b.Loop() {
				t, err := d.begin(ctx, "count", "readonly", store.StoreSkills)
				if err != nil {
					b.Fatal(err)
				}
				os, err := t.objectStore(store.StoreSkills)
				if err != nil {
					b.Fatal(err)
				}
				v, err := t.get(ctx, os, store.StoreSkills, "", "count")
				if err != nil {
					b.Fatal(err)
				}
				if got, err := v.Int(); err != nil || got != n {
					b.Fatalf("count: %d, %v", got, err)
				}
				if err := t.wait(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func openB(b *testing.B) *DB {
	name := "workbench-bench-" + skill.NewID()
	d, err := Open(context.Background(), name, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		d.Close()
		if err := Delete(context.Background(), name); err != nil {
			b.Errorf("delete: %v", err)
		}
	})
	return d
}
