// Package mem is an in-memory store.Store with the same semantics as the
// IndexedDB one: every write is all or nothing, duplicates and conflicts
// are reported, records are kept in the encoded form IndexedDB keeps them
// (so a value that cannot be encoded fails the same way, and callers never
// share memory with the store). It is what native tests of the UI flows run
// against; nothing survives the process.
package mem

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"workbench/pkg/skill"
	"workbench/pkg/store"
)

// Store is an in-memory store.Store. The zero value is not usable; call
// New. It is safe for concurrent use: each call holds one lock for its
// whole duration, which makes calls serializable like IndexedDB
// transactions over the same stores.
type Store struct {
	mu     sync.Mutex
	closed bool
	skills map[string][]byte // id → JSON of store.Skill
	// traces: where each trace lies in a stored bundle's bytes, the
	// same reference IndexedDB keeps (store.TraceRef)
	traces  map[traceKey]store.TraceRef
	bundles map[string]store.StoredBundle // content hash → bundle
	replays map[string][]byte             // replay id → JSON of store.Replay
	// comparisons: comparison id → JSON of store.Comparison
	comparisons map[string][]byte
}

type traceKey struct{ skillID, traceID string }

var _ store.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	s := &Store{}
	s.reset()
	return s
}

func (s *Store) reset() {
	s.skills = map[string][]byte{}
	s.traces = map[traceKey]store.TraceRef{}
	s.bundles = map[string]store.StoredBundle{}
	s.replays = map[string][]byte{}
	s.comparisons = map[string][]byte{}
}

// begin locks the store for one operation, or reports why it cannot run.
func (s *Store) begin(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return &store.Error{Op: op, Kind: store.ErrAborted, Err: err}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return &store.Error{Op: op, Kind: store.ErrClosed}
	}
	return nil
}

// change is the writes of one operation, prepared in full before any is
// applied: that is what makes an operation all or nothing.
type change struct {
	// delBundles are removed before anything is written.
	delBundles []string
	skills     map[string][]byte
	traces     map[traceKey]store.TraceRef
	// delTraces are removed after traces are written.
	delTraces []traceKey
	bundles   []store.StoredBundle
	replays   map[string][]byte
}

func (c *change) apply(s *Store) {
	for _, h := range c.delBundles {
		delete(s.bundles, h)
	}
	for k, v := range c.skills {
		s.skills[k] = v
	}
	for k, v := range c.traces {
		s.traces[k] = v
	}
	for _, k := range c.delTraces {
		delete(s.traces, k)
	}
	for _, b := range c.bundles {
		s.bundles[b.ContentHash] = b
	}
	for k, v := range c.replays {
		s.replays[k] = v
	}
}

// AddBundle implements store.Store.
func (s *Store) AddBundle(ctx context.Context, f store.BundleFile) (store.Skill, error) {
	const op = "add bundle"
	if err := f.Check(op); err != nil {
		return store.Skill{}, err
	}
	if err := s.begin(ctx, op); err != nil {
		return store.Skill{}, err
	}
	defer s.mu.Unlock()
	c := &change{skills: map[string][]byte{}, traces: map[traceKey]store.TraceRef{}, replays: map[string][]byte{}}
	prev, err := s.skill(op, f.Bundle.SkillID, false)
	if err != nil {
		return store.Skill{}, err
	}
	sk, err := s.addBundle(op, c, prev, f, "")
	if err != nil {
		return store.Skill{}, err
	}
	c.apply(s)
	return sk, nil
}

// addBundle prepares the writes of storing f on top of skill record prev
// (nil if none) and returns the new skill record. replaced is the content
// hash of a bundle the same change removes ("" for none): it holds f's
// version no longer.
func (s *Store) addBundle(op string, c *change, prev *store.Skill, f store.BundleFile, replaced string) (store.Skill, error) {
	b := f.Bundle
	if _, ok := s.bundles[b.ContentHash]; ok {
		return store.Skill{}, &store.Error{Op: op, Store: store.StoreBundles, Key: b.ContentHash, Kind: store.ErrDuplicate}
	}
	for _, other := range s.bundles {
		if other.ContentHash != replaced && other.SkillID == b.SkillID && other.SkillVersion == b.SkillVersion {
			return store.Skill{}, store.ConflictError(op, b, other.ContentHash)
		}
	}
	trace, err := f.TraceRef()
	if err != nil {
		return store.Skill{}, &store.Error{Op: op, Store: store.StoreTraces, Key: b.Trace.TraceID, Kind: store.ErrInvalid, Err: err}
	}
	sk := store.ApplyBundle(prev, b)
	for _, r := range store.CarriedReplays(f) {
		if _, ok := s.replays[r.ID()]; ok {
			continue
		}
		if _, ok := c.replays[r.ID()]; ok {
			continue
		}
		data, err := json.Marshal(r)
		if err != nil {
			return store.Skill{}, &store.Error{Op: op, Store: store.StoreReplays, Key: r.ID(), Kind: store.ErrInvalid, Err: err}
		}
		c.replays[r.ID()] = data
		sk = store.ApplyReplay(sk, r, true)
	}
	rec, err := json.Marshal(sk)
	if err != nil {
		return store.Skill{}, &store.Error{Op: op, Store: store.StoreSkills, Key: sk.ID, Kind: store.ErrInvalid, Err: err}
	}
	stored := f.Stored()
	stored.Data = slices.Clone(f.Data)
	c.bundles = append(c.bundles, stored)
	c.traces[traceKey{b.SkillID, b.Trace.TraceID}] = trace
	c.skills[sk.ID] = rec
	return sk, nil
}

// SaveReplay implements store.Store.
func (s *Store) SaveReplay(ctx context.Context, r store.Replay, bundle *store.BundleFile) (store.Skill, error) {
	const op = "save replay"
	if err := store.CheckReplay(op, r, bundle); err != nil {
		return store.Skill{}, err
	}
	if bundle != nil {
		r.BundleHash = bundle.Bundle.ContentHash
	}
	if err := s.begin(ctx, op); err != nil {
		return store.Skill{}, err
	}
	defer s.mu.Unlock()
	c := &change{skills: map[string][]byte{}, traces: map[traceKey]store.TraceRef{}, replays: map[string][]byte{}}
	prev, err := s.skill(op, r.SkillID(), true)
	if err != nil {
		return store.Skill{}, err
	}
	prevData, seen := s.replays[r.ID()]
	if seen {
		var stored store.Replay
		if err := json.Unmarshal(prevData, &stored); err != nil {
			return store.Skill{}, &store.Error{Op: op, Store: store.StoreReplays, Key: r.ID(), Kind: store.ErrInvalid, Err: err}
		}
		r = store.MergeReplay(&stored, r)
	}
	rec, err := json.Marshal(r)
	if err != nil {
		return store.Skill{}, &store.Error{Op: op, Store: store.StoreReplays, Key: r.ID(), Kind: store.ErrInvalid, Err: err}
	}
	c.replays[r.ID()] = rec
	sk := *prev
	if bundle != nil {
		if sk, err = s.addBundle(op, c, prev, *bundle, ""); err != nil {
			return store.Skill{}, err
		}
	}
	sk = store.ApplyReplay(sk, r, !seen)
	if c.skills[sk.ID], err = json.Marshal(sk); err != nil {
		return store.Skill{}, &store.Error{Op: op, Store: store.StoreSkills, Key: sk.ID, Kind: store.ErrInvalid, Err: err}
	}
	c.apply(s)
	return sk, nil
}

// skill decodes the stored record of skill id: nil if there is none, or
// ErrNotFound if must is set.
func (s *Store) skill(op, id string, must bool) (*store.Skill, error) {
	data, ok := s.skills[id]
	if !ok {
		if must {
			return nil, &store.Error{Op: op, Store: store.StoreSkills, Key: id, Kind: store.ErrNotFound}
		}
		return nil, nil
	}
	var sk store.Skill
	if err := json.Unmarshal(data, &sk); err != nil {
		return nil, &store.Error{Op: op, Store: store.StoreSkills, Key: id, Kind: store.ErrInvalid, Err: err}
	}
	return &sk, nil
}

// Skills implements store.Store.
func (s *Store) Skills(ctx context.Context) ([]store.Skill, error) {
	const op = "list skills"
	if err := s.begin(ctx, op); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	out := make([]store.Skill, 0, len(s.skills))
	for id := range s.skills {
		sk, err := s.skill(op, id, true)
		if err != nil {
			return nil, err
		}
		out = append(out, *sk)
	}
	slices.SortFunc(out, func(a, b store.Skill) int { return cmp.Compare(b.ID, a.ID) })
	return out, nil
}

// ListSkills implements store.Store. It decodes every record, as an
// in-memory store may: only the IndexedDB store's listing cost matters.
func (s *Store) ListSkills(ctx context.Context, q store.SkillQuery) (store.SkillList, error) {
	all, err := s.Skills(ctx)
	if err != nil {
		return store.SkillList{}, err
	}
	return q.Select(all), nil
}

// Skill implements store.Store.
func (s *Store) Skill(ctx context.Context, id string) (store.Skill, error) {
	const op = "get skill"
	if err := s.begin(ctx, op); err != nil {
		return store.Skill{}, err
	}
	defer s.mu.Unlock()
	sk, err := s.skill(op, id, true)
	if err != nil {
		return store.Skill{}, err
	}
	return *sk, nil
}

// Trace implements store.Store.
func (s *Store) Trace(ctx context.Context, skillID, traceID string) (*skill.Trace, error) {
	const op = "get trace"
	if err := s.begin(ctx, op); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	ref, ok := s.traces[traceKey{skillID, traceID}]
	if !ok {
		return nil, &store.Error{Op: op, Store: store.StoreTraces, Key: skillID + " " + traceID, Kind: store.ErrNotFound}
	}
	var t skill.Trace
	data, err := ref.In(s.bundles[ref.Bundle].Data)
	if err == nil {
		err = json.Unmarshal(data, &t)
	}
	if err != nil {
		return nil, &store.Error{Op: op, Store: store.StoreTraces, Key: skillID + " " + traceID, Kind: store.ErrInvalid, Err: err}
	}
	return &t, nil
}

// Bundle implements store.Store.
func (s *Store) Bundle(ctx context.Context, contentHash string) (store.StoredBundle, error) {
	const op = "get bundle"
	if err := s.begin(ctx, op); err != nil {
		return store.StoredBundle{}, err
	}
	defer s.mu.Unlock()
	b, ok := s.bundles[contentHash]
	if !ok {
		return store.StoredBundle{}, &store.Error{Op: op, Store: store.StoreBundles, Key: contentHash, Kind: store.ErrNotFound}
	}
	b.Data = slices.Clone(b.Data)
	return b, nil
}

// Bundles implements store.Store.
func (s *Store) Bundles(ctx context.Context, skillID string) ([]store.StoredBundle, error) {
	if err := s.begin(ctx, "list bundles"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	out := []store.StoredBundle{}
	for _, b := range s.bundles {
		if b.SkillID == skillID {
			b.Data = slices.Clone(b.Data)
			out = append(out, b)
		}
	}
	slices.SortFunc(out, func(a, b store.StoredBundle) int { return cmp.Compare(a.SkillVersion, b.SkillVersion) })
	return out, nil
}

// Replays implements store.Store.
func (s *Store) Replays(ctx context.Context, skillID string) ([]store.Replay, error) {
	const op = "list replays"
	if err := s.begin(ctx, op); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	out := []store.Replay{}
	for id, data := range s.replays {
		var r store.Replay
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, &store.Error{Op: op, Store: store.StoreReplays, Key: id, Kind: store.ErrInvalid, Err: err}
		}
		if r.SkillID() == skillID {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b store.Replay) int { return cmp.Compare(b.ID(), a.ID()) })
	return out, nil
}

// SaveComparison implements store.Store.
func (s *Store) SaveComparison(ctx context.Context, c store.Comparison) error {
	const op = "save comparison"
	if err := c.Check(op); err != nil {
		return err
	}
	data, err := json.Marshal(c)
	if err != nil {
		return &store.Error{Op: op, Store: store.StoreComparisons, Key: c.ID, Kind: store.ErrInvalid, Err: err}
	}
	if err := s.begin(ctx, op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if _, err := s.skill(op, c.SkillID, true); err != nil {
		return err
	}
	s.comparisons[c.ID] = data
	return nil
}

// Comparisons implements store.Store.
func (s *Store) Comparisons(ctx context.Context, skillID string) ([]store.Comparison, error) {
	const op = "list comparisons"
	if err := s.begin(ctx, op); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	out := []store.Comparison{}
	for id, data := range s.comparisons {
		var c store.Comparison
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, &store.Error{Op: op, Store: store.StoreComparisons, Key: id, Kind: store.ErrInvalid, Err: err}
		}
		if c.SkillID == skillID {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b store.Comparison) int { return cmp.Compare(b.ID, a.ID) })
	return out, nil
}

// DeleteSkill implements store.Store.
func (s *Store) DeleteSkill(ctx context.Context, id string) error {
	const op = "delete skill"
	if err := s.begin(ctx, op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if _, ok := s.skills[id]; !ok {
		return &store.Error{Op: op, Store: store.StoreSkills, Key: id, Kind: store.ErrNotFound}
	}
	// Find every replay first: a record that cannot be read fails the
	// delete before anything is removed.
	var replays []string
	for rid, data := range s.replays {
		var r store.Replay
		if err := json.Unmarshal(data, &r); err != nil {
			return &store.Error{Op: op, Store: store.StoreReplays, Key: rid, Kind: store.ErrInvalid, Err: err}
		}
		if r.SkillID() == id {
			replays = append(replays, rid)
		}
	}
	var comparisons []string
	for cid, data := range s.comparisons {
		var c store.Comparison
		if err := json.Unmarshal(data, &c); err != nil {
			return &store.Error{Op: op, Store: store.StoreComparisons, Key: cid, Kind: store.ErrInvalid, Err: err}
		}
		if c.SkillID == id {
			comparisons = append(comparisons, cid)
		}
	}
	for _, rid := range replays {
		delete(s.replays, rid)
	}
	for _, cid := range comparisons {
		delete(s.comparisons, cid)
	}
	for h, b := range s.bundles {
		if b.SkillID == id {
			delete(s.bundles, h)
		}
	}
	for k := range s.traces {
		if k.skillID == id {
			delete(s.traces, k)
		}
	}
	delete(s.skills, id)
	return nil
}

// ReplaceBundle implements store.Store.
func (s *Store) ReplaceBundle(ctx context.Context, oldHash string, f store.BundleFile) (store.Skill, error) {
	const op = "replace bundle"
	if err := f.Check(op); err != nil {
		return store.Skill{}, err
	}
	if err := s.begin(ctx, op); err != nil {
		return store.Skill{}, err
	}
	defer s.mu.Unlock()
	old, ok := s.bundles[oldHash]
	if !ok {
		return store.Skill{}, &store.Error{Op: op, Store: store.StoreBundles, Key: oldHash, Kind: store.ErrNotFound}
	}
	if err := store.CheckReplace(op, old, f); err != nil {
		return store.Skill{}, err
	}
	c := &change{delBundles: []string{oldHash}, skills: map[string][]byte{}, traces: map[traceKey]store.TraceRef{}, replays: map[string][]byte{}}
	newHash := f.Bundle.ContentHash
	for rid, data := range s.replays {
		var r store.Replay
		if err := json.Unmarshal(data, &r); err != nil {
			return store.Skill{}, &store.Error{Op: op, Store: store.StoreReplays, Key: rid, Kind: store.ErrInvalid, Err: err}
		}
		if r.BundleHash != oldHash {
			continue
		}
		r.BundleHash = newHash
		rec, err := json.Marshal(r)
		if err != nil {
			return store.Skill{}, &store.Error{Op: op, Store: store.StoreReplays, Key: rid, Kind: store.ErrInvalid, Err: err}
		}
		c.replays[rid] = rec
	}
	prev, err := s.skill(op, f.Bundle.SkillID, false)
	if err != nil {
		return store.Skill{}, err
	}
	sk, err := s.addBundle(op, c, prev, f, oldHash)
	if err != nil {
		return store.Skill{}, err
	}
	// A trace the replaced copy held stays while another stored bundle
	// carries it, and goes with the copy otherwise.
	var others []store.StoredBundle
	for _, b := range s.bundles {
		if b.SkillID == f.Bundle.SkillID && b.ContentHash != oldHash {
			others = append(others, b)
		}
	}
	for k, ref := range s.traces {
		if ref.Bundle != oldHash || k.skillID != f.Bundle.SkillID {
			continue
		}
		if _, ok := c.traces[k]; ok {
			continue
		}
		if moved, ok := store.FindTrace(k.traceID, others); ok {
			c.traces[k] = moved
		} else {
			c.delTraces = append(c.delTraces, k)
		}
	}
	c.apply(s)
	return sk, nil
}

// Clear implements store.Store.
func (s *Store) Clear(ctx context.Context) error {
	if err := s.begin(ctx, "clear"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	s.reset()
	return nil
}

// Close implements store.Store. The data is dropped.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.reset()
	return nil
}
