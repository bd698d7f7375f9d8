// Package closedport gives tests a loopback address that refuses every
// connection and that no other process can take while the test runs.
//
// A port picked free by listening and closing again is free for anyone:
// a server started by another test meanwhile may take it, and the test
// that expected "connection refused" meets that server instead. On Linux
// Addr keeps a socket bound to the port without listening on it, which
// the kernel answers with a reset (ECONNREFUSED) and never hands to
// another bind; elsewhere (js/wasm's in-process network) it falls back
// to the picked-and-closed port.
package closedport

import "testing"

// Addr returns "127.0.0.1:port" for a port that refuses connections until
// t ends.
func Addr(t testing.TB) string {
	t.Helper()
	addr, release, err := hold()
	if err != nil {
		t.Fatalf("holding a closed port: %v", err)
	}
	t.Cleanup(release)
	return addr
}
