package wasmsize

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The repository's file is read as make reads it, and a line that is not
// one flag is refused with its place.
func TestAppBuildFlags(t *testing.T) {
	flags, err := AppBuildFlags(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// Inlining is off, and on again in the verifier.
	if !slices.Contains(flags, "-gcflags=all=-l") || !slices.Contains(flags, "-gcflags=workbench/pkg/verify=") {
		t.Errorf("flags %q: want inlining off, and on in the verifier", flags)
	}
	for _, tc := range []struct {
		name, text string
		want       []string
		wantErr    string
	}{
		{"comments and blanks", "# why\n\n-gcflags=all=-l\n  -gcflags=std=  \n", []string{"-gcflags=all=-l", "-gcflags=std="}, ""},
		{"two on a line", "# why\n-gcflags=all=-l -gcflags=std=\n", nil, AppFlagsFile + `:2: "-gcflags=all=-l -gcflags=std=" is not one go build flag`},
		{"not a flag", "all=-l\n", nil, AppFlagsFile + `:1: "all=-l" is not one go build flag`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "mk"), 0o755)
			if err := os.WriteFile(filepath.Join(root, AppFlagsFile), []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := AppBuildFlags(root)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("AppBuildFlags = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := AppBuildFlags(t.TempDir()); err == nil {
		t.Error("a missing file gave no error")
	}
}
