//go:build !unix

package localbody

import (
	"os"
	"os/exec"
)

// Where there are no process groups (js/wasm, which starts no process;
// Windows) a body's first process alone is ended.

func ownGroup(*exec.Cmd) {}

func terminateGroup(pid int) { killGroup(pid) }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

func killProcess(p Process) { killGroup(p.PID) }
