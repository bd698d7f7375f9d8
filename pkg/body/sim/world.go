package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"workbench/pkg/canonjson"
	"workbench/schemas"
)

// World is a simulator world as data: the pages of a small web and a host
// file tree (schema https://opensentience.org/spec/workbench-simulator-world/v0.1).
// Its members mirror the world file's, so a World marshals back to a valid
// world document.
//
// A Sim holds its live world as a World: browsing reads it, form
// submissions that create pages and host writes change it, and Sim.Mutate
// hands a copy of it to tests that change the world between steps.
type World struct {
	Schema      string   `json:"schema"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Scenarios   []string `json:"scenarios,omitempty"`
	// StartURL is the page the browser shows before any navigation; empty
	// means no page is open.
	StartURL string `json:"start_url,omitempty"`
	Pages    []Page `json:"pages"`
	Host     Host   `json:"host"`
}

// Page is one web page. Its URL is in normal form (see the schema) and
// unique in the world.
type Page struct {
	URL    string  `json:"url"`
	Title  string  `json:"title"`
	Blocks []Block `json:"blocks"`
	Links  []Link  `json:"links,omitempty"`
	Forms  []Form  `json:"forms,omitempty"`
}

// Block is one block of page text. Kind is h1, h2, h3, p, li or code.
type Block struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Link is a hyperlink; Name is its accessible name (its text).
type Link struct {
	Name string `json:"name"`
	Href string `json:"href"`
}

// Form is a form: typed fields and the buttons that submit it. Form names
// are unique on a page, field names and labels and button names unique in
// a form.
type Form struct {
	Name    string   `json:"name"`
	Fields  []Field  `json:"fields"`
	Buttons []Button `json:"buttons"`
}

// Field is one form field. Name is the key its value is submitted under;
// Label is its accessible name. Type is text, textarea, email, number or
// select; only a select has Options. Value is what it holds on page load.
type Field struct {
	Name     string   `json:"name"`
	Label    string   `json:"label"`
	Type     string   `json:"type"`
	Required bool     `json:"required,omitempty"`
	Options  []string `json:"options,omitempty"`
	Value    string   `json:"value,omitempty"`
}

// Button submits its form; Submit says where that leads.
type Button struct {
	Name   string `json:"name"`
	Submit Submit `json:"submit"`
}

// Submit is a submission rule: exactly one of Lookup and Template.
type Submit struct {
	Lookup   *Lookup   `json:"lookup,omitempty"`
	Template *Template `json:"template,omitempty"`
}

// Lookup navigates to the page Table maps a field's value to, or to
// Otherwise when no key matches; with no Otherwise an unmatched value fails
// the submission. Match is "exact" or "fold" (the default: case and
// surrounding space ignored).
type Lookup struct {
	Field     string            `json:"field"`
	Match     string            `json:"match,omitempty"`
	Table     map[string]string `json:"table"`
	Otherwise string            `json:"otherwise,omitempty"`
}

// Template creates a result page from the submitted values and navigates
// to it. In URL, Title and block texts, {field} stands for a field's value,
// {@seq} for the submission's sequence number (SeqStart for the first of
// this button, then counting up; 1 when SeqStart is 0), and {{ and }} for
// literal braces. Values are path-escaped in the URL.
type Template struct {
	URL      string  `json:"url"`
	Title    string  `json:"title"`
	Blocks   []Block `json:"blocks"`
	Links    []Link  `json:"links,omitempty"`
	SeqStart int     `json:"seq_start,omitempty"`
}

// Host is the host's file tree. Paths are absolute and clean. Dirs lists
// every directory but the root, sorted; a world file may leave out the
// directories that hold files, and loading adds them. Cwd is an existing
// directory.
type Host struct {
	Cwd   string            `json:"cwd"`
	Dirs  []string          `json:"dirs,omitempty"`
	Files map[string]string `json:"files,omitempty"`
}

// WorldError says why a world is not valid, and where.
type WorldError struct {
	// Pointer is the JSON pointer of the offending value in the world
	// document; "" is the whole document.
	Pointer string
	// Offset is the byte offset in the world file when known, else -1.
	Offset int
	Reason string
	// Err is the underlying error when there is one: a *canonjson.Error,
	// a *canonjson.TypeError or a *schemas.ValidationError.
	Err error
}

func (e *WorldError) Error() string {
	where := e.Pointer
	if where == "" {
		where = "(document)"
	}
	var ve *schemas.ValidationError
	if errors.As(e.Err, &ve) {
		return "simulator world does not match its schema:\n" + ve.Error()
	}
	if e.Offset >= 0 {
		return fmt.Sprintf("simulator world: %s (byte %d): %s", where, e.Offset, e.Reason)
	}
	return fmt.Sprintf("simulator world: %s: %s", where, e.Reason)
}

func (e *WorldError) Unwrap() error { return e.Err }

// MaxWorldBytes is the largest world file New accepts.
const MaxWorldBytes = 4 << 20

// decodeWorld strictly parses and validates a world file: I-JSON, the
// world schema, then the rules a schema cannot state.
func decodeWorld(data []byte, v *schemas.Validator) (*World, error) {
	lim := canonjson.DefaultLimits()
	lim.MaxBytes = MaxWorldBytes
	doc, err := canonjson.Parse(data, lim)
	if err != nil {
		var ce *canonjson.Error
		if errors.As(err, &ce) {
			reason := ce.Kind.String()
			if ce.Detail != "" {
				reason += ": " + ce.Detail
			}
			return nil, &WorldError{Pointer: ce.Pointer, Offset: ce.Offset, Reason: reason, Err: err}
		}
		return nil, &WorldError{Offset: -1, Reason: err.Error(), Err: err}
	}
	if err := v.Validate(schemas.World, doc.Generic()); err != nil {
		var ve *schemas.ValidationError
		if errors.As(err, &ve) {
			return nil, &WorldError{Pointer: ve.Errors[0].Pointer, Offset: -1, Reason: ve.Error(), Err: err}
		}
		return nil, fmt.Errorf("simulator world: %w", err)
	}
	var w World
	if err := doc.Decode(&w); err != nil {
		var te *canonjson.TypeError
		if errors.As(err, &te) {
			return nil, &WorldError{Pointer: te.Pointer, Offset: te.Offset, Reason: fmt.Sprintf("found JSON %s where %s belongs", te.JSON, te.Go), Err: err}
		}
		return nil, &WorldError{Offset: -1, Reason: err.Error(), Err: err}
	}
	if err := check(&w, true); err != nil {
		return nil, err
	}
	w.normalize()
	return &w, nil
}

// validateWorld checks a world edited in memory: its JSON form must match
// the schema, and the rules of check hold except that links and lookups
// may point at pages that do not exist (see Sim.Mutate).
func validateWorld(w *World, v *schemas.Validator) error {
	data, err := json.Marshal(w)
	if err != nil {
		return fmt.Errorf("simulator world: %w", err)
	}
	doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
	if err != nil {
		return &WorldError{Offset: -1, Reason: err.Error(), Err: err}
	}
	if err := v.Validate(schemas.World, doc.Generic()); err != nil {
		var ve *schemas.ValidationError
		if errors.As(err, &ve) {
			return &WorldError{Pointer: ve.Errors[0].Pointer, Offset: -1, Reason: ve.Error(), Err: err}
		}
		return fmt.Errorf("simulator world: %w", err)
	}
	return check(w, false)
}

func werr(ptr, format string, args ...any) error {
	return &WorldError{Pointer: ptr, Offset: -1, Reason: fmt.Sprintf(format, args...)}
}

// check enforces what the schema cannot: normal-form URLs, unique names,
// references between parts of the world and a well-formed file tree.
// closed also requires every link, lookup target and the start URL to
// name a page of the world: an authored world has no dead ends.
func check(w *World, closed bool) error {
	pages := map[string]string{} // URL → pointer of the page
	for i, p := range w.Pages {
		at := "/pages/" + strconv.Itoa(i)
		if err := checkURL(at+"/url", p.URL); err != nil {
			return err
		}
		if prev, dup := pages[p.URL]; dup {
			return werr(at+"/url", "repeats the URL of %s", prev)
		}
		pages[p.URL] = at
	}
	exists := func(ptr, u string) error {
		if err := checkURL(ptr, u); err != nil {
			return err
		}
		if _, ok := pages[u]; closed && !ok {
			return werr(ptr, "no page of this world has the URL %s", u)
		}
		return nil
	}
	if w.StartURL != "" {
		if err := exists("/start_url", w.StartURL); err != nil {
			return err
		}
	}
	for i, p := range w.Pages {
		at := "/pages/" + strconv.Itoa(i)
		for j, l := range p.Links {
			if err := exists(fmt.Sprintf("%s/links/%d/href", at, j), l.Href); err != nil {
				return err
			}
		}
		forms := map[string]int{}
		for j, f := range p.Forms {
			fat := fmt.Sprintf("%s/forms/%d", at, j)
			if prev, dup := forms[f.Name]; dup {
				return werr(fat+"/name", "repeats the name of form %d on this page", prev)
			}
			forms[f.Name] = j
			if err := checkForm(fat, f, exists); err != nil {
				return err
			}
		}
	}
	return checkHost(&w.Host)
}

func checkURL(ptr, u string) error {
	n, err := normURL(u)
	if err != nil {
		return werr(ptr, "%v", err)
	}
	if n != u {
		return werr(ptr, "must be written in normal form: %s", n)
	}
	return nil
}

func checkForm(at string, f Form, exists func(ptr, u string) error) error {
	names := map[string]int{}
	labels := map[string]int{}
	for k, fl := range f.Fields {
		fat := fmt.Sprintf("%s/fields/%d", at, k)
		if prev, dup := names[fl.Name]; dup {
			return werr(fat+"/name", "repeats the name of field %d of this form", prev)
		}
		names[fl.Name] = k
		if prev, dup := labels[fold(fl.Label)]; dup {
			return werr(fat+"/label", "repeats the label of field %d of this form", prev)
		}
		labels[fold(fl.Label)] = k
		if fl.Type != "select" && fl.Options != nil {
			return werr(fat+"/options", "only a select field has options")
		}
		if fl.Value != "" {
			if msg := invalidValue(fl, fl.Value); msg != "" {
				return werr(fat+"/value", "%s", msg)
			}
		}
	}
	buttons := map[string]int{}
	for k, b := range f.Buttons {
		bat := fmt.Sprintf("%s/buttons/%d", at, k)
		if prev, dup := buttons[fold(b.Name)]; dup {
			return werr(bat+"/name", "repeats the name of button %d of this form", prev)
		}
		buttons[fold(b.Name)] = k
		switch s := b.Submit; {
		case s.Lookup != nil:
			l := s.Lookup
			if _, ok := names[l.Field]; !ok {
				return werr(bat+"/submit/lookup/field", "this form has no field named %q", l.Field)
			}
			keys := map[string]string{}
			for _, key := range slices.Sorted(maps.Keys(l.Table)) {
				kat := bat + "/submit/lookup/table/" + escapePointer(key)
				if err := exists(kat, l.Table[key]); err != nil {
					return err
				}
				fk := matchKey(l.Match, key)
				if prev, dup := keys[fk]; dup {
					return werr(kat, "matches the same values as the key %q", prev)
				}
				keys[fk] = key
			}
			if l.Otherwise != "" {
				if err := exists(bat+"/submit/lookup/otherwise", l.Otherwise); err != nil {
					return err
				}
			}
		case s.Template != nil:
			t := s.Template
			tat := bat + "/submit/template"
			known := func(name string) bool { _, ok := names[name]; return ok }
			sample := map[string]string{}
			for name := range names {
				sample[name] = "x"
			}
			for _, pt := range [][2]string{{tat + "/url", t.URL}, {tat + "/title", t.Title}} {
				if _, err := expand(pt[1], known, nil, 0, nil); err != nil {
					return werr(pt[0], "%v", err)
				}
			}
			for m, bl := range t.Blocks {
				if _, err := expand(bl.Text, known, nil, 0, nil); err != nil {
					return werr(fmt.Sprintf("%s/blocks/%d/text", tat, m), "%v", err)
				}
			}
			u, _ := expand(t.URL, known, sample, t.SeqStart, url.PathEscape)
			if _, err := normURL(u); err != nil {
				return werr(tat+"/url", "does not give a URL: %v", err)
			}
			for m, l := range t.Links {
				if err := exists(fmt.Sprintf("%s/links/%d/href", tat, m), l.Href); err != nil {
					return err
				}
			}
		default:
			return werr(bat+"/submit", "needs a lookup or a template")
		}
	}
	return nil
}

// checkHost checks the file tree: clean absolute paths, no file inside a
// file, and a working directory that exists.
func checkHost(h *Host) error {
	dirs := map[string]bool{"/": true}
	ancestors := func(at, p string) error {
		for p = path.Dir(p); p != "/"; p = path.Dir(p) {
			if _, isFile := h.Files[p]; isFile {
				return werr(at, "lies inside %s, which is a file", p)
			}
			dirs[p] = true
		}
		return nil
	}
	for i, d := range h.Dirs {
		at := "/host/dirs/" + strconv.Itoa(i)
		if path.Clean(d) != d || !path.IsAbs(d) {
			return werr(at, "must be a clean absolute path (%s)", path.Clean("/"+d))
		}
		if _, isFile := h.Files[d]; isFile {
			return werr(at, "is also a file")
		}
		if err := ancestors(at, d); err != nil {
			return err
		}
		dirs[d] = true
	}
	for _, f := range slices.Sorted(maps.Keys(h.Files)) {
		at := "/host/files/" + escapePointer(f)
		if path.Clean(f) != f || !path.IsAbs(f) || f == "/" {
			return werr(at, "must be a clean absolute file path")
		}
		if err := ancestors(at, f); err != nil {
			return err
		}
	}
	if path.Clean(h.Cwd) != h.Cwd {
		return werr("/host/cwd", "must be a clean absolute path (%s)", path.Clean(h.Cwd))
	}
	if !dirs[h.Cwd] {
		return werr("/host/cwd", "%s is not a directory of this host", h.Cwd)
	}
	return nil
}

// normalize fills in what a world file may leave implicit: the
// directories that hold files and directories, and empty lists where the
// schema requires a list.
func (w *World) normalize() {
	if w.Pages == nil {
		w.Pages = []Page{}
	}
	for i := range w.Pages {
		if w.Pages[i].Blocks == nil {
			w.Pages[i].Blocks = []Block{}
		}
	}
	h := &w.Host
	set := map[string]bool{}
	add := func(p string) {
		for ; p != "/" && p != "." && !set[p]; p = path.Dir(p) {
			set[p] = true
		}
	}
	for _, d := range h.Dirs {
		add(d)
	}
	for f := range h.Files {
		add(path.Dir(f))
	}
	h.Dirs = slices.Sorted(maps.Keys(set))
	if len(h.Files) == 0 {
		h.Files = nil
	}
}

// clone returns a deep copy of w.
func (w *World) clone() *World {
	c := *w
	c.Scenarios = slices.Clone(w.Scenarios)
	c.Pages = make([]Page, len(w.Pages))
	for i, p := range w.Pages {
		c.Pages[i] = p.clone()
	}
	c.Host.Dirs = slices.Clone(w.Host.Dirs)
	c.Host.Files = maps.Clone(w.Host.Files)
	return &c
}

func (p Page) clone() Page {
	c := p
	c.Blocks = slices.Clone(p.Blocks)
	c.Links = slices.Clone(p.Links)
	if p.Forms != nil {
		c.Forms = make([]Form, len(p.Forms))
		for i, f := range p.Forms {
			cf := f
			cf.Fields = make([]Field, len(f.Fields))
			for j, fl := range f.Fields {
				fl.Options = slices.Clone(fl.Options)
				cf.Fields[j] = fl
			}
			cf.Buttons = make([]Button, len(f.Buttons))
			for j, b := range f.Buttons {
				if b.Submit.Lookup != nil {
					l := *b.Submit.Lookup
					l.Table = maps.Clone(l.Table)
					b.Submit.Lookup = &l
				}
				if b.Submit.Template != nil {
					t := *b.Submit.Template
					t.Blocks = slices.Clone(t.Blocks)
					t.Links = slices.Clone(t.Links)
					b.Submit.Template = &t
				}
				cf.Buttons[j] = b
			}
			c.Forms[i] = cf
		}
	}
	return c
}

// page returns the page with URL u, or nil.
func (w *World) page(u string) *Page {
	for i := range w.Pages {
		if w.Pages[i].URL == u {
			return &w.Pages[i]
		}
	}
	return nil
}

// normURL puts a URL into the simulated web's normal form: https (an
// http URL is upgraded, as a site with HSTS does), lower-case host, no
// default port, no fragment, a path of at least "/". A URL without a
// scheme is taken as https.
func normURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("empty URL")
	}
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("not a URL: %q", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https", "http":
	default:
		return "", fmt.Errorf("%q is not a web URL (the simulated web is https only)", raw)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", fmt.Errorf("%q has no host", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("%q carries user information, which the simulated web does not accept", raw)
	}
	u.Scheme = "https"
	u.Host = strings.ToLower(u.Host)
	u.Host = strings.TrimSuffix(u.Host, ":443")
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" {
		u.Path, u.RawPath = "/", ""
	}
	return u.String(), nil
}

// escapePointer escapes one JSON pointer token.
func escapePointer(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// fold is how accessible names and fold lookups compare.
func fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func matchKey(match, s string) string {
	if match == "exact" {
		return s
	}
	return fold(s)
}

// expand fills a template. known says whether a field name exists; with
// vals nil it only checks the template. esc, when set, escapes field
// values (the sequence number needs none).
func expand(tmpl string, known func(string) bool, vals map[string]string, seq int, esc func(string) string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(tmpl); i++ {
		c := tmpl[i]
		switch {
		case c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(tmpl[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("unclosed { at byte %d (write {{ for a literal brace)", i)
			}
			name := tmpl[i+1 : i+end]
			i += end
			switch {
			case name == "@seq":
				b.WriteString(strconv.Itoa(seq))
			case known(name):
				v := vals[name]
				if esc != nil {
					v = esc(v)
				}
				b.WriteString(v)
			default:
				return "", fmt.Errorf("{%s} names no field of this form (fields are {name}; {@seq} is the sequence number)", name)
			}
		case c == '}':
			return "", fmt.Errorf("lone } at byte %d (write }} for a literal brace)", i)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// invalidValue says why v cannot be submitted in field f, or "".
func invalidValue(f Field, v string) string {
	switch f.Type {
	case "select":
		if !slices.Contains(f.Options, v) {
			return fmt.Sprintf("%q is not one of the options %s", v, quoteList(f.Options))
		}
	case "number":
		// As an HTML number input: decimal notation only, finite.
		t := strings.TrimSpace(v)
		n, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) || strings.ContainsAny(t, "xXpPiInN_") {
			return fmt.Sprintf("%q is not a number", v)
		}
	case "email":
		t := strings.TrimSpace(v)
		local, domain, ok := strings.Cut(t, "@")
		if !ok || local == "" || strings.Contains(domain, "@") || strings.ContainsAny(t, " \t\r\n") ||
			!strings.Contains(strings.Trim(domain, "."), ".") {
			return fmt.Sprintf("%q is not an email address", v)
		}
	}
	return ""
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, ", ")
}
