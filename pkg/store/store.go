package store

import (
	"context"

	"workbench/pkg/skill"
)

// DatabaseName is the IndexedDB database of spec §4.4.
const DatabaseName = "workbench-v0"

// SchemaVersion is the IndexedDB schema version this build creates and
// upgrades to. Version 1 creates the five object stores of spec §4.4 and
// their indexes; version 2 adds the comparisons.
const SchemaVersion = 2

// The object stores of spec §4.4. Keys holds the browser's signing key and
// its trusted signers (package store/idb).
const (
	StoreSkills  = "skills"
	StoreTraces  = "traces"
	StoreBundles = "bundles"
	StoreReplays = "replays"
	StoreKeys    = "keys"
	// StoreComparisons keeps the compare flow's results (Comparison),
	// saved as a version or not.
	StoreComparisons = "comparisons"
)

// ObjectStores lists every object store, in the order they are created.
func ObjectStores() []string {
	return []string{StoreSkills, StoreTraces, StoreBundles, StoreReplays, StoreKeys, StoreComparisons}
}

// Store is the workbench's local library. Each method that writes runs as
// one transaction: it stores everything or, on error, nothing.
//
// Methods block until the transaction completes. In the browser they must
// be called from a goroutine of their own (go-app's Context.Async, or a
// plain go statement), never synchronously from a JavaScript callback: the
// IndexedDB events that end the wait are delivered by the same JavaScript
// event loop such a callback would be holding.
//
// Implementations are safe for concurrent use.
type Store interface {
	// AddBundle stores a sealed bundle, its trace, the replays it
	// carries that are not stored yet (CarriedReplays) and the skill
	// record derived from them (ApplyBundle, ApplyReplay). It is the write behind saving a taught
	// skill, importing a bundle file and saving an edited manifest as a
	// new version. A bundle whose content hash is already stored fails with
	// ErrDuplicate; a different bundle with the same skill id and version
	// fails with ErrConflict. It returns the skill record as stored.
	AddBundle(ctx context.Context, f BundleFile) (Skill, error)

	// SaveReplay stores a replay of a stored skill and updates the
	// skill's replay summary (ApplyReplay). When bundle is not nil, the
	// replay saved as a new bundle is stored in the same transaction, as by
	// AddBundle, and r.BundleHash is set to its content hash. Saving a
	// replay that is already stored (same replay id) replaces its record
	// without counting it twice, so "save as a new bundle" after the fact
	// is a second SaveReplay call with the bundle. A skill that is not
	// stored fails with ErrNotFound.
	SaveReplay(ctx context.Context, r Replay, bundle *BundleFile) (Skill, error)

	// Skills lists every stored skill, newest first (by UUIDv7 id,
	// descending).
	Skills(ctx context.Context) ([]Skill, error)

	// ListSkills lists the newest skills that match q, at most q.Limit of
	// them, with the number that match and the number stored, as one
	// read of the library. Without a filter it reads only the records it
	// returns: the first page of a long library costs what the page
	// shows, not what the library holds.
	ListSkills(ctx context.Context, q SkillQuery) (SkillList, error)

	// Skill returns one skill record, or ErrNotFound.
	Skill(ctx context.Context, id string) (Skill, error)

	// Trace returns the trace traceID of skill skillID, or ErrNotFound.
	Trace(ctx context.Context, skillID, traceID string) (*skill.Trace, error)

	// Bundle returns the bundle with the given content hash, or
	// ErrNotFound.
	Bundle(ctx context.Context, contentHash string) (StoredBundle, error)

	// Bundles returns every stored bundle of a skill, by skill version
	// ascending (an empty list if there are none).
	Bundles(ctx context.Context, skillID string) ([]StoredBundle, error)

	// Replays returns every stored replay of a skill, newest first (by
	// UUIDv7 replay id, descending; an empty list if there are none).
	Replays(ctx context.Context, skillID string) ([]Replay, error)

	// SaveComparison stores a comparison of a stored skill, or replaces
	// the one stored under the same id (when it is saved as a version,
	// say). A skill that is not stored fails with ErrNotFound.
	SaveComparison(ctx context.Context, c Comparison) error

	// Comparisons returns every stored comparison of a skill, newest
	// first (by UUIDv7 id, descending; an empty list if there are none).
	Comparisons(ctx context.Context, skillID string) ([]Comparison, error)

	// DeleteSkill deletes one skill: its record and every version's
	// bundle, trace, replay and comparison, in one transaction. A skill that is not
	// stored fails with ErrNotFound; a failed delete leaves everything as
	// it was.
	DeleteSkill(ctx context.Context, id string) error

	// ReplaceBundle stores f in place of the stored bundle oldHash, which
	// must be of f's skill and version (the same version exported under
	// another redaction profile, say), in one transaction: the old bundle
	// goes, f and its trace and the replays it carries arrive as by
	// AddBundle, replays linked to the old bundle are linked to f, and the
	// skill record describes f if the old bundle was the newest version.
	// An old bundle that is not stored fails with ErrNotFound; one of
	// another skill or version, with ErrInvalid; f already stored, with
	// ErrDuplicate. It returns the skill record as stored.
	ReplaceBundle(ctx context.Context, oldHash string, f BundleFile) (Skill, error)

	// Clear deletes everything in every object store, in one transaction
	// ("Clear all local data", spec OQ-7).
	Clear(ctx context.Context) error

	// Close releases the store. Later calls fail with ErrClosed.
	Close() error
}
