//go:build js && wasm

// Command seeder fills the browser's library for benchapp's /skills
// measurement through the app's own store (package idb, the code the app
// runs): it runs in a page benchapp adds to its copy of the site, fetches
// the packs of bundles benchapp wrote beside it (package seedpack) and
// adds each bundle with idb.DB.AddBundle, one transaction each as an
// import does, a few at once. Seeding 10,000 skills through /import, one file at a time
// through the page, would take most of an hour on a loaded machine; this
// is a tool for the benchmark only and is never part of the site.
//
// The page's URL says how many packs there are (?packs=N). Progress and
// the outcome are left in window.__seed: {added, done, error}.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"syscall/js"

	"workbench/cmd/benchapp/seedpack"
	"workbench/pkg/store"
	"workbench/pkg/store/idb"
)

func main() {
	state := js.Global().Get("Object").New()
	state.Set("added", 0)
	state.Set("done", false)
	js.Global().Set("__seed", state)
	err := seed(context.Background(), func(n int) { state.Set("added", n) })
	if err != nil {
		state.Set("error", err.Error())
	}
	state.Set("done", true)
}

func seed(ctx context.Context, progress func(int)) error {
	q, err := url.ParseQuery(js.Global().Get("location").Get("search").String()[1:])
	if err != nil {
		return fmt.Errorf("the page's query: %w", err)
	}
	packs, err := strconv.Atoi(q.Get("packs"))
	if err != nil {
		return fmt.Errorf("the page's query: packs: %w", err)
	}
	db, err := idb.Open(ctx, store.DatabaseName, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	added := 0
	for i := range packs {
		pack, err := fetchPack(ctx, fmt.Sprintf("pack-%d.bin", i))
		if err != nil {
			return err
		}
		bundles, err := seedpack.Split(pack)
		if err != nil {
			return fmt.Errorf("pack %d: %w", i, err)
		}
		if err := addAll(ctx, db, bundles); err != nil {
			return fmt.Errorf("pack %d: %w", i, err)
		}
		added += len(bundles)
		progress(added)
	}
	return nil
}

// writers is how many bundles are added at once: while IndexedDB commits
// one transaction, the next bundle is read and its transaction queued.
const writers = 4

// addAll adds bundles to db, writers at a time, and returns the first
// error.
func addAll(ctx context.Context, db *idb.DB, bundles [][]byte) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	errs := make(chan error, writers)
	for range writers {
		go func() {
			for j := range next {
				f, err := store.NewBundleFile(bundles[j])
				if err == nil {
					_, err = db.AddBundle(ctx, f)
				}
				if err != nil {
					errs <- fmt.Errorf("bundle %d: %w", j, err)
					cancel()
					return
				}
			}
			errs <- nil
		}()
	}
feed:
	for j := range bundles {
		select {
		case next <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	var first error
	for range writers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// fetchPack fetches the pack name, a path relative to the page.
func fetchPack(ctx context.Context, name string) ([]byte, error) {
	page, err := url.Parse(js.Global().Get("location").Get("href").String())
	if err != nil {
		return nil, err
	}
	u, err := page.Parse(name)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "GET", u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: %s", name, resp.Status)
	}
	return io.ReadAll(resp.Body)
}
