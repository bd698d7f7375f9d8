package schemas

import (
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// embedded returns the embedded schema files as a map file system, with
// edit applied to the file named name when edit is not nil.
func embedded(t *testing.T, name string, edit func(string) string) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	names, err := fs.Glob(files, "*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if n == name && edit != nil {
			data = []byte(edit(string(data)))
		}
		out[n] = &fstest.MapFile{Data: data}
	}
	return out
}

// TestCompilingInSteps: a compiling stepped to its end gives what New
// gives, in more than one step, the bundle's schema compiled after the
// schemas it refers to, so no step is the whole compiling.
func TestCompilingInSteps(t *testing.T) {
	p := &compiling{fsys: files}
	steps := 0
	for !p.finished {
		if len(p.left) == 1 && p.left[0] == Bundle {
			for _, id := range []string{Manifest, ReplayReport, Proof, Evidence} {
				if p.v.compiled[id] == nil {
					t.Fatalf("the bundle's schema is left to compile before %s", id)
				}
			}
		}
		p.step()
		steps++
	}
	if p.err != nil {
		t.Fatal(p.err)
	}
	want, err := New()
	if err != nil {
		t.Fatal(err)
	}
	// Reading, one step per schema, the plan.
	if n := len(want.compiled) + 2; steps != n {
		t.Errorf("%d steps, want %d", steps, n)
	}
	if got, want := slices.Sorted(maps.Keys(p.v.compiled)), slices.Sorted(maps.Keys(want.compiled)); !slices.Equal(got, want) {
		t.Errorf("compiled %v, New has %v", got, want)
	}
	if (p.v.bundlePlan == nil) != (want.bundlePlan == nil) {
		t.Errorf("bundle plan made: %v, by New: %v", p.v.bundlePlan != nil, want.bundlePlan != nil)
	}
	// The stepped Validator validates as New's does.
	bad := map[string]any{"schema_version": "0.1"}
	if (p.v.Validate(Manifest, bad) == nil) != (want.Validate(Manifest, bad) == nil) {
		t.Error("the stepped Validator and New's disagree on a manifest")
	}
}

// TestCompilingFails: a broken file ends the compiling at the step that
// meets it, with no Validator and an error naming the file or schema.
func TestCompilingFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		fsys fs.FS
		want string
	}{
		{"not JSON", embedded(t, "policy.schema.json", func(string) string { return "{" }), "schemas: parse policy.schema.json"},
		{"a schema missing", func() fs.FS {
			m := embedded(t, "", nil)
			delete(m, "policy.schema.json")
			return m
		}(), "no embedded schema has $id " + Policy},
		{"not a schema", embedded(t, "policy.schema.json", func(s string) string {
			return strings.Replace(s, `"type": "object"`, `"type": 5`, 1)
		}), "schemas: compile " + Policy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &compiling{fsys: tc.fsys}
			for i := 0; !p.finished; i++ {
				if i > 100 {
					t.Fatal("the compiling does not end")
				}
				p.step()
			}
			if p.err == nil || !strings.Contains(p.err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", p.err, tc.want)
			}
			if p.v != nil {
				t.Error("a failed compiling left a Validator")
			}
		})
	}
}

// TestPrepareThenNew: prepare advances the compiling one part per call
// until none is left, and validator, called part-way, finishes it with the
// result a whole compiling gives; once finished, neither compiles again.
func TestPrepareThenNew(t *testing.T) {
	whole, err := (&compiling{fsys: files}).validator()
	if err != nil {
		t.Fatal(err)
	}
	parts := len(whole.compiled) + 2 // reading, one per schema, the plan
	for _, stop := range []int{0, 1, 3, parts} {
		p := &compiling{fsys: files}
		calls := 0
		for calls < stop && p.prepare() {
			calls++
		}
		if stop == parts && calls != parts-1 {
			t.Fatalf("prepare reported parts left %d times, want %d", calls, parts-1)
		}
		if stop < parts && p.finished {
			t.Fatalf("after %d calls of prepare the compiling is done", stop)
		}
		v, err := p.validator()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := slices.Sorted(maps.Keys(v.compiled)), slices.Sorted(maps.Keys(whole.compiled)); !slices.Equal(got, want) {
			t.Fatalf("stopped after %d: compiled %v, want %v", stop, got, want)
		}
		if p.prepare() {
			t.Fatal("prepare reports parts left after the compiling finished")
		}
		if again, _ := p.validator(); again != v {
			t.Fatal("validator compiled again")
		}
	}
}
