//go:build !unix

package interrupt

import (
	"os"
	"syscall"
)

// signals are those that end a test run from outside and that the
// platform has: Ctrl+C and a kill without -9.
func signals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM} }
