package schemas

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/canonjson"
)

// TestValidateBundleSplitsExactly holds ValidateBundle's parallel edge
// chunks to the whole-document validation: the same nil, or the same field
// errors in the same order, whatever the chunk size.
func TestValidateBundleSplitsExactly(t *testing.T) {
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
		"valid": edit(func(_ map[string]any, edges []any) any { return edges }),
		"broken edges and body": edit(func(b map[string]any, edges []any) any {
			b["bundle_version"] = 7
			b["extra"] = true
			delete(edges[1].(map[string]any), "edge_id")
			edges[5].(map[string]any)["latency_ms"] = -1
			edges[5].(map[string]any)["state_before"] = "nope"
			edges[11] = "not an edge"
			return edges
		}),
		"edges not an array": edit(func(_ map[string]any, _ []any) any { return "edges" }),
		"no edges":           edit(func(_ map[string]any, _ []any) any { return []any{} }),
	}
	for name, data := range cases {
		doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := v.Validate(Bundle, doc.Generic())
		if name == "broken edges and body" {
			ve, ok := want.(*ValidationError)
			if !ok || len(ve.Errors) < 5 {
				t.Fatalf("%s: whole validation gives %v, want several field errors", name, want)
			}
		}
		for _, chunk := range []int{1, 2, 5, 128} {
			got := v.validateBundle(doc, chunk)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, chunks of %d:\n got %v\nwant %v", name, chunk, got, want)
			}
		}
	}
}
