package canonjson_test

import (
	"reflect"
	"testing"

	"workbench/pkg/canonjson"
)

// TestGenericParts holds ArrayLen, GenericWithout and GenericElements to
// Generic: the parts put back together are the whole.
func TestGenericParts(t *testing.T) {
	src := `{"a":{"list":[{"x":"\u00e9t\u00e9","n":1.50},[],"s",null,true,7]},"b":["u"],"c":"list"}`
	doc, err := canonjson.Parse([]byte(src), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	whole := doc.Generic().(map[string]any)
	list := whole["a"].(map[string]any)["list"].([]any)
	tests := []struct {
		name     string
		from, to int
		want     []any
	}{
		{"all", 0, 6, list},
		{"beyond the end", 0, 100, list},
		{"middle", 1, 4, list[1:4]},
		{"last", 5, 6, list[5:]},
		{"past the end", 6, 9, []any{}},
		{"empty range", 2, 2, []any{}},
	}
	for _, tt := range tests {
		got, ok := doc.GenericElements("/a/list", tt.from, tt.to)
		if !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: GenericElements(%d, %d) = %#v, %v; want %#v", tt.name, tt.from, tt.to, got, ok, tt.want)
		}
	}
	if n, ok := doc.ArrayLen("/a/list"); !ok || n != len(list) {
		t.Errorf("ArrayLen = %d, %v; want %d", n, ok, len(list))
	}
	pruned := doc.GenericWithout("/a/list").(map[string]any)
	if got := pruned["a"].(map[string]any)["list"]; !reflect.DeepEqual(got, []any{}) {
		t.Errorf("GenericWithout left %#v at the array", got)
	}
	pruned["a"].(map[string]any)["list"] = list
	if !reflect.DeepEqual(pruned, whole) {
		t.Errorf("GenericWithout differs elsewhere: %#v", pruned)
	}
	for _, ptr := range []string{"/c", "/missing", "/b/0"} {
		if _, ok := doc.ArrayLen(ptr); ok {
			t.Errorf("ArrayLen(%q) reports an array", ptr)
		}
		if _, ok := doc.GenericElements(ptr, 0, 1); ok {
			t.Errorf("GenericElements(%q) reports an array", ptr)
		}
		if got := doc.GenericWithout(ptr); !reflect.DeepEqual(got, doc.Generic()) {
			t.Errorf("GenericWithout(%q) = %#v, want Generic", ptr, got)
		}
	}
}
