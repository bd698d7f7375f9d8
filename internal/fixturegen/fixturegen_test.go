package fixturegen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"workbench/internal/fixturegen"
)

// TestFixturesUpToDate regenerates every fixture and fails when a committed
// file differs: fixtures are never edited by hand. Run `make fixtures` after
// a deliberate change.
func TestFixturesUpToDate(t *testing.T) {
	v, err := fixturegen.Verifier()
	if err != nil {
		t.Fatal(err)
	}
	files, err := fixturegen.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	again, err := fixturegen.Build(v)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		if !bytes.Equal(want, again[name]) {
			t.Errorf("%s: two runs of the generator differ", name)
		}
		got, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
		if err != nil {
			t.Errorf("%s: %v (run `make fixtures`)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("fixtures/%s drifted from its generator (run `make fixtures` and review the diff)", name)
		}
	}
}
