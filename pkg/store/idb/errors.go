package idb

import "workbench/pkg/store"

// domError is a DOMException (or other JavaScript error) as a Go error.
type domError struct {
	name, message string
}

func (e *domError) Error() string {
	if e.message == "" {
		return e.name
	}
	return e.name + ": " + e.message
}

// kindOf maps the name of a DOMException raised by IndexedDB to the store
// error kind callers branch on. ConstraintError is refined by the caller
// (duplicate or conflict), which knows which key it wrote.
func kindOf(name string) error {
	switch name {
	case "QuotaExceededError":
		return store.ErrQuotaExceeded
	case "ConstraintError":
		return store.ErrDuplicate
	case "VersionError":
		return store.ErrVersion
	case "DataError", "DataCloneError":
		return store.ErrInvalid
	case "InvalidStateError":
		return store.ErrClosed
	case "NotFoundError":
		// An object store missing from the schema: the database is not the
		// version this build expects.
		return store.ErrVersion
	case "SecurityError", "InvalidAccessError":
		return store.ErrUnavailable
	}
	// AbortError, TransactionInactiveError, UnknownError, TimeoutError and
	// anything new.
	return store.ErrAborted
}
