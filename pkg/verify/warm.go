package verify

import (
	"context"
	"fmt"
	"time"

	"workbench/fixtures"
	"workbench/pkg/skill"
)

// WarmBudget is how long a warm-up runs the verifier: what the import
// page measured enough for the browser to optimize the verifier's hottest
// code (docs/perf/app-import.md).
const WarmBudget = 300 * time.Millisecond

// Warm verifies the spec's valid fixture bundle, again and again until
// budget has passed (at least once), and returns how many times it ran.
// It stops with an error at the first run whose bundle is not accepted as
// a sealed pass: the code a person's good file runs would then be left
// cold, and the verifier itself is in doubt.
//
// In a browser the WebAssembly engine compiles each function with a
// baseline compiler when it is first called and optimizes it only after it
// has run hot, in the background. The first verification of a large file
// so runs mostly in slow baseline code: a 10 MB import took twice as long
// as the same import a moment later (docs/perf/app-import.md). The import
// worker calls Warm while it waits for a person's file, and the app's idle
// warm-up to get its compiled code into the browser's code cache, so that
// the compiling is done before it is needed. Between runs it sleeps a
// millisecond, which lets a browser's event loop run.
func (v *Verifier) Warm(ctx context.Context, budget time.Duration) (int, error) {
	sample := fixtures.ValidBundle()
	start := time.Now()
	n := 0
	for ctx.Err() == nil {
		rep, _, err := v.File(sample)
		if err == nil && rep.Verdict != skill.VerdictPass {
			err = fmt.Errorf("verdict %s", rep.Verdict)
		}
		if err != nil {
			return n, fmt.Errorf("warm-up: the spec's valid fixture: %w", err)
		}
		n++
		if time.Since(start) >= budget {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return n, nil
}
