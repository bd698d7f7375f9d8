//go:build wasm

package main

import (
	"context"

	"workbench/pkg/store"
	"workbench/pkg/store/idb"
)

// openLibrary opens the browser's IndexedDB database workbench-v0.
func openLibrary(ctx context.Context, blocked func()) (store.Store, error) {
	return idb.Open(ctx, store.DatabaseName, blocked)
}
