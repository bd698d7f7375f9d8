// Package modtest tells a test about the module it runs in: where the
// module's root is (the npm packages tests start live in its
// node_modules), whether a test-support package is kept out of every
// non-test file, and which files a build tag leaves out.
//
// It is for tests. It starts nothing and reads only the module's files.
package modtest

import (
	"bytes"
	"errors"
	"fmt"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// RootDir walks up from the working directory (a test's is its package
// directory) to the directory holding go.mod.
func RootDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Root is RootDir for a test: it fails t when there is no module root.
func Root(t testing.TB) string {
	t.Helper()
	root, err := RootDir()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// CheckImportedOnlyByTests fails t if a non-test Go file of the module
// outside the working directory (the calling test's package) imports
// importPath; see NonTestImporters.
func CheckImportedOnlyByTests(t *testing.T, importPath string) {
	t.Helper()
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	found, err := NonTestImporters(importPath, here)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s; only tests may import %s", f, importPath)
	}
}

// NonTestImporters lists the non-test Go files of the module, outside the
// directory except, that import importPath, each as its path from the
// module root and why. Every .go file is parsed, whatever its build
// constraints, so a file built only for js/wasm or under a tag counts
// too; a file that does not parse counts when it names importPath at all.
// Directories the go command ignores (., _ and testdata ones),
// node_modules, vendor, build and nested modules are skipped.
func NonTestImporters(importPath, except string) ([]string, error) {
	root, err := RootDir()
	if err != nil {
		return nil, err
	}
	var found []string
	err = walkGoFiles(root, func(path, rel string) error {
		if strings.HasSuffix(path, "_test.go") || filepath.Dir(path) == except {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			// A half-written file elsewhere is not this check's business,
			// but an import of importPath in it is.
			src, _ := os.ReadFile(path)
			if bytes.Contains(src, []byte(strconv.Quote(importPath))) {
				found = append(found, fmt.Sprintf("%s names it and does not parse (%v)", rel, err))
			}
			return nil
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == importPath {
				found = append(found, rel+" imports it")
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking the module at %s: %w", root, err)
	}
	return found, nil
}

// ExcludedByTags lists the module's Go files, test files included, whose
// build constraint leaves them out when one of tags is set (it asks for
// the tag's absence: //go:build !tag), each as its path from the module
// root and its constraint. With none, a build or vet with the tags covers
// every file one without them does, and more. Directories are skipped as
// NonTestImporters skips them.
func ExcludedByTags(tags ...string) ([]string, error) {
	root, err := RootDir()
	if err != nil {
		return nil, err
	}
	var found []string
	err = walkGoFiles(root, func(path, rel string) error {
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(src), "\n") {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "//") {
				break // constraints come before the package clause
			}
			if !constraint.IsGoBuild(line) {
				continue
			}
			expr, err := constraint.Parse(line)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			if negates(expr, tags, false) {
				found = append(found, rel+": "+line)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walking the module at %s: %w", root, err)
	}
	return found, nil
}

// negates reports whether expr asks for the absence of one of tags: a tag
// under an odd number of negations, so that setting it can turn expr from
// true to false. negated says whether expr itself sits under one.
func negates(expr constraint.Expr, tags []string, negated bool) bool {
	switch e := expr.(type) {
	case *constraint.TagExpr:
		return negated && slices.Contains(tags, e.Tag)
	case *constraint.NotExpr:
		return negates(e.X, tags, !negated)
	case *constraint.AndExpr:
		return negates(e.X, tags, negated) || negates(e.Y, tags, negated)
	case *constraint.OrExpr:
		return negates(e.X, tags, negated) || negates(e.Y, tags, negated)
	}
	return false
}

// walkGoFiles calls fn for each .go file of the module at root, with its
// path and its path from root, skipping the directories the go command
// ignores (., _ and testdata ones), node_modules, vendor, build and nested
// modules.
func walkGoFiles(root string, fn func(path, rel string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" ||
				name == "node_modules" || name == "vendor" || name == "build" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		return fn(path, rel)
	})
}
