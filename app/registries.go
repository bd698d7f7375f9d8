package main

import (
	"context"

	"workbench/pkg/fetch"
	"workbench/pkg/registry"
)

// The skill registries this browser fetches bundles from: the workbench's
// own origin always, and those the person added by hand, kept in the
// library's keys store. A link's registry is fetched only when it is one
// of them; nothing a bundle names is ever fetched (spec §7.6).

// registries returns the workbench's own origin, then the registries the
// person added. It blocks: call it from a goroutine.
func (e *env) registries(ctx context.Context) ([]string, error) {
	own := []string{e.origin()}
	st, err := e.store(ctx, nil)
	if err != nil {
		return own, err
	}
	kr, err := keyringOf(st)
	if err != nil {
		return own, nil // the native build keeps none: its own origin only
	}
	added, err := kr.Registries(ctx)
	e.dropStore(err)
	if err != nil {
		return own, err
	}
	for _, o := range added {
		if o != own[0] {
			own = append(own, o)
		}
	}
	return own, nil
}

// registryClient is a client of the registry at origin, through the
// browser's fetch.
func (e *env) registryClient(origin string) (*registry.Client, error) {
	return registry.NewClient(origin, fetch.Default())
}
