//go:build wasm

package main

import (
	"context"
	"errors"

	"workbench/pkg/signature"
	"workbench/pkg/signature/webcrypto"
	"workbench/pkg/store"
	"workbench/pkg/store/idb"
)

// openLibrary opens the browser's IndexedDB database workbench-v0.
func openLibrary(ctx context.Context, blocked func()) (store.Store, error) {
	return idb.Open(ctx, store.DatabaseName, blocked)
}

// signingKey returns the browser's signing key, a non-extractable
// WebCrypto key in the library's keys store, or errNoSigningKey.
func signingKey(ctx context.Context, st store.Store) (signature.Signer, error) {
	d, ok := st.(*idb.DB)
	if !ok {
		return nil, errNoKeyring
	}
	k, err := d.SigningKey(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoSigningKey
	}
	if err != nil {
		return nil, err
	}
	return k, nil
}

// newSigningKey makes the browser's signing key and stores it; a key
// already stored is never replaced.
func newSigningKey(ctx context.Context, st store.Store) (signature.Signer, error) {
	d, ok := st.(*idb.DB)
	if !ok {
		return nil, errNoKeyring
	}
	k, err := webcrypto.Generate(ctx)
	if err != nil {
		return nil, err
	}
	if err := d.AddSigningKey(ctx, k); err != nil {
		return nil, err
	}
	return k, nil
}
