//go:build unix

package mcpbodytest

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd lead a process group of its own.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup ends cmd's process group: Playwright's Chromium is its child.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
