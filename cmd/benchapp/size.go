package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"workbench/cmd/internal/wasmsize"
)

// compressedSizes are the sizes of one file as a host would send it.
type compressedSizes struct {
	Raw    int
	Gzip9  int
	Brotli map[int]int // by quality
}

// measureSizes compresses data with gzip -9 and with brotli at each of
// the qualities: 11 is what a host that compresses static assets ahead of
// time serves; 4 to 5 is what on-the-fly compression of a response
// typically uses.
func measureSizes(data []byte, qualities []int) (compressedSizes, error) {
	s := compressedSizes{Raw: len(data), Brotli: map[int]int{}}
	for _, q := range qualities {
		n, err := wasmsize.Brotli(data, q)
		if err != nil {
			return s, fmt.Errorf("brotli %d: %w", q, err)
		}
		s.Brotli[q] = n
	}
	var buf countWriter
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		return s, err
	}
	if err := w.Close(); err != nil {
		return s, err
	}
	s.Gzip9 = buf.n
	return s, nil
}

// countWriter counts what is written to it.
type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
