//go:build !wasm

package main

import (
	"context"

	"workbench/pkg/store"
	"workbench/pkg/store/mem"
)

// openLibrary gives the native build (which only renders the static
// pages) a memory store; there is no IndexedDB outside a browser.
func openLibrary(context.Context, func()) (store.Store, error) { return mem.New(), nil }
