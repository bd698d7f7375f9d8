package workbench

import (
	"context"
	"errors"
	"fmt"

	"workbench/pkg/library"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// The import flow takes bundle files into the library (Store). A file is
// data, never code: it is parsed strictly, validated against the bundle
// schema, its proof re-derived from its own evidence, and only then stored
// — the bundle, its trace and the skill record in one transaction, so a
// failure leaves the library as it was. Each file gets a library.Result:
// accepted, already stored, rejected with every problem's place, or a
// collision with another profile's copy of a stored version, which waits
// for the person's choice (ResolveImport). library.Summary counts a batch
// ("2 accepted, 1 rejected, 0 already stored").

// ErrNoLibrary is returned by the flows that store a bundle when the
// flows have no library.
var ErrNoLibrary = errors.New("no library is open")

// ErrNoVerifier is returned by the flows that seal or judge a bundle
// when the flows have no verifier.
var ErrNoVerifier = errors.New("no verifier")

// ImportTooLarge is the rejection Import gives a file of size bytes
// without reading it (library.TooLarge): a front-end asks before it reads
// the file at all. ok is false for a file small enough to import.
func ImportTooLarge(name string, size int) (res library.Result, ok bool) {
	return library.TooLarge(name, size)
}

// Import reads one bundle file, called name, into the library; its
// report's signature is checked against the trusted signers. A bad
// file is a Rejected result, not an error; an error means the file could
// not be imported at all (no library, or the store failed) and nothing
// was written.
func (fl *Flows) Import(ctx context.Context, name string, data []byte) (library.Result, error) {
	im, err := fl.importer(ctx, name)
	if err != nil {
		return library.Result{Name: name}, err
	}
	res, err := im.Import(ctx, name, data)
	if res.Report != nil {
		fl.CheckSignature(ctx, res.Report)
	}
	return res, err
}

// ResolveImport stores a file Import reported as a collision, as the
// person chose: library.Replace puts it in place of the stored copy,
// library.KeepBoth stores its content as the skill's next version (made
// at the flows' clock, with a new bundle id). The file is read again and the
// library looked at as it is now: if the collision is gone the result
// says what became of the file as Import would. An error means nothing
// was written.
func (fl *Flows) ResolveImport(ctx context.Context, name string, data []byte, choice library.Choice) (library.Result, error) {
	im, err := fl.importer(ctx, name)
	if err != nil {
		return library.Result{Name: name}, err
	}
	res, err := im.Resolve(ctx, name, data, choice)
	if res.Report != nil {
		fl.CheckSignature(ctx, res.Report)
	}
	return res, err
}

// Importer imports bundle files into the library (library.Import and
// library.Resolve) somewhere other than the flows' own verifier and
// library: see Deps.Importer. A Result it returns must be whole, its
// report able to check a signature again (library.Result's JSON is).
type Importer interface {
	Import(ctx context.Context, name string, data []byte) (library.Result, error)
	Resolve(ctx context.Context, name string, data []byte, choice library.Choice) (library.Result, error)
}

// importer is Deps.Importer's, or else one over the flows' own library and
// verifier.
func (fl *Flows) importer(ctx context.Context, name string) (Importer, error) {
	if fl.d.Importer != nil {
		im, err := fl.d.Importer(ctx)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", name, err)
		}
		return im, nil
	}
	st, v, err := fl.canImport(ctx, name)
	if err != nil {
		return nil, err
	}
	return library.Local{Store: st, Verifier: v, Now: fl.now}, nil
}

// canImport returns the import flow's library and verifier, or says which
// is missing.
func (fl *Flows) canImport(ctx context.Context, name string) (store.Store, *verify.Verifier, error) {
	st, err := fl.library(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("import %s: %w", name, err)
	}
	v, err := fl.verifier(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("import %s: %w", name, err)
	}
	return st, v, nil
}
