//go:build wasm

package main

import (
	"context"
	"errors"
	"net/url"
	"sync"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/importworker"
	"workbench/pkg/signature"
	"workbench/pkg/signature/webcrypto"
	"workbench/pkg/store"
	"workbench/pkg/store/idb"
	"workbench/pkg/workbench"
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

// importers gives the tab's import worker (package importworker),
// started on first use and again after it failed: the flows import every
// file in it (Deps.Importer). Its script is /web/importer.js, which loads
// importer.wasm at the version the site was built with.
func importers() func(context.Context) (workbench.Importer, error) {
	var mu sync.Mutex
	var c *importworker.Client
	return func(context.Context) (workbench.Importer, error) {
		mu.Lock()
		defer mu.Unlock()
		if c == nil || c.Failed() != nil {
			u := importerScript + "?v=" + url.QueryEscape(app.Getenv(importerVersionEnv))
			if c != nil {
				// Its loader then fetches the module past the cache.
				u += "&again"
			}
			c = importworker.Start(u)
		}
		return c, nil
	}
}
