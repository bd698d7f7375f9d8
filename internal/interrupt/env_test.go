package interrupt_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"workbench/internal/interrupt"
)

// TestEnv: the mark replaces an owner the environment already names.
func TestEnv(t *testing.T) {
	env := interrupt.Env([]string{"A=1", "WORKBENCH_TEST_OWNER=1", "B=2"})
	want := []string{"A=1", "B=2", interrupt.Mark()}
	if strings.Join(env, " ") != strings.Join(want, " ") {
		t.Errorf("Env = %q, want %q", env, want)
	}
	if interrupt.Mark() != "WORKBENCH_TEST_OWNER="+strconv.Itoa(os.Getpid()) {
		t.Errorf("Mark = %q", interrupt.Mark())
	}
}

// TestTempDir: the run's directory is where os.TempDir points, and remove
// takes it with what was written in it.
func TestTempDir(t *testing.T) {
	t.Setenv("TMPDIR", os.Getenv("TMPDIR")) // restored when the test ends
	remove, err := interrupt.TempDir("interrupt-test-")
	if err != nil {
		t.Fatal(err)
	}
	dir := os.TempDir()
	if !strings.Contains(filepath.Base(dir), "interrupt-test-") {
		remove()
		t.Fatalf("os.TempDir() = %s, want the run's directory", dir)
	}
	inner := t.TempDir() // under the run's directory now
	if !strings.HasPrefix(inner, dir+string(filepath.Separator)) {
		t.Errorf("t.TempDir() = %s, not under %s", inner, dir)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	remove()
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after remove, %s: %v", dir, err)
	}
}
