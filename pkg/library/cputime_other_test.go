//go:build !linux && !js

package library_test

// cpuTime is not read on this platform.
func cpuTime() (seconds float64, ok bool) { return 0, false }
