//go:build !linux

package closedport

import "net"

// hold picks a free port and closes it again: without a bound socket to
// keep, the port is free for anyone until the test dials it.
func hold() (addr string, release func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr = l.Addr().String()
	l.Close()
	return addr, func() {}, nil
}
