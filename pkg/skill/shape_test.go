package skill_test

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"workbench/pkg/canonjson"
	"workbench/pkg/canonjson/canonjsontest"
	"workbench/pkg/skill"
)

// referenceShape is DESIGN §3's shape signature computed the plain way,
// through a generic tree: the fast ShapeHash must agree with it.
func referenceShape(t *testing.T, v any) string {
	t.Helper()
	var skeleton func(v any) any
	skeleton = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, e := range x {
				out[k] = skeleton(e)
			}
			return out
		case []any:
			seen := map[string]any{}
			for _, e := range x {
				s := skeleton(e)
				b, _ := json.Marshal(s)
				c, err := canonjson.Transform(b)
				if err != nil {
					t.Fatal(err)
				}
				seen[string(c)] = s
			}
			keys := make([]string, 0, len(seen))
			for k := range seen {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			out := make([]any, len(keys))
			for i, k := range keys {
				out[i] = seen[k]
			}
			return out
		case string:
			return "string"
		case float64:
			return "number"
		case bool:
			return "boolean"
		}
		return "null"
	}
	data, _ := json.Marshal(v)
	var generic any
	if err := json.Unmarshal(data, &generic); err != nil {
		t.Fatal(err)
	}
	h, err := skill.HashValue(skeleton(generic))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestShapeHashMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	docs := [][]byte{
		[]byte(`{"a":[1,"x",{"b":[true,null]},{"b":[false]},[],[[]]],"é":{"\u00e9":"v"},"z":[{"k":1},{"k":"s"}]}`),
		canonjsontest.Bundle(3, 200),
	}
	for range 200 {
		docs = append(docs, canonjsontest.Random(r, 4))
	}
	for i, d := range docs {
		var v any
		if err := json.Unmarshal(d, &v); err != nil {
			t.Fatal(err)
		}
		got, err := skill.ShapeHash(json.RawMessage(d))
		if err != nil {
			t.Fatal(err)
		}
		if want := referenceShape(t, v); got != want {
			t.Fatalf("document %d: shape %s, reference %s\n%s", i, got, want, d)
		}
		h, s, err := skill.StateHashes(v)
		if err != nil {
			t.Fatal(err)
		}
		if wantH, _ := skill.StateHash(v); h != wantH || s != got {
			t.Fatalf("document %d: StateHashes disagrees with StateHash/ShapeHash", i)
		}
	}
}
