// Package store is the workbench's local library: skills, their traces,
// their sealed bundles and their replays, kept in the browser's IndexedDB
// database "workbench-v0" (spec §4.4) or, for native tests, in memory.
//
// The package defines the records, the Store interface and the rules every
// implementation follows; the implementations live in subpackages:
// store/mem (in memory, any platform) and store/idb (IndexedDB, js/wasm
// only). store/storetest is the conformance suite both pass.
//
// # One transaction per user action
//
// Every method that writes is one all-or-nothing transaction: saving a
// taught skill, importing one bundle file, saving a replay (with or without
// a new bundle), saving an edited manifest as a new version, and clearing
// all local data. When a method returns an error nothing it would have
// written is stored; when it returns nil everything is.
//
// # Bundles are kept as their exact bytes
//
// A bundle is stored as the bytes it was imported or exported as, keyed by
// its content hash, so that the hash can be re-verified and the file
// re-exported byte for byte. The skill record and the decoded trace are
// derived from the bundle (see ApplyBundle) and are conveniences for listing
// and display; the bundle stays the source of truth. The store does not
// re-derive content hashes itself: NewBundleFile and EncodeBundle do, once,
// before a write, and NewSealedBundleFile takes a skill.Sealed, which only
// package skill makes, and only when the hash holds — so a file verified on
// import (verify.Verifier.File) is not read and hashed a second time.
//
// # Errors
//
// Every error a Store returns is a *Error naming the operation, the object
// store and the key involved. Callers branch with errors.Is on the kinds:
// ErrNotFound, ErrDuplicate, ErrConflict, ErrInvalid, ErrQuotaExceeded,
// ErrBlocked, ErrVersion, ErrAborted, ErrUnavailable and ErrClosed.
package store
