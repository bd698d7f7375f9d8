//go:build js && wasm

package idb

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/hack-pad/safejs"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/storetest"
)

// quotaBytes is the quota of the storage bucket TestQuotaExceeded writes to.
const quotaBytes = 1 << 20

// TestQuotaExceeded makes the browser itself refuse a write for lack of
// quota: the database lives in a storage bucket (Storage Buckets API) whose
// quota is quotaBytes, and a bundle several times that size is added. It
// must fail with ErrQuotaExceeded and leave nothing behind, and the store
// must keep working for data that fits.
func TestQuotaExceeded(t *testing.T) {
	ctx := context.Background()
	buckets, err := safejs.Global().Get("navigator")
	if err == nil {
		buckets, err = buckets.Get("storageBuckets")
	}
	if err != nil || buckets.IsUndefined() {
		t.Skip("this runtime has no Storage Buckets API (only Chromium does); the quota test needs one")
	}
	bucketName := "quota-test-" + strings.ReplaceAll(skill.NewID(), "-", "")
	p, err := buckets.Call("open", bucketName, map[string]any{"quota": quotaBytes})
	must(t, err)
	bucket, err := awaitPromise(ctx, p)
	if err != nil {
		t.Fatalf("open storage bucket: %v", err)
	}
	t.Cleanup(func() {
		if p, err := buckets.Call("delete", bucketName); err == nil {
			_, _ = awaitPromise(context.Background(), p)
		}
	})
	factory, err := bucket.Get("indexedDB")
	must(t, err)
	d, err := openOn(ctx, factory, "quota", migrations(), nil)
	if err != nil {
		t.Fatalf("open in the bucket: %v", err)
	}
	defer d.Close()

	id := skill.NewID()
	b := storetest.NewBundle(id, 1, "Too big")
	// Random text: the browser compresses what it stores, and a repeated
	// string would fit in the quota after all.
	noise := make([]byte, 2*quotaBytes)
	rand.Read(noise)
	b.Trace.Goal = base64.StdEncoding.EncodeToString(noise) // ≈ 2.7 MB, stored twice (bundle and trace)
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.AddBundle(ctx, f)
	if !errors.Is(err, store.ErrQuotaExceeded) {
		t.Fatalf("adding a %d-byte bundle over a %d-byte quota: %v, want ErrQuotaExceeded", len(f.Data), quotaBytes, err)
	}
	t.Logf("over quota: %v", err)
	if _, err := d.Bundle(ctx, b.ContentHash); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("bundle after the refused write: %v, want not found", err)
	}
	if _, err := d.Skill(ctx, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("skill after the refused write: %v, want not found", err)
	}
	small := storetest.Bundle(t, skill.NewID(), 1, "Fits")
	if _, err := d.AddBundle(ctx, small); err != nil {
		t.Errorf("a small bundle after the refused write: %v", err)
	}
}

// awaitPromise waits for a JavaScript promise and returns its value, or
// its rejection as an error.
func awaitPromise(ctx context.Context, p safejs.Value) (safejs.Value, error) {
	type result struct {
		v   safejs.Value
		err error
	}
	ch := make(chan result, 1)
	resolve, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		var v safejs.Value
		if len(args) > 0 {
			v = args[0]
		}
		ch <- result{v: v}
		return nil
	})
	if err != nil {
		return safejs.Value{}, err
	}
	defer resolve.Release()
	reject, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		d := &domError{name: "Error", message: "promise rejected"}
		if len(args) > 0 {
			d = exception(args[0])
		}
		ch <- result{err: d}
		return nil
	})
	if err != nil {
		return safejs.Value{}, err
	}
	defer reject.Release()
	if _, err := p.Call("then", resolve, reject); err != nil {
		return safejs.Value{}, err
	}
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return safejs.Value{}, ctx.Err()
	}
}
