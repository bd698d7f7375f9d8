package store

import (
	"cmp"
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

// Select lists the skills of a query from every stored skill, in any
// order: what an implementation that holds decoded records in memory
// returns from ListSkills. It sorts all in place.
func (q SkillQuery) Select(all []Skill) SkillList {
	list := SkillList{Skills: []Skill{}, Total: len(all)}
	sortNewestFirst(all)
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

// sortNewestFirst sorts skills by id descending: UUIDv7 ids sort by the
// time they were made.
func sortNewestFirst(skills []Skill) {
	slices.SortFunc(skills, func(a, b Skill) int { return cmp.Compare(b.ID, a.ID) })
}
