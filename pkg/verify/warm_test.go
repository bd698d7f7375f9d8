package verify_test

import (
	"context"
	"testing"
	"time"

	"workbench/pkg/verify"
)

func TestWarm(t *testing.T) {
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	if n, err := v.Warm(context.Background(), 0); n != 1 || err != nil {
		t.Errorf("Warm with no budget: %d runs, %v; want one run", n, err)
	}
	if n, err := v.Warm(context.Background(), 50*time.Millisecond); n < 2 || err != nil {
		t.Errorf("Warm for 50 ms: %d runs, %v; want more than one", n, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, err := v.Warm(ctx, time.Hour); n != 0 || err != nil {
		t.Errorf("Warm with its context cancelled: %d runs, %v", n, err)
	}
}
