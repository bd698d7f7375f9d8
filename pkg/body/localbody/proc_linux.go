//go:build linux

package localbody

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Process is a running process that a body started.
type Process struct {
	PID   int
	PGID  int    // its process group
	Name  string // its command name, as the kernel keeps it
	start uint64 // its start time, so that a reused PID is not taken for it
}

// ownGroup makes cmd lead a process group of its own, and has the kernel
// kill it when the thread that started it dies: the owner's threads live
// as long as the owner does (Go never ends a thread that no goroutine
// locked), so in effect when the owner dies, by SIGKILL too.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// terminateGroup asks the process group led by pid to end.
func terminateGroup(pid int) { syscall.Kill(-pid, syscall.SIGTERM) }

// killGroup ends the process group led by pid.
func killGroup(pid int) { syscall.Kill(-pid, syscall.SIGKILL) }

// killProcess ends p and its process group, unless that group is the
// owner's own.
func killProcess(p Process) {
	if p.PGID > 1 && p.PGID != syscall.Getpgrp() {
		syscall.Kill(-p.PGID, syscall.SIGKILL)
	}
	syscall.Kill(p.PID, syscall.SIGKILL)
}

// Processes returns the running processes that carry mark (an
// environment entry "NAME=value") and those that belong with them: the
// members of their process groups and the descendants of all of these.
// Chromium's helpers need the group: a zygote's children overwrite the
// environment they inherited. The caller itself and its process group
// are never part of the answer.
func Processes(mark string) ([]Process, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	own := syscall.Getpgrp()
	type proc struct {
		Process
		ppid   int
		marked bool
	}
	var all []proc
	want := []byte(mark)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		p, ppid, ok := readStat(pid)
		if !ok {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		marked := false
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				marked = true
				break
			}
		}
		all = append(all, proc{p, ppid, marked})
	}
	in := map[int]bool{}
	groups := map[int]bool{}
	for _, p := range all {
		if p.marked {
			in[p.PID] = true
			if p.PGID != own {
				groups[p.PGID] = true
			}
		}
	}
	for _, p := range all {
		if groups[p.PGID] {
			in[p.PID] = true
		}
	}
	for grew := true; grew; {
		grew = false
		for _, p := range all {
			if !in[p.PID] && in[p.ppid] {
				in[p.PID], grew = true, true
			}
		}
	}
	var out []Process
	for _, p := range all {
		if in[p.PID] {
			out = append(out, p.Process)
		}
	}
	return out, nil
}

// Alive reports whether p is still running: the same process (its start
// time unchanged), not a zombie.
func (p Process) Alive() bool {
	now, _, ok := readStat(p.PID)
	return ok && now.start == p.start
}

// readStat reads /proc/PID/stat; a zombie or a vanished process is not
// ok.
func readStat(pid int) (Process, int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Process{}, 0, false
	}
	s := string(b)
	// The command name is in parentheses and may hold either.
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return Process{}, 0, false
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 of proc(5): state, ppid, pgrp, …, starttime (22).
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return Process{}, 0, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return Process{PID: pid, PGID: pgid, Name: s[open+1 : end], start: start}, ppid, true
}
