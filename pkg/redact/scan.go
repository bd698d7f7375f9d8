package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"workbench/pkg/skill"
	"workbench/pkg/sortfunc"
)

// Finding is one secret found in a JSON document. Pointer is the RFC 6901
// JSON pointer of the string that holds it and [Start, End) its byte range
// inside that string. When InKey is set the secret is in the name of the
// member Pointer designates rather than in its value.
//
// A Finding never carries the secret: member names on the way to Pointer
// that themselves hold a secret are spelled masked ([redacted:<kind>]), as
// they are after Apply.
type Finding struct {
	Pointer    string
	Kind       string
	Start, End int
	InKey      bool
	// Fragment is set when the string holds a run of MinFragment or more
	// bytes of a secret known from before redaction, rather than a whole
	// secret the detector recognizes (see Known).
	Fragment bool
}

// String describes the finding without the secret.
func (f Finding) String() string {
	where := "string"
	if f.InKey {
		where = "member name"
	}
	what := f.Kind
	if f.Fragment {
		what = "part of a " + f.Kind
	}
	return fmt.Sprintf("%s in the %s at %s (bytes %d-%d)", what, where, displayPointer(f.Pointer), f.Start, f.End)
}

func displayPointer(p string) string {
	if p == "" {
		return "the document root"
	}
	return p
}

// Scan returns the secrets anywhere in v, with a Detector made for the call.
// See Detector.Scan.
func Scan(v any) ([]Finding, error) {
	return NewDetector().Scan(v)
}

// Scan returns the secrets in every string of v — member values and member
// names at any depth — ordered by pointer and position. v is either a JSON
// value as encoding/json decodes into an interface (map[string]any, []any,
// string, float64, json.Number, bool, nil), json.RawMessage text, or any
// other value, which is first encoded with encoding/json so that pointers
// follow its JSON form (a *skill.Bundle gives pointers into the bundle).
func (d *Detector) Scan(v any) ([]Finding, error) {
	root, err := toTree(v)
	if err != nil {
		return nil, fmt.Errorf("redact: scan: %w", err)
	}
	w := walker{f: finder{d: d}}
	w.value(root, "")
	w.sortFindings()
	return w.findings, nil
}

// ScanJSON returns the secrets in the JSON text data; see Detector.Scan.
func (d *Detector) ScanJSON(data []byte) ([]Finding, error) {
	return d.Scan(json.RawMessage(data))
}

// toTree turns v into a generic JSON value. Numbers stay json.Number so
// that a tree encodes back to the same number text.
func toTree(v any) (any, error) {
	switch v.(type) {
	case nil, string, bool, float64, json.Number, map[string]any, []any:
		return v, nil
	}
	data, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if data, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return root, nil
}

// finder finds what redaction removes from a string: secrets always,
// e-mail addresses and password values when pii is set, and runs of the
// known secrets when known holds any.
type finder struct {
	d     *Detector
	pii   bool
	known *Known
}

// find appends the matches of s, held by the member named name ("" for
// array elements and member names), to dst, ordered by position and not
// overlapping.
func (f finder) find(dst []Match, s, name string) []Match {
	n0 := len(dst)
	dst = f.d.matchValue(dst, s, name)
	if f.pii {
		dst = appendPII(dst, s, name)
	}
	dst = f.known.appendFragments(dst, s)
	return sortMerge(dst, n0)
}

// fragment reports whether text, matched as kind, is a run of a known
// secret that the detector does not see as a secret on its own.
func (f finder) fragment(text, kind string) bool {
	return f.known.Len() > 0 && isSecretKind(kind) && len(f.d.appendMatches(nil, text)) == 0
}

// mask masks s, held by the member named name, starting from its matches
// ms, until nothing is left to find. A kebab-case slug (a member named
// slug) is rebuilt from its other words instead, so that it stays a valid
// slug: the mask's brackets and colon are not slug characters.
func (f finder) mask(s, name string, ms []Match) string {
	slug := name == "slug" && skill.ValidSlug(s) == nil
	for len(ms) > 0 {
		if slug {
			s = dropSlugWords(s, ms)
		} else {
			s = Mask(s, ms)
		}
		ms = f.find(ms[:0], s, name)
	}
	return s
}

// dropSlugWords removes from a slug every hyphen-separated word that a
// match touches. What is left is still a slug; when too little is left,
// the slug is "skill", the default for a name without letters.
func dropSlugWords(s string, ms []Match) string {
	var kept []string
	start := 0
	for start <= len(s) {
		end := start + strings.IndexByte(s[start:], '-')
		if end < start {
			end = len(s)
		}
		if !slices.ContainsFunc(ms, func(m Match) bool { return m.Start < end && m.End > start }) {
			kept = append(kept, s[start:end])
		}
		start = end + 1
	}
	out := strings.Join(kept, "-")
	if len(out) < 2 {
		return "skill"
	}
	return out
}

// walker visits every string of a tree, keeping the path to it. In scan
// mode it collects findings; with mask set it replaces each match by its
// mask in place and notes the pointer of every string that holds a mask.
type walker struct {
	f        finder
	mask     bool
	path     []string
	findings []Finding
	masked   map[string]struct{}
	buf      []Match
}

func (w *walker) pointer() string {
	return pointerOf(w.path)
}

// value visits v, the value of the member named name ("" in an array), and
// returns it, masked in mask mode.
func (w *walker) value(v any, name string) any {
	switch t := v.(type) {
	case string:
		// Returning v unchanged, rather than t, saves boxing the string
		// again: most strings hold nothing.
		if masked := w.str(t, name); masked != t {
			return masked
		}
	case []any:
		for i, c := range t {
			w.path = append(w.path, strconv.Itoa(i))
			if nv := w.value(c, name); w.mask {
				t[i] = nv
			}
			w.path = w.path[:len(w.path)-1]
		}
	case map[string]any:
		// Member names holding anything to mask are rare: find them
		// first, so that renaming them (mask mode) never happens while
		// ranging over t.
		var secretNames []string
		for k := range t {
			if len(w.f.find(w.buf[:0], k, "")) > 0 {
				secretNames = append(secretNames, k)
			}
		}
		var segs map[string]string
		for _, k := range secretNames {
			w.buf = w.f.find(w.buf[:0], k, "")
			if w.mask {
				renameMember(t, k, w.f.mask(k, "", w.buf))
				continue
			}
			seg := w.f.mask(k, "", slices.Clone(w.buf))
			w.path = append(w.path, seg)
			w.record(w.buf, k, true)
			w.path = w.path[:len(w.path)-1]
			if segs == nil {
				segs = make(map[string]string)
			}
			segs[k] = seg
		}
		for k, c := range t {
			seg := k
			if s, ok := segs[k]; ok {
				seg = s
			}
			w.path = append(w.path, seg)
			if nv := w.value(c, k); w.mask {
				t[k] = nv
			}
			w.path = w.path[:len(w.path)-1]
		}
	}
	return v
}

func (w *walker) str(s, name string) string {
	w.buf = w.f.find(w.buf[:0], s, name)
	if len(w.buf) == 0 {
		if w.mask && HasMask(s) {
			w.note()
		}
		return s
	}
	if !w.mask {
		w.record(w.buf, s, false)
		return s
	}
	out := w.f.mask(s, name, w.buf)
	// A rebuilt slug holds no marker, so it is not listed as stripped:
	// a verifier would find content at a pointer said to hold none.
	if HasMask(out) {
		w.note()
	}
	return out
}

// record notes the matches ms in s (a member name when inKey): in mask
// mode the pointer, in scan mode a finding for each.
func (w *walker) record(ms []Match, s string, inKey bool) {
	if w.mask {
		w.note()
		return
	}
	p := w.pointer()
	for _, m := range ms {
		w.findings = append(w.findings, Finding{
			Pointer: p, Kind: m.Kind, Start: m.Start, End: m.End, InKey: inKey,
			Fragment: w.f.fragment(s[m.Start:m.End], m.Kind),
		})
	}
}

func (w *walker) note() {
	if w.masked == nil {
		w.masked = make(map[string]struct{})
	}
	w.masked[w.pointer()] = struct{}{}
}

func (w *walker) sortFindings() {
	sortfunc.Sort(w.findings, func(a, b Finding) int {
		if c := strings.Compare(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		if a.InKey != b.InKey {
			if a.InKey {
				return -1
			}
			return 1
		}
		return a.Start - b.Start
	})
}

// renameMember moves the member from to the name to and returns the name
// it took: never overwriting another member, two member names that mask
// alike get a numbered suffix.
func renameMember(m map[string]any, from, to string) string {
	name := to
	for n := 2; ; n++ {
		if _, taken := m[name]; !taken {
			break
		}
		name = to + "#" + strconv.Itoa(n)
	}
	m[name] = m[from]
	delete(m, from)
	return name
}

// Summary condenses findings for a warning such as the export dialog's
// ("2 strings look like secrets: jwt, openrouter_key").
type Summary struct {
	Strings  int      // distinct strings (values or member names) holding a secret
	Findings int      // secrets in all
	Kinds    []string // distinct kinds, sorted
}

// Summarize condenses findings.
func Summarize(fs []Finding) Summary {
	type place struct {
		p     string
		inKey bool
	}
	places := make(map[place]struct{})
	var kinds []string
	for _, f := range fs {
		places[place{f.Pointer, f.InKey}] = struct{}{}
		if !slices.Contains(kinds, f.Kind) {
			kinds = append(kinds, f.Kind)
		}
	}
	slices.Sort(kinds)
	return Summary{Strings: len(places), Findings: len(fs), Kinds: kinds}
}

// Found reports whether any secret was found.
func (s Summary) Found() bool { return s.Findings > 0 }

// String is the warning text, naming kinds but never a secret.
func (s Summary) String() string {
	switch s.Strings {
	case 0:
		return "no strings look like secrets"
	case 1:
		return "1 string looks like a secret: " + strings.Join(s.Kinds, ", ")
	}
	return fmt.Sprintf("%d strings look like secrets: %s", s.Strings, strings.Join(s.Kinds, ", "))
}
