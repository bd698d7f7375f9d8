//go:build !linux

package localbody

import "errors"

// Process is a running process that a body started.
type Process struct {
	PID  int
	PGID int    // its process group
	Name string // its command name
}

// Processes is Linux's only: elsewhere it returns errors.ErrUnsupported.
func Processes(string) ([]Process, error) { return nil, errors.ErrUnsupported }

// Alive is Linux's only: elsewhere it reports false.
func (Process) Alive() bool { return false }
