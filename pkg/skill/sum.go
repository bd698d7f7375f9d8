//go:build !(js && wasm)

package skill

import "crypto/sha256"

// sum256 is the SHA-256 of b: crypto/sha256, which uses the CPU's SHA
// instructions where it has them.
func sum256(b []byte) [32]byte { return sha256.Sum256(b) }
