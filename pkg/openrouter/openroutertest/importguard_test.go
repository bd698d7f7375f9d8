package openroutertest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"workbench/pkg/modtest"
)

const self = "workbench/pkg/openrouter/openroutertest"

// TestNoProductionImport fails if a non-test Go file outside this package
// imports it, whatever its build constraints.
func TestNoProductionImport(t *testing.T) {
	modtest.CheckImportedOnlyByTests(t, self)
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
	root := modtest.Root(t)
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
