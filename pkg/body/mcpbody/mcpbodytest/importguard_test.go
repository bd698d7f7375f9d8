package mcpbodytest

import (
	"testing"

	"workbench/pkg/modtest"
)

// TestOnlyTestsImport fails if a non-test Go file outside this package
// imports it: starting real servers and browsers is for tests only.
func TestOnlyTestsImport(t *testing.T) {
	modtest.CheckImportedOnlyByTests(t, "workbench/pkg/body/mcpbody/mcpbodytest")
}
