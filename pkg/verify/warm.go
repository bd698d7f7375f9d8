package verify

import (
	"context"
	"time"

	"workbench/fixtures"
)

// Warm verifies the spec's valid fixture bundle, again and again until
// budget has passed (at least once), discards what it finds, and returns
// how many times it ran.
//
// In a browser the WebAssembly engine compiles each function with a
// baseline compiler when it is first called and optimizes it only after it
// has run hot, in the background. The first verification of a large file
// so runs mostly in slow baseline code: a 10 MB import took twice as long
// as the same import a moment later (docs/perf/app-import.md). A front-end
// calls Warm when a person is about to bring a file (the import page), so
// that the compiling is done before the file arrives. Between runs it
// sleeps a millisecond, which lets a browser's event loop run.
func (v *Verifier) Warm(ctx context.Context, budget time.Duration) int {
	sample := fixtures.ValidBundle()
	start := time.Now()
	n := 0
	for ctx.Err() == nil {
		_, _, _ = v.File(sample)
		n++
		if time.Since(start) >= budget {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return n
}
