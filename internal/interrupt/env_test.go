package interrupt_test

import (
	"os"
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
