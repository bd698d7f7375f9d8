package servicestest

import (
	"testing"

	"workbench/pkg/modtest"
)

// TestOnlyTestsImport fails if a non-test Go file outside this package
// imports it: the contract test server must never be reachable from a
// production path.
func TestOnlyTestsImport(t *testing.T) {
	modtest.CheckImportedOnlyByTests(t, "workbench/pkg/services/servicestest")
}
