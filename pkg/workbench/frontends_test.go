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
	// (PlanTeach, Teach, SummarizeTaught, SealTaught, PrepareReplay,
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

// workbenchName is the name a file imports pkg/workbench under; "" when
// it does not import it.
func workbenchName(pf *ast.File) string {
	for _, im := range pf.Imports {
		if path, _ := strconv.Unquote(im.Path.Value); path == "workbench/pkg/workbench" {
			if im.Name != nil {
				return im.Name.Name
			}
			return "workbench"
		}
	}
	return ""
}

// TestFlowsOnlyFromNew: New is the only way to make the flow value, in
// every Go file of the module, tests included, outside this package's own
// files; and each front-end calls it in one place, so that every flow of
// a front-end runs with the same bodies, authorizers, judges and models.
func TestFlowsOnlyFromNew(t *testing.T) {
	root := modtest.Root(t)
	news := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "build", ".cache", ".git", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		pf, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		name := workbenchName(pf)
		if name == "" {
			return nil
		}
		ast.Inspect(pf, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CompositeLit:
				if sel, ok := x.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Flows" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
						t.Errorf("%s: a composite literal of %s.Flows: make it with %s.New", rel, name, name)
					}
				}
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "New" {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && !strings.HasSuffix(rel, "_test.go") {
						news[filepath.Dir(rel)]++
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The palette's built-in actions (pkg/capability) are given the
	// flows of the front-end they run in.
	want := map[string]int{"app": 1, "cmd/workbench": 1, "pkg/capability": 0}
	for _, fe := range frontEnds {
		if news[fe] != want[fe] {
			t.Errorf("%s calls workbench.New in %d places, want %d: build the flows once, from the front-end's environment", fe, news[fe], want[fe])
		}
	}
}
