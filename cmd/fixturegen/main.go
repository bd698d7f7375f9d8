// Command fixturegen writes the spec's fixture bundles and replay reports
// (spec §8.2) into a directory. Its output is deterministic; `make fixtures`
// runs it and a test fails when the committed files drift from it.
package main

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"workbench/internal/fixturegen"
)

func main() {
	out := flag.String("out", "fixtures", "directory to write the fixture files into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintf(os.Stderr, "fixturegen: %v\n", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	v, err := fixturegen.Verifier()
	if err != nil {
		return err
	}
	files, err := fixturegen.Build(v)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
		fmt.Println(filepath.Join(dir, name))
	}
	return nil
}
