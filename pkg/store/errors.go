package store

import (
	"errors"
	"strings"
)

// The kinds of store failure. Every *Error matches exactly one of them with
// errors.Is.
var (
	// ErrNotFound: the record asked for is not stored.
	ErrNotFound = errors.New("not found")
	// ErrDuplicate: the record is already stored (for a bundle: the same
	// content hash). Nothing was written.
	ErrDuplicate = errors.New("already stored")
	// ErrConflict: a different record already holds the identity the new
	// one claims (for a bundle: the same skill id and version with another
	// content hash). Nothing was written.
	ErrConflict = errors.New("conflicts with a stored record")
	// ErrInvalid: the value passed in cannot be stored as it is (missing
	// ids, an unsealed bundle, bytes that are not the bundle).
	ErrInvalid = errors.New("invalid record")
	// ErrQuotaExceeded: the browser refused the write for lack of storage
	// (IndexedDB QuotaExceededError). Nothing was written.
	ErrQuotaExceeded = errors.New("storage quota exceeded")
	// ErrBlocked: the database cannot be upgraded because another tab
	// still has an older version open (IndexedDB "blocked" event).
	ErrBlocked = errors.New("upgrade blocked by another open tab")
	// ErrVersion: the stored database is newer than this build
	// understands (IndexedDB VersionError), or an upgrade failed.
	ErrVersion = errors.New("database version mismatch")
	// ErrAborted: the transaction was aborted for another reason. Nothing
	// was written.
	ErrAborted = errors.New("transaction aborted")
	// ErrUnavailable: the browser offers no usable IndexedDB (storage
	// disabled, some private modes) or failed to open it.
	ErrUnavailable = errors.New("storage unavailable")
	// ErrClosed: the store was closed, or the browser closed the database
	// (for example to let another tab upgrade it).
	ErrClosed = errors.New("store closed")
)

// Error is a failed store operation: what was being done (Op, e.g. "add
// bundle"), where (the object store and key, when one is involved), which
// kind of failure (Kind, one of the Err… values) and the underlying cause,
// if any (for IndexedDB, the DOMException's name and message).
type Error struct {
	Op    string
	Store string
	Key   string
	Kind  error
	Err   error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("store: ")
	b.WriteString(e.Op)
	if e.Store != "" {
		b.WriteString(": ")
		b.WriteString(e.Store)
	}
	if e.Key != "" {
		b.WriteString(" ")
		b.WriteString(e.Key)
	}
	if e.Kind != nil {
		b.WriteString(": ")
		b.WriteString(e.Kind.Error())
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Is reports whether target is the error's kind, so that
// errors.Is(err, ErrDuplicate) works through wrapping.
func (e *Error) Is(target error) bool { return target != nil && target == e.Kind }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }
