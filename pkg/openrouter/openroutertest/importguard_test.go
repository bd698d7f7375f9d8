package openroutertest

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const self = "workbench/pkg/openrouter/openroutertest"

// moduleRoot walks up from the package directory to go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}

// TestNoProductionImport fails if a non-test Go file outside this package
// imports it, whatever its build constraints: every .go file of the
// module is parsed, so a file built only for js/wasm or under a tag counts
// too.
func TestNoProductionImport(t *testing.T) {
	root := moduleRoot(t)
	here, _ := os.Getwd()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || name == "vendor" || name == "build") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == here {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			// A half-written file elsewhere is not this test's business,
			// but an import of ours in it is.
			src, _ := os.ReadFile(path)
			if bytes.Contains(src, []byte(strconv.Quote(self))) {
				t.Errorf("%s mentions %s and does not parse: %v", path, self, err)
			}
			return nil
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == self {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s imports %s; only tests may", rel, self)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNotInProductionDeps asks the go command what the module's commands,
// Worker and packages depend on, natively and for js/wasm: this package
// must not be among the dependencies of any of them.
func TestNotInProductionDeps(t *testing.T) {
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("runs the go command")
	}
	gocmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gocmd); err != nil {
		if gocmd, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command")
		}
	}
	root := moduleRoot(t)
	for _, env := range [][]string{nil, {"GOOS=js", "GOARCH=wasm"}} {
		cmd := exec.Command(gocmd, "list", "-e", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list (%v): %v\n%s", env, err, stderr.String())
		}
		listed := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			if len(fields) == 0 || fields[0] == self {
				continue
			}
			listed++
			for _, dep := range fields[1:] {
				if dep == self {
					t.Errorf("%v: %s depends on %s", env, fields[0], self)
				}
			}
		}
		if listed < 3 {
			t.Fatalf("go list (%v) listed only %d packages:\n%s", env, listed, out)
		}
	}
}
