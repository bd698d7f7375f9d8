// Package idb is store.Store over the browser's IndexedDB: the database
// "workbench-v0" of spec §4.4 with the object stores skills, traces,
// bundles, replays and keys (the signing key and trusted signers, keys.go),
// and the compare flow's comparisons.
// It builds only for GOOS=js GOARCH=wasm; the error mapping in this file's
// package builds everywhere so it can be tested natively too.
//
// # Transactions
//
// Each Store method is one IndexedDB transaction. Writes are issued in
// order and the method returns when the transaction completes or aborts;
// any failure — a request error such as a duplicate key, a value that
// cannot be encoded, a cancelled context — aborts it, so nothing of a
// failed call is stored.
//
// IndexedDB is event driven. A method blocks its goroutine on a channel
// until the request's success or error event arrives; the events are
// delivered by the JavaScript event loop. Calling a method synchronously
// from a JavaScript callback would hold that loop and never return: call it
// from a goroutine (in go-app, inside Context.Async, then Context.Dispatch
// the result). A transaction stays active across such a wait because the Go
// runtime runs every goroutine the event woke before it hands control back
// to JavaScript; the read-modify-write of a skill record relies on that and
// the tests check it in real Chromium.
//
// # Schema versions
//
// The schema is a list of migrations, one per version; opening runs those
// between the stored version and SchemaVersion inside the upgrade
// transaction. Version 1 creates:
//
//	skills   out-of-line key: skill id;   value: the record's JSON text
//	traces   key [skill_id, trace_id];    value {skill_id, trace_id, json}
//	bundles  key content_hash;            value {content_hash, skill_id, skill_version, bundle_id, created_at, data}
//	         index skill_id; unique index skill_version on [skill_id, skill_version]
//	replays  key replay_id;               value {replay_id, skill_id, json}
//	         index skill_id
//	keys     out-of-line keys: signing_key (a non-extractable CryptoKey
//	         and its public key) and pin:<key id> (a trusted signer's JSON)
//
// Version 2 adds:
//
//	comparisons  key comparison_id;       value {comparison_id, skill_id, json}
//	             index skill_id
//
// For replays json is the encoding/json text of store.Replay, for
// comparisons that of store.Comparison; for traces it
// is a Uint8Array holding the trace's bytes from the bundle file; data is a
// Uint8Array holding the bundle file's exact bytes. A later version appends a migration; it
// must not change what an earlier one did.
//
// An open connection closes itself when another tab asks to upgrade the
// database (versionchange), so it never blocks that upgrade; its later
// calls fail with store.ErrClosed. Opening while another tab holds an older
// version that does not close fails with store.ErrBlocked; opening a
// database newer than this build fails with store.ErrVersion.
package idb
