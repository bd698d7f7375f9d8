package idb

import (
	"errors"
	"testing"

	"workbench/pkg/store"
)

// TestKindOf covers the mapping of every DOMException name IndexedDB
// raises, including those (QuotaExceededError) a test browser cannot be
// made to raise on demand.
func TestKindOf(t *testing.T) {
	tests := []struct {
		name string
		want error
	}{
		{"QuotaExceededError", store.ErrQuotaExceeded},
		{"ConstraintError", store.ErrDuplicate},
		{"VersionError", store.ErrVersion},
		{"DataError", store.ErrInvalid},
		{"DataCloneError", store.ErrInvalid},
		{"InvalidStateError", store.ErrClosed},
		{"NotFoundError", store.ErrVersion},
		{"SecurityError", store.ErrUnavailable},
		{"AbortError", store.ErrAborted},
		{"TransactionInactiveError", store.ErrAborted},
		{"UnknownError", store.ErrAborted},
		{"SomethingNew", store.ErrAborted},
	}
	for _, tc := range tests {
		if got := kindOf(tc.name); got != tc.want {
			t.Errorf("kindOf(%q) = %v, want %v", tc.name, got, tc.want)
		}
		err := &store.Error{Op: "add bundle", Store: store.StoreBundles, Key: "k", Kind: kindOf(tc.name),
			Err: &domError{name: tc.name, message: "the browser said so"}}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: errors.Is(%v, %v) is false", tc.name, err, tc.want)
		}
		want := "store: add bundle: bundles k: " + tc.want.Error() + ": " + tc.name + ": the browser said so"
		if err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
	}
}
