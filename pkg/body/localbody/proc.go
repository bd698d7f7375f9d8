package localbody

import (
	"fmt"
	"time"
)

func (p Process) String() string { return fmt.Sprintf("pid %d (%s, group %d)", p.PID, p.Name, p.PGID) }

// Kill ends p with SIGKILL, and its process group too unless that group
// is the caller's own.
func (p Process) Kill() { killProcess(p) }

// sweep ends what is left of a body whose first process has ended:
// Chromium and its crash handlers end on their own within moments of
// Playwright MCP's end, so they get grace to do so first; whatever still
// carries the mark after it is killed with its process group.
func sweep(mark string, grace time.Duration) {
	if gone(mark, grace) {
		return
	}
	left, _ := Processes(mark)
	for _, p := range left {
		killProcess(p)
	}
	gone(mark, 2*time.Second)
}

// gone waits up to d for the processes that carry mark to end, and
// reports whether they have (or cannot be known).
func gone(mark string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		left, err := Processes(mark)
		if err != nil || len(left) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
