package store_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/storetest"
)

func TestNewBundleFile(t *testing.T) {
	good := storetest.Bundle(t, skill.NewID(), 1, "Checked")
	tests := []struct {
		name string
		data []byte
		want string // in the message; "" for success
	}{
		{"canonical", good.Data, ""},
		{"tampered name", bytes.Replace(good.Data, []byte(`"Checked"`), []byte(`"Changed"`), 1), "content_hash does not match the content"},
		{"not JSON", []byte(`{"bundle_version":`), "not a bundle"},
		{"duplicate key", []byte(`{"a":1,"a":2}`), "not a bundle at /a"},
		{"unsealed", bytes.Replace(good.Data, []byte(good.Bundle.ContentHash), []byte(""), 1), "content_hash"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := store.NewBundleFile(tc.data)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("NewBundleFile: %v", err)
				}
				if f.Bundle.ContentHash != good.Bundle.ContentHash || !bytes.Equal(f.Data, tc.data) {
					t.Errorf("NewBundleFile gave hash %s", f.Bundle.ContentHash)
				}
				return
			}
			if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewBundleFile: %v, want ErrInvalid mentioning %q", err, tc.want)
			}
		})
	}
}

func TestEncodeBundleStale(t *testing.T) {
	b := storetest.NewBundle(skill.NewID(), 1, "Sealed")
	b.Manifest.Name = "Edited after sealing"
	_, err := store.EncodeBundle(b)
	if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), "content_hash does not match") {
		t.Fatalf("EncodeBundle of a stale seal: %v", err)
	}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil || f.Bundle != b {
		t.Fatalf("EncodeBundle after resealing: %v", err)
	}
}

func TestApplyBundle(t *testing.T) {
	id := skill.NewID()
	v1 := storetest.NewBundle(id, 1, "One")
	v2 := storetest.NewBundle(id, 2, "Two")
	replayed := store.ApplyReplay(store.ApplyBundle(nil, v2), storetest.NewReplay(id, 2, 0.5), true)
	tests := []struct {
		name                string
		prev                *store.Skill
		b                   *skill.Bundle
		wantName            string
		wantVersion         int
		wantReplays         int
		wantCreatedFromPrev bool
	}{
		{"new skill", nil, v1, "One", 1, 0, false},
		{"newer version", ptr(store.ApplyBundle(nil, v1)), v2, "Two", 2, 0, true},
		{"older version late", &replayed, v1, "Two", 2, 1, true},
		{"newer keeps replays", ptr(store.ApplyReplay(store.ApplyBundle(nil, v1), storetest.NewReplay(id, 1, 1), true)), v2, "Two", 2, 1, true},
	}
	for _, tc := range tests {
		got := store.ApplyBundle(tc.prev, tc.b)
		if got.Name != tc.wantName || got.Version != tc.wantVersion || got.ReplayCount != tc.wantReplays {
			t.Errorf("%s: got %s v%d with %d replays, want %s v%d with %d", tc.name,
				got.Name, got.Version, got.ReplayCount, tc.wantName, tc.wantVersion, tc.wantReplays)
		}
		if tc.wantCreatedFromPrev && got.CreatedAt != tc.prev.CreatedAt {
			t.Errorf("%s: created_at %s, want the first version's %s", tc.name, got.CreatedAt, tc.prev.CreatedAt)
		}
	}
}

func TestApplyReplay(t *testing.T) {
	id := skill.NewID()
	sk := store.ApplyBundle(nil, storetest.NewBundle(id, 1, "R"))
	older, newer := storetest.NewReplay(id, 1, 0.25), storetest.NewReplay(id, 1, 0.75)
	sk = store.ApplyReplay(sk, newer, true)
	sk = store.ApplyReplay(sk, older, true) // saved late: counted, not summarised
	if sk.ReplayCount != 2 || sk.LastReplay.ReplayID != newer.ID() || sk.LastReplay.Fidelity != 0.75 {
		t.Errorf("after two replays: %+v %+v", sk, sk.LastReplay)
	}
	sk = store.ApplyReplay(sk, newer, false)
	if sk.ReplayCount != 2 {
		t.Errorf("a replay saved again was counted: %d", sk.ReplayCount)
	}
}

func TestMergeReplay(t *testing.T) {
	r := storetest.NewReplay(skill.NewID(), 1, 1)
	linked := r
	linked.BundleHash = "sha256:abc"
	if got := store.MergeReplay(&linked, r); got.BundleHash != "sha256:abc" {
		t.Errorf("saving again without a bundle dropped the link: %q", got.BundleHash)
	}
	if got := store.MergeReplay(nil, r); got.BundleHash != "" {
		t.Errorf("a new replay got a link: %q", got.BundleHash)
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		err  *store.Error
		want string
	}{
		{&store.Error{Op: "get skill", Store: store.StoreSkills, Key: "k1", Kind: store.ErrNotFound},
			"store: get skill: skills k1: not found"},
		{&store.Error{Op: "open", Key: "workbench-v0", Kind: store.ErrBlocked, Err: errors.New("close the other tab")},
			"store: open workbench-v0: upgrade blocked by another open tab: close the other tab"},
		{&store.Error{Op: "clear", Kind: store.ErrQuotaExceeded},
			"store: clear: storage quota exceeded"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
		if !errors.Is(tc.err, tc.err.Kind) {
			t.Errorf("%q does not match its kind", tc.want)
		}
		if errors.Is(tc.err, store.ErrAborted) {
			t.Errorf("%q matches another kind", tc.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// A file built from a sealed reading finds its trace in the parsed
// document; the bytes are the same as a scan of the file finds.
func TestNewSealedBundleFile(t *testing.T) {
	good := storetest.Bundle(t, skill.NewID(), 1, "Read once")
	s, err := skill.ReadSealed(good.Data)
	if err != nil {
		t.Fatal(err)
	}
	f, err := store.NewSealedBundleFile(s)
	if err != nil {
		t.Fatal(err)
	}
	if f.Bundle != s.Bundle() || !bytes.Equal(f.Data, good.Data) {
		t.Fatal("the file is not the sealed bundle")
	}
	got, err := f.TraceJSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := store.BundleFile{Bundle: f.Bundle, Data: f.Data}.TraceJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || len(got) == 0 {
		t.Errorf("trace from the document (%d bytes) differs from the scan's (%d bytes)", len(got), len(want))
	}
	// Bytes replaced after construction are what the store reads.
	f.Data = []byte(`{"skill_id":"x"}`)
	if _, err := f.TraceJSON(); err == nil {
		t.Error("TraceJSON kept the trace of bytes no longer the file's")
	}
	if _, err := store.NewSealedBundleFile(skill.Sealed{}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("the zero Sealed: %v, want ErrInvalid", err)
	}
}

// TestTraceRef: the trace's place in the bundle bytes is the same whether
// the constructor's parse found it or a scan does, and FindTrace finds a
// trace only in a bundle that carries it.
func TestTraceRef(t *testing.T) {
	id := skill.NewID()
	f := storetest.Bundle(t, id, 1, "Where the trace lies")
	s, err := skill.ReadSealed(f.Data)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := store.NewSealedBundleFile(s)
	if err != nil {
		t.Fatal(err)
	}
	fromParse, err := parsed.TraceRef()
	if err != nil {
		t.Fatal(err)
	}
	fromScan, err := f.TraceRef()
	if err != nil {
		t.Fatal(err)
	}
	want := store.TraceRef{SkillID: id, TraceID: f.Bundle.Trace.TraceID, Bundle: f.Bundle.ContentHash, Start: fromScan.Start, End: fromScan.End}
	if fromParse != want || fromScan != want {
		t.Errorf("TraceRef: from the parse %+v, from a scan %+v, want %+v", fromParse, fromScan, want)
	}
	if raw, err := want.In(f.Data); err != nil || !bytes.HasPrefix(raw, []byte(`{`)) || !bytes.Contains(raw, []byte(f.Bundle.Trace.TraceID)) {
		t.Errorf("In: %q, %v", raw, err)
	}
	if _, err := want.In(f.Data[:want.End-1]); err == nil {
		t.Error("In accepted bytes too short for the reference")
	}

	other := storetest.NewBundle(skill.NewID(), 1, "Another trace")
	otherFile, err := store.EncodeBundle(other)
	if err != nil {
		t.Fatal(err)
	}
	stored := []store.StoredBundle{otherFile.Stored(), f.Stored()}
	for _, tc := range []struct {
		traceID string
		want    string // content hash of the bundle found, "" for none
	}{
		{f.Bundle.Trace.TraceID, f.Bundle.ContentHash},
		{other.Trace.TraceID, other.ContentHash},
		{"trace-nobody-carries", ""},
	} {
		got, ok := store.FindTrace(tc.traceID, stored)
		if ok != (tc.want != "") || got.Bundle != tc.want {
			t.Errorf("FindTrace(%s) = %+v, %v; want bundle %q", tc.traceID, got, ok, tc.want)
		}
		for _, b := range stored {
			if ok && b.ContentHash == got.Bundle {
				if raw, err := got.In(b.Data); err != nil || !bytes.Contains(raw, []byte(`"trace_id":"`+tc.traceID+`"`)) {
					t.Errorf("FindTrace(%s) points at %q (%v)", tc.traceID, raw, err)
				}
			}
		}
	}
}
