package library_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"workbench/pkg/library"
	"workbench/pkg/store/mem"
	"workbench/pkg/teach/teachbench"
	"workbench/pkg/verify"
)

// importBundle returns a taught bundle of at least want bytes. Teaching
// 3,000 steps takes a while, under WebAssembly most of all, so the bytes
// are kept in the temporary directory between runs and taught again only
// when the kept file no longer imports (the pipeline changed).
func importBundle(b *testing.B, v *verify.Verifier, want int) []byte {
	b.Helper()
	ctx := context.Background()
	cache := filepath.Join(os.TempDir(), fmt.Sprintf("workbench-import-bench-%d.skill.json", want))
	if data, err := os.ReadFile(cache); err == nil && len(data) >= want {
		if res, err := library.Import(ctx, mem.New(), v, "cached", data); err == nil && res.Status == library.Accepted {
			return data
		}
	}
	data, _, err := teachbench.BundleOfSize(ctx, v, want)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(cache, data, 0o644); err != nil {
		b.Logf("keeping the bundle for the next run: %v", err)
	}
	return data
}

// BenchmarkImport is the work behind dropping a 10 MB bundle on /import,
// the browser's file read and IndexedDB aside: strict parse, schema, typed
// decode, both hash serializations, every gate, and the store's write (to
// the in-memory store).
func BenchmarkImport(b *testing.B) {
	v := verifier(b)
	data := importBundle(b, v, 10_000_000)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	// CPU time beside wall time: on a shared machine wall time stretches
	// with the load, the work does not.
	cpu0, cpuOK := cpuTime()
	for b.Loop() {
		res, err := library.Import(ctx, mem.New(), v, "big.skill.json", data)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != library.Accepted {
			b.Fatalf("%s: %v", res.Status, res.Problems)
		}
	}
	if cpu1, ok := cpuTime(); ok && cpuOK {
		b.ReportMetric((cpu1-cpu0)*1e3/float64(b.N), "cpu-ms/op")
	}
}
