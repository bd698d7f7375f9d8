//go:build js && wasm

package idb

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hack-pad/safejs"

	"workbench/pkg/store"
)

// ListSkills implements store.Store, in one readonly transaction.
//
// Skill records are keyed by skill id, a UUIDv7, so key order is age
// order. Without a filter, a key cursor walking back from the newest key
// finds the oldest of the newest q.Limit records, and one getAll from that
// key on reads exactly those: the first page of a library of thousands
// costs what the page shows. count gives the total.
//
// In another order than SortNewest, every record is read and every match
// decoded, sorted and cut to the limit: the order is of values inside the
// records, which no index of version 1 holds.
//
// With a filter every record is read (one getAll, joined in JavaScript:
// one crossing into Go). A record whose text does not contain the filter
// (see encodedFilter) is passed over undecoded; of the others, the name,
// slug and description are decoded to match them, and only the records
// returned are decoded whole.
func (d *DB) ListSkills(ctx context.Context, q store.SkillQuery) (store.SkillList, error) {
	const op = "list skills"
	t, err := d.begin(ctx, op, "readonly", store.StoreSkills)
	if err != nil {
		return store.SkillList{}, err
	}
	os, err := t.objectStore(store.StoreSkills)
	if err != nil {
		return store.SkillList{}, t.abort(err)
	}
	n, err := t.get(ctx, os, store.StoreSkills, "", "count")
	if err != nil {
		return store.SkillList{}, err
	}
	total, err := n.Int()
	if err != nil {
		return store.SkillList{}, t.abort(&store.Error{Op: op, Store: store.StoreSkills, Kind: store.ErrInvalid, Err: err})
	}
	filtered := strings.TrimSpace(q.Filter) != ""
	sorted := q.Sort != store.SortNewest
	// from is the key range getAll reads: null for every record.
	from := safejs.Null()
	if !filtered && !sorted && q.Limit > 0 && total > q.Limit {
		if from, err = t.newestRange(ctx, os, q.Limit); err != nil {
			return store.SkillList{}, err
		}
	}
	all, err := t.get(ctx, os, store.StoreSkills, "", "getAll", from)
	if err != nil {
		return store.SkillList{}, err
	}
	if err := t.wait(ctx); err != nil {
		return store.SkillList{}, err
	}
	records, err := joined(all)
	if err != nil {
		return store.SkillList{}, &store.Error{Op: op, Store: store.StoreSkills, Kind: store.ErrInvalid, Err: err}
	}
	list := store.SkillList{Skills: []store.Skill{}, Total: total}
	needle := encodedFilter(q.Filter)
	// records are oldest first: walk them from the newest.
	for i := len(records) - 1; i >= 0; i-- {
		if filtered {
			if !strings.Contains(strings.ToLower(records[i]), needle) {
				continue
			}
			var text struct {
				Name        string `json:"name"`
				Slug        string `json:"slug"`
				Description string `json:"description"`
			}
			if err := json.Unmarshal([]byte(records[i]), &text); err != nil {
				return store.SkillList{}, &store.Error{Op: op, Store: store.StoreSkills, Kind: store.ErrInvalid, Err: err}
			}
			if !q.Matches(store.Skill{Name: text.Name, Slug: text.Slug, Description: text.Description}) {
				continue
			}
		}
		list.Matching++
		// In key order the first matches are the page; in another order
		// every match is decoded and sorted below.
		if !sorted && q.Limit > 0 && len(list.Skills) >= q.Limit {
			continue
		}
		var sk store.Skill
		if err := json.Unmarshal([]byte(records[i]), &sk); err != nil {
			return store.SkillList{}, &store.Error{Op: op, Store: store.StoreSkills, Kind: store.ErrInvalid, Err: err}
		}
		list.Skills = append(list.Skills, sk)
	}
	if !filtered {
		list.Matching = total
	}
	if sorted {
		slices.SortFunc(list.Skills, q.Sort.Compare)
		if q.Limit > 0 && len(list.Skills) > q.Limit {
			list.Skills = list.Skills[:q.Limit]
		}
	}
	return list, nil
}

// newestRange returns the key range of the newest limit records of os,
// which holds more than limit: from the key a cursor walking back from
// the newest reaches after limit-1 steps, upwards.
func (t *txn) newestRange(ctx context.Context, os safejs.Value, limit int) (safejs.Value, error) {
	req, err := os.Call("openKeyCursor", safejs.Null(), "prev")
	if err != nil {
		return safejs.Value{}, t.abort(fail(t.op, store.StoreSkills, "", thrown(err)))
	}
	cursor, err := t.result(ctx, req, store.StoreSkills, "")
	if err != nil {
		return safejs.Value{}, err
	}
	if limit > 1 && !cursor.IsNull() {
		if _, err := cursor.Call("advance", limit-1); err != nil {
			return safejs.Value{}, t.abort(fail(t.op, store.StoreSkills, "", thrown(err)))
		}
		if cursor, err = t.result(ctx, req, store.StoreSkills, ""); err != nil {
			return safejs.Value{}, err
		}
	}
	if cursor.IsNull() {
		// Fewer records than counted in this same transaction: cannot
		// happen, but reading all of them is still right.
		return safejs.Null(), nil
	}
	key, err := cursor.Get("key")
	if err != nil {
		return safejs.Value{}, t.abort(&store.Error{Op: t.op, Store: store.StoreSkills, Kind: store.ErrAborted, Err: err})
	}
	keyRange, err := safejs.Global().Get("IDBKeyRange")
	var from safejs.Value
	if err == nil {
		from, err = keyRange.Call("lowerBound", key)
	}
	if err != nil {
		return safejs.Value{}, t.abort(fail(t.op, store.StoreSkills, "", thrown(err)))
	}
	return from, nil
}

// joined returns the stored skill records of a getAll, oldest first. Each
// record is JSON text on one line (encoding/json escapes every newline),
// so they are joined with newlines in JavaScript and cross into Go as one
// string, however many there are.
func joined(all safejs.Value) ([]string, error) {
	n, err := all.Length()
	if err != nil || n == 0 {
		return nil, err
	}
	j, err := all.Call("join", "\n")
	if err != nil {
		return nil, err
	}
	text, err := j.String()
	if err != nil {
		return nil, err
	}
	records := strings.Split(text, "\n")
	if len(records) != n {
		return nil, fmt.Errorf("%d records read, %d after splitting: a record is not one line of JSON", n, len(records))
	}
	return records, nil
}

// encodedFilter is a query's filter as it appears, lower-cased, in the
// lower-cased JSON text of every record that matches it. Records are
// written by encoding/json, which escapes each character on its own, the
// same way wherever it stands, and whose escapes contain no upper-case
// letter; so lower-casing the text lower-cases the strings in it, and a
// name, slug or description containing the filter makes the text contain
// the filter's encoding. The converse does not hold (the filter may be
// found in an id, a hash or across fields), so a record the text test
// keeps is still decoded and matched.
func encodedFilter(filter string) string {
	enc, err := json.Marshal(strings.ToLower(strings.TrimSpace(filter)))
	if err != nil || len(enc) < 2 {
		return "" // a string always encodes; "" keeps every record
	}
	return string(enc[1 : len(enc)-1])
}
