package closedport_test

import (
	"errors"
	"net"
	"runtime"
	"syscall"
	"testing"

	"workbench/internal/closedport"
)

// The address refuses connections, and on Linux nobody can listen on it
// while the test holds it.
func TestAddr(t *testing.T) {
	addr := closedport.Addr(t)
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			t.Fatalf("dialing %s succeeded, want it refused", addr)
		}
		if runtime.GOOS == "linux" && !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dialing %s: %v, want connection refused", addr, err)
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Fatalf("listening on %s succeeded while it is held", addr)
	}
}
