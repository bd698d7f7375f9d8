package schemas

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/canonjson"
)

// TestValidateBundleKeepsFirstErrors holds ValidateBundle's explanation,
// whatever the number of errors it keeps, to the library's whole list of
// errors: the first ones of that list, in its order, and the count of the
// rest.
func TestValidateBundleKeepsFirstErrors(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "fixtures", fixtures.ValidBundleFile))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(b map[string]any, edges []any) any) []byte {
		var b map[string]any
		if err := json.Unmarshal(data, &b); err != nil {
			t.Fatal(err)
		}
		tr := b["interaction_trace"].(map[string]any)
		edges := tr["edges"].([]any)
		for len(edges) < 12 {
			edges = append(edges, edges...)
		}
		tr["edges"] = f(b, edges)
		out, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	cases := map[string][]byte{
		"broken edges and body": edit(func(b map[string]any, edges []any) any {
			b["bundle_version"] = 7
			b["extra"] = true
			b["x/~y"] = 1
			delete(edges[1].(map[string]any), "edge_id")
			edges[5].(map[string]any)["latency_ms"] = -1
			edges[5].(map[string]any)["state_before"] = "nope"
			edges[10] = "not an edge"
			edges[11] = map[string]any{}
			b["proof"].(map[string]any)["proof_gates"] = []any{1, "x", map[string]any{"id": "gate.authority"}}
			return edges
		}),
		"edges not an array": edit(func(_ map[string]any, _ []any) any { return "edges" }),
		"empty edges": edit(func(_ map[string]any, edges []any) any {
			for i := range edges {
				edges[i] = map[string]any{}
			}
			return edges
		}),
		"not a bundle": []byte(`{"a":1,"b":[],"c":{},"01":0,"1":0,"10":0,"9a":0}`),
	}
	for name, data := range cases {
		doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all, ok := libraryErrors(v, v.compiled[Bundle], Bundle, doc.Generic(), 1<<30).(*ValidationError)
		if !ok || len(all.Errors) < 5 && name != "edges not an array" || all.Omitted != 0 {
			t.Fatalf("%s: the library gives %v, want several field errors", name, all)
		}
		if !slices.IsSortedFunc(all.Errors, compareFields) {
			t.Errorf("%s: the library's errors are not in order", name)
		}
		for _, max := range []int{1, 2, 5, len(all.Errors) - 1, len(all.Errors), MaxFieldErrors} {
			if max < 1 {
				continue
			}
			got := v.validatePlan(v.bundlePlan, Bundle, doc.Root(), max)
			n := min(max, len(all.Errors))
			want := &ValidationError{Schema: Bundle, Errors: all.Errors[:n], Omitted: len(all.Errors) - n}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, keeping %d:\n got %v\nwant %v", name, max, got, want)
			}
		}
	}
}

// TestValidateBundleManyErrors: a document failing its schema far more
// often than MaxFieldErrors lists that many, the first in order, and
// counts every other.
func TestValidateBundleManyErrors(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const n = 5000
	var b strings.Builder
	b.WriteString(`{"interaction_trace":{"edges":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`0`)
	}
	b.WriteString(`]},"zz":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"m` + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + `":0`)
	}
	b.WriteString(`}}`)
	doc, err := canonjson.Parse([]byte(b.String()), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	all := libraryErrors(v, v.compiled[Bundle], Bundle, doc.Generic(), 1<<30).(*ValidationError)
	ve, ok := v.ValidateBundle(doc).(*ValidationError)
	if !ok {
		t.Fatalf("got %v", ve)
	}
	if len(ve.Errors) != MaxFieldErrors || ve.Omitted != len(all.Errors)-MaxFieldErrors || !reflect.DeepEqual(ve.Errors, all.Errors[:MaxFieldErrors]) {
		t.Errorf("got %d errors and %d omitted, want the first %d of %d", len(ve.Errors), ve.Omitted, MaxFieldErrors, len(all.Errors))
	}
	if want := "/interaction_trace/edges/0: must be an object, not a number"; !slices.ContainsFunc(ve.Errors, func(f FieldError) bool { return f.String() == want }) {
		t.Errorf("no error %q in %v", want, ve)
	}
	if !strings.HasSuffix(ve.Error(), "(and "+strconv.Itoa(ve.Omitted)+" more)") {
		t.Errorf("Error() does not end with the count of the rest: %q", ve.Error()[len(ve.Error())-40:])
	}
}

// TestComparePointers: array indices in numeric order and before names,
// a pointer before those below it, and a total order.
func TestComparePointers(t *testing.T) {
	ordered := []string{"", "/0", "/0/a", "/2", "/10", "/10/0", "/", "/01", "/1a", "/9a", "/a", "/a/0", "/a~1b", "/b"}
	for i, a := range ordered {
		for j, b := range ordered {
			c := comparePointers(a, []byte(b))
			if (c < 0) != (i < j) || (c == 0) != (i == j) {
				t.Errorf("comparePointers(%q, %q) = %d", a, b, c)
			}
		}
	}
}
