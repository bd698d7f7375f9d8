package canonjson_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"workbench/pkg/canonjson"
)

// walk rebuilds the generic form of v through the Value API alone.
func walk(v canonjson.Value) any {
	switch v.Type() {
	case canonjson.Object:
		m := map[string]any{}
		for name, m2 := range v.Members() {
			m[name] = walk(m2)
		}
		if len(m) != v.Len() {
			panic("Len disagrees with Members")
		}
		return m
	case canonjson.Array:
		a := []any{}
		for i, e := range v.Elements() {
			if i != len(a) {
				panic("Elements skipped an index")
			}
			a = append(a, walk(e))
		}
		return a
	case canonjson.String:
		return v.Text()
	case canonjson.Number:
		return json.Number(v.Text())
	case canonjson.Boolean:
		return v.Bool()
	}
	return nil
}

// TestValueWalksLikeGeneric holds the Value API to Generic: walking a
// document value by value gives the same tree, escapes decoded.
func TestValueWalksLikeGeneric(t *testing.T) {
	for _, src := range []string{
		`{"a":{"list":[{"x":"\u00e9t\u00e9","n":1.50},[],"s",null,true,false,7]},"b\n":["u"],"c":"li\/st"}`,
		`[1,-0,2e3]`, `"x"`, `null`, `{}`,
	} {
		doc, err := canonjson.Parse([]byte(src), canonjson.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := walk(doc.Root()), doc.Generic(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: walked %#v, Generic %#v", src, got, want)
		}
		if got, want := doc.Root().Generic(), doc.Generic(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Root().Generic() = %#v, want %#v", src, got, want)
		}
	}
}

func TestValueAt(t *testing.T) {
	doc, err := canonjson.Parse([]byte(`{"a":[{"b~/":"x"}],"n":null}`), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		ptr  string
		ok   bool
		typ  canonjson.Type
		text string
	}{
		{"", true, canonjson.Object, ""},
		{"/a", true, canonjson.Array, ""},
		{"/a/0/b~0~1", true, canonjson.String, "x"},
		{"/n", true, canonjson.Null, ""},
		{"/a/1", false, 0, ""},
		{"/missing", false, 0, ""},
	}
	for _, tt := range tests {
		v, ok := doc.At(tt.ptr)
		if ok != tt.ok {
			t.Errorf("At(%q) found %v, want %v", tt.ptr, ok, tt.ok)
			continue
		}
		if ok && (v.Type() != tt.typ || v.Text() != tt.text) {
			t.Errorf("At(%q) = %s %q, want %s %q", tt.ptr, v.Type(), v.Text(), tt.typ, tt.text)
		}
	}
}

func TestValueRaw(t *testing.T) {
	src := `{ "s" : "a\/b" , "o":{"z": 1.50, "a" :[ true ]}, "n":-0 }`
	doc, err := canonjson.Parse([]byte(src), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for ptr, want := range map[string]string{
		"":       src,
		"/s":     `"a\/b"`,
		"/o":     `{"z": 1.50, "a" :[ true ]}`,
		"/o/z":   `1.50`,
		"/o/a":   `[ true ]`,
		"/o/a/0": `true`,
		"/n":     `-0`,
	} {
		v, ok := doc.At(ptr)
		if !ok || string(v.Raw()) != want {
			t.Errorf("At(%q).Raw() = %q, want %q", ptr, v.Raw(), want)
		}
	}
}

func ExampleValue() {
	doc, err := canonjson.Parse([]byte(`{"edges":[{"id":"e1","ms":12},{"id":"e2","ms":7}]}`), canonjson.DefaultLimits())
	if err != nil {
		panic(err)
	}
	edges, _ := doc.At("/edges")
	for i, e := range edges.Elements() {
		for name, m := range e.Members() {
			fmt.Printf("%d %s=%s (%s)\n", i, name, m.Text(), m.Type())
		}
	}
	// Output:
	// 0 id=e1 (string)
	// 0 ms=12 (number)
	// 1 id=e2 (string)
	// 1 ms=7 (number)
}
