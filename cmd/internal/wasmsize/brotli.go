package wasmsize

import "github.com/andybalholm/brotli"

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

// counter counts what is written to it.
type counter struct{ n int }

func (c *counter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
