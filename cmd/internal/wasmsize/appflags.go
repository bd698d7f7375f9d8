package wasmsize

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// AppFlagsFile is where, under the module root, the compiler flags of
// app.wasm are kept: one go build argument per line, # comments and blank
// lines skipped. make build reads the same file.
const AppFlagsFile = "mk/app-gcflags.txt"

// AppBuildFlags returns the go build arguments app.wasm is built with, so
// that a program building the app for measurement builds the module that
// ships.
func AppBuildFlags(root string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, AppFlagsFile))
	if err != nil {
		return nil, fmt.Errorf("the app's build flags: %w", err)
	}
	var flags []string
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !strings.HasPrefix(line, "-") || strings.ContainsAny(line, " \t") {
			return nil, fmt.Errorf("%s:%d: %q is not one go build flag", AppFlagsFile, n+1, line)
		}
		flags = append(flags, line)
	}
	return flags, nil
}
