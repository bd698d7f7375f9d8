package store

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"workbench/pkg/body"
	"workbench/pkg/skill"
)

// Skill is the library's record of one skill (spec §2: name, description,
// replay count, last fidelity). It describes the skill's newest stored
// version — the bundle with the highest skill_version — and the newest
// replay; the bundles themselves stay the source of truth.
//
// ID is the manifest's skill_id (a UUIDv7), so listing by ID descending
// lists newest skills first.
type Skill struct {
	ID          string    `json:"id"`
	Slug        string    `json:"slug"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	BodyChoice  body.Kind `json:"body_choice"`

	// Version, BundleHash and BundleID identify the newest stored bundle.
	Version    int    `json:"version"`
	BundleHash string `json:"bundle_hash"`
	BundleID   string `json:"bundle_id"`
	// TraceID is the trace carried by that bundle (see Store.Trace).
	TraceID string `json:"trace_id"`
	// Verdict is the proof verdict that bundle claims (pass, partial,
	// fail, inconclusive) — a claim; the UI re-verifies before it shows
	// a bundle as verified.
	Verdict string `json:"verdict"`

	// CreatedAt and UpdatedAt are the manifest's timestamps: the first
	// stored version's created_at and the newest version's updated_at.
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`

	// ReplayCount counts the replays stored for this skill: those run
	// here and those its stored bundles carry, each once.
	ReplayCount int `json:"replay_count"`
	// LastReplay summarises the newest of them; nil before the first.
	LastReplay *ReplaySummary `json:"last_replay,omitempty"`
}

// ReplaySummary is what the library shows of a skill's newest replay.
type ReplaySummary struct {
	ReplayID string  `json:"replay_id"`
	Status   string  `json:"status"`
	Fidelity float64 `json:"fidelity"`
	Level    string  `json:"level"`
	EndedAt  string  `json:"ended_at"`
}

// Replay is a stored replay: the skill.ReplayRecord that package replay
// produced (the spec §5.3 report plus what was observed at each edge) and,
// when the user saved the replay as a new bundle, that bundle's content
// hash. Its key is the report's replay_id; it belongs to the report's
// skill_id.
type Replay struct {
	Record     skill.ReplayRecord `json:"record"`
	BundleHash string             `json:"bundle_hash,omitempty"`
}

// ID is the replay's key: the report's replay_id.
func (r Replay) ID() string { return r.Record.Report.ReplayID }

// SkillID is the skill the replay ran.
func (r Replay) SkillID() string { return r.Record.Report.SkillID }

// Check reports why r cannot be stored, as an *Error of kind ErrInvalid.
func (r Replay) Check(op string) error {
	switch {
	case r.ID() == "":
		return invalid(op, StoreReplays, "", "replay_report.replay_id is empty")
	case r.SkillID() == "":
		return invalid(op, StoreReplays, r.ID(), "replay_report.skill_id is empty")
	}
	return nil
}

// StoredBundle is a bundle as stored: its exact bytes and the members it is
// found by.
type StoredBundle struct {
	ContentHash  string `json:"content_hash"`
	SkillID      string `json:"skill_id"`
	SkillVersion int    `json:"skill_version"`
	BundleID     string `json:"bundle_id"`
	CreatedAt    string `json:"created_at"`
	// Data is the bundle file, byte for byte as it was added.
	Data []byte `json:"-"`
}

// Decode strictly decodes the stored bytes (skill.Decode).
func (b StoredBundle) Decode() (*skill.Bundle, error) {
	bundle, _, err := skill.Decode(b.Data)
	return bundle, err
}

// Filename is the name the bundle is exported under; slug is the skill's.
func (b StoredBundle) Filename(slug string) string {
	return skill.ExportFilename(slug, b.SkillVersion)
}

// BundleFile is a sealed bundle ready to be stored: the decoded bundle and
// the exact bytes that will be kept. Build one with NewBundleFile (bytes
// from a file), NewSealedBundleFile (bytes a verifier has read and checked
// already) or EncodeBundle (a bundle the workbench just sealed); each
// checks, or has had checked, that the bytes hash to the bundle's
// content_hash.
type BundleFile struct {
	Bundle *skill.Bundle
	Data   []byte
	// trace is the interaction_trace's bytes within traceIn, when the
	// constructor found them in the parsed document; TraceJSON uses them
	// while Data is still traceIn.
	trace, traceIn []byte
}

// NewBundleFile strictly decodes bundle bytes (an imported file) and checks
// that they are sealed: their content_hash is the hash of their content.
// Schema validation and proof re-verification are the importer's business;
// this is the minimum the store needs to key the bytes by their hash.
func NewBundleFile(data []byte) (BundleFile, error) {
	s, err := skill.ReadSealed(data)
	if err != nil {
		var se *skill.SealError
		if errors.As(err, &se) {
			return BundleFile{}, &Error{Op: "read bundle", Store: StoreBundles, Key: se.Claimed, Kind: ErrInvalid, Err: err}
		}
		return BundleFile{}, &Error{Op: "read bundle", Kind: ErrInvalid, Err: err}
	}
	return NewSealedBundleFile(s)
}

// NewSealedBundleFile is NewBundleFile for bytes already read and found
// sealed — by verify.Verifier.File, say, which verifies them on the way —
// so that the store decodes and hashes nothing again. Only package skill
// makes a skill.Sealed, and only when the seal holds.
func NewSealedBundleFile(s skill.Sealed) (BundleFile, error) {
	f := BundleFile{Bundle: s.Bundle(), Data: s.Data()}
	if doc := s.Document(); doc != nil {
		if v, ok := doc.At("/interaction_trace"); ok {
			f.trace, f.traceIn = v.Raw(), f.Data
		}
	}
	if err := f.Check("read bundle"); err != nil {
		return BundleFile{}, err
	}
	return f, nil
}

// EncodeBundle encodes a sealed bundle as the canonical bytes it is stored
// and exported as, and checks that its content_hash is current.
func EncodeBundle(b *skill.Bundle) (BundleFile, error) {
	data, err := b.Encode()
	if err != nil {
		return BundleFile{}, &Error{Op: "encode bundle", Store: StoreBundles, Key: b.ContentHash, Kind: ErrInvalid, Err: err}
	}
	f, err := NewBundleFile(data)
	if err != nil {
		return BundleFile{}, err
	}
	// Keep the caller's bundle: it may carry decoded values (numbers as
	// float64, say) that the caller compares against.
	f.Bundle = b
	return f, nil
}

// Check reports why f cannot be stored, as an *Error of kind ErrInvalid.
// It checks the members the store keys and indexes on; it does not re-hash.
func (f BundleFile) Check(op string) error {
	if f.Bundle == nil {
		return invalid(op, StoreBundles, "", "no decoded bundle")
	}
	b := f.Bundle
	key := b.ContentHash
	switch {
	case len(f.Data) == 0:
		return invalid(op, StoreBundles, key, "no bundle bytes")
	case !strings.HasPrefix(b.ContentHash, skill.HashPrefix) || len(b.ContentHash) != len(skill.HashPrefix)+64:
		return invalid(op, StoreBundles, key, "content_hash is not a sha256: hash; seal the bundle first")
	case !utf8.Valid(f.Data):
		return invalid(op, StoreBundles, key, "bundle bytes are not valid UTF-8")
	case b.SkillID == "":
		return invalid(op, StoreBundles, key, "skill_id is empty")
	case b.Manifest.SkillID != b.SkillID:
		return invalid(op, StoreBundles, key, fmt.Sprintf("manifest.skill_id %q differs from skill_id %q", b.Manifest.SkillID, b.SkillID))
	case b.SkillVersion < 1:
		return invalid(op, StoreBundles, key, fmt.Sprintf("skill_version %d: must be at least 1", b.SkillVersion))
	case b.Trace.TraceID == "":
		return invalid(op, StoreBundles, key, "interaction_trace.trace_id is empty")
	}
	return nil
}

// Stored is the bundle's stored form.
func (f BundleFile) Stored() StoredBundle {
	b := f.Bundle
	return StoredBundle{
		ContentHash:  b.ContentHash,
		SkillID:      b.SkillID,
		SkillVersion: b.SkillVersion,
		BundleID:     b.BundleID,
		CreatedAt:    b.CreatedAt,
		Data:         f.Data,
	}
}

// ApplyBundle returns the skill record after storing bundle b, given the
// record stored before (nil if the skill is new). A bundle newer than or as
// new as the stored version describes the skill from now on; an older one
// (an old version imported late) leaves the record as it was. Replay
// counts and the last replay are kept either way.
func ApplyBundle(prev *Skill, b *skill.Bundle) Skill {
	if prev != nil && b.SkillVersion < prev.Version {
		return *prev
	}
	s := Skill{
		ID:          b.SkillID,
		Slug:        b.Manifest.Slug,
		Name:        b.Manifest.Name,
		Description: b.Manifest.Description,
		BodyChoice:  b.Manifest.BodyChoice,
		Version:     b.SkillVersion,
		BundleHash:  b.ContentHash,
		BundleID:    b.BundleID,
		TraceID:     b.Trace.TraceID,
		Verdict:     b.Proof.OverallVerdict,
		CreatedAt:   b.Manifest.CreatedAt,
		UpdatedAt:   b.Manifest.UpdatedAt,
	}
	if prev != nil {
		s.CreatedAt = prev.CreatedAt
		s.ReplayCount = prev.ReplayCount
		s.LastReplay = prev.LastReplay
	}
	return s
}

// CarriedReplays returns the replays bundle f carries in its evidence
// (workbench.v1.ReplayExecuted events) as the store keeps them, each
// linked to f by BundleHash. Storing a bundle stores these too, so that a
// skill imported with its replays counts and summarises them as it did
// where it was replayed. A replay of another skill than f's is left out:
// it cannot belong to this skill's record, and the verifier, not the
// store, judges a bundle that carries one. So is a second record under a
// replay id already returned.
func CarriedReplays(f BundleFile) []Replay {
	var out []Replay
	seen := map[string]bool{}
	for _, rec := range f.Bundle.ReplayRecords() {
		r := Replay{Record: rec, BundleHash: f.Bundle.ContentHash}
		if r.SkillID() != f.Bundle.SkillID || seen[r.ID()] {
			continue
		}
		seen[r.ID()] = true
		out = append(out, r)
	}
	return out
}

// ApplyReplay returns the skill record after storing replay r. A replay
// stored for the first time (isNew) counts; the newest replay by id is the
// one summarised.
func ApplyReplay(s Skill, r Replay, isNew bool) Skill {
	if isNew {
		s.ReplayCount++
	}
	if s.LastReplay == nil || r.ID() >= s.LastReplay.ReplayID {
		rep := r.Record.Report
		s.LastReplay = &ReplaySummary{
			ReplayID: rep.ReplayID,
			Status:   rep.Status,
			Fidelity: rep.Fidelity,
			Level:    rep.FidelityLevel,
			EndedAt:  rep.EndedAt,
		}
	}
	return s
}

func invalid(op, store, key, reason string) error {
	return &Error{Op: op, Store: store, Key: key, Kind: ErrInvalid, Err: errorString(reason)}
}

// errorString is a plain error message as a value, so that *Error can wrap
// a reason without fmt.
type errorString string

func (e errorString) Error() string { return string(e) }

// CheckReplay reports why replay r, saved with bundle (nil for none),
// cannot be stored, as an *Error of kind ErrInvalid.
func CheckReplay(op string, r Replay, bundle *BundleFile) error {
	if err := r.Check(op); err != nil {
		return err
	}
	if bundle == nil {
		return nil
	}
	if err := bundle.Check(op); err != nil {
		return err
	}
	if bundle.Bundle.SkillID != r.SkillID() {
		return invalid(op, StoreBundles, bundle.Bundle.ContentHash,
			fmt.Sprintf("the bundle is of skill %s, the replay of skill %s", bundle.Bundle.SkillID, r.SkillID()))
	}
	return nil
}

// ConflictError is the ErrConflict of storing bundle b when its skill
// already has b's version stored under another content hash, storedHash.
func ConflictError(op string, b *skill.Bundle, storedHash string) error {
	return &Error{Op: op, Store: StoreBundles, Key: b.ContentHash, Kind: ErrConflict,
		Err: errorString(fmt.Sprintf("skill %s already has version %d stored as %s", b.SkillID, b.SkillVersion, storedHash))}
}

// MergeReplay returns the replay record to store when r is saved over prev,
// the record stored under the same id (nil if none): a replay already saved
// as a bundle keeps that link when it is saved again without one.
func MergeReplay(prev *Replay, r Replay) Replay {
	if r.BundleHash == "" && prev != nil {
		r.BundleHash = prev.BundleHash
	}
	return r
}

// CheckReplace reports why stored, the bundle ReplaceBundle would replace,
// cannot be replaced by f: it must be of f's skill and version, and not
// be f itself.
func CheckReplace(op string, stored StoredBundle, f BundleFile) error {
	b := f.Bundle
	if stored.ContentHash == b.ContentHash {
		return &Error{Op: op, Store: StoreBundles, Key: b.ContentHash, Kind: ErrDuplicate}
	}
	if stored.SkillID != b.SkillID || stored.SkillVersion != b.SkillVersion {
		return invalid(op, StoreBundles, stored.ContentHash, fmt.Sprintf(
			"the stored bundle is version %d of skill %s; the new one is version %d of skill %s",
			stored.SkillVersion, stored.SkillID, b.SkillVersion, b.SkillID))
	}
	return nil
}
