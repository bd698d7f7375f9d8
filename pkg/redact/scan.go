package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
}

// String describes the finding without the secret.
func (f Finding) String() string {
	where := "string"
	if f.InKey {
		where = "member name"
	}
	return fmt.Sprintf("%s in the %s at %s (bytes %d-%d)", f.Kind, where, displayPointer(f.Pointer), f.Start, f.End)
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
	w := walker{d: d}
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

// walker visits every string of a tree, keeping the path to it. In scan
// mode it collects findings; with mask set it replaces each secret by its
// mask in place and notes the pointer of every string that holds a mask.
type walker struct {
	d        *Detector
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
		// Member names holding secrets are rare: find them first, so that
		// renaming them (mask mode) never happens while ranging over t.
		var secretNames []string
		for k := range t {
			if len(w.d.appendMatches(w.buf[:0], k)) > 0 {
				secretNames = append(secretNames, k)
			}
		}
		var segs map[string]string
		for _, k := range secretNames {
			w.buf = w.d.appendMatches(w.buf[:0], k)
			if w.mask {
				renameMember(t, k, w.d.maskFixed(k, "", w.buf))
				continue
			}
			seg := w.d.maskFixed(k, "", slices.Clone(w.buf))
			w.path = append(w.path, seg)
			w.record(w.buf, true)
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
	w.buf = w.d.matchValue(w.buf[:0], s, name)
	if len(w.buf) == 0 {
		if w.mask && HasMask(s) {
			w.note()
		}
		return s
	}
	w.record(w.buf, false)
	if w.mask {
		return w.d.maskFixed(s, name, w.buf)
	}
	return s
}

func (w *walker) record(ms []Match, inKey bool) {
	if w.mask {
		w.note()
		return
	}
	p := w.pointer()
	for _, m := range ms {
		w.findings = append(w.findings, Finding{Pointer: p, Kind: m.Kind, Start: m.Start, End: m.End, InKey: inKey})
	}
}

func (w *walker) note() {
	if w.masked == nil {
		w.masked = make(map[string]struct{})
	}
	w.masked[w.pointer()] = struct{}{}
}

func (w *walker) sortFindings() {
	slices.SortFunc(w.findings, func(a, b Finding) int {
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
