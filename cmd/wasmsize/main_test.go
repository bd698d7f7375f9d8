package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// A size kept for the module's bytes is used as it is; a module with none
// kept, or with an unreadable one, is compressed and its size kept.
func TestCheckSize(t *testing.T) {
	module := []byte("\x00asm\x01\x00\x00\x00 a module's bytes, repeated, repeated, repeated")
	sum := sha256.Sum256(module)
	for _, tc := range []struct {
		name      string
		kept      string // "" for no entry
		maxBrotli int
		over      bool
		keptAfter string
	}{
		{"kept, within", "40\n", 40, false, "40\n"},
		{"kept, over", "41\n", 40, true, "41\n"},
		{"none kept", "", 1000, false, "compressed"},
		{"unreadable entry", "not a size\n", 1000, false, "compressed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "app.wasm")
			if err := os.WriteFile(path, module, 0o644); err != nil {
				t.Fatal(err)
			}
			cache := filepath.Join(dir, "cache")
			key := filepath.Join(cache, hex.EncodeToString(sum[:])+".brotli11")
			if tc.kept != "" {
				if err := os.MkdirAll(cache, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(key, []byte(tc.kept), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			over, err := checkSize(t.Context(), path, len(module), tc.maxBrotli, cache, "")
			if err != nil || over != tc.over {
				t.Fatalf("checkSize = %v, %v; want %v, nil", over, err, tc.over)
			}
			got, err := os.ReadFile(key)
			if err != nil {
				t.Fatal(err)
			}
			if tc.keptAfter == "compressed" {
				if string(got) == tc.kept || len(got) < 2 {
					t.Errorf("kept %q, want the size the module compressed to", got)
				}
			} else if string(got) != tc.keptAfter {
				t.Errorf("kept %q, want %q", got, tc.keptAfter)
			}
		})
	}
}
