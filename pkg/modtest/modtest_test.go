package modtest_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"workbench/pkg/modtest"
)

func TestRootHoldsGoMod(t *testing.T) {
	root := modtest.Root(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("Root %s: %v", root, err)
	}
	if here, _ := os.Getwd(); filepath.Join(root, "pkg", "modtest") != here {
		t.Errorf("Root %s is not two levels above %s", root, here)
	}
}

// The check finds no importer of a package nothing imports, and finds
// the production imports of one the command imports.
func TestNonTestImporters(t *testing.T) {
	modtest.CheckImportedOnlyByTests(t, "workbench/pkg/no/such/package")
	found, err := modtest.NonTestImporters("workbench/pkg/skill", "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(found, filepath.Join("pkg", "verify", "verify.go")+" imports it") {
		t.Errorf("NonTestImporters(pkg/skill) = %q; want pkg/verify/verify.go among them", found)
	}
}
