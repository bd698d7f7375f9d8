// Package skilldiff compares two versions of a skill: which members of
// their manifests differ, and the verdict of each proof gate in one and
// the other. It is the diff behind the skill page's version history; it
// reads values only and knows nothing of the store or the page.
package skilldiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"workbench/pkg/skill"
)

// Version is one side of a comparison: a version's number, its manifest,
// and the proof to compare — the caller chooses which (the skill page
// passes the proof it re-derived, not the one the bundle claims).
type Version struct {
	Number   int
	Manifest skill.Manifest
	Proof    skill.ProofResult
}

// Field is a manifest member whose value differs. Name is its JSON name;
// Old and New are its values as text: a string as it is, anything else as
// compact JSON, "" where the member is absent.
type Field struct {
	Name, Old, New string
}

// Gate is one proof gate's verdict in each version; "" where the version's
// proof has no such gate.
type Gate struct {
	ID, Old, New string
}

// Changed reports whether the gate's verdict differs.
func (g Gate) Changed() bool { return g.Old != g.New }

// Diff is the comparison of version From with version To.
type Diff struct {
	From, To int
	// Fields are the manifest members that differ, in the manifest's
	// order; empty when the manifests are equal.
	Fields []Field
	// Gates are every gate of either proof: the six of spec §5.4 in the
	// spec's order, then any other by id.
	Gates []Gate
	// Verdict is the overall verdict of each proof, as a Gate with the
	// id "overall".
	Verdict Gate
}

// GatesChanged counts the gates whose verdict differs.
func (d Diff) GatesChanged() int {
	n := 0
	for _, g := range d.Gates {
		if g.Changed() {
			n++
		}
	}
	return n
}

// Compare compares version from with version to. It fails only when a
// manifest cannot be encoded as JSON (a value no bundle can hold).
func Compare(from, to Version) (Diff, error) {
	d := Diff{From: from.Number, To: to.Number,
		Verdict: Gate{ID: "overall", Old: from.Proof.OverallVerdict, New: to.Proof.OverallVerdict}}
	old, err := members(from.Manifest)
	if err != nil {
		return Diff{}, fmt.Errorf("skilldiff: manifest of version %d: %w", from.Number, err)
	}
	cur, err := members(to.Manifest)
	if err != nil {
		return Diff{}, fmt.Errorf("skilldiff: manifest of version %d: %w", to.Number, err)
	}
	for _, name := range manifestMembers() {
		o, n := old[name], cur[name]
		if !bytes.Equal(o, n) {
			d.Fields = append(d.Fields, Field{Name: name, Old: text(o), New: text(n)})
		}
	}
	d.Gates = gates(from.Proof.ProofGates, to.Proof.ProofGates)
	return d, nil
}

// members returns a manifest's members as compact JSON, by name, with
// "&", "<" and ">" as they are: the text is shown, not embedded in HTML.
func members(m skill.Manifest) (map[string]json.RawMessage, error) {
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	if err := json.Unmarshal(data.Bytes(), &out); err != nil {
		return nil, err
	}
	for k, v := range out {
		var b bytes.Buffer
		if err := json.Compact(&b, v); err != nil {
			return nil, err
		}
		out[k] = b.Bytes()
	}
	return out, nil
}

// manifestMembers lists the JSON names of skill.Manifest in field order:
// the order the spec lists them in and a reader expects.
func manifestMembers() []string {
	t := reflect.TypeFor[skill.Manifest]()
	names := make([]string, 0, t.NumField())
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// text shows a member's compact JSON to a person: a string without its
// quotes, null and absence as "".
func text(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

// gates pairs the verdicts of two gate lists by id. A gate listed twice
// in one proof counts by its first entry.
func gates(from, to []skill.Gate) []Gate {
	verdicts := func(gs []skill.Gate) map[string]string {
		m := map[string]string{}
		for _, g := range gs {
			if _, ok := m[g.ID]; !ok {
				m[g.ID] = g.Verdict
			}
		}
		return m
	}
	old, cur := verdicts(from), verdicts(to)
	specGates := skill.GateIDs()
	var others []string
	for _, m := range []map[string]string{old, cur} {
		for id := range m {
			if !slices.Contains(specGates, id) && !slices.Contains(others, id) {
				others = append(others, id)
			}
		}
	}
	slices.Sort(others)
	var out []Gate
	for _, id := range append(specGates, others...) {
		o, inOld := old[id]
		n, inNew := cur[id]
		if inOld || inNew {
			out = append(out, Gate{ID: id, Old: o, New: n})
		}
	}
	return out
}
