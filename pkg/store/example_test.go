package store_test

import (
	"context"
	"errors"
	"fmt"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/store/storetest"
)

// Importing a bundle file: the bytes are checked, stored as they are, and
// the same file dropped twice is reported rather than stored twice.
func Example_import() {
	ctx := context.Background()
	var s store.Store = mem.New() // idb.Open(ctx, store.DatabaseName, nil) in the browser
	defer s.Close()

	sealed := storetest.NewBundle(skill.NewID(), 1, "Find the cheapest flight")
	data, _ := sealed.Encode() // stands in for a file's bytes

	for range 2 {
		f, err := store.NewBundleFile(data)
		if err != nil {
			fmt.Println("rejected:", err)
			continue
		}
		sk, err := s.AddBundle(ctx, f)
		switch {
		case errors.Is(err, store.ErrDuplicate):
			fmt.Println("already in the library")
		case err != nil:
			fmt.Println("failed:", err)
		default:
			fmt.Printf("imported %s v%d\n", sk.Slug, sk.Version)
		}
	}
	// Output:
	// imported find-the-cheapest-flight v1
	// already in the library
}
