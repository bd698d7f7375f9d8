package library_test

import "syscall/js"

// cpuTime is the CPU time the JavaScript host (Node) has used, every
// thread counted, in seconds; ok is false where it cannot be read.
func cpuTime() (seconds float64, ok bool) {
	process := js.Global().Get("process")
	if process.Type() != js.TypeObject || process.Get("cpuUsage").Type() != js.TypeFunction {
		return 0, false
	}
	u := process.Call("cpuUsage")
	return (u.Get("user").Float() + u.Get("system").Float()) / 1e6, true
}
