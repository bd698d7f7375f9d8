//go:build unix && !linux

package localbody

import (
	"os/exec"
	"syscall"
)

// Where there is no Pdeathsig and no /proc, a body still leads its own
// process group, which Stop ends; a crash of the owner leaves it running.

func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func terminateGroup(pid int) { syscall.Kill(-pid, syscall.SIGTERM) }

func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }

func killProcess(p Process) { syscall.Kill(p.PID, syscall.SIGKILL) }
