//go:build js && wasm

package idb

import (
	"context"
	"errors"
	"testing"

	"github.com/hack-pad/safejs"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/storetest"
)

// testName is a database name of the test's own, deleted when it ends.
func testName(t *testing.T) string {
	name := "workbench-test-" + skill.NewID()
	t.Cleanup(func() {
		if err := Delete(context.Background(), name); err != nil {
			t.Errorf("delete test database: %v", err)
		}
	})
	return name
}

func openT(t *testing.T, name string, migs []migration) *DB {
	t.Helper()
	d, err := open(context.Background(), name, migs, nil)
	if err != nil {
		t.Fatalf("open %s at version %d: %v", name, len(migs), err)
	}
	return d
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		d := openT(t, testName(t), migrations())
		t.Cleanup(func() { d.Close() })
		return d
	})
}

// TestSchema checks the object stores and indexes the migrations create,
// under the names spec §4.4 gives them.
func TestSchema(t *testing.T) {
	d := openT(t, testName(t), migrations())
	defer d.Close()
	if v := jsIntT(t, d.db, "version"); v != store.SchemaVersion {
		t.Errorf("database version %d, want %d", v, store.SchemaVersion)
	}
	names, err := d.db.Get("objectStoreNames")
	must(t, err)
	for _, want := range store.ObjectStores() {
		ok, err := names.Call("contains", want)
		must(t, err)
		if b, _ := ok.Bool(); !b {
			t.Errorf("object store %q missing", want)
		}
	}
	if n := jsIntT(t, names, "length"); n != len(store.ObjectStores()) {
		t.Errorf("%d object stores, want %d", n, len(store.ObjectStores()))
	}
	tx, err := d.db.Call("transaction", []any{store.StoreBundles, store.StoreReplays, store.StoreComparisons}, "readonly")
	must(t, err)
	for _, ix := range []struct {
		store, index string
		unique       bool
	}{
		{store.StoreBundles, "skill_id", false},
		{store.StoreBundles, "skill_version", true},
		{store.StoreReplays, "skill_id", false},
		{store.StoreComparisons, "skill_id", false},
	} {
		os, err := tx.Call("objectStore", ix.store)
		must(t, err)
		index, err := os.Call("index", ix.index)
		if err != nil {
			t.Errorf("index %s.%s: %v", ix.store, ix.index, err)
			continue
		}
		u, err := index.Get("unique")
		must(t, err)
		if b, _ := u.Bool(); b != ix.unique {
			t.Errorf("index %s.%s unique = %v, want %v", ix.store, ix.index, b, ix.unique)
		}
	}
}

// TestUpgradeKeepsData writes at this build's version, reopens with one
// more migration (test-only: a new object store, and a read of every
// skill record through the upgrade transaction), and reads everything
// back.
func TestUpgradeKeepsData(t *testing.T) {
	ctx := context.Background()
	name := testName(t)
	v1 := openT(t, name, migrations())
	id := skill.NewID()
	f := storetest.Bundle(t, id, 1, "Survives upgrades")
	if _, err := v1.AddBundle(ctx, f); err != nil {
		t.Fatalf("add bundle at v1: %v", err)
	}
	if _, err := v1.SaveReplay(ctx, storetest.NewReplay(id, 1, 1), nil); err != nil {
		t.Fatalf("save replay at v1: %v", err)
	}
	v1.Close()

	var sawOld int
	v2 := func(db, tx safejs.Value) error {
		if _, err := db.Call("createObjectStore", "notes", map[string]any{"keyPath": "id"}); err != nil {
			return err
		}
		os, err := tx.Call("objectStore", store.StoreSkills)
		if err != nil {
			return err
		}
		req, err := os.Call("count")
		if err != nil {
			return err
		}
		// Upgrade code may not wait; the count's result is read when the
		// request succeeds, still inside the upgrade transaction.
		f, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
			if v, err := req.Get("result"); err == nil {
				sawOld, _ = v.Int()
			}
			return nil
		})
		if err != nil {
			return err
		}
		t.Cleanup(f.Release)
		return req.Set("onsuccess", f)
	}
	d := openT(t, name, append(migrations(), v2))
	defer d.Close()
	if got := jsIntT(t, d.db, "version"); got != store.SchemaVersion+1 {
		t.Fatalf("version after upgrade %d, want %d", got, store.SchemaVersion+1)
	}
	if sawOld != 1 {
		t.Errorf("the added migration saw %d skill records, want 1", sawOld)
	}
	sk, err := d.Skill(ctx, id)
	if err != nil {
		t.Fatalf("skill after upgrade: %v", err)
	}
	if sk.Name != "Survives upgrades" || sk.ReplayCount != 1 {
		t.Errorf("skill after upgrade: %+v", sk)
	}
	b, err := d.Bundle(ctx, f.Bundle.ContentHash)
	if err != nil || string(b.Data) != string(f.Data) {
		t.Errorf("bundle after upgrade: %v (bytes equal: %v)", err, err == nil && string(b.Data) == string(f.Data))
	}
	if _, err := d.Trace(ctx, id, f.Bundle.Trace.TraceID); err != nil {
		t.Errorf("trace after upgrade: %v", err)
	}
	// The upgraded store keeps working.
	if _, err := d.AddBundle(ctx, storetest.Bundle(t, id, 2, "Survives upgrades")); err != nil {
		t.Errorf("add bundle after the upgrade: %v", err)
	}
}

// TestUpgradeToComparisons opens a database written at version 1 (before
// comparisons were kept) with this build: its skills, bundles and replays
// are still there, the comparisons store is new and empty, and a
// comparison of the old skill is kept and listed.
func TestUpgradeToComparisons(t *testing.T) {
	ctx := context.Background()
	name := testName(t)
	v1 := openT(t, name, migrations()[:1])
	id := skill.NewID()
	f := storetest.Bundle(t, id, 1, "Taught before comparisons were kept")
	if _, err := v1.AddBundle(ctx, f); err != nil {
		t.Fatalf("add bundle at v1: %v", err)
	}
	if _, err := v1.SaveReplay(ctx, storetest.NewReplay(id, 1, 1), nil); err != nil {
		t.Fatalf("save replay at v1: %v", err)
	}
	v1.Close()

	d := openT(t, name, migrations())
	defer d.Close()
	if got := jsIntT(t, d.db, "version"); got != store.SchemaVersion {
		t.Fatalf("version after upgrade %d, want %d", got, store.SchemaVersion)
	}
	sk, err := d.Skill(ctx, id)
	if err != nil || sk.Name != "Taught before comparisons were kept" || sk.ReplayCount != 1 {
		t.Fatalf("skill after upgrade: %+v, %v", sk, err)
	}
	if b, err := d.Bundle(ctx, f.Bundle.ContentHash); err != nil || string(b.Data) != string(f.Data) {
		t.Errorf("bundle after upgrade: %v", err)
	}
	if cs, err := d.Comparisons(ctx, id); err != nil || len(cs) != 0 {
		t.Fatalf("comparisons after upgrade: %v, %v; want none", cs, err)
	}
	c := storetest.NewComparison(id, 1)
	if err := d.SaveComparison(ctx, c); err != nil {
		t.Fatalf("save comparison after upgrade: %v", err)
	}
	if cs, err := d.Comparisons(ctx, id); err != nil || len(cs) != 1 || cs[0].ID != c.ID {
		t.Errorf("comparisons: %+v, %v", cs, err)
	}
}

// TestFailedUpgradeKeepsVersion: a migration that fails rolls the whole
// upgrade back; the database stays at the old version with its data.
func TestFailedUpgradeKeepsVersion(t *testing.T) {
	ctx := context.Background()
	name := testName(t)
	v1 := openT(t, name, migrations())
	id := skill.NewID()
	if _, err := v1.AddBundle(ctx, storetest.Bundle(t, id, 1, "Kept")); err != nil {
		t.Fatal(err)
	}
	v1.Close()
	broken := func(db, tx safejs.Value) error {
		if _, err := db.Call("createObjectStore", "half-done"); err != nil {
			return err
		}
		return errors.New("the new migration found something it cannot convert")
	}
	_, err := open(ctx, name, append(migrations(), broken), nil)
	if !errors.Is(err, store.ErrVersion) {
		t.Fatalf("open with a failing migration: %v, want ErrVersion", err)
	}
	t.Logf("failed upgrade: %v", err)
	d := openT(t, name, migrations())
	defer d.Close()
	if v := jsIntT(t, d.db, "version"); v != store.SchemaVersion {
		t.Errorf("version after a failed upgrade %d, want %d", v, store.SchemaVersion)
	}
	if _, err := d.Skill(ctx, id); err != nil {
		t.Errorf("data after a failed upgrade: %v", err)
	}
}

// TestNewerDatabase: a database from a newer build fails with ErrVersion.
func TestNewerDatabase(t *testing.T) {
	name := testName(t)
	noop := func(db, tx safejs.Value) error { return nil }
	newer := openT(t, name, append(migrations(), noop))
	newer.Close()
	_, err := Open(context.Background(), name, nil)
	if !errors.Is(err, store.ErrVersion) {
		t.Fatalf("opening a newer database: %v, want ErrVersion", err)
	}
	t.Logf("newer database: %v", err)
}

// TestBlockedUpgrade: another connection (standing in for another tab)
// holds version 1 open and ignores versionchange; opening at version 2
// reports the block; giving up then fails with ErrBlocked. When that connection closes, the pending
// upgrade completes in the background and the database opens normally.
func TestBlockedUpgrade(t *testing.T) {
	ctx := context.Background()
	name := testName(t)
	// A bare connection: no versionchange handler, like an old tab.
	factory, err := safejs.Global().Get("indexedDB")
	must(t, err)
	req, err := factory.Call("open", name, 1)
	must(t, err)
	other, derr, err := request(ctx, req)
	if err != nil || derr != nil {
		t.Fatalf("bare open: %v %v", err, derr)
	}
	noop := func(db, tx safejs.Value) error { return nil }
	// The page learns of the block at once (blocked) and gives up.
	waiting, giveUp := context.WithCancel(ctx)
	calls := 0
	_, err = open(waiting, name, append(migrations(), noop), func() { calls++; giveUp() })
	if calls != 1 {
		t.Errorf("blocked called %d times, want 1", calls)
	}
	if !errors.Is(err, store.ErrBlocked) {
		t.Fatalf("open while another connection holds v1: %v, want ErrBlocked", err)
	}
	t.Logf("blocked: %v", err)
	_, err = other.Call("close")
	must(t, err)
	d := openT(t, name, append(migrations(), noop))
	defer d.Close()
	if v := jsIntT(t, d.db, "version"); v != store.SchemaVersion+1 {
		t.Errorf("version %d after the other connection closed, want %d", v, store.SchemaVersion+1)
	}
}

// TestVersionChangeClosesConnection: this package's own connection gives
// way to an upgrade from elsewhere and then reports ErrClosed.
func TestVersionChangeClosesConnection(t *testing.T) {
	ctx := context.Background()
	name := testName(t)
	old := openT(t, name, migrations())
	defer old.Close()
	noop := func(db, tx safejs.Value) error { return nil }
	d := openT(t, name, append(migrations(), noop))
	defer d.Close()
	_, err := old.Skills(ctx)
	if !errors.Is(err, store.ErrClosed) {
		t.Fatalf("old connection after another upgraded: %v, want ErrClosed", err)
	}
	t.Logf("old connection: %v", err)
}

// TestCancelledContext: a cancelled context aborts the write.
func TestCancelledContext(t *testing.T) {
	d := openT(t, testName(t), migrations())
	defer d.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := storetest.Bundle(t, skill.NewID(), 1, "Never")
	_, err := d.AddBundle(ctx, f)
	if !errors.Is(err, store.ErrAborted) {
		t.Fatalf("add with a cancelled context: %v, want ErrAborted", err)
	}
	if _, err := d.Bundle(context.Background(), f.Bundle.ContentHash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bundle after a cancelled add: %v", err)
	}
}

func jsIntT(t *testing.T, v safejs.Value, name string) int {
	t.Helper()
	n, err := jsInt(v, name)
	must(t, err)
	return n
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestFailedDeleteLeavesEverything fails a delete after every one of its
// deletes was issued: the one transaction rolls back, and the skill's
// record, bundles, trace and replays are all still there.
func TestFailedDeleteLeavesEverything(t *testing.T) {
	ctx := context.Background()
	d := openT(t, testName(t), migrations())
	defer d.Close()
	id := skill.NewID()
	v1 := storetest.Bundle(t, id, 1, "Survives a failed delete")
	if _, err := d.AddBundle(ctx, v1); err != nil {
		t.Fatalf("add v1: %v", err)
	}
	if _, err := d.SaveReplay(ctx, storetest.NewReplay(id, 1, 1), nil); err != nil {
		t.Fatalf("save replay: %v", err)
	}
	if _, err := d.AddBundle(ctx, storetest.BundleCarrying(t, id, 2, "Survives a failed delete", storetest.NewReplay(id, 2, 1))); err != nil {
		t.Fatalf("add v2: %v", err)
	}
	traceID := v1.Bundle.Trace.TraceID
	before := storetest.Snapshot(t, d, id, traceID)

	late := errors.New("failed at the last moment")
	err := d.deleteSkill(ctx, id, func() error { return late })
	if !errors.Is(err, late) {
		t.Fatalf("delete: %v, want the injected failure", err)
	}
	if got := storetest.Snapshot(t, d, id, traceID); got != before {
		t.Errorf("the failed delete changed the skill:\nbefore\n%s\nafter\n%s", before, got)
	}
	// The same delete, let to commit, removes it all.
	if err := d.DeleteSkill(ctx, id); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if got, want := storetest.Snapshot(t, d, id, traceID), "skill: none\ntrace: none\n"; got != want {
		t.Errorf("after the delete:\n%s", got)
	}
}
