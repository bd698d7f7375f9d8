package schemaform

import (
	"encoding/json"
	"strconv"
)

// Context is what the page the user is on knows: the values a form may
// prefill. Empty members are unknown and prefill nothing.
type Context struct {
	Route       string // the workbench route, e.g. "/skills/{id}/replay"
	URL         string // the page the browser body is on
	SkillID     string // the skill on screen
	TraceID     string // its interaction trace
	EdgeIndex   *int   // the selected trace edge, by its index
	EdgeID      string // the selected trace edge's edge_id
	Selection   string // selected text or item
	ContentHash string // the bundle's content hash
	RunID       string // the run on screen (never a session id)
	SessionID   string // the session on screen (never a run id)
	// Skills are the library's skills, offered by name on a skill id
	// field (Field.Choices): a person picks a skill, not a UUID.
	Skills []Choice
}

// Choice is a value the page offers for a field, with the name a person
// knows it by: a skill of the library for a skill id field.
type Choice struct {
	Value string
	Label string
}

// SelectedTarget is the page's selected target: what the user has
// selected on the page, the thing an action proposed from it acts on —
// the selection, else the selected trace edge (its edge_id), else the
// skill on screen. source says which, for the UI to show beside it; both
// are empty when nothing is selected. It never comes from a form's
// fields: a field named url or target inside the input (say
// attachments[0].url) is an input, not the page's target.
func (c Context) SelectedTarget() (value, source string) {
	switch {
	case c.Selection != "":
		return c.Selection, "current selection"
	case c.EdgeID != "":
		return c.EdgeID, "selected edge"
	case c.SkillID != "":
		return c.SkillID, "current skill"
	}
	return "", ""
}

// Inference says that a field's value came from the page context, and
// from which part of it.
type Inference struct {
	// Source is what the UI shows: "current skill", "selected edge" …
	Source string
	// Key is the Context member, e.g. "SkillID".
	Key string
}

// Mapping prefills fields with one of these names (compared after norm:
// lower case, without _ - . and spaces) from one Context member, and
// offers them the Context's Choices for it, when it has any.
type Mapping struct {
	Names   []string
	Key     string
	Source  string
	Value   func(Context) (string, bool)
	Choices func(Context) []Choice
}

// Mappings is the prefill table. It is deliberately exact: a name is
// mapped only when it can mean nothing else on this page (a bare "id" or
// "name" is not mapped), and run and session ids never stand in for each
// other.
func Mappings() []Mapping {
	str := func(get func(Context) string) func(Context) (string, bool) {
		return func(c Context) (string, bool) { s := get(c); return s, s != "" }
	}
	return []Mapping{
		{Names: []string{"skillid", "skill"}, Key: "SkillID", Source: "current skill",
			Value:   str(func(c Context) string { return c.SkillID }),
			Choices: func(c Context) []Choice { return c.Skills }},
		{Names: []string{"skillslug"}, Key: "SkillID", Source: "current skill",
			Value: str(func(c Context) string { return c.SkillID })},
		{Names: []string{"traceid", "trace"}, Key: "TraceID", Source: "current trace",
			Value: str(func(c Context) string { return c.TraceID })},
		{Names: []string{"edge", "edgeindex", "edgeidx", "edgeno"}, Key: "EdgeIndex", Source: "selected edge",
			Value: func(c Context) (string, bool) {
				if c.EdgeIndex == nil {
					return "", false
				}
				return strconv.Itoa(*c.EdgeIndex), true
			}},
		{Names: []string{"edgeid"}, Key: "EdgeID", Source: "selected edge",
			Value: str(func(c Context) string { return c.EdgeID })},
		{Names: []string{"selection", "selected", "selectedtext"}, Key: "Selection", Source: "current selection",
			Value: str(func(c Context) string { return c.Selection })},
		{Names: []string{"route"}, Key: "Route", Source: "current route",
			Value: str(func(c Context) string { return c.Route })},
		{Names: []string{"url", "pageurl", "currenturl"}, Key: "URL", Source: "current page",
			Value: str(func(c Context) string { return c.URL })},
		{Names: []string{"contenthash", "bundlehash", "bundlecontenthash"}, Key: "ContentHash", Source: "bundle content hash",
			Value: str(func(c Context) string { return c.ContentHash })},
		{Names: []string{"runid"}, Key: "RunID", Source: "current run",
			Value: str(func(c Context) string { return c.RunID })},
		{Names: []string{"sessionid"}, Key: "SessionID", Source: "current session",
			Value: str(func(c Context) string { return c.SessionID })},
	}
}

// Prefill fills fields whose names map to a known part of ctx (see
// Mappings) and marks them Inferred. It fills only fields the user has
// not touched (empty, or holding the schema's default), of a widget that
// can hold the value (text, number, integer when the value is one, a
// select when it is one of the choices, raw JSON as a string). It looks
// at object properties, chosen variants and built nested objects, not
// into array items (which item would it be?). It returns the fields it
// filled. Inferred values stay editable: Set clears the mark. A text
// field whose mapping has choices in ctx (a skill id field, the
// library's skills) gets them as its Choices, filled or not.
func (f *Form) Prefill(ctx Context) []*Field {
	byName := map[string]Mapping{}
	for _, m := range Mappings() {
		for _, n := range m.Names {
			byName[n] = m
		}
	}
	var filled []*Field
	walk(f.Root, func(fl *Field) bool {
		if fl.Widget == WidgetArray {
			return false
		}
		m, ok := byName[norm(fl.Name)]
		if !ok {
			return true
		}
		if m.Choices != nil && fl.Widget == WidgetText {
			fl.Choices = m.Choices(ctx)
		}
		if fl.touched && (fl.Raw != "" || fl.Null) || fl.Inferred != nil {
			return true
		}
		v, ok := m.Value(ctx)
		if !ok {
			return true
		}
		raw, ok := fit(fl, v)
		if !ok {
			return true
		}
		fl.Raw, fl.Null, fl.touched = raw, false, false
		fl.Inferred = &Inference{Source: m.Source, Key: m.Key}
		filled = append(filled, fl)
		return true
	})
	return filled
}

// fit is the text a context value takes in fl, if it can take it.
func fit(fl *Field, v string) (string, bool) {
	switch fl.Widget {
	case WidgetText, WidgetTextArea:
		return v, true
	case WidgetNumber, WidgetInteger:
		if n, err := parseNumber(v, fl.Widget == WidgetInteger); err == nil {
			return string(n), true
		}
	case WidgetSelect:
		for _, o := range fl.Options {
			if o.Label == v {
				return v, true
			}
		}
	case WidgetJSON:
		b, err := json.Marshal(v)
		return string(b), err == nil
	}
	return "", false
}
