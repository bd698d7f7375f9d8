package wasmsize

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/andybalholm/brotli"
)

// TestBrotliProgramMatchesPort: at quality 11, the brotli program at the
// port's default window writes the very bytes the Go port writes, so make
// check-app-size may use either. The input is a megabyte of this machine's
// Go runtime sources.
func TestBrotliProgramMatchesPort(t *testing.T) {
	program, err := exec.LookPath("brotli")
	if err != nil {
		if os.Getenv("WORKBENCH_BROTLI_REQUIRED") == "1" {
			t.Fatal("no brotli program on PATH (make brotli installs Debian's)")
		}
		t.Skip("no brotli program on PATH; make check-app-size installs it and runs this test")
	}
	var data []byte
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "runtime", "*.go"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, b...)
		if len(data) > 1<<20 {
			break
		}
	}
	if len(data) < 1<<19 {
		t.Fatalf("only %d bytes of input from %s", len(data), runtime.GOROOT())
	}
	// Quality 11 only: at middle qualities the port's choices differ (at 5
	// it wrote 1 % fewer bytes).
	const q = 11
	var port bytes.Buffer
	w := brotli.NewWriterLevel(&port, q)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(program, "-c", "-q", strconv.Itoa(q), "-w", strconv.Itoa(portWindow))
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, port.Bytes()) {
		t.Errorf("the program wrote %d bytes, the port %d, not the same bytes", len(out), port.Len())
	}
	n, err := BrotliProgram(context.Background(), program, data, q)
	if err != nil {
		t.Fatal(err)
	}
	if n != port.Len() {
		t.Errorf("BrotliProgram = %d, the port wrote %d", n, port.Len())
	}
	if _, err := BrotliProgram(context.Background(), filepath.Join(t.TempDir(), "missing"), data[:10], 11); err == nil {
		t.Error("BrotliProgram with no program: no error")
	}
}
