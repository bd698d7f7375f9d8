package modtest

import (
	"go/build/constraint"
	"testing"
)

// A constraint asks for a tag's absence when setting the tag can leave
// the file out: the tag under an odd number of negations.
func TestNegates(t *testing.T) {
	tags := []string{"bodies", "interop"}
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"//go:build bodies", false},
		{"//go:build !bodies", true},
		{"//go:build !wasm", false},
		{"//go:build linux && !interop", true},
		{"//go:build !(bodies && linux)", true},
		{"//go:build !(!bodies)", false},
		{"//go:build !js || interop", false},
		{"//go:build bodies || !interop", true},
	} {
		expr, err := constraint.Parse(tc.line)
		if err != nil {
			t.Fatalf("%s: %v", tc.line, err)
		}
		if got := negates(expr, tags, false); got != tc.want {
			t.Errorf("%s: negates = %v, want %v", tc.line, got, tc.want)
		}
	}
}
