package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadTrace(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events []traceEvent
		want   repeatResult
	}{
		{"compiled", []traceEvent{
			{Name: "wasm.StartStreamingCompilation"},
			{Name: "wasm.CompileLazy", Dur: 1500},
			{Name: "wasm.CompileLazy", Dur: 500},
		}, repeatResult{Lazy: 2, LazyMS: 2}},
		{"from the cache", []traceEvent{
			{Name: "wasm.Deserialize", Dur: 42000},
			{Name: "wasm.CompilationAfterDeserialization", Args: map[string]any{"num_eager_functions": 2209.0, "num_lazy_functions": 7087.0}},
			{Name: "wasm.CompileLazy", Dur: 3000},
		}, repeatResult{FromCache: true, CachedFunctions: 2209, Lazy: 1, LazyMS: 3}},
		{"none", nil, repeatResult{}},
	} {
		var got repeatResult
		got.readTrace(tc.events)
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The cache's size leaves out the index files Chromium writes into
// every profile, so 0 means no compiled module is kept.
func TestWasmCacheBytes(t *testing.T) {
	b := &browser{dir: t.TempDir()}
	if n, err := b.wasmCacheBytes(); n != 0 || err != nil {
		t.Fatalf("no cache directory: %d, %v", n, err)
	}
	dir := filepath.Join(b.dir, "Default", "Code Cache", "wasm")
	write := func(name string, size int) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("index", 24)
	write("index-dir/the-real-index", 48)
	if n, err := b.wasmCacheBytes(); n != 0 || err != nil {
		t.Fatalf("index files only: %d, %v", n, err)
	}
	write("0123456789abcdef_0", 1000)
	write("fedcba9876543210_0", 500)
	if n, err := b.wasmCacheBytes(); n != 1500 || err != nil {
		t.Fatalf("two entries: %d, %v; want 1500", n, err)
	}
}
