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

// `make vet` vets once, with the bodies and interop tags set: that covers
// every file a vet without them would only while no file asks for their
// absence. A tag some files do ask the absence of is found.
func TestExcludedByTags(t *testing.T) {
	found, err := modtest.ExcludedByTags("bodies", "interop")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: the file leaves a tagged build; mk/go.mk's vet then misses it", f)
	}
	found, err = modtest.ExcludedByTags("wasm")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("app", "site.go") + ": //go:build !wasm"; !slices.Contains(found, want) {
		t.Errorf("ExcludedByTags(wasm) = %q; want %q among them", found, want)
	}
}
