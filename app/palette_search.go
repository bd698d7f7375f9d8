package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/capability"
)

// paletteShown bounds the entries the list renders at once; the search
// narrows the rest (the count says how many match).
const paletteShown = 50

// searchState is the capability palette's catalog as read, and the
// search over it: the query, the matches best first, and the active one.
// Its methods are the search's state changes; it does no I/O.
type searchState struct {
	caps     []capability.Capability
	index    *capability.Index
	failures []*capability.SourceError
	unusable []*capability.EntryError // catalog entries the client cannot use, each with its reason
	notes    []string                 // what the backend's catalog says that the client will not do
	err      string
	loading  bool
	query    string
	results  []int
	active   int
}

// reading marks a reading of the catalog under way; the entries of the
// last one stay listed meanwhile.
func (s *searchState) reading() { s.loading = true }

// loaded takes a catalog reading and filters it by the query.
func (s *searchState) loaded(l capability.Listing) {
	s.loading, s.err = false, ""
	s.caps, s.failures, s.unusable, s.notes = l.Capabilities, l.Failures, l.Unusable, l.Notes
	s.index = capability.NewIndex(l.Capabilities)
	s.filter()
}

// failed says why the catalog could not be read; nothing is listed.
func (s *searchState) failed(why string) {
	*s = searchState{query: s.query, err: why}
}

// reset forgets the catalog of the previous backend (the query stays).
func (s *searchState) reset() { *s = searchState{query: s.query} }

// setQuery filters by q; the best match is active.
func (s *searchState) setQuery(q string) {
	s.query = q
	s.filter()
}

func (s *searchState) filter() {
	if s.index == nil {
		s.results = nil
		return
	}
	s.results = s.index.Filter(s.query)
	s.active = 0
	s.skipDisabled(1)
}

// shown is how many matches the list shows.
func (s *searchState) shown() int { return min(len(s.results), paletteShown) }

// move makes the next (dir 1) or previous (-1) entry shown active,
// passing over unavailable ones.
func (s *searchState) move(dir int) {
	n := s.shown()
	if n == 0 {
		return
	}
	s.active = (s.active + dir + n) % n
	s.skipDisabled(dir)
}

// skipDisabled moves the active entry off unavailable ones in dir.
func (s *searchState) skipDisabled(dir int) {
	n := s.shown()
	for tries := 0; tries < n; tries++ {
		if s.index.Capability(s.results[s.active]).Availability != capability.Unavailable {
			return
		}
		s.active = (s.active + dir + n) % n
	}
}

// chosen is the active entry, when there is one that can be opened.
func (s *searchState) chosen() (capability.Capability, bool) {
	if s.shown() == 0 {
		return capability.Capability{}, false
	}
	c := s.index.Capability(s.results[s.active])
	return c, c.Availability != capability.Unavailable
}

// matches reports whether the capability id matches the query (shown or
// not).
func (s *searchState) matches(id string) bool {
	for _, i := range s.results {
		if s.index.Capability(i).ID == id {
			return true
		}
	}
	return false
}

// status is the count line under the search.
func (s *searchState) status() string {
	if s.loading && s.index == nil {
		return "Reading the catalog…"
	}
	out := fmt.Sprintf("%d of %d capabilities", len(s.results), len(s.caps))
	if len(s.unusable) > 0 {
		out += fmt.Sprintf("; %d unusable entries", len(s.unusable))
	}
	if n := s.shown(); len(s.results) > n {
		out += fmt.Sprintf(" (first %d shown; type to narrow)", n)
	}
	return out
}

// paletteSearch is the capability palette's search and list, a component
// of its own so that a keystroke renders the list only, not the form and
// panels beside it. It reads the catalog whenever the palette changes
// Nonce (each opening) or Gen (another backend) — not when mounted: it
// is mounted with every page, and a page the palette is not opened on
// must not build the local backend or reach its MCP servers. It tells the
// palette what the user opens and when the query changes.
//
// st, open and queried are the palette's, set when it first renders the
// component and kept (go-app copies exported fields only).
type paletteSearch struct {
	app.Compo
	ownContext

	env *env
	st  *searchState
	// open opens a capability in the form; focus moves the focus there.
	open func(id string, focus bool)
	// queried tells the palette the query changed: matches says whether
	// a capability id still matches it.
	queried func(matches func(id string) bool)
	Nonce   int
	Gen     int

	lastNonce, lastGen int
	readSeq            latest
}

func (c *paletteSearch) OnMount(ctx app.Context) {
	c.keep(ctx)
	c.lastNonce, c.lastGen = c.Nonce, c.Gen
}

func (c *paletteSearch) OnUpdate(ctx app.Context) {
	if c.Gen != c.lastGen {
		c.st.reset()
	}
	if c.Nonce != c.lastNonce || c.Gen != c.lastGen {
		c.lastNonce, c.lastGen = c.Nonce, c.Gen
		c.read()
	}
}

// read reads the catalog again: it is live (availability changes). Only
// the newest reading's answer is taken.
func (c *paletteSearch) read() {
	ctx := c.own()
	seq := c.readSeq.next()
	c.st.reading()
	ctx.Async(func() {
		cx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var l capability.Listing
		be, _, err := c.env.capabilityBackend(cx)
		if err == nil {
			l, err = be.Catalog(cx)
		}
		ctx.Dispatch(func(app.Context) {
			if !c.readSeq.is(seq) {
				return
			}
			if err != nil {
				c.st.failed("The catalog could not be read: " + describeErr(err))
				return
			}
			c.st.loaded(l)
		})
	})
}

func (c *paletteSearch) onQuery(ctx app.Context, e app.Event) {
	c.st.setQuery(recordTyped(ctx))
	c.queried(c.st.matches)
}

func (c *paletteSearch) onKey(ctx app.Context, e app.Event) {
	switch e.Get("key").String() {
	case "ArrowDown":
		e.PreventDefault()
		c.st.move(1)
	case "ArrowUp":
		e.PreventDefault()
		c.st.move(-1)
	case "Enter":
		// Enter opens the entry shown active, and nothing else: a form
		// of another capability left open is not what Enter acts on.
		e.PreventDefault()
		if cp, ok := c.st.chosen(); ok {
			c.open(cp.ID, true)
		}
	default:
		// A typed character changes nothing here (the input event that
		// follows filters): no render for it.
		ctx.PreventUpdate()
	}
}

// onListClick opens the entry clicked (the list's one click handler); an
// unavailable entry cannot be opened.
func (c *paletteSearch) onListClick(ctx app.Context, e app.Event) {
	li := e.Get("target").Call("closest", "#pal-list > [data-cap]")
	if !li.Truthy() || li.Call("getAttribute", "aria-disabled").String() == "true" {
		ctx.PreventUpdate()
		return
	}
	c.open(li.Get("dataset").Get("cap").String(), true)
}

func (c *paletteSearch) Render() app.UI {
	s := c.st
	n := s.shown()
	opts := make([]app.UI, n)
	for j := 0; j < n; j++ {
		cp := s.index.Capability(s.results[j])
		disabled := cp.Availability == capability.Unavailable
		// No click handler per entry: the list has one (onListClick), so
		// that filtering changes text and attributes only, instead of
		// replacing an event listener per entry on every keystroke.
		li := app.Li().ID("pal-opt-"+strconv.Itoa(j)).Role("option").Class("pal-opt").
			DataSet("cap", cp.ID).Aria("selected", strconv.FormatBool(j == s.active)).Aria("disabled", strconv.FormatBool(disabled))
		body := []app.UI{
			app.Span().Class("pal-opt-title").Text(cp.Title),
			availabilityBadge(cp.Availability),
			app.Span().Class("pal-opt-id muted").Text(cp.ID),
		}
		if len(cp.Actions) > 1 {
			names := make([]string, len(cp.Actions))
			for i, a := range cp.Actions {
				names[i] = a.Name
			}
			body = append(body, app.Span().Class("pal-opt-actions muted").Text("actions: "+strings.Join(names, ", ")))
		}
		if len(cp.Reasons) > 0 || len(cp.Missing) > 0 {
			parts := append([]string(nil), cp.Reasons...)
			if len(cp.Missing) > 0 {
				parts = append(parts, "missing: "+strings.Join(cp.Missing, ", "))
			}
			body = append(body, app.Span().Class("pal-why").Text(strings.Join(parts, "; ")))
		}
		opts[j] = li.Body(body...)
	}
	active := ""
	if n > 0 {
		active = "pal-opt-" + strconv.Itoa(s.active)
	}
	body := []app.UI{
		app.Label().For("pal-search").Text("Search capabilities"),
		app.Input().ID("pal-search").Type("search").Role("combobox").AutoComplete(false).AutoFocus(true).
			Aria("controls", "pal-list").Aria("expanded", "true").Aria("autocomplete", "list").
			Aria("activedescendant", active).Value(s.query).OnInput(c.onQuery).OnKeyDown(c.onKey),
		app.P().ID("pal-count").Class("muted").Aria("live", "polite").Text(s.status()),
	}
	if s.err != "" {
		body = append(body, app.P().Class("pal-error").ID("pal-catalog-error").Role("alert").Text(s.err))
	}
	for _, note := range s.notes {
		body = append(body, app.P().Class("pal-note").Text(note))
	}
	for _, f := range s.failures {
		body = append(body, app.P().Class("pal-error pal-source-error").DataSet("source", f.Source).Text("Source "+f.Source+" failed: "+describeErr(f.Err)))
	}
	for _, u := range s.unusable {
		name := fmt.Sprintf("Entry %d", u.Index)
		if u.ID != "" {
			name += " (" + u.ID + ")"
		}
		body = append(body, app.P().Class("pal-error pal-unusable").DataSet("index", strconv.Itoa(u.Index)).
			Text(name+" is unusable: "+u.Reason+"."))
	}
	// data-query names the query the entries were filtered for, quoted
	// (go-app trims attribute values, and a typed space is part of the
	// query), and aria-busy says the catalog is being read again: the
	// list reflects what was typed when the first matches it (the
	// benchmark waits for it too).
	body = append(body, app.Ul().ID("pal-list").Role("listbox").Aria("label", "Capabilities").Class("pal-list").
		Aria("busy", strconv.FormatBool(s.loading)).DataSet("query", strconv.Quote(s.query)).OnClick(c.onListClick).Body(opts...))
	return app.Div().Class("pal-catalog").Body(body...)
}

func availabilityBadge(a capability.Availability) app.UI {
	return app.Span().Class("pal-badge pal-badge-" + string(a)).Text(string(a))
}
