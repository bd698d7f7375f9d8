package capability

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"workbench/pkg/sortfunc"
)

// Catalog merges the capabilities of several providers. It is safe for
// concurrent use; the provider list is fixed at construction.
type Catalog struct {
	providers []Provider
	bySource  map[string]Provider
}

// NewCatalog returns a catalog of the providers. Two providers with the
// same source are an error: ids would be ambiguous.
func NewCatalog(ps ...Provider) (*Catalog, error) {
	c := &Catalog{bySource: map[string]Provider{}}
	for _, p := range ps {
		if p == nil {
			continue
		}
		s := p.Source()
		if _, dup := c.bySource[s]; dup {
			return nil, fmt.Errorf("capability: two providers for the source %q", s)
		}
		c.bySource[s] = p
		c.providers = append(c.providers, p)
	}
	return c, nil
}

// Sources lists the catalog's sources in provider order.
func (c *Catalog) Sources() []string {
	out := make([]string, len(c.providers))
	for i, p := range c.providers {
		out[i] = p.Source()
	}
	return out
}

// Listing is the catalog as listed: the capabilities of every source that
// answered, and one failure per source that did not.
type Listing struct {
	Capabilities []Capability
	Failures     []*SourceError
	// Unusable are catalog entries a backend listed that the client
	// cannot use (no id, an input schema that is not a schema …), each
	// with the reason. They hide nothing else: the other entries are
	// listed.
	Unusable []*EntryError
	// Notes are what a backend's catalog says that the client will not
	// do — an invoke contract that contradicts the document — for the
	// user to see beside the list.
	Notes []string
}

// EntryError is one catalog entry the client cannot use, and why.
type EntryError struct {
	// Index is the entry's place in the backend's list, from 0.
	Index int
	// ID is the entry's capability id, when it has one.
	ID     string
	Reason string
}

func (e *EntryError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("catalog entry %d (%s) is unusable: %s", e.Index, e.ID, e.Reason)
	}
	return fmt.Sprintf("catalog entry %d is unusable: %s", e.Index, e.Reason)
}

// List asks every provider at once. A provider that fails, or lists a
// capability of another source, is a failure of its own source; the
// others are listed. Capabilities come in provider order, each source's
// in its own order.
func (c *Catalog) List(ctx context.Context) Listing {
	type answer struct {
		caps []Capability
		err  error
	}
	answers := make([]answer, len(c.providers))
	var wg sync.WaitGroup
	for i, p := range c.providers {
		wg.Go(func() {
			caps, err := p.List(ctx)
			if err == nil {
				for _, cp := range caps {
					if cp.Source != p.Source() {
						err = fmt.Errorf("listed %q of source %q", cp.ID, cp.Source)
						break
					}
				}
			}
			answers[i] = answer{caps, err}
		})
	}
	wg.Wait()
	var l Listing
	for i, a := range answers {
		if a.err != nil {
			l.Failures = append(l.Failures, &SourceError{Source: c.providers[i].Source(), Err: a.err})
			continue
		}
		l.Capabilities = append(l.Capabilities, a.caps...)
	}
	return l
}

// Provider returns the provider of a capability id's source.
func (c *Catalog) Provider(id string) (Provider, error) {
	src, _, ok := SplitID(id)
	if !ok {
		return nil, &NotFoundError{ID: id}
	}
	p, ok := c.bySource[src]
	if !ok {
		return nil, &NotFoundError{ID: id}
	}
	return p, nil
}

// Describe returns a fresh descriptor of one capability.
func (c *Catalog) Describe(ctx context.Context, id string) (Capability, error) {
	p, err := c.Provider(id)
	if err != nil {
		return Capability{}, err
	}
	return p.Describe(ctx, id)
}

// invoke runs a capability on its provider. Only the Governor calls it.
func (c *Catalog) invoke(ctx context.Context, id string, input json.RawMessage) (Result, error) {
	p, err := c.Provider(id)
	if err != nil {
		return Result{}, err
	}
	return p.Invoke(ctx, id, input)
}

// Index is a catalog prepared for filtering as the user types: each
// capability's searchable text lowered once. It is immutable.
type Index struct {
	caps []Capability
	keys []key
}

type key struct {
	name, title, id, source, desc string
	// actions are the names of a capability's other actions, when it has
	// several (name is its first).
	actions []string
}

// NewIndex prepares caps for Filter. The slice is kept, not copied.
func NewIndex(caps []Capability) *Index {
	ix := &Index{caps: caps, keys: make([]key, len(caps))}
	for i, c := range caps {
		ix.keys[i] = key{
			name:   strings.ToLower(c.Name),
			title:  strings.ToLower(c.Title),
			id:     strings.ToLower(c.ID),
			source: strings.ToLower(c.Source),
			desc:   strings.ToLower(c.Description),
		}
		for _, a := range c.Actions[min(1, len(c.Actions)):] {
			ix.keys[i].actions = append(ix.keys[i].actions, strings.ToLower(a.Name))
		}
	}
	return ix
}

// Len is the number of capabilities indexed.
func (ix *Index) Len() int { return len(ix.caps) }

// Capability returns the i-th indexed capability.
func (ix *Index) Capability(i int) Capability { return ix.caps[i] }

// Filter returns the indexes of the capabilities matching query, best
// first. Every whitespace-separated word of the query must occur (case
// folded) in the name, title, id, source, description or the name of
// another action. A word counts most when it is the whole name, then a
// prefix of the name or title (or the whole name of another action), then
// the start of a word in them, then anywhere in them, then in the source,
// then in the description. Ties go to available before degraded
// before unavailable, then to the title. An empty query matches all, in
// availability and title order.
func (ix *Index) Filter(query string) []int {
	words := strings.Fields(strings.ToLower(query))
	type hit struct{ i, score int }
	hits := make([]hit, 0, len(ix.caps))
	for i := range ix.keys {
		k := &ix.keys[i]
		total := 0
		for _, w := range words {
			s := score(k, w)
			if s == 0 {
				total = -1
				break
			}
			total += s
		}
		if total >= 0 {
			hits = append(hits, hit{i, total})
		}
	}
	sortfunc.Stable(hits, func(a, b hit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		if ra, rb := rank(ix.caps[a.i].Availability), rank(ix.caps[b.i].Availability); ra != rb {
			return ra - rb
		}
		return cmp.Compare(ix.keys[a.i].title, ix.keys[b.i].title)
	})
	out := make([]int, len(hits))
	for j, h := range hits {
		out[j] = h.i
	}
	return out
}

func score(k *key, w string) int {
	switch {
	case k.name == w:
		return 100
	case strings.HasPrefix(k.name, w) || strings.HasPrefix(k.title, w) || slices.Contains(k.actions, w):
		return 60
	case wordStart(k.name, w) || wordStart(k.title, w):
		return 40
	case strings.Contains(k.name, w) || strings.Contains(k.title, w) || strings.Contains(k.id, w) ||
		slices.ContainsFunc(k.actions, func(a string) bool { return strings.Contains(a, w) }):
		return 25
	case strings.Contains(k.source, w):
		return 10
	case strings.Contains(k.desc, w):
		return 5
	}
	return 0
}

// wordStart reports whether w occurs in s right after a separator.
func wordStart(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		at := i + j
		if at > 0 {
			switch s[at-1] {
			case ' ', '_', '-', '.', '/', ':':
				return true
			}
		}
		i = at + 1
		if i >= len(s) {
			return false
		}
	}
}

func rank(a Availability) int {
	switch a {
	case Available:
		return 0
	case Degraded:
		return 1
	}
	return 2
}
