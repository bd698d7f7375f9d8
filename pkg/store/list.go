package store

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// SkillQuery selects what a listing of the library returns: the newest
// skills that match a filter, at most Limit of them. A listing page asks
// for one page of rows and learns how many there are in all, so it never
// reads and decodes the whole library to show its first rows.
type SkillQuery struct {
	// Filter keeps the skills whose name, slug or description contains
	// it, ignoring case and the spaces around it; "" keeps every skill.
	Filter string
	// Limit is the most skills returned; 0 or less returns every skill
	// that matches.
	Limit int
	// Sort is the order of the listing; SortNewest when empty.
	Sort Sort
}

// Sort is the order a listing is in. Every order ends ties newest first,
// so a listing's order never depends on how a store read it.
type Sort string

// The orders of a listing.
const (
	// SortNewest lists the newest skills first (by UUIDv7 id,
	// descending): the order skills were first stored in, reversed. It is
	// the one order a store can page through without reading every record.
	SortNewest Sort = ""
	// SortName lists by name, A to Z, ignoring case.
	SortName Sort = "name"
	// SortUpdated lists the most recently updated first (the newest
	// version's manifest updated_at, descending).
	SortUpdated Sort = "updated"
	// SortVerdict lists by the verdict the newest version claims, worst
	// first: fail, inconclusive, partial, pass, then anything else.
	SortVerdict Sort = "verdict"
)

// Sorts lists every order, SortNewest first.
func Sorts() []Sort { return []Sort{SortNewest, SortName, SortUpdated, SortVerdict} }

// ParseSort reads an order's name ("newest" or "" for SortNewest).
func ParseSort(name string) (Sort, error) {
	if name == "newest" {
		return SortNewest, nil
	}
	for _, s := range Sorts() {
		if string(s) == name {
			return s, nil
		}
	}
	return SortNewest, fmt.Errorf("store: unknown sort %q: want newest, name, updated or verdict", name)
}

// String is the order's name, as ParseSort reads it.
func (s Sort) String() string {
	if s == SortNewest {
		return "newest"
	}
	return string(s)
}

// verdictRank orders claimed verdicts worst first.
func verdictRank(v string) int {
	switch v {
	case "fail":
		return 0
	case "inconclusive":
		return 1
	case "partial":
		return 2
	case "pass":
		return 3
	}
	return 4
}

// Compare returns a negative number when a is listed before b, a positive
// one when after, 0 only for the same id.
func (s Sort) Compare(a, b Skill) int {
	var c int
	switch s {
	case SortName:
		c = cmp.Or(cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), cmp.Compare(a.Name, b.Name))
	case SortUpdated:
		c = cmp.Compare(b.UpdatedAt, a.UpdatedAt)
	case SortVerdict:
		c = cmp.Compare(verdictRank(a.Verdict), verdictRank(b.Verdict))
	}
	return cmp.Or(c, cmp.Compare(b.ID, a.ID))
}

// SkillList is the result of a SkillQuery.
type SkillList struct {
	// Skills are the newest skills that match (by UUIDv7 id, descending),
	// at most the query's Limit; an empty slice when none match.
	Skills []Skill
	// Matching counts the stored skills that match the filter, also
	// those beyond Limit.
	Matching int
	// Total counts every stored skill.
	Total int
}

// Matches reports whether the query's filter keeps s. Only s's name, slug
// and description are read.
func (q SkillQuery) Matches(s Skill) bool {
	return q.matcher()(s)
}

// matcher returns Matches with the filter prepared once, for a scan over
// many skills.
func (q SkillQuery) matcher() func(Skill) bool {
	f := strings.ToLower(strings.TrimSpace(q.Filter))
	if f == "" {
		return func(Skill) bool { return true }
	}
	return func(s Skill) bool {
		return containsFold(s.Name, f) || containsFold(s.Slug, f) || containsFold(s.Description, f)
	}
}

// containsFold reports whether s contains lower, which is already lower
// case.
func containsFold(s, lower string) bool {
	return strings.Contains(strings.ToLower(s), lower)
}

// Select lists the skills of a query from every stored skill, given in
// any order: what an implementation that holds decoded records in memory
// returns from ListSkills. It sorts all in place.
func (q SkillQuery) Select(all []Skill) SkillList {
	list := SkillList{Skills: []Skill{}, Total: len(all)}
	slices.SortFunc(all, q.Sort.Compare)
	match := q.matcher()
	for _, s := range all {
		if !match(s) {
			continue
		}
		list.Matching++
		if q.Limit <= 0 || len(list.Skills) < q.Limit {
			list.Skills = append(list.Skills, s)
		}
	}
	return list
}
