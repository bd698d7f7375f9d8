package workbench_test

import (
	"go/ast"
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
	// teachSteps are the steps of pkg/teach that a flow of this package
	// takes: a front-end imports pkg/teach for its vocabulary (Value,
	// InputError, Plan, View, …), and calls these only through the flow
	// (PlanTeach, Teach, SummarizeTaught, SaveTaught, PrepareReplay,
	// CheckDraft).
	teachSteps = []string{"CheckDraft", "FromScenario", "Freeform", "Fill", "Typed", "World",
		"Demonstrate", "Draft", "Summarize", "Seal", "Ready"}
)

// frontEndFiles parses every non-test Go file of the front-ends, keyed by
// its path from the module's root.
func frontEndFiles(t *testing.T, mode parser.Mode) map[string]*ast.File {
	t.Helper()
	root := modtest.Root(t)
	out := map[string]*ast.File{}
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
			pf, err := parser.ParseFile(token.NewFileSet(), f, src, mode)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, f)
			out[rel] = pf
		}
	}
	return out
}

func TestFrontEndsCallOnlyTheFlows(t *testing.T) {
	for rel, pf := range frontEndFiles(t, parser.ImportsOnly) {
		for _, im := range pf.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if !slices.Contains(engine, path) {
				continue
			}
			t.Errorf("%s imports %s: call the flow in pkg/workbench instead", rel, path)
		}
	}
}

func TestFrontEndsTakeNoTeachStep(t *testing.T) {
	for rel, pf := range frontEndFiles(t, 0) {
		name := ""
		for _, im := range pf.Imports {
			if path, _ := strconv.Unquote(im.Path.Value); path == "workbench/pkg/teach" {
				name = "teach"
				if im.Name != nil {
					name = im.Name.Name
				}
			}
		}
		if name == "" {
			continue
		}
		ast.Inspect(pf, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && slices.Contains(teachSteps, sel.Sel.Name) {
				t.Errorf("%s calls teach.%s: call the flow in pkg/workbench instead", rel, sel.Sel.Name)
			}
			return true
		})
	}
}
