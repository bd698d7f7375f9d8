// Package seedpack is the file format in which benchapp hands the bundles
// of a seeded library to its seeder (cmd/benchapp/seeder) in the page:
// each bundle's bytes preceded by their length, a 4-byte big-endian
// unsigned integer. One pack holds a chunk of the library, so that the
// seeder never holds the whole library in memory at once.
package seedpack

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Append appends the framed bundles to dst and returns the result.
func Append(dst []byte, bundles ...[]byte) ([]byte, error) {
	for i, b := range bundles {
		if len(b) > math.MaxUint32 {
			return dst, fmt.Errorf("seedpack: bundle %d is %d bytes, over the format's 4 GiB", i, len(b))
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(b)))
		dst = append(dst, b...)
	}
	return dst, nil
}

// Split returns the bundles framed in pack, sharing pack's memory. A
// pack cut short is an error that says at which byte.
func Split(pack []byte) ([][]byte, error) {
	var out [][]byte
	for off := 0; off < len(pack); {
		if len(pack)-off < 4 {
			return nil, fmt.Errorf("seedpack: %d stray bytes at offset %d, where a 4-byte length was expected", len(pack)-off, off)
		}
		n := int(binary.BigEndian.Uint32(pack[off:]))
		off += 4
		if n > len(pack)-off {
			return nil, fmt.Errorf("seedpack: bundle %d at offset %d claims %d bytes, %d remain", len(out), off-4, n, len(pack)-off)
		}
		out = append(out, pack[off:off+n:off+n])
		off += n
	}
	return out, nil
}
