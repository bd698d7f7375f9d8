package wranglertest

import (
	"testing"

	"workbench/pkg/modtest"
)

// TestOnlyTestsImport fails if a non-test Go file outside this package
// imports it: running wrangler dev is for tests only.
func TestOnlyTestsImport(t *testing.T) {
	modtest.CheckImportedOnlyByTests(t, "workbench/pkg/proxy/wranglertest")
}
