package store

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRawMember(t *testing.T) {
	tests := []struct {
		doc, name, want string
		fails           bool
	}{
		{`{"a":1,"interaction_trace":{"x":[1,"}]\"",{}]},"b":2}`, "interaction_trace", `{"x":[1,"}]\"",{}]}`, false},
		{" {\n \"b\" : \"s\\\\\" ,\t\"a\" : [ ] }\n", "a", `[ ]`, false},
		{`{"a":true}`, "a", `true`, false},
		{`{"a":-1.5e3,"b":null}`, "b", `null`, false},
		{`{"\u0061":"escaped name"}`, "a", `"escaped name"`, false},
		{`{"a":1}`, "b", "", true},
		{`{}`, "a", "", true},
		{`[1]`, "a", "", true},
		{`{"a":{"b":1}`, "z", "", true},
		{`{"a":"open`, "a", "", true},
	}
	for _, tc := range tests {
		got, err := rawMember([]byte(tc.doc), tc.name)
		if tc.fails {
			if err == nil {
				t.Errorf("rawMember(%q, %q) = %q, want an error", tc.doc, tc.name, got)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("rawMember(%q, %q) = %q, %v; want %q", tc.doc, tc.name, got, err, tc.want)
		}
	}
}

// FuzzRawMember: on any object encoding/json accepts with unique member
// names, rawMember finds every member, with the value encoding/json saw.
func FuzzRawMember(f *testing.F) {
	f.Add(`{"a":1,"interaction_trace":{"x":[1,"}]\"",{}]},"b":2}`)
	f.Add(` { "\u0061" : [ "\\" , { } ] , "b" : -0.5e+2 } `)
	f.Fuzz(func(t *testing.T, doc string) {
		// Bundle bytes reach rawMember only after a strict decode, which
		// refuses invalid UTF-8; encoding/json would instead replace it in
		// member names, so its names are no oracle for such documents.
		if !utf8.ValidString(doc) {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(doc), &m) != nil || m == nil || hasDuplicateNames(doc) {
			return
		}
		for name, want := range m {
			got, err := rawMember([]byte(doc), name)
			if err != nil {
				t.Fatalf("rawMember(%q, %q): %v", doc, name, err)
			}
			if bytes.Equal(got, want) {
				continue
			}
			// Otherwise the same value written differently; a number
			// beyond float64 (14e44444) decodes for neither, so it must
			// have matched byte for byte above.
			var a, b any
			if json.Unmarshal(got, &a) != nil || json.Unmarshal(want, &b) != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("rawMember(%q, %q) = %q, want %q", doc, name, got, want)
			}
		}
	})
}

// hasDuplicateNames reports whether the top-level object repeats a name.
func hasDuplicateNames(doc string) bool {
	d := json.NewDecoder(strings.NewReader(doc))
	if _, err := d.Token(); err != nil {
		return true
	}
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return true
		}
		name, _ := tok.(string)
		if seen[name] {
			return true
		}
		seen[name] = true
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return true
		}
	}
	return false
}
