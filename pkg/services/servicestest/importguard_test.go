package servicestest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyTestsImport fails if a non-test Go file outside this package
// imports it: the contract test server must never be reachable from a
// production path. Every .go file is parsed, whatever its build tags.
func TestOnlyTestsImport(t *testing.T) {
	const self = "workbench/pkg/services/servicestest"
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	here, _ := os.Getwd()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if path != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata" || n == "build") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == here {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return nil // not ours to judge here
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == self {
				t.Errorf("%s imports %s outside a test", path, self)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
