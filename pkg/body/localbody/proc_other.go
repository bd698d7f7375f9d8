//go:build !unix

package localbody

import (
	"errors"
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

// Processes is Linux's only: elsewhere it returns errors.ErrUnsupported.
func Processes(string) ([]Process, error) { return nil, errors.ErrUnsupported }

// Alive is Linux's only: elsewhere it reports false.
func (Process) Alive() bool { return false }
