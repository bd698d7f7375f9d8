package schemas

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"workbench/fixtures"
	"workbench/pkg/canonjson"
)

// The bundle schema must keep a plan that leaves nothing to the library:
// without one a large bundle verifies several times slower, and an
// invalid one with millions of errors is explained by the library's
// generic form and error tree, for minutes, silently.
func TestBundleSchemaHasNativePlan(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if v.bundlePlan == nil {
		t.Fatal("no plan: a schema uses dynamic references")
	}
	if !v.bundlePlan.native() {
		t.Fatal("the bundle schema uses a keyword plans do not understand")
	}
}

// edgeSchema returns the bundle schema's trace edge, compiled, and its
// plan.
func edgeSchema(t testing.TB, v *Validator) (*jsonschema.Schema, *plan) {
	t.Helper()
	s := v.compiled[Bundle].Properties["interaction_trace"]
	if s.Ref != nil {
		s = s.Ref
	}
	if s = s.Properties["edges"].Items2020; s.Ref != nil {
		s = s.Ref
	}
	if !strings.HasSuffix(s.Location, "#/$defs/trace_edge") {
		t.Fatalf("the edges' items are %s, not the trace edge", s.Location)
	}
	return s, newPlan(s)
}

// libraryErrors is the library's answer on value: nil or a
// *ValidationError keeping max field errors.
func libraryErrors(v *Validator, s *jsonschema.Schema, id string, value any, max int) error {
	err := s.Validate(value)
	if err == nil {
		return nil
	}
	x := &explainer{v: v, list: newFieldList(max)}
	x.libraryError(err)
	return x.list.result(id)
}

// agree holds a plan's verdict and explanation of a document to the
// library's: the same nil, or the same field errors.
func agree(t *testing.T, what string, v *Validator, s *jsonschema.Schema, p *plan, doc *canonjson.Document) bool {
	t.Helper()
	want := libraryErrors(v, s, s.Location, doc.Generic(), MaxFieldErrors)
	if got := p.valid(doc.Root()); got != (want == nil) {
		t.Errorf("%s: plan says valid=%v, library %v", what, got, want == nil)
		return want == nil
	}
	got := v.validatePlan(p, s.Location, doc.Root(), MaxFieldErrors)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: plan explains\n%v\nlibrary\n%v", what, got, want)
	}
	return want == nil
}

// TestBundlePlanAgreesWithLibrary holds the bundle plan to the library's
// verdict and field errors on the reference bundle with every place outside the
// trace edges (which TestEdgePlanAgreesWithLibrary covers) and the deep,
// mostly open parts of the evidence replaced by a few values, or removed,
// and with unknown members added.
func TestBundlePlanAgreesWithLibrary(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "fixtures", fixtures.ValidBundleFile))
	if err != nil {
		t.Fatal(err)
	}
	var bundle any
	if err := json.Unmarshal(data, &bundle); err != nil {
		t.Fatal(err)
	}
	check := func(what string, b any) bool {
		t.Helper()
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := canonjson.Parse(raw, canonjson.DefaultLimits())
		if err != nil {
			return false
		}
		return agree(t, what, v, v.compiled[Bundle], v.bundlePlan, doc)
	}
	if !check("reference bundle", bundle) {
		t.Fatal("the reference bundle does not validate")
	}
	values := []string{`null`, `""`, `{}`}
	// Each check validates a whole bundle with the library: compiled to
	// WebAssembly, or in -short mode, a quarter of the places will do.
	every := 1
	if testing.Short() || runtime.GOARCH == "wasm" {
		every = 4
	}
	cases, valid := 0, 0
	for n, path := range places(bundle, nil) {
		if n%every != 0 {
			continue
		}
		if len(path) > 2 && path[0] == "interaction_trace" && path[1] == "edges" ||
			len(path) > 4 && path[0] == "evidence" && path[1] != "events" ||
			len(path) > 6 {
			continue // the edges are covered above; deep evidence is mostly open
		}
		for _, r := range values {
			var x any
			if err := json.Unmarshal([]byte(r), &x); err != nil {
				t.Fatal(err)
			}
			cases++
			if check("/"+strings.Join(path, "/")+" = "+r, replace(bundle, path, x, false)) {
				valid++
			}
		}
		check("/"+strings.Join(path, "/")+" removed", replace(bundle, path, nil, true))
	}
	t.Logf("%d mutated bundles, %d valid", cases, valid)
	if valid < cases/10 {
		t.Fatalf("only %d of %d mutated bundles are valid; the test is too one-sided", valid, cases)
	}
}

// replacements are the values every place of an edge is replaced by in
// turn: each JSON type, values near the edges of the schema's formats,
// patterns, lengths and bounds.
var replacements = []string{
	`null`, `true`, `false`, `0`, `-1`, `-0.5`, `1.5`, `1.0`, `1e3`, `2`, `9007199254740992`,
	`""`, `"x"`, `"allow"`, `"deny"`, `"ALLOW"`, `"ambient"`, `"&body.browser"`, `"&Body.x"`,
	`"sha256:` + strings.Repeat("a", 64) + `"`, `"sha256:` + strings.Repeat("A", 64) + `"`,
	`"sha256:` + strings.Repeat("a", 63) + `"`, `"2026-05-25T12:00:00Z"`, `"2026-05-25T12:00:00.5+02:00"`,
	`"2026-02-30T12:00:00Z"`, `"2026-05-25 12:00:00"`, `"019e5f01-9600-712a-8c2a-b5b3b8af4d8f"`,
	`"019e5f01-9600-712a-8c2a"`, `"literal"`, `"llm"`, `"input:task_1"`, `"input:Task"`, `"é"`,
	`{}`, `[]`, `["x"]`, `[1]`, `{"a":1}`, `{"role":"","name":""}`, `{"role":1,"name":""}`,
	`{"server":"s","name":"n","arguments":{}}`, `{"server":"","name":"n","arguments":{}}`,
	`{"timestamp":"2026-05-25T12:00:00Z","capability":"c","operation":"o"}`,
	`{"block_id":"b","policy_id":"p","decision":"allow"}`, `{"block_id":"b","policy_id":"p","decision":"maybe"}`,
}

// TestEdgePlanAgreesWithLibrary holds the edge plan to the library's
// verdict on edges with every place replaced by each of many values, with
// every member removed, and with an unknown member added, nested members
// included.
func TestEdgePlanAgreesWithLibrary(t *testing.T) {
	v, err := New()
	if err != nil {
		t.Fatal(err)
	}
	edgeLib, edgePlan := edgeSchema(t, v)
	var edges []any
	data, err := os.ReadFile(filepath.Join("testdata", "edge.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e any
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	edges = append(edges, e)
	data, err = os.ReadFile(filepath.Join("..", "fixtures", fixtures.ValidBundleFile))
	if err != nil {
		t.Fatal(err)
	}
	var b map[string]any
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatal(err)
	}
	edges = append(edges, b["interaction_trace"].(map[string]any)["edges"].([]any)...)

	// check compares the verdicts on edge and returns the library's.
	check := func(what string, edge any) bool {
		t.Helper()
		raw, err := json.Marshal(edge)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := canonjson.Parse(raw, canonjson.DefaultLimits())
		if err != nil {
			return false // not I-JSON: never validated
		}
		return agree(t, what+"\n"+string(raw), v, edgeLib, edgePlan, doc)
	}
	// Compiled to WebAssembly, or in -short mode, a quarter of the places
	// will do.
	every := 1
	if testing.Short() || runtime.GOARCH == "wasm" {
		every = 4
	}
	valid := 0
	cases := 0
	for i, edge := range edges {
		check("edge", edge)
		for n, path := range places(edge, nil) {
			if n%every != 0 {
				continue
			}
			if len(path) > 1 && path[0] == "observed_outcome" {
				continue // any value is an observed outcome: replacing it whole says all
			}
			for _, r := range replacements {
				var x any
				if err := json.Unmarshal([]byte(r), &x); err != nil {
					t.Fatal(err)
				}
				cases++
				if check(pathString(i, path)+" = "+r, replace(edge, path, x, false)) {
					valid++
				}
			}
			check(pathString(i, path)+" removed", replace(edge, path, nil, true))
		}
	}
	// The replacements must exercise both answers, not only rejections.
	t.Logf("%d mutated edges, %d valid", cases, valid)
	if valid < cases/10 {
		t.Fatalf("only %d of %d mutated edges are valid; the test is too one-sided", valid, cases)
	}
}

// places lists the paths to every value within x, x itself excluded, and
// to a new member of every object.
func places(x any, at []string) [][]string {
	var out [][]string
	switch x := x.(type) {
	case map[string]any:
		for k, val := range x {
			p := append(slices.Clone(at), k)
			out = append(out, p)
			out = append(out, places(val, p)...)
		}
		out = append(out, append(slices.Clone(at), "unknown_member"))
	case []any:
		for i, val := range x {
			p := append(slices.Clone(at), strconv.Itoa(i))
			out = append(out, p)
			out = append(out, places(val, p)...)
		}
	}
	return out
}

// replace returns a deep copy of x with the value at path set to with, or
// removed.
func replace(x any, path []string, with any, remove bool) any {
	switch v := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, val := range v {
			out[k] = val
		}
		if len(path) == 1 {
			if remove {
				delete(out, path[0])
			} else {
				out[path[0]] = with
			}
			return out
		}
		if len(path) > 1 {
			out[path[0]] = replace(v[path[0]], path[1:], with, remove)
		}
		return out
	case []any:
		out := slices.Clone(v)
		if len(path) == 0 {
			return out
		}
		i, _ := strconv.Atoi(path[0])
		if len(path) == 1 {
			if remove {
				return slices.Delete(out, i, i+1)
			}
			out[i] = with
			return out
		}
		out[i] = replace(v[i], path[1:], with, remove)
		return out
	}
	return x
}

func pathString(edge int, path []string) string {
	return "edge " + strconv.Itoa(edge) + " /" + strings.Join(path, "/")
}

// FuzzEdgePlan holds the edge plan to the library's verdict and field
// errors on arbitrary documents.
func FuzzEdgePlan(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "edge.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"edge_id":"e","state_before":"sha256:` + strings.Repeat("0", 64) + `"}`))
	f.Add([]byte(`[]`))
	v, err := New()
	if err != nil {
		f.Fatal(err)
	}
	edge, edgePlan := edgeSchema(f, v)
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
		if err != nil {
			return
		}
		agree(t, string(data), v, edge, edgePlan, doc)
	})
}
