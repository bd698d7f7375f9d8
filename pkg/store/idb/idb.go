//go:build js && wasm

package idb

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hack-pad/safejs"

	"workbench/pkg/jsbytes"
	"workbench/pkg/skill"
	"workbench/pkg/sortfunc"
	"workbench/pkg/store"
)

// DB is an open IndexedDB database holding the workbench's library. It
// implements store.Store and is safe for concurrent use; IndexedDB orders
// transactions whose object stores overlap.
type DB struct {
	name string
	db   safejs.Value
	// closed holds why the connection is closed, once it is.
	closed          atomic.Pointer[error]
	onVersionChange safejs.Func
	closeOnce       sync.Once
}

var _ store.Store = (*DB)(nil)

// Open opens (creating or upgrading as needed) the IndexedDB database name
// at store.SchemaVersion. The workbench uses store.DatabaseName; tests use
// names of their own.
//
// While another tab holds an older version open and does not let go, the
// upgrade waits. blocked, if not nil, is then called once (from Open's own
// goroutine) so the page can say so; Open keeps waiting until the other
// tab closes or ctx ends, and then fails with store.ErrBlocked.
func Open(ctx context.Context, name string, blocked func()) (*DB, error) {
	return open(ctx, name, migrations(), blocked)
}

// open opens name at version len(migs), running the migrations the stored
// version lacks.
func open(ctx context.Context, name string, migs []migration, blocked func()) (*DB, error) {
	factory, err := indexedDB("open")
	if err != nil {
		return nil, err
	}
	return openOn(ctx, factory, name, migs, blocked)
}

// openOn opens name in the IDBFactory factory: the page's indexedDB, or a
// storage bucket's (the quota test uses one with a small quota).
func openOn(ctx context.Context, factory safejs.Value, name string, migs []migration, blocked func()) (*DB, error) {
	const op = "open"
	req, err := factory.Call("open", name, len(migs))
	if err != nil {
		return nil, fail(op, "", name, thrown(err))
	}

	// The upgrade runs inside the upgradeneeded event, synchronously, and
	// before the success or error event that ends the wait below, which
	// orders the write of upgradeErr before its read.
	var upgradeErr error
	upgrade, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		upgradeErr = runMigrations(req, args, migs)
		if upgradeErr != nil {
			if tx, err := req.Get("transaction"); err == nil {
				_, _ = tx.Call("abort")
			}
		}
		return nil
	})
	if err != nil {
		return nil, &store.Error{Op: op, Key: name, Kind: store.ErrUnavailable, Err: err}
	}
	if err := req.Set("onupgradeneeded", upgrade); err != nil {
		upgrade.Release()
		return nil, &store.Error{Op: op, Key: name, Kind: store.ErrUnavailable, Err: err}
	}
	events, release, err := listen(req, "success", "error", "blocked")
	if err != nil {
		upgrade.Release()
		return nil, &store.Error{Op: op, Key: name, Kind: store.ErrUnavailable, Err: err}
	}
	done := func() {
		release()
		_ = req.Set("onupgradeneeded", safejs.Null())
		upgrade.Release()
	}

	var ev event
	wasBlocked := false
	for ev.name == "" {
		select {
		case ev = <-events:
			if ev.name == "blocked" {
				// Informational: the request stays pending until the other
				// connections close, which may be a moment away (a tab
				// finishing a transaction) or never.
				wasBlocked = true
				ev = event{}
				if blocked != nil {
					blocked()
				}
			}
		case <-ctx.Done():
			// If the database opens after all, close it again.
			go closeWhenOpen(req, events, done)
			if wasBlocked {
				return nil, &store.Error{Op: op, Key: name, Kind: store.ErrBlocked,
					Err: fmt.Errorf("another tab has an older version of the database open; close it to upgrade to version %d", len(migs))}
			}
			return nil, &store.Error{Op: op, Key: name, Kind: store.ErrAborted, Err: ctx.Err()}
		}
	}
	switch ev.name {
	case "error":
		done()
		if upgradeErr != nil {
			return nil, &store.Error{Op: op, Key: name, Kind: store.ErrVersion, Err: upgradeErr}
		}
		if ev.err == nil {
			ev.err = &domError{name: "UnknownError", message: "opening failed without an error"}
		}
		if ev.err.name == "VersionError" {
			return nil, &store.Error{Op: op, Key: name, Kind: store.ErrVersion,
				Err: fmt.Errorf("the stored database is newer than this build (schema version %d): %w", len(migs), ev.err)}
		}
		return nil, fail(op, "", name, ev.err)
	}
	done()
	conn, err := req.Get("result")
	if err != nil {
		return nil, &store.Error{Op: op, Key: name, Kind: store.ErrUnavailable, Err: err}
	}
	d := &DB{name: name, db: conn}
	// Another tab (or this one) wants a newer version: close at once so
	// its upgrade is not blocked; later calls here report why.
	d.onVersionChange, err = safejs.FuncOf(func(safejs.Value, []safejs.Value) any {
		d.markClosed(errors.New("another tab upgraded the database; reload this page"))
		_, _ = conn.Call("close")
		return nil
	})
	if err == nil {
		err = conn.Set("onversionchange", d.onVersionChange)
	}
	if err != nil {
		_, _ = conn.Call("close")
		return nil, &store.Error{Op: op, Key: name, Kind: store.ErrUnavailable, Err: err}
	}
	return d, nil
}

// runMigrations is the body of the upgradeneeded handler.
func runMigrations(req safejs.Value, args []safejs.Value, migs []migration) error {
	if len(args) == 0 {
		return errors.New("upgradeneeded without an event")
	}
	old, err := jsInt(args[0], "oldVersion")
	if err != nil {
		return fmt.Errorf("upgradeneeded: %w", err)
	}
	db, err := req.Get("result")
	if err != nil {
		return err
	}
	tx, err := req.Get("transaction")
	if err != nil {
		return err
	}
	for v := old; v < len(migs); v++ {
		if err := migs[v](db, tx); err != nil {
			return fmt.Errorf("upgrade from version %d to %d: %w", v, v+1, err)
		}
	}
	return nil
}

// closeWhenOpen waits for an open request the caller gave up on and
// closes the connection if it opens after all.
func closeWhenOpen(req safejs.Value, events <-chan event, done func()) {
	for ev := range events {
		if ev.name == "blocked" {
			continue
		}
		if ev.name == "success" {
			if conn, err := req.Get("result"); err == nil {
				_, _ = conn.Call("close")
			}
		}
		break
	}
	done()
}

// indexedDB returns the IDBFactory, or ErrUnavailable.
func indexedDB(op string) (safejs.Value, error) {
	factory, err := safejs.Global().Get("indexedDB")
	if err == nil && (factory.IsUndefined() || factory.IsNull()) {
		err = errors.New("this browser offers no IndexedDB")
	}
	if err != nil {
		return safejs.Value{}, &store.Error{Op: op, Kind: store.ErrUnavailable, Err: err}
	}
	return factory, nil
}

// Delete deletes the database name. It waits while other connections
// close; if one has not closed when ctx ends, it fails with
// store.ErrBlocked.
func Delete(ctx context.Context, name string) error {
	const op = "delete database"
	factory, err := indexedDB(op)
	if err != nil {
		return err
	}
	req, err := factory.Call("deleteDatabase", name)
	if err != nil {
		return fail(op, "", name, thrown(err))
	}
	events, release, err := listen(req, "success", "error", "blocked")
	if err != nil {
		return &store.Error{Op: op, Key: name, Kind: store.ErrUnavailable, Err: err}
	}
	defer release()
	wasBlocked := false
	for {
		select {
		case ev := <-events:
			switch ev.name {
			case "success":
				return nil
			case "blocked":
				wasBlocked = true // informational, as in Open
				continue
			}
			if ev.err == nil {
				ev.err = &domError{name: "UnknownError"}
			}
			return fail(op, "", name, ev.err)
		case <-ctx.Done():
			if wasBlocked {
				return &store.Error{Op: op, Key: name, Kind: store.ErrBlocked,
					Err: errors.New("another tab has the database open")}
			}
			return &store.Error{Op: op, Key: name, Kind: store.ErrAborted, Err: ctx.Err()}
		}
	}
}

func (d *DB) markClosed(reason error) {
	d.closed.CompareAndSwap(nil, &reason)
}

// conn returns the open connection, or ErrClosed with the reason.
func (d *DB) conn(op string) (safejs.Value, error) {
	if reason := d.closed.Load(); reason != nil {
		return safejs.Value{}, &store.Error{Op: op, Key: d.name, Kind: store.ErrClosed, Err: *reason}
	}
	return d.db, nil
}

// Close implements store.Store. Transactions already started finish
// first; calling Close again does nothing.
func (d *DB) Close() error {
	d.closeOnce.Do(func() {
		if d.closed.CompareAndSwap(nil, ptr(errors.New("closed by this page"))) {
			_, _ = d.db.Call("close")
		}
		_ = d.db.Set("onversionchange", safejs.Null())
		d.onVersionChange.Release()
	})
	return nil
}

func ptr[T any](v T) *T { return &v }

// AddBundle implements store.Store.
func (d *DB) AddBundle(ctx context.Context, f store.BundleFile) (store.Skill, error) {
	const op = "add bundle"
	if err := f.Check(op); err != nil {
		return store.Skill{}, err
	}
	trace, err := traceValue(op, f)
	if err != nil {
		return store.Skill{}, err
	}
	t, err := d.begin(ctx, op, "readwrite", store.StoreSkills, store.StoreTraces, store.StoreBundles, store.StoreReplays)
	if err != nil {
		return store.Skill{}, err
	}
	if err := t.writeBundle(f, trace); err != nil {
		return store.Skill{}, err
	}
	return d.commitBundle(ctx, t, f)
}

// commitBundle ends a transaction that has written bundle f: the skill's
// record takes the bundle in (store.ApplyBundle, with what the stored
// copy carried), and the transaction is waited for. An error is refined
// to the store's own kinds (d.refine).
func (d *DB) commitBundle(ctx context.Context, t *txn, f store.BundleFile) (store.Skill, error) {
	prev, err := t.skill(ctx, f.Bundle.SkillID)
	if err != nil {
		return store.Skill{}, d.refine(ctx, err, f.Bundle)
	}
	sk, err := t.putCarried(ctx, f, store.ApplyBundle(prev, f.Bundle), "")
	if err != nil {
		return store.Skill{}, d.refine(ctx, err, f.Bundle)
	}
	if err := t.putSkill(sk); err != nil {
		return store.Skill{}, err
	}
	if err := t.wait(ctx); err != nil {
		return store.Skill{}, d.refine(ctx, err, f.Bundle)
	}
	return sk, nil
}

// SaveReplay implements store.Store.
func (d *DB) SaveReplay(ctx context.Context, r store.Replay, bundle *store.BundleFile) (store.Skill, error) {
	const op = "save replay"
	if err := store.CheckReplay(op, r, bundle); err != nil {
		return store.Skill{}, err
	}
	var trace map[string]any
	if bundle != nil {
		r.BundleHash = bundle.Bundle.ContentHash
		var err error
		if trace, err = traceValue(op, *bundle); err != nil {
			return store.Skill{}, err
		}
	}
	t, err := d.begin(ctx, op, "readwrite", store.StoreSkills, store.StoreTraces, store.StoreBundles, store.StoreReplays)
	if err != nil {
		return store.Skill{}, err
	}
	prev, err := t.skill(ctx, r.SkillID())
	if err != nil {
		return store.Skill{}, err
	}
	if prev == nil {
		return store.Skill{}, t.abort(&store.Error{Op: op, Store: store.StoreSkills, Key: r.SkillID(), Kind: store.ErrNotFound})
	}
	stored, err := t.replay(ctx, r.ID())
	if err != nil {
		return store.Skill{}, err
	}
	r = store.MergeReplay(stored, r)
	if err := t.putReplay(r); err != nil {
		return store.Skill{}, err
	}
	sk := *prev
	if bundle != nil {
		if err := t.writeBundle(*bundle, trace); err != nil {
			return store.Skill{}, err
		}
		if sk, err = t.putCarried(ctx, *bundle, store.ApplyBundle(prev, bundle.Bundle), r.ID()); err != nil {
			return store.Skill{}, d.refine(ctx, err, bundle.Bundle)
		}
	}
	sk = store.ApplyReplay(sk, r, stored == nil)
	if err := t.putSkill(sk); err != nil {
		return store.Skill{}, err
	}
	if err := t.wait(ctx); err != nil {
		if bundle != nil {
			return store.Skill{}, d.refine(ctx, err, bundle.Bundle)
		}
		return store.Skill{}, err
	}
	return sk, nil
}

// traceValue is a bundle's trace record as it is stored in traces: where
// the trace lies in the bundle's bytes (store.TraceRef), not a second copy
// of them. It runs before the transaction starts, so a bundle whose trace
// cannot be found stops the write before anything is written.
func traceValue(op string, f store.BundleFile) (map[string]any, error) {
	r, err := f.TraceRef()
	if err != nil {
		return nil, &store.Error{Op: op, Store: store.StoreTraces, Key: f.Bundle.Trace.TraceID, Kind: store.ErrInvalid, Err: err}
	}
	return traceRecord(r), nil
}

func traceRecord(r store.TraceRef) map[string]any {
	return map[string]any{"skill_id": r.SkillID, "trace_id": r.TraceID, "bundle": r.Bundle, "start": r.Start, "end": r.End}
}

// writeBundle issues the writes of a bundle and its trace: the trace first,
// so that a bundle the database refuses (a duplicate content hash, a
// second bundle for one version) rolls back a write already made.
func (t *txn) writeBundle(f store.BundleFile, trace map[string]any) error {
	b := f.Bundle
	if err := t.call(store.StoreTraces, b.SkillID+" "+b.Trace.TraceID, "put", trace); err != nil {
		return err
	}
	data, err := jsbytes.ToJS(f.Data)
	if err != nil {
		return t.abort(&store.Error{Op: t.op, Store: store.StoreBundles, Key: b.ContentHash, Kind: store.ErrAborted, Err: err})
	}
	return t.call(store.StoreBundles, b.ContentHash, "add", map[string]any{
		"content_hash":  b.ContentHash,
		"skill_id":      b.SkillID,
		"skill_version": b.SkillVersion,
		"bundle_id":     b.BundleID,
		"created_at":    b.CreatedAt,
		"data":          data,
	})
}

// putReplay issues the write of replay record r.
func (t *txn) putReplay(r store.Replay) error {
	data, err := json.Marshal(r)
	if err != nil {
		return t.abort(&store.Error{Op: t.op, Store: store.StoreReplays, Key: r.ID(), Kind: store.ErrInvalid, Err: err})
	}
	return t.call(store.StoreReplays, r.ID(), "put", map[string]any{
		"replay_id": r.ID(), "skill_id": r.SkillID(), "json": string(data),
	})
}

// putCarried stores the replays bundle f carries (store.CarriedReplays)
// that are not stored yet, and returns sk, f's skill record, counting
// them. A replay already stored keeps its record and is not counted
// again. skip is the id of a replay the caller writes itself.
func (t *txn) putCarried(ctx context.Context, f store.BundleFile, sk store.Skill, skip string) (store.Skill, error) {
	carried := store.CarriedReplays(f)
	if len(carried) == 0 {
		return sk, nil
	}
	os, err := t.objectStore(store.StoreReplays)
	if err != nil {
		return sk, t.abort(err)
	}
	for _, r := range carried {
		if r.ID() == skip {
			continue
		}
		key, err := t.get(ctx, os, store.StoreReplays, r.ID(), "getKey", r.ID())
		if err != nil {
			return sk, err
		}
		if !key.IsUndefined() {
			continue
		}
		if err := t.putReplay(r); err != nil {
			return sk, err
		}
		sk = store.ApplyReplay(sk, r, true)
	}
	return sk, nil
}

func (t *txn) putSkill(sk store.Skill) error {
	data, err := json.Marshal(sk)
	if err != nil {
		return t.abort(&store.Error{Op: t.op, Store: store.StoreSkills, Key: sk.ID, Kind: store.ErrInvalid, Err: err})
	}
	return t.call(store.StoreSkills, sk.ID, "put", string(data), sk.ID)
}

// skill reads and decodes a skill record in the transaction; nil if none.
func (t *txn) skill(ctx context.Context, id string) (*store.Skill, error) {
	os, err := t.objectStore(store.StoreSkills)
	if err != nil {
		return nil, t.abort(err)
	}
	v, err := t.get(ctx, os, store.StoreSkills, id, "get", id)
	if err != nil || v.IsUndefined() {
		return nil, err
	}
	sk, err := decodeSkill(v)
	if err != nil {
		return nil, t.abort(&store.Error{Op: t.op, Store: store.StoreSkills, Key: id, Kind: store.ErrInvalid, Err: err})
	}
	return &sk, nil
}

// replay reads and decodes a replay record in the transaction; nil if none.
func (t *txn) replay(ctx context.Context, id string) (*store.Replay, error) {
	os, err := t.objectStore(store.StoreReplays)
	if err != nil {
		return nil, t.abort(err)
	}
	v, err := t.get(ctx, os, store.StoreReplays, id, "get", id)
	if err != nil || v.IsUndefined() {
		return nil, err
	}
	var r store.Replay
	if err := decodeJSON(v, &r); err != nil {
		return nil, t.abort(&store.Error{Op: t.op, Store: store.StoreReplays, Key: id, Kind: store.ErrInvalid, Err: err})
	}
	return &r, nil
}

// refine tells a duplicate from a conflict after the database refused a
// bundle (both are a ConstraintError): it looks, in a new transaction, for
// the content hash and then for the skill version.
func (d *DB) refine(ctx context.Context, err error, b *skill.Bundle) error {
	if !errors.Is(err, store.ErrDuplicate) {
		return err
	}
	if _, gerr := d.Bundle(ctx, b.ContentHash); gerr == nil {
		return err
	}
	bs, lerr := d.Bundles(ctx, b.SkillID)
	if lerr != nil {
		return err
	}
	for _, other := range bs {
		if other.SkillVersion == b.SkillVersion {
			var se *store.Error
			errors.As(err, &se)
			return store.ConflictError(se.Op, b, other.ContentHash)
		}
	}
	return err
}

// Skills implements store.Store.
func (d *DB) Skills(ctx context.Context) ([]store.Skill, error) {
	list, err := d.ListSkills(ctx, store.SkillQuery{})
	return list.Skills, err
}

// Skill implements store.Store.
func (d *DB) Skill(ctx context.Context, id string) (store.Skill, error) {
	const op = "get skill"
	v, err := d.getOne(ctx, op, store.StoreSkills, id, id)
	if err != nil {
		return store.Skill{}, err
	}
	sk, err := decodeSkill(v)
	if err != nil {
		return store.Skill{}, &store.Error{Op: op, Store: store.StoreSkills, Key: id, Kind: store.ErrInvalid, Err: err}
	}
	return sk, nil
}

// decodeSkill decodes a stored skill record: a JSON string.
func decodeSkill(v safejs.Value) (store.Skill, error) {
	var sk store.Skill
	if v.Type() != safejs.TypeString {
		return sk, fmt.Errorf("skill record is %s, not a JSON string", v.Type())
	}
	s, err := v.String()
	if err != nil {
		return sk, err
	}
	return sk, json.Unmarshal([]byte(s), &sk)
}

// Trace implements store.Store. A trace record names the bundle that
// holds the trace's bytes and where (store.TraceRef); a record written by
// an earlier workbench holds a copy of the bytes in json, and is read as
// it is.
func (d *DB) Trace(ctx context.Context, skillID, traceID string) (*skill.Trace, error) {
	const op = "get trace"
	key := skillID + " " + traceID
	t, err := d.begin(ctx, op, "readonly", store.StoreTraces, store.StoreBundles)
	if err != nil {
		return nil, err
	}
	traces, err := t.objectStore(store.StoreTraces)
	if err != nil {
		return nil, t.abort(err)
	}
	v, err := t.get(ctx, traces, store.StoreTraces, key, "get", []any{skillID, traceID})
	if err != nil {
		return nil, err
	}
	if v.IsUndefined() {
		return nil, t.abort(&store.Error{Op: op, Store: store.StoreTraces, Key: key, Kind: store.ErrNotFound})
	}
	raw, err := t.traceBytes(ctx, skillID, traceID, v)
	if err != nil {
		return nil, err
	}
	if err := t.wait(ctx); err != nil {
		return nil, err
	}
	var tr skill.Trace
	if err := json.Unmarshal(raw, &tr); err != nil {
		return nil, &store.Error{Op: op, Store: store.StoreTraces, Key: key, Kind: store.ErrInvalid, Err: err}
	}
	return &tr, nil
}

// traceBytes reads the bytes of stored trace record v, whose key is
// skillID and traceID.
func (t *txn) traceBytes(ctx context.Context, skillID, traceID string, v safejs.Value) ([]byte, error) {
	invalid := func(err error) error {
		return t.abort(&store.Error{Op: t.op, Store: store.StoreTraces, Key: skillID + " " + traceID, Kind: store.ErrInvalid, Err: err})
	}
	if copied, err := v.Get("json"); err == nil && !copied.IsUndefined() {
		raw, err := jsbytes.ToGo(copied)
		if err != nil {
			return nil, invalid(err)
		}
		return raw, nil
	}
	r := store.TraceRef{SkillID: skillID, TraceID: traceID}
	var err error
	if r.Bundle, err = jsString(v, "bundle"); err == nil {
		if r.Start, err = jsInt(v, "start"); err == nil {
			r.End, err = jsInt(v, "end")
		}
	}
	if err != nil {
		return nil, invalid(err)
	}
	bundles, err := t.objectStore(store.StoreBundles)
	if err != nil {
		return nil, t.abort(err)
	}
	b, err := t.get(ctx, bundles, store.StoreBundles, r.Bundle, "get", r.Bundle)
	if err != nil {
		return nil, err
	}
	if b.IsUndefined() {
		return nil, invalid(fmt.Errorf("the record names bundle %s, which is not stored", r.Bundle))
	}
	sb, err := bundleFrom(b)
	if err != nil {
		return nil, invalid(err)
	}
	raw, err := r.In(sb.Data)
	if err != nil {
		return nil, invalid(err)
	}
	return raw, nil
}

// Bundle implements store.Store.
func (d *DB) Bundle(ctx context.Context, contentHash string) (store.StoredBundle, error) {
	const op = "get bundle"
	v, err := d.getOne(ctx, op, store.StoreBundles, contentHash, contentHash)
	if err != nil {
		return store.StoredBundle{}, err
	}
	b, err := bundleFrom(v)
	if err != nil {
		return store.StoredBundle{}, &store.Error{Op: op, Store: store.StoreBundles, Key: contentHash, Kind: store.ErrInvalid, Err: err}
	}
	return b, nil
}

// Bundles implements store.Store.
func (d *DB) Bundles(ctx context.Context, skillID string) ([]store.StoredBundle, error) {
	out := []store.StoredBundle{}
	err := d.eachOfSkill(ctx, "list bundles", store.StoreBundles, skillID, func(v safejs.Value) error {
		b, err := bundleFrom(v)
		out = append(out, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	sortfunc.Sort(out, func(a, b store.StoredBundle) int { return cmp.Compare(a.SkillVersion, b.SkillVersion) })
	return out, nil
}

// eachOfSkill calls fn with every record of storeName that belongs to
// skill skillID (its skill_id index); an error from fn is a record that
// could not be read.
func (d *DB) eachOfSkill(ctx context.Context, op, storeName, skillID string, fn func(safejs.Value) error) error {
	all, err := d.getAll(ctx, op, storeName, "skill_id", skillID)
	if err != nil {
		return err
	}
	if err := each(all, fn); err != nil {
		return readErr(op, storeName, err)
	}
	return nil
}

// Replays implements store.Store.
func (d *DB) Replays(ctx context.Context, skillID string) ([]store.Replay, error) {
	out := []store.Replay{}
	err := d.eachOfSkill(ctx, "list replays", store.StoreReplays, skillID, func(v safejs.Value) error {
		var r store.Replay
		err := decodeJSON(v, &r)
		out = append(out, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	sortfunc.Sort(out, func(a, b store.Replay) int { return cmp.Compare(b.ID(), a.ID()) })
	return out, nil
}

// SaveComparison implements store.Store.
func (d *DB) SaveComparison(ctx context.Context, c store.Comparison) error {
	const op = "save comparison"
	if err := c.Check(op); err != nil {
		return err
	}
	data, err := json.Marshal(c)
	if err != nil {
		return &store.Error{Op: op, Store: store.StoreComparisons, Key: c.ID, Kind: store.ErrInvalid, Err: err}
	}
	t, err := d.begin(ctx, op, "readwrite", store.StoreSkills, store.StoreComparisons)
	if err != nil {
		return err
	}
	sk, err := t.skill(ctx, c.SkillID)
	if err != nil {
		return err
	}
	if sk == nil {
		return t.abort(&store.Error{Op: op, Store: store.StoreSkills, Key: c.SkillID, Kind: store.ErrNotFound})
	}
	// Like replays, the record is JSON beside the members it is found by.
	if err := t.call(store.StoreComparisons, c.ID, "put", map[string]any{
		"comparison_id": c.ID, "skill_id": c.SkillID, "json": string(data),
	}); err != nil {
		return err
	}
	return t.wait(ctx)
}

// Comparisons implements store.Store.
func (d *DB) Comparisons(ctx context.Context, skillID string) ([]store.Comparison, error) {
	out := []store.Comparison{}
	err := d.eachOfSkill(ctx, "list comparisons", store.StoreComparisons, skillID, func(v safejs.Value) error {
		var c store.Comparison
		err := decodeJSON(v, &c)
		out = append(out, c)
		return err
	})
	if err != nil {
		return nil, err
	}
	sortfunc.Sort(out, func(a, b store.Comparison) int { return cmp.Compare(b.ID, a.ID) })
	return out, nil
}

// DeleteSkill implements store.Store.
func (d *DB) DeleteSkill(ctx context.Context, id string) error {
	return d.deleteSkill(ctx, id, nil)
}

// deleteSkill is DeleteSkill; beforeCommit, when not nil, runs after every
// delete is issued and before the transaction is left to commit, and an
// error from it aborts the transaction (the test of "a failed delete
// leaves everything" uses it to fail at the last moment).
func (d *DB) deleteSkill(ctx context.Context, id string, beforeCommit func() error) error {
	const op = "delete skill"
	t, err := d.begin(ctx, op, "readwrite", store.StoreSkills, store.StoreTraces, store.StoreBundles, store.StoreReplays, store.StoreComparisons)
	if err != nil {
		return err
	}
	skills, err := t.objectStore(store.StoreSkills)
	if err != nil {
		return t.abort(err)
	}
	key, err := t.get(ctx, skills, store.StoreSkills, id, "getKey", id)
	if err != nil {
		return err
	}
	if key.IsUndefined() {
		return t.abort(&store.Error{Op: op, Store: store.StoreSkills, Key: id, Kind: store.ErrNotFound})
	}
	// Bundles, replays and comparisons are found through their skill_id
	// index; each is deleted by its own key.
	for _, name := range []string{store.StoreBundles, store.StoreReplays, store.StoreComparisons} {
		os, err := t.objectStore(name)
		if err != nil {
			return t.abort(err)
		}
		index, err := os.Call("index", "skill_id")
		if err != nil {
			return t.abort(fail(op, name, "skill_id", thrown(err)))
		}
		keys, err := t.get(ctx, index, name, id, "getAllKeys", id)
		if err != nil {
			return err
		}
		n, err := keys.Length()
		if err != nil {
			return t.abort(&store.Error{Op: op, Store: name, Key: id, Kind: store.ErrAborted, Err: err})
		}
		for i := range n {
			k, err := keys.Index(i)
			if err != nil {
				return t.abort(&store.Error{Op: op, Store: name, Key: id, Kind: store.ErrAborted, Err: err})
			}
			ks, _ := k.String()
			if err := t.call(name, ks, "delete", k); err != nil {
				return err
			}
		}
	}
	traces, err := t.tracesOf(id)
	if err != nil {
		return err
	}
	if err := t.call(store.StoreTraces, id, "delete", traces); err != nil {
		return err
	}
	if err := t.call(store.StoreSkills, id, "delete", id); err != nil {
		return err
	}
	if beforeCommit != nil {
		if err := beforeCommit(); err != nil {
			return t.abort(err)
		}
	}
	return t.wait(ctx)
}

// ReplaceBundle implements store.Store.
func (d *DB) ReplaceBundle(ctx context.Context, oldHash string, f store.BundleFile) (store.Skill, error) {
	const op = "replace bundle"
	if err := f.Check(op); err != nil {
		return store.Skill{}, err
	}
	trace, err := traceValue(op, f)
	if err != nil {
		return store.Skill{}, err
	}
	t, err := d.begin(ctx, op, "readwrite", store.StoreSkills, store.StoreTraces, store.StoreBundles, store.StoreReplays)
	if err != nil {
		return store.Skill{}, err
	}
	bundles, err := t.objectStore(store.StoreBundles)
	if err != nil {
		return store.Skill{}, t.abort(err)
	}
	v, err := t.get(ctx, bundles, store.StoreBundles, oldHash, "get", oldHash)
	if err != nil {
		return store.Skill{}, err
	}
	if v.IsUndefined() {
		return store.Skill{}, t.abort(&store.Error{Op: op, Store: store.StoreBundles, Key: oldHash, Kind: store.ErrNotFound})
	}
	old, err := bundleFrom(v)
	if err != nil {
		return store.Skill{}, t.abort(&store.Error{Op: op, Store: store.StoreBundles, Key: oldHash, Kind: store.ErrInvalid, Err: err})
	}
	if err := store.CheckReplace(op, old, f); err != nil {
		return store.Skill{}, t.abort(err)
	}
	// Requests run in the order issued: the old bundle is gone before
	// the new one claims its version in the unique index.
	if err := t.call(store.StoreBundles, oldHash, "delete", oldHash); err != nil {
		return store.Skill{}, err
	}
	if err := t.writeBundle(f, trace); err != nil {
		return store.Skill{}, err
	}
	if err := t.relink(ctx, f.Bundle.SkillID, oldHash, f.Bundle.ContentHash); err != nil {
		return store.Skill{}, err
	}
	if err := t.keepTraces(ctx, f, oldHash); err != nil {
		return store.Skill{}, err
	}
	return d.commitBundle(ctx, t, f)
}

// keepTraces runs after bundle oldHash was removed in favour of f: a
// trace record naming the removed bundle is pointed at another stored
// bundle of the skill that carries the trace (store.FindTrace), or
// deleted when none does. f's own trace record was written already.
func (t *txn) keepTraces(ctx context.Context, f store.BundleFile, oldHash string) error {
	id := f.Bundle.SkillID
	span, err := t.tracesOf(id)
	if err != nil {
		return err
	}
	traces, err := t.objectStore(store.StoreTraces)
	if err != nil {
		return t.abort(err)
	}
	all, err := t.get(ctx, traces, store.StoreTraces, id, "getAll", span)
	if err != nil {
		return err
	}
	var orphans []string
	err = each(all, func(v safejs.Value) error {
		traceID, err := jsString(v, "trace_id")
		if err != nil || traceID == f.Bundle.Trace.TraceID {
			return err
		}
		if named, err := v.Get("bundle"); err == nil && !named.IsUndefined() {
			if h, _ := named.String(); h == oldHash {
				orphans = append(orphans, traceID)
			}
		}
		return nil
	})
	if err != nil {
		return t.abort(readErr(t.op, store.StoreTraces, err))
	}
	if len(orphans) == 0 {
		return nil
	}
	stored, err := t.ofSkill(ctx, store.StoreBundles, id)
	if err != nil {
		return err
	}
	var others []store.StoredBundle
	err = each(stored, func(v safejs.Value) error {
		b, err := bundleFrom(v)
		if err == nil && b.ContentHash != oldHash {
			others = append(others, b)
		}
		return err
	})
	if err != nil {
		return t.abort(readErr(t.op, store.StoreBundles, err))
	}
	for _, traceID := range orphans {
		key := id + " " + traceID
		if moved, ok := store.FindTrace(traceID, others); ok {
			if err := t.call(store.StoreTraces, key, "put", traceRecord(moved)); err != nil {
				return err
			}
			continue
		}
		if err := t.call(store.StoreTraces, key, "delete", []any{id, traceID}); err != nil {
			return err
		}
	}
	return nil
}

// tracesOf is the key range of skill id's trace records. Traces are keyed
// [skill_id, trace_id]: every key of the skill lies between [id] and
// [id, []], since a shorter array sorts first and an array sorts after
// every string.
func (t *txn) tracesOf(id string) (safejs.Value, error) {
	keyRange, err := safejs.Global().Get("IDBKeyRange")
	var span safejs.Value
	if err == nil {
		span, err = keyRange.Call("bound", []any{id}, []any{id, []any{}})
	}
	if err != nil {
		return safejs.Value{}, t.abort(fail(t.op, store.StoreTraces, id, thrown(err)))
	}
	return span, nil
}

// ofSkill reads every record of storeName that belongs to skill id,
// through the store's skill_id index.
func (t *txn) ofSkill(ctx context.Context, storeName, id string) (safejs.Value, error) {
	os, err := t.objectStore(storeName)
	if err != nil {
		return safejs.Value{}, t.abort(err)
	}
	index, err := os.Call("index", "skill_id")
	if err != nil {
		return safejs.Value{}, t.abort(fail(t.op, storeName, "skill_id", thrown(err)))
	}
	return t.get(ctx, index, storeName, id, "getAll", id)
}

// relink links the replays of skill id that name bundle from to bundle to.
func (t *txn) relink(ctx context.Context, id, from, to string) error {
	all, err := t.ofSkill(ctx, store.StoreReplays, id)
	if err != nil {
		return err
	}
	var linked []store.Replay
	err = each(all, func(v safejs.Value) error {
		var r store.Replay
		if err := decodeJSON(v, &r); err != nil {
			return err
		}
		if r.BundleHash == from {
			linked = append(linked, r)
		}
		return nil
	})
	if err != nil {
		return t.abort(readErr(t.op, store.StoreReplays, err))
	}
	for _, r := range linked {
		r.BundleHash = to
		if err := t.putReplay(r); err != nil {
			return err
		}
	}
	return nil
}

// Clear implements store.Store.
func (d *DB) Clear(ctx context.Context) error {
	const op = "clear"
	t, err := d.begin(ctx, op, "readwrite", store.ObjectStores()...)
	if err != nil {
		return err
	}
	for _, name := range store.ObjectStores() {
		if err := t.call(name, "", "clear"); err != nil {
			return err
		}
	}
	return t.wait(ctx)
}

// getOne reads one record in a readonly transaction, or ErrNotFound.
func (d *DB) getOne(ctx context.Context, op, storeName, key string, jsKey any) (safejs.Value, error) {
	t, err := d.begin(ctx, op, "readonly", storeName)
	if err != nil {
		return safejs.Value{}, err
	}
	os, err := t.objectStore(storeName)
	if err != nil {
		return safejs.Value{}, t.abort(err)
	}
	v, err := t.get(ctx, os, storeName, key, "get", jsKey)
	if err != nil {
		return safejs.Value{}, err
	}
	if err := t.wait(ctx); err != nil {
		return safejs.Value{}, err
	}
	if v.IsUndefined() {
		return safejs.Value{}, &store.Error{Op: op, Store: storeName, Key: key, Kind: store.ErrNotFound}
	}
	return v, nil
}

// getAll reads every record of a store (index "") or every record an index
// maps key to, in a readonly transaction.
func (d *DB) getAll(ctx context.Context, op, storeName, index string, key any) (safejs.Value, error) {
	t, err := d.begin(ctx, op, "readonly", storeName)
	if err != nil {
		return safejs.Value{}, err
	}
	source, err := t.objectStore(storeName)
	if err != nil {
		return safejs.Value{}, t.abort(err)
	}
	if index != "" {
		if source, err = source.Call("index", index); err != nil {
			return safejs.Value{}, t.abort(fail(op, storeName, index, thrown(err)))
		}
	}
	keyName, _ := key.(string)
	v, err := t.get(ctx, source, storeName, keyName, "getAll", key)
	if err != nil {
		return safejs.Value{}, err
	}
	return v, t.wait(ctx)
}

// decodeJSON decodes the json member of a stored object into v.
func decodeJSON(obj safejs.Value, v any) error {
	s, err := jsString(obj, "json")
	if err != nil {
		return err
	}
	return json.Unmarshal([]byte(s), v)
}

// bundleFrom reads a stored bundle object.
func bundleFrom(v safejs.Value) (store.StoredBundle, error) {
	var b store.StoredBundle
	var err error
	get := func(name string) string {
		var s string
		if err == nil {
			s, err = jsString(v, name)
		}
		return s
	}
	b.ContentHash = get("content_hash")
	b.SkillID = get("skill_id")
	b.BundleID = get("bundle_id")
	b.CreatedAt = get("created_at")
	if err != nil {
		return b, err
	}
	data, err := v.Get("data")
	if err != nil {
		return b, err
	}
	if b.Data, err = jsbytes.ToGo(data); err != nil {
		return b, fmt.Errorf("member \"data\": %w", err)
	}
	b.SkillVersion, err = jsInt(v, "skill_version")
	return b, err
}

// readErr wraps a failure to read stored records.
func readErr(op, storeName string, err error) error {
	var se *store.Error
	if errors.As(err, &se) {
		return err
	}
	return &store.Error{Op: op, Store: storeName, Kind: store.ErrInvalid, Err: err}
}
