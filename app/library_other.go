//go:build !wasm

package main

import (
	"context"

	"workbench/pkg/signature"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/workbench"
)

// openLibrary gives the native build (which only renders the static
// pages) a memory store; there is no IndexedDB outside a browser.
func openLibrary(context.Context, func()) (store.Store, error) { return mem.New(), nil }

// signingKey: the native build keeps no keys.
func signingKey(context.Context, store.Store) (signature.Signer, error) { return nil, errNoKeyring }

// newSigningKey: the native build has no WebCrypto.
func newSigningKey(context.Context, store.Store) (signature.Signer, error) { return nil, errNoKeyring }

// importers: the native build has no Web Worker, and imports in its own
// instance.
func importers() func(context.Context) (workbench.Importer, error) { return nil }
