//go:build js && wasm

package idb

import (
	"context"
	"errors"
	"testing"

	"workbench/pkg/jsbytes"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/storetest"
)

// TestTraceRecords: a bundle's trace is stored as where it lies in the
// bundle's bytes, with no copy of them; a record an earlier workbench
// wrote, holding a copy in json, is still read.
func TestTraceRecords(t *testing.T) {
	ctx := context.Background()
	d := openT(t, testName(t), migrations())
	defer d.Close()
	id := skill.NewID()
	f := storetest.Bundle(t, id, 1, "Trace record")
	if _, err := d.AddBundle(ctx, f); err != nil {
		t.Fatal(err)
	}
	key := []any{id, f.Bundle.Trace.TraceID}
	v, err := d.getOne(ctx, "test", store.StoreTraces, "", key)
	must(t, err)
	if copied, _ := v.Get("json"); !copied.IsUndefined() {
		t.Errorf("the trace record holds a copy of the trace's bytes")
	}
	ref, err := f.TraceRef()
	must(t, err)
	for name, want := range map[string]any{"bundle": f.Bundle.ContentHash, "start": ref.Start, "end": ref.End} {
		got, err := v.Get(name)
		must(t, err)
		var ok bool
		switch w := want.(type) {
		case string:
			s, _ := got.String()
			ok = s == w
		case int:
			n, _ := got.Int()
			ok = n == w
		}
		if !ok {
			t.Errorf("trace record member %s = %v, want %v", name, got, want)
		}
	}

	// The record an earlier workbench wrote: the bytes themselves.
	raw, err := f.TraceJSON()
	must(t, err)
	data, err := jsbytes.ToJS(raw)
	must(t, err)
	tx, err := d.begin(ctx, "test", "readwrite", store.StoreTraces)
	must(t, err)
	must(t, tx.call(store.StoreTraces, "", "put", map[string]any{"skill_id": id, "trace_id": "trace-earlier", "json": data}))
	must(t, tx.wait(ctx))
	tr, err := d.Trace(ctx, id, "trace-earlier")
	must(t, err)
	if tr.TraceID != f.Bundle.Trace.TraceID || len(tr.Edges) != len(f.Bundle.Trace.Edges) {
		t.Errorf("an earlier record read as %+v", tr)
	}

	// A record naming a bundle that is not stored is reported, not read.
	tx, err = d.begin(ctx, "test", "readwrite", store.StoreTraces)
	must(t, err)
	must(t, tx.call(store.StoreTraces, "", "put", map[string]any{"skill_id": id, "trace_id": "trace-dangling",
		"bundle": skill.HashBytes([]byte("gone")), "start": 0, "end": 2}))
	must(t, tx.wait(ctx))
	if _, err := d.Trace(ctx, id, "trace-dangling"); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a record naming a missing bundle: %v, want ErrInvalid", err)
	}
}
