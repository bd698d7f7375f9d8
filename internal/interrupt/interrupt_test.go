//go:build linux

// Processes are found through Linux's /proc, hence linux only.
package interrupt_test

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"workbench/internal/interrupt"
)

// helperVar makes the test binary, run again by TestHandle, start the
// processes of a test run instead of testing.
const helperVar = "INTERRUPT_TEST_HELPER"

// markerVar names the file the helper's cleanup removes.
const markerVar = "INTERRUPT_TEST_MARKER"

// A test binary that handles the interrupt ends the servers it started in
// groups of their own and the commands it marked, then runs its cleanup;
// one that does not leaves them running. A process it did not mark is left
// alone either way.
func TestHandle(t *testing.T) {
	for _, tc := range []struct {
		mode     string
		wantCode int  // the helper's exit status; -1: ended by the signal
		wantGone bool // whether the marked processes are gone
	}{
		{mode: "handle", wantCode: 128 + int(syscall.SIGINT), wantGone: true},
		{mode: "none", wantCode: -1, wantGone: false},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			// The helper's cleanup removes this file.
			marker := filepath.Join(t.TempDir(), "marker")
			if err := os.WriteFile(marker, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelper$")
			cmd.Env = append(os.Environ(), helperVar+"="+tc.mode, markerVar+"="+marker)
			// Its own group, so that the signal below reaches it alone, as
			// Ctrl+C does not reach the groups it starts.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var marked, unmarked []int
			lines := bufio.NewScanner(out)
			for lines.Scan() {
				f := strings.Fields(lines.Text())
				if len(f) == 0 || (f[0] != "marked" && f[0] != "unmarked") {
					continue
				}
				for _, s := range f[1:] {
					pid, _ := strconv.Atoi(s)
					if f[0] == "marked" {
						marked = append(marked, pid)
					} else {
						unmarked = append(unmarked, pid)
					}
				}
				if len(unmarked) > 0 {
					break
				}
			}
			t.Cleanup(func() {
				for _, pid := range append(marked, unmarked...) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			if len(marked) != 4 || len(unmarked) != 1 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the helper reported marked %v and unmarked %v, want 4 and 1", marked, unmarked)
			}
			// The children of the helper's sh are started by then.
			waitFor(t, func() bool { return len(children(marked[0])) > 0 }, "sh's child")
			marked = append(marked, children(marked[0])...)

			cmd.Process.Signal(os.Interrupt)
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != tc.wantCode {
				t.Errorf("the helper ended with %d (%v), want %d", code, err, tc.wantCode)
			}
			if tc.wantGone {
				waitFor(t, func() bool {
					for _, pid := range marked {
						if alive(pid) {
							return false
						}
					}
					return true
				}, "the marked processes to end")
			} else {
				time.Sleep(200 * time.Millisecond)
				for _, pid := range marked {
					if !alive(pid) {
						t.Errorf("marked process %d ended without the handling", pid)
					}
				}
			}
			for _, pid := range unmarked {
				if !alive(pid) {
					t.Errorf("process %d, not marked, was ended", pid)
				}
			}
			if _, err := os.Stat(marker); tc.wantGone != errors.Is(err, fs.ErrNotExist) {
				t.Errorf("after the interrupt the cleanup's file: %v; want it removed: %t", err, tc.wantGone)
			}
		})
	}
}

// TestHelper is the test run TestHandle interrupts: it starts, with the
// owner's mark, a server in a group of its own that starts a child, a
// second such group, and a command in the helper's own group; and one
// process in a group of its own without the mark. It prints their IDs and
// waits to be interrupted.
func TestHelper(t *testing.T) {
	mode := os.Getenv(helperVar)
	if mode == "" {
		t.Skip("run by TestHandle")
	}
	if mode == "handle" {
		defer interrupt.Handle(func() { os.Remove(os.Getenv(markerVar)) })()
	}
	start := func(ownGroup, mark bool, script string) int {
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = os.Environ()
		if mark {
			cmd.Env = interrupt.Env(cmd.Env)
		}
		if ownGroup {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd.Process.Pid
	}
	server := start(true, true, "sleep 300 & wait") // a leader with a child
	other := start(true, true, "exec sleep 300")
	inOwn := start(false, true, "exec sleep 300")
	// A member of the server's group that is not a child of the server and
	// does not carry the mark: ended with the group.
	member := exec.Command("sleep", "300")
	member.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: server}
	if err := member.Start(); err != nil {
		t.Fatal(err)
	}
	alone := start(true, false, "exec sleep 300")
	fmt.Printf("marked %d %d %d %d\n", server, other, inOwn, member.Process.Pid)
	fmt.Printf("unmarked %d\n", alone)
	time.Sleep(time.Minute)
}

// alive reports whether pid runs: it exists and is not a zombie (nothing
// may reap an orphan here).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// children are the IDs of pid's running children.
func children(pid int) []int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	var out []int
	for _, s := range strings.Fields(string(b)) {
		if c, err := strconv.Atoi(s); err == nil && alive(c) {
			out = append(out, c)
		}
	}
	return out
}

// waitFor waits up to 5 s for cond.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
