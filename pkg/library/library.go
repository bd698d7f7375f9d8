// Package library is the flow behind /import: it takes bundle files from
// disk into the local library. The browser app and the tests call the
// same function.
//
// Import treats a file as data, never as code (spec §7.5): it parses the
// bytes strictly (I-JSON), validates them against the bundle schema,
// re-derives the proof from the bundle's own evidence, and stores the
// bundle, its trace and the skill record in one store transaction. It
// fetches nothing and runs nothing the bundle names.
//
// Every file gets a Result: accepted; a duplicate (a bundle with the same
// content_hash is already stored, nothing is written); or rejected with
// each problem's JSON pointer and message. A failure of the store itself
// (quota, a closed database) is returned as an error, with nothing written.
package library

import (
	"context"
	"errors"
	"fmt"
	"time"

	"workbench/pkg/canonjson"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// MaxBundleBytes is the largest file Import reads: the strict parser's
// own limit.
const MaxBundleBytes = canonjson.DefaultMaxBytes

// Status is what became of one imported file.
type Status string

const (
	// Accepted: the bundle is valid and is now stored.
	Accepted Status = "accepted"
	// Duplicate: a bundle with the same content_hash was already stored;
	// nothing was written.
	Duplicate Status = "duplicate"
	// Rejected: the file is not a bundle the library can keep; Problems
	// says why. Nothing was written.
	Rejected Status = "rejected"
	// Collided: the file is another copy of a stored version under
	// another redaction profile (Result.Collision says what differs).
	// Nothing was written; Resolve stores it as the user chooses.
	Collided Status = "collision"
)

// Result is the outcome of importing one file.
type Result struct {
	// Name is the file's name, as given.
	Name   string
	Status Status
	// Problems are the reasons for a rejection, each with its place (JSON
	// pointer, byte offset) when it has one: the first
	// schemas.MaxFieldErrors of them.
	Problems []verify.Problem
	// ProblemsOmitted counts the reasons found beyond Problems.
	ProblemsOmitted int
	// Invalid, for a file that is not a well-formed bundle, says what it
	// is to a person: its headline, its content hash recomputed when it
	// claims one, its problems by cause. Nil otherwise.
	Invalid *verify.InvalidError
	// Report is the re-verification of a bundle that parsed and validated
	// (accepted or duplicate): the claimed proof beside the re-derived
	// one, overclaims, and the verdict to show. A bundle may be accepted
	// and still not prove anything; Report.Verdict says so.
	Report *verify.Report
	// Skill is the library record after an accepted import.
	Skill store.Skill
	// Collision, for a Collided file, says how it collides with the
	// stored copy; after Resolve, how it did.
	Collision *Collision
}

// Import reads one bundle file into st. An error means the store failed
// (nothing was written); a bad file is a Rejected Result, not an error.
func Import(ctx context.Context, st store.Store, v *verify.Verifier, name string, data []byte) (Result, error) {
	res, f, done := read(v, name, data)
	if done {
		return res, nil
	}
	return store1(ctx, st, res, f)
}

// TooLarge is the rejection of a file of size bytes, which Import gives
// without parsing it: larger than MaxBundleBytes. A front-end may ask
// before reading the file at all. ok is false for a file small enough.
func TooLarge(name string, size int) (res Result, ok bool) {
	if size <= MaxBundleBytes {
		return Result{}, false
	}
	return Result{Name: name, Status: Rejected, Problems: []verify.Problem{{Offset: -1, Message: fmt.Sprintf(
		"the file is %d bytes; the workbench imports bundles of at most %d bytes", size, MaxBundleBytes)}}}, true
}

// read verifies a file and makes it a bundle file the store can keep. It
// returns done with the Result when the file is rejected.
func read(v *verify.Verifier, name string, data []byte) (Result, store.BundleFile, bool) {
	res := Result{Name: name}
	reject := func(ps ...verify.Problem) (Result, store.BundleFile, bool) {
		res.Status, res.Problems = Rejected, ps
		return res, store.BundleFile{}, true
	}
	if r, ok := TooLarge(name, len(data)); ok {
		return r, store.BundleFile{}, true
	}
	// One strict parse, typed decode and hash serves the verification and
	// the store: File hands the store the bundle it verified.
	rep, sealed, err := v.File(data)
	var inv *verify.InvalidError
	var se *skill.SealError
	switch {
	case errors.As(err, &inv):
		res.ProblemsOmitted, res.Invalid = inv.Omitted, inv
		return reject(inv.Problems...)
	case errors.As(err, &se):
		// The schema passed, so what is left is the seal: the bytes do
		// not hash to their content_hash, and the library keys bundles
		// by it.
		res.Report = rep
		return reject(verify.Problem{Pointer: "/content_hash", Offset: -1, Message: se.Error()})
	case err != nil:
		return reject(verify.Problem{Offset: -1, Message: err.Error()})
	}
	res.Report = rep
	f, err := store.NewSealedBundleFile(sealed)
	if err != nil {
		return reject(verify.Problem{Offset: -1, Message: storeReason(err)})
	}
	return res, f, false
}

// store1 stores one verified bundle file and says what became of it.
func store1(ctx context.Context, st store.Store, res Result, f store.BundleFile) (Result, error) {
	reject := func(ps ...verify.Problem) (Result, error) {
		res.Status, res.Problems = Rejected, ps
		return res, nil
	}
	sk, err := st.AddBundle(ctx, f)
	switch {
	case err == nil:
		res.Status, res.Skill = Accepted, sk
		return res, nil
	case errors.Is(err, store.ErrDuplicate):
		res.Status = Duplicate
		return res, nil
	case errors.Is(err, store.ErrConflict):
		c, cerr := collision(ctx, st, f)
		if cerr != nil {
			return res, fmt.Errorf("import %s: %w", res.Name, cerr)
		}
		if c != nil {
			res.Status, res.Collision = Collided, c
			return res, nil
		}
		return reject(verify.Problem{Pointer: "/skill_version", Offset: -1, Message: fmt.Sprintf(
			"skill %s version %d is already stored with another content_hash; a version cannot change once stored",
			f.Bundle.SkillID, f.Bundle.SkillVersion)})
	case errors.Is(err, store.ErrInvalid):
		return reject(verify.Problem{Offset: -1, Message: storeReason(err)})
	}
	return res, fmt.Errorf("import %s: %w", res.Name, err)
}

// storeReason is the reason inside a store error, without the operation
// prefix a user does not need.
func storeReason(err error) string {
	var se *store.Error
	if errors.As(err, &se) && se.Err != nil {
		return se.Err.Error()
	}
	return err.Error()
}

// Summary counts what became of a batch of imported files.
type Summary struct {
	Accepted, Rejected, Duplicate, Collided int
	// Failed counts files that could not be read or stored (an error,
	// not a Result).
	Failed int
}

// Add counts one file: its Result, or err when importing it failed.
func (s *Summary) Add(r Result, err error) {
	if err != nil {
		s.Failed++
		return
	}
	switch r.Status {
	case Accepted:
		s.Accepted++
	case Rejected:
		s.Rejected++
	case Duplicate:
		s.Duplicate++
	case Collided:
		s.Collided++
	}
}

// String is the batch in one line, e.g. "2 accepted, 1 rejected, 0
// already stored"; collisions and failures are added when there are any.
func (s Summary) String() string {
	out := fmt.Sprintf("%d accepted, %d rejected, %d already stored", s.Accepted, s.Rejected, s.Duplicate)
	if s.Collided > 0 {
		out += fmt.Sprintf(", %d waiting for a choice", s.Collided)
	}
	if s.Failed > 0 {
		out += fmt.Sprintf(", %d not imported (error)", s.Failed)
	}
	return out
}

// Local imports into Store with Verifier, in this Go instance: Import
// and Resolve as methods, for a caller that takes an importer (the flows
// use one when they are given none; the app's import worker serves one).
type Local struct {
	Store    store.Store
	Verifier *verify.Verifier
	// Now is the clock of a version Resolve makes; nil means time.Now.
	Now func() time.Time
}

// Import is Import into l's library.
func (l Local) Import(ctx context.Context, name string, data []byte) (Result, error) {
	return Import(ctx, l.Store, l.Verifier, name, data)
}

// Resolve is Resolve in l's library, a new version made at l's clock
// with a new bundle id.
func (l Local) Resolve(ctx context.Context, name string, data []byte, choice Choice) (Result, error) {
	now := l.Now
	if now == nil {
		now = time.Now
	}
	return Resolve(ctx, l.Store, l.Verifier, name, data, choice, Options{Now: now, NewID: skill.NewID})
}
