package mcpbodytest

import (
	"crypto/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"workbench/pkg/body/localbody"
)

// Mark puts a fresh environment entry NAME=value in the test's
// environment, inherited by every process started from now on (a body,
// a command and what they start), and returns it for Running and
// RequireGone. The test must not be parallel.
func Mark(t *testing.T) string {
	v := rand.Text()
	t.Setenv("WORKBENCH_TEST_RUN", v)
	return "WORKBENCH_TEST_RUN=" + v
}

// Running returns the processes that carry mark (localbody.Processes),
// or fails t.
func Running(t testing.TB, mark string) []localbody.Process {
	t.Helper()
	ps, err := localbody.Processes(mark)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// Names are the command names of ps, sorted.
func Names(ps []localbody.Process) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

// RequireBodies fails t unless ps holds two node processes (Playwright
// MCP and the filesystem server) and Chromium.
func RequireBodies(t testing.TB, ps []localbody.Process) {
	t.Helper()
	n := Names(ps)
	if strings.Count(strings.Join(n, " "), "node") != 2 || !slices.Contains(n, "chromium") {
		t.Fatalf("the running bodies' processes are %v; want two node and chromium among them", n)
	}
}

// RequireGone fails t unless, within 10 s, every process of before has
// ended and (when mark is not "") no process carries mark.
func RequireGone(t testing.TB, mark string, before []localbody.Process) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []localbody.Process
		if mark != "" {
			left = Running(t, mark)
		}
		for _, p := range before {
			if p.Alive() && !slices.ContainsFunc(left, func(q localbody.Process) bool { return q.PID == p.PID }) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left running: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
