//go:build unix

package interrupt

import (
	"os"
	"syscall"
)

// signals are those that end a test run from outside: Ctrl+C, a kill
// without -9, the terminal closing.
func signals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} }
