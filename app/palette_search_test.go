package main

import (
	"slices"
	"strings"
	"testing"

	"workbench/pkg/capability"
)

func workbenchListing() capability.Listing {
	mk := func(name, title string, a capability.Availability) capability.Capability {
		return capability.Capability{ID: capability.ID(capability.SourceWorkbench, name), Name: name, Title: title,
			Source: capability.SourceWorkbench, Availability: a}
	}
	return capability.Listing{
		Capabilities: []capability.Capability{
			mk("export", "Export skill", capability.Available),
			mk("verify", "Verify skill", capability.Available),
			mk("replay", "Replay skill", capability.Degraded),
			mk("sync_memory", "Sync skill to memory", capability.Unavailable),
		},
		Unusable: []*capability.EntryError{{Index: 7, Reason: "no capability_id (nor id)"}},
		Notes:    []string{"The backend declares its invoke contract as GET /x."},
	}
}

func ids(s *searchState) []string {
	var out []string
	for _, i := range s.results {
		out = append(out, s.index.Capability(i).ID)
	}
	return out
}

func TestPaletteSearchStateFiltersAndMoves(t *testing.T) {
	var s searchState
	s.reading()
	if got := s.status(); got != "Reading the catalog…" {
		t.Errorf("while reading: %q", got)
	}
	s.loaded(workbenchListing())
	if s.loading || len(s.results) != 4 || !strings.Contains(s.status(), "4 of 4 capabilities; 1 unusable entries") || len(s.notes) != 1 {
		t.Fatalf("loaded: %v %q", ids(&s), s.status())
	}

	// The query narrows; the best match is active.
	s.setQuery("skill")
	if c, ok := s.chosen(); !ok || c.ID != "workbench:export" {
		t.Errorf("chosen %v %v", c.ID, ok)
	}
	// Moving passes over the unavailable entry, both ways.
	last := len(s.results) - 1
	if s.index.Capability(s.results[last]).ID != "workbench:sync_memory" {
		t.Fatalf("order %v", ids(&s))
	}
	s.move(-1)
	if c, _ := s.chosen(); c.ID == "workbench:sync_memory" {
		t.Error("moved onto an unavailable entry")
	}
	s.move(1)
	if c, _ := s.chosen(); c.ID != "workbench:export" {
		t.Errorf("wrapped to %s", c.ID)
	}

	// matches answers for every match, shown or not.
	s.setQuery("verify")
	if !s.matches("workbench:verify") || s.matches("workbench:export") {
		t.Errorf("matches after %q: %v", s.query, ids(&s))
	}
	s.setQuery("nothing like this")
	if _, ok := s.chosen(); ok || s.shown() != 0 {
		t.Error("an entry is chosen with no match")
	}
	s.move(1) // no entry: nothing moves, nothing panics

	// A failed reading lists nothing and says why; the query stays.
	s.failed("The catalog could not be read: HTTP 500")
	if s.index != nil || len(s.results) != 0 || s.err == "" || s.query != "nothing like this" {
		t.Errorf("after a failure: %+v", s)
	}
	s.reset()
	if s.err != "" || s.query != "nothing like this" {
		t.Errorf("after a reset: %+v", s)
	}
}

// Reopened after an Export form, the palette searches anew: "verify"
// replaces the old query, the Export form closes (it no longer matches),
// and Enter opens Verify, the entry shown.
func TestPaletteReopenedOpensWhatIsShown(t *testing.T) {
	p := &palette{}
	p.search.loaded(workbenchListing())
	p.search.setQuery("export")
	p.form.open("workbench:export")
	if p.stale(p.search.matches) {
		t.Fatal("the Export form is stale while its query shows it")
	}
	p.search.setQuery("verify")
	if !p.stale(p.search.matches) {
		t.Error("the Export form stays open under a query that does not match it")
	}
	if c, ok := p.search.chosen(); !ok || c.ID != "workbench:verify" {
		t.Errorf("Enter would open %q", c.ID)
	}
	// The query typed onto the old one's end matches nothing: nothing to
	// open, and the old form is stale too.
	p.search.setQuery("exportverify")
	if _, ok := p.search.chosen(); ok || !p.stale(p.search.matches) {
		t.Error("a query matching nothing leaves something to open")
	}
	p.form.open("")
	if p.stale(p.search.matches) {
		t.Error("no form is stale")
	}
}

func TestPaletteSearchFindsAnActionByName(t *testing.T) {
	var s searchState
	s.loaded(capability.Listing{Capabilities: []capability.Capability{
		{ID: "incidents", Name: "open", Title: "Incidents", Availability: capability.Available,
			Actions: []capability.Action{{Name: "open"}, {Name: "resolve"}, {Name: "purge"}}},
		{ID: "logs", Name: "search", Title: "Logs", Availability: capability.Available,
			Actions: []capability.Action{{Name: "search"}, {Name: "tail"}}},
	}})
	s.setQuery("purge")
	if got := ids(&s); !slices.Equal(got, []string{"incidents"}) {
		t.Errorf("purge finds %v", got)
	}
}
