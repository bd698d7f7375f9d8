//go:build !unix

package mcpbodytest

import "os/exec"

// Where there are no process groups (js/wasm, which starts no process
// anyway), the server alone is ended.

func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }
