package workbench_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"workbench/pkg/modtest"
)

// The front-ends call the flows; they never assemble one from the engine.
// Every non-test Go file of a front-end, whatever its build constraints,
// is read for its imports.
var (
	frontEnds = []string{"app", "cmd/workbench", "pkg/capability"}
	engine    = []string{
		"workbench/pkg/replay",
		"workbench/pkg/demonstrate",
		"workbench/pkg/assemble",
		"workbench/pkg/crystallize",
		"workbench/pkg/compare",
	}
)

func TestFrontEndsCallOnlyTheFlows(t *testing.T) {
	root := modtest.Root(t)
	for _, dir := range frontEnds {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pf, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, f)
			for _, im := range pf.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				if !slices.Contains(engine, path) {
					continue
				}
				t.Errorf("%s imports %s: call the flow in pkg/workbench instead", rel, path)
			}
		}
	}
}
