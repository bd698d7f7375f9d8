package sim

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"workbench/pkg/canonjson"
	"workbench/pkg/skill"
	"workbench/pkg/sortfunc"
)

// The encoded state. Lists whose order means nothing (pages, submission
// counters, directories, files) are sorted, and lists stand where a map
// would put data (paths, URLs) into member names: a state's shape
// signature (skill.ShapeHash) keeps member names, so a map keyed by paths
// would make every new file a change of shape, where it is a change of
// content.

type stateDoc struct {
	Browser browserState `json:"browser"`
	Web     webState     `json:"web"`
	Host    hostState    `json:"host"`
}

type browserState struct {
	// URL is the address the browser shows; "" before any page is open.
	URL string `json:"url"`
	// Page is the page rendered with its current field values; null when
	// no page is open or the page has been removed from the world.
	Page *PageView `json:"page"`
}

type webState struct {
	Pages       []Page       `json:"pages"`
	Submissions []submission `json:"submissions"`
}

type submission struct {
	Page   string `json:"page"`
	Form   string `json:"form"`
	Button string `json:"button"`
	Count  int    `json:"count"`
}

type hostState struct {
	Cwd   string      `json:"cwd"`
	Dirs  []string    `json:"dirs"`
	Files []fileState `json:"files"`
}

type fileState struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// PageView is a page as the browser shows it: its text and links, and its
// forms with the value each field holds now. It is the structured content
// of the browser tools' results.
type PageView struct {
	URL    string     `json:"url"`
	Title  string     `json:"title"`
	Blocks []Block    `json:"blocks"`
	Links  []Link     `json:"links"`
	Forms  []FormView `json:"forms"`
}

// FormView is a form with its current values.
type FormView struct {
	Name    string      `json:"name"`
	Fields  []FieldView `json:"fields"`
	Buttons []string    `json:"buttons"`
}

// FieldView is a field with its current value.
type FieldView struct {
	Name     string   `json:"name"`
	Label    string   `json:"label"`
	Type     string   `json:"type"`
	Required bool     `json:"required"`
	Options  []string `json:"options,omitempty"`
	Value    string   `json:"value"`
}

// The encoded state is {"browser":…,"host":…,"web":…}, with its three
// parts encoded and cached separately: most calls change one part, and
// the pages, the bulk of a state, change least. Canonical parts joined
// under sorted member names make a canonical whole.

// part names the parts of the state a change makes stale.
type part uint8

const (
	partBrowser part = 1 << iota
	partWeb
	partHost
	partAll = partBrowser | partWeb | partHost
)

// encCache holds canonical encodings; nil (or "") means stale.
type encCache struct {
	browser, web, host []byte
	all                []byte
	hash               string
	// Skeletons of the parts and the shape hash of the whole (DESIGN §3),
	// stale together with their parts.
	skBrowser, skWeb, skHost []byte
	shape                    string
}

// changed marks parts of the state stale. Every change to the world, the
// browser or the submission counters must call it.
func (s *Sim) changed(p part) {
	if p&partBrowser != 0 {
		s.cache.browser, s.cache.skBrowser = nil, nil
	}
	if p&partWeb != 0 {
		s.cache.web, s.cache.skWeb = nil, nil
		// The page on screen is looked up in the world.
		s.cache.browser, s.cache.skBrowser = nil, nil
	}
	if p&partHost != 0 {
		s.cache.host, s.cache.skHost = nil, nil
	}
	s.cache.all, s.cache.hash, s.cache.shape = nil, "", ""
}

// encoded returns the canonical encoded state, building what is stale.
func (s *Sim) encoded() ([]byte, error) {
	c := &s.cache
	if c.all != nil {
		return c.all, nil
	}
	if err := s.encodeParts(); err != nil {
		return nil, err
	}
	all := make([]byte, 0, len(c.browser)+len(c.web)+len(c.host)+32)
	for _, piece := range c.pieces() {
		all = append(all, piece...)
	}
	c.all = all
	return all, nil
}

// pieces are the encoded state cut at its parts: joined, they are the
// whole.
func (c *encCache) pieces() [7][]byte {
	return [...][]byte{[]byte(`{"browser":`), c.browser, []byte(`,"host":`), c.host, []byte(`,"web":`), c.web, []byte("}")}
}

// encodeParts encodes the parts that are stale.
func (s *Sim) encodeParts() error {
	c := &s.cache
	var err error
	if c.browser == nil {
		// The browser part is written and walked from its value directly
		// (see appendBrowser), its skeleton with it: the view is built once.
		v := s.view()
		c.browser = appendBrowser(nil, s.url, v)
		c.skBrowser = appendBrowserSkeleton(nil, v)
	}
	if c.web == nil {
		if c.web, err = canonical(s.webState()); err != nil {
			return err
		}
	}
	if c.host == nil {
		if c.host, err = canonical(s.hostState()); err != nil {
			return err
		}
	}
	return nil
}

// stateHash is skill.HashBytes of the encoded state, hashed part by part
// so that the whole is not joined only to be hashed.
func (s *Sim) stateHash() (string, error) {
	c := &s.cache
	if c.hash != "" {
		return c.hash, nil
	}
	if c.all != nil {
		c.hash = skill.HashBytes(c.all)
		return c.hash, nil
	}
	if err := s.encodeParts(); err != nil {
		return "", err
	}
	h := sha256.New()
	for _, piece := range c.pieces() {
		h.Write(piece)
	}
	var sum [sha256.Size]byte
	c.hash = skill.HashPrefix + hex.EncodeToString(h.Sum(sum[:0]))
	return c.hash, nil
}

func canonical(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("sim: encode state: %w", err)
	}
	c, err := canonjson.Transform(data)
	if err != nil {
		return nil, fmt.Errorf("sim: encode state: %w", err)
	}
	return c, nil
}

// stateDoc is the whole state as one value, the reference the cached
// encoding must equal (a test holds it to that).
func (s *Sim) stateDoc() stateDoc {
	return stateDoc{Browser: browserState{URL: s.url, Page: s.view()}, Web: s.webState(), Host: s.hostState()}
}

func (s *Sim) webState() webState {
	w := webState{Submissions: []submission{}}
	w.Pages = append([]Page(nil), s.world.Pages...) // a copy, still nil when there are none: the encoded state may not change
	sortfunc.Sort(w.Pages, func(a, b Page) int { return cmp.Compare(a.URL, b.URL) })
	keys := slices.Collect(maps.Keys(s.seqs))
	sortfunc.Sort(keys, compareSeqKeys)
	for _, k := range keys {
		w.Submissions = append(w.Submissions, submission{k.page, k.form, k.button, s.seqs[k]})
	}
	return w
}

func (s *Sim) hostState() hostState {
	h := &s.world.Host
	out := hostState{Cwd: h.Cwd, Dirs: slices.Clone(h.Dirs), Files: []fileState{}}
	if out.Dirs == nil {
		out.Dirs = []string{}
	}
	for _, p := range slices.Sorted(maps.Keys(h.Files)) {
		out.Files = append(out.Files, fileState{p, h.Files[p]})
	}
	return out
}

func compareSeqKeys(a, b seqKey) int {
	return cmp.Or(cmp.Compare(a.page, b.page), cmp.Compare(a.form, b.form), cmp.Compare(a.button, b.button))
}

// view renders the current page, or returns nil when there is none.
func (s *Sim) view() *PageView {
	p := s.world.page(s.url)
	if p == nil {
		return nil
	}
	v := &PageView{URL: p.URL, Title: p.Title, Blocks: slices.Clone(p.Blocks), Links: slices.Clone(p.Links), Forms: []FormView{}}
	if v.Blocks == nil {
		v.Blocks = []Block{}
	}
	if v.Links == nil {
		v.Links = []Link{}
	}
	for _, f := range p.Forms {
		fv := FormView{Name: f.Name, Fields: make([]FieldView, len(f.Fields)), Buttons: make([]string, len(f.Buttons))}
		for i, fl := range f.Fields {
			fv.Fields[i] = FieldView{Name: fl.Name, Label: fl.Label, Type: fl.Type, Required: fl.Required, Options: slices.Clone(fl.Options), Value: s.value(f, fl)}
		}
		for i, b := range f.Buttons {
			fv.Buttons[i] = b.Name
		}
		v.Forms = append(v.Forms, fv)
	}
	return v
}

// value is what field fl of form f holds now: what was typed, else its
// initial value.
func (s *Sim) value(f Form, fl Field) string {
	if v, ok := s.values[f.Name][fl.Name]; ok {
		return v
	}
	return fl.Value
}

// pruneValues drops typed values whose form or field no longer exists.
func (s *Sim) pruneValues() {
	p := s.world.page(s.url)
	for form, vals := range s.values {
		var f *Form
		if p != nil {
			for i := range p.Forms {
				if p.Forms[i].Name == form {
					f = &p.Forms[i]
				}
			}
		}
		if f == nil {
			delete(s.values, form)
			continue
		}
		for name := range vals {
			if !slices.ContainsFunc(f.Fields, func(fl Field) bool { return fl.Name == name }) {
				delete(vals, name)
			}
		}
	}
}

// StateHashes returns the state hash and shape signature (body.Hasher),
// equal to skill.StateHashes of State but computed from the cached parts:
// a part that did not change is neither encoded nor walked again.
func (s *Sim) StateHashes(context.Context) (hash, shape string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hash, err = s.stateHash()
	if err != nil {
		return "", "", err
	}
	c := &s.cache
	if c.shape == "" {
		for _, p := range []struct{ enc, sk *[]byte }{{&c.browser, &c.skBrowser}, {&c.web, &c.skWeb}, {&c.host, &c.skHost}} {
			if *p.sk != nil {
				continue
			}
			doc, err := canonjson.Parse(*p.enc, canonjson.Limits{MaxBytes: 1 << 30})
			if err != nil {
				return "", "", err
			}
			*p.sk = doc.AppendSkeleton(nil)
		}
		whole := make([]byte, 0, len(c.skBrowser)+len(c.skWeb)+len(c.skHost)+32)
		whole = append(whole, `{"browser":`...)
		whole = append(whole, c.skBrowser...)
		whole = append(whole, `,"host":`...)
		whole = append(whole, c.skHost...)
		whole = append(whole, `,"web":`...)
		whole = append(whole, c.skWeb...)
		c.shape = skill.HashBytes(append(whole, '}'))
	}
	return c.hash, c.shape, nil
}
