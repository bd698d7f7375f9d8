package verify

import (
	"regexp"
	"strings"
	"testing"
)

// TestIsHashMatchesPattern holds the hand-written state hash check to the
// bundle schema's pattern.
func TestIsHashMatchesPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	hex := strings.Repeat("0123456789abcdef", 4)
	for _, s := range []string{
		"sha256:" + hex, "sha256:" + hex[:63], "sha256:" + hex + "0", "sha256:" + strings.ToUpper(hex),
		"sha256:" + hex[:63] + "g", "sha256:" + hex[:63] + "\n", "SHA256:" + hex, "sha512:" + hex,
		"sha256:" + hex[:62] + "é", "", "sha256:", " sha256:" + hex[:63],
	} {
		if got, want := isHash(s), pattern.MatchString(s); got != want {
			t.Errorf("isHash(%q) = %v, pattern says %v", s, got, want)
		}
	}
}
