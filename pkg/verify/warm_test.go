package verify_test

import (
	"context"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/verify"
)

func TestWarm(t *testing.T) {
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	// The sample Warm runs over is a bundle the verifier passes: a sample
	// it refused would leave the code that reads a good file cold.
	rep, err := v.Bytes(fixtures.ValidBundle())
	if err != nil || rep.Verdict != "pass" {
		t.Fatalf("the warm-up sample: %v, %+v", err, rep)
	}
	if n := v.Warm(context.Background(), 0); n != 1 {
		t.Errorf("Warm with no budget ran %d times, want once", n)
	}
	if n := v.Warm(context.Background(), 50*time.Millisecond); n < 2 {
		t.Errorf("Warm for 50 ms ran %d times, want more than once", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n := v.Warm(ctx, time.Hour); n != 0 {
		t.Errorf("Warm with its context cancelled ran %d times", n)
	}
}
