package teachbench_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/pkg/modtest"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/teach/teachbench"
	"workbench/pkg/verify"
)

// Only the benchmark program and tests import the scripted model.
func TestImportedOnlyByBenchmarks(t *testing.T) {
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	found, err := modtest.NonTestImporters("workbench/pkg/teach/teachbench", here)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if !strings.HasPrefix(f, filepath.Join("cmd", "benchapp")+string(filepath.Separator)) {
			t.Errorf("%s; only benchmarks may import teachbench", f)
		}
	}
}

// A taught bundle has the steps asked for, its seal holds and it is ready
// to save, as /teach requires.
func TestBundle(t *testing.T) {
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	data, err := teachbench.Bundle(context.Background(), v, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b.Trace.Edges); n != 3 {
		t.Errorf("%d edges, want 3", n)
	}
	rep, err := v.Bytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if !teach.Ready(rep) {
		t.Errorf("not ready to save: verdict %s, overclaims %v", rep.Verdict, rep.Overclaims)
	}
}
