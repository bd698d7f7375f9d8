//go:build js && wasm

package skill

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"testing"
)

// The browser's digest and crypto/sha256 agree, byte for byte, at every
// size that matters: empty, around SHA-256's 64-byte blocks and its
// padding (55, 56, 64 bytes), and around subtleMinBytes, where sum256
// switches from one to the other.
func TestSum256MatchesCryptoSHA256(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, subtleMinBytes+4096)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	sizes := []int{0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096,
		subtleMinBytes - 65, subtleMinBytes - 64, subtleMinBytes - 1, subtleMinBytes, subtleMinBytes + 1,
		subtleMinBytes + 55, subtleMinBytes + 56, subtleMinBytes + 64, len(data)}
	for range 20 {
		sizes = append(sizes, r.IntN(len(data)+1))
	}
	for _, n := range sizes {
		b := data[:n]
		if got, want := sum256(b), sha256.Sum256(b); got != want {
			t.Errorf("sum256 of %d bytes = %x, want %x", n, got, want)
		}
		sub, err := subtleSum256(b)
		if err != nil {
			t.Fatalf("crypto.subtle.digest of %d bytes: %v", n, err)
		}
		if want := sha256.Sum256(b); sub != want {
			t.Errorf("crypto.subtle.digest of %d bytes = %x, want %x", n, sub, want)
		}
	}
}

// BenchmarkSum256 compares Go's SHA-256 compiled to wasm with the
// host's crypto.subtle.digest, copy and wait included, by size: where the
// second starts to win is where subtleMinBytes belongs.
func BenchmarkSum256(b *testing.B) {
	for _, n := range []int{1 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 10 << 20} {
		data := make([]byte, n)
		b.Run(fmt.Sprintf("go/%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				sha256.Sum256(data)
			}
		})
		b.Run(fmt.Sprintf("subtle/%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				if _, err := subtleSum256(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
