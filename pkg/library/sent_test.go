package library_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"workbench/pkg/library"
	"workbench/pkg/skill"
	"workbench/pkg/store/mem"
)

// TestResultJSON: a Result read back from its JSON is the Result, whatever
// became of the file: accepted, a duplicate, rejected with a diagnosis, a
// collision.
func TestResultJSON(t *testing.T) {
	ctx := context.Background()
	st, v := mem.New(), verifier(t)
	ex := exports(t, v)
	valid := fixture(t, "valid-skill-bundle.v0.json")
	steps := []struct {
		name   string
		data   []byte
		status library.Status
	}{
		{"full.json", ex[skill.RedactionFull], library.Accepted},
		{"again.json", ex[skill.RedactionFull], library.Duplicate},
		{"none.json", ex[skill.RedactionNone], library.Collided},
		{"valid.json", valid, library.Collided},
		{"broken.json", []byte(`{"skill_id": 7}`), library.Rejected},
		{"not-json.json", []byte(`{`), library.Rejected},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res, err := library.Import(ctx, st, v, s.name, s.data)
			if err != nil || res.Status != s.status {
				t.Fatalf("import: %v, status %q, want %q", err, res.Status, s.status)
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var got library.Result
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Report, res.Report) || !reflect.DeepEqual(got.Skill, res.Skill) ||
				!reflect.DeepEqual(got.Collision, res.Collision) || !reflect.DeepEqual(got.Problems, res.Problems) ||
				got.Name != res.Name || got.Status != res.Status || got.ProblemsOmitted != res.ProblemsOmitted {
				t.Errorf("read back %+v\nwant %+v", got, res)
			}
			if (got.Invalid == nil) != (res.Invalid == nil) {
				t.Fatalf("invalid %v, want %v", got.Invalid, res.Invalid)
			}
			if res.Invalid != nil && (got.Invalid.Headline() != res.Invalid.Headline() ||
				!reflect.DeepEqual(got.Invalid.Groups(), res.Invalid.Groups())) {
				t.Errorf("diagnosis %q %+v, want %q %+v", got.Invalid.Headline(), got.Invalid.Groups(),
					res.Invalid.Headline(), res.Invalid.Groups())
			}
		})
	}
}
