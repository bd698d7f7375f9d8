//go:build js && wasm

package idb

import (
	"github.com/hack-pad/safejs"

	"workbench/pkg/store"
)

// A migration upgrades the schema by one version. It runs synchronously
// inside the upgrade transaction (tx), so it may create and delete object
// stores and indexes and issue requests, but must not wait for any.
type migration func(db, tx safejs.Value) error

// migrations returns the schema's migrations: element i upgrades version i
// to version i+1. Their number is store.SchemaVersion.
func migrations() []migration {
	return []migration{createV1, addComparisons}
}

// createV1 creates the five object stores of spec §4.4 and their indexes.
func createV1(db, tx safejs.Value) error {
	// Skill records are JSON strings under out-of-line keys (the skill id):
	// listing the library is then one getAll and one join, one crossing
	// between JavaScript and Go for any number of skills.
	if _, err := db.Call("createObjectStore", store.StoreSkills); err != nil {
		return err
	}
	if _, err := createStore(db, store.StoreTraces, []any{"skill_id", "trace_id"}); err != nil {
		return err
	}
	bundles, err := createStore(db, store.StoreBundles, "content_hash")
	if err != nil {
		return err
	}
	if _, err := bundles.Call("createIndex", "skill_id", "skill_id"); err != nil {
		return err
	}
	// One bundle per skill version: a second, different bundle claiming the
	// same version fails the write instead of shadowing the first.
	if _, err := bundles.Call("createIndex", "skill_version", []any{"skill_id", "skill_version"},
		map[string]any{"unique": true}); err != nil {
		return err
	}
	replays, err := createStore(db, store.StoreReplays, "replay_id")
	if err != nil {
		return err
	}
	if _, err := replays.Call("createIndex", "skill_id", "skill_id"); err != nil {
		return err
	}
	// The signing key and the trusted signers (keys.go), under
	// out-of-line keys.
	_, err = db.Call("createObjectStore", store.StoreKeys)
	return err
}

// addComparisons (version 2) creates the object store of the compare
// flow's results, keyed by comparison id, with the skill_id index that
// lists and deletes a skill's comparisons. Nothing older changes, so the
// data of version 1 stays as it is.
func addComparisons(db, tx safejs.Value) error {
	comparisons, err := createStore(db, store.StoreComparisons, "comparison_id")
	if err != nil {
		return err
	}
	_, err = comparisons.Call("createIndex", "skill_id", "skill_id")
	return err
}

func createStore(db safejs.Value, name string, keyPath any) (safejs.Value, error) {
	return db.Call("createObjectStore", name, map[string]any{"keyPath": keyPath})
}
