package wasmsize

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"

	"github.com/andybalholm/brotli"
)

// portWindow is the Go port's default window (lgwin), which Brotli uses.
const portWindow = 22

// Brotli is the size of data compressed with brotli at quality q (the Go
// port, its default window), as cmd/benchapp measures the module.
func Brotli(data []byte, q int) (int, error) {
	var c counter
	w := brotli.NewWriterLevel(&c, q)
	if _, err := w.Write(data); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return c.n, nil
}

// BrotliProgram is Brotli's size, computed by the brotli program at path
// (the reference encoder, of which the Go port is a translation) at the
// port's default window. At quality 11 the two write the same bytes
// (TestBrotliProgramMatchesPort; at middle qualities they do not), and the
// program takes about two thirds of the port's time.
func BrotliProgram(ctx context.Context, path string, data []byte, q int) (int, error) {
	var c counter
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "-c", "-q", strconv.Itoa(q), "-w", strconv.Itoa(portWindow))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(data), &c, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s -q %d: %w: %s", path, q, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return c.n, nil
}

// counter counts what is written to it.
type counter struct{ n int }

func (c *counter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
