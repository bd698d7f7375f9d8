package localbody

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The browser body's directory stays under the temporary directory while
// Chromium's socket in it fits a socket path, and goes under /tmp when it
// would not.
func TestBrowserDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix socket for Chromium's profile")
	}
	// t.TempDir's path is too long for the first case.
	short, err := os.MkdirTemp("", "b")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	// /tmp/workbench-e2e-run-1234567890, as the e2e tests once made their
	// run's directory: 107 bytes of socket path.
	run := filepath.Join(short, strings.Repeat("r", len("/tmp/workbench-e2e-run-1234567890")-len(short)-1))
	long := filepath.Join(short, strings.Repeat("d", maxSocketPath))
	for _, d := range []string{run, long} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, tmp, wantParent string
	}{
		{"short", short, short},
		{"long", long, "/tmp"},
		{"a run's directory", run, "/tmp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := browserDir(tc.tmp)
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			if filepath.Dir(dir) != tc.wantParent {
				t.Errorf("browserDir(%q) = %s, want it in %s", tc.tmp, dir, tc.wantParent)
			}
			socket := filepath.Join(dir, "org.chromium.Chromium.XXXXXX", "SingletonSocket")
			if len(socket) > maxSocketPath {
				t.Errorf("Chromium's socket would be %d bytes: %s", len(socket), socket)
			}
		})
	}
}
