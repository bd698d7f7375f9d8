package verify_test

import (
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"syscall"
)

// measure runs f and returns the CPU time it took, every thread counted,
// in seconds, and the process's peak resident memory while it ran, in
// MB; ok is false when either cannot be read. The peak is reset before f
// runs (Linux's clear_refs), after a collection has returned what it can
// to the system.
func measure(f func()) (cpu, peakMB float64, ok bool) {
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		f()
		return 0, 0, false
	}
	before, ok1 := cpuTime()
	f()
	after, ok2 := cpuTime()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil || !ok1 || !ok2 {
		return 0, 0, false
	}
	_, hwm, found := bytes.Cut(status, []byte("VmHWM:"))
	if !found {
		return 0, 0, false
	}
	hwm, _, _ = bytes.Cut(hwm, []byte("kB"))
	kb, err := strconv.Atoi(string(bytes.TrimSpace(hwm)))
	if err != nil {
		return 0, 0, false
	}
	return after - before, float64(kb) / 1000, true
}

func cpuTime() (seconds float64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime), true
}
