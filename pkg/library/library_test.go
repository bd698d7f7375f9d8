package library_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/pkg/library"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/verify"
	"workbench/schemas"
)

func verifier(t testing.TB) *verify.Verifier {
	t.Helper()
	v, err := verify.Standard()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestImportAcceptsThenReportsDuplicate(t *testing.T) {
	ctx := context.Background()
	st, v := mem.New(), verifier(t)
	data := fixture(t, "valid-skill-bundle.v0.json")

	res, err := library.Import(ctx, st, v, "valid.skill.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != library.Accepted || res.Report == nil || res.Skill.ID == "" {
		t.Fatalf("first import: %+v", res)
	}
	stored, err := st.Bundle(ctx, res.Report.ContentHash)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored.Data, data) {
		t.Error("the stored bytes are not the file's")
	}

	res, err = library.Import(ctx, st, v, "again.skill.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != library.Duplicate {
		t.Fatalf("second import: status %q, want duplicate", res.Status)
	}
	if bs, _ := st.Bundles(ctx, res.Report.SkillID); len(bs) != 1 {
		t.Errorf("%d bundles stored after a duplicate import, want 1", len(bs))
	}
}

// Each rejection names where the problem is, and nothing is stored.
func TestImportRejects(t *testing.T) {
	ctx := context.Background()
	v := verifier(t)
	valid := fixture(t, "valid-skill-bundle.v0.json")
	tampered := bytes.Replace(valid, []byte(`"description":"`), []byte(`"description":"X`), 1)
	if bytes.Equal(tampered, valid) {
		t.Fatal("could not tamper with the fixture")
	}
	for _, tc := range []struct {
		name          string
		data          []byte
		pointer, text string
	}{
		{"missing content hash", fixture(t, "invalid-missing-content-hash.v0.json"), "", "content_hash"},
		{"not JSON", []byte(`{"bundle_version": `), "", ""},
		{"duplicate key", []byte(`{"a":1,"a":2}`), "", "duplicate"},
		{"array", []byte(`[1,2]`), "", "object"},
		{"tampered content", tampered, "/content_hash", "does not match"},
		{"script-laden", []byte(`{"bundle_version":"0.1","manifest":{"name":"<script>alert(1)</script>"}}`), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := mem.New()
			res, err := library.Import(ctx, st, v, tc.name+".json", tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != library.Rejected || len(res.Problems) == 0 {
				t.Fatalf("status %q, problems %v; want rejected with problems", res.Status, res.Problems)
			}
			all := ""
			for _, p := range res.Problems {
				all += p.String() + "\n"
			}
			if tc.pointer != "" && res.Problems[0].Pointer != tc.pointer {
				t.Errorf("pointer %q, want %q (%s)", res.Problems[0].Pointer, tc.pointer, all)
			}
			if !strings.Contains(all, tc.text) {
				t.Errorf("problems %q do not mention %q", all, tc.text)
			}
			if sks, _ := st.Skills(ctx); len(sks) != 0 {
				t.Errorf("a rejected file stored %d skills", len(sks))
			}
		})
	}
}

// A bundle whose proof fails is still data the library keeps; the result
// carries the verdict the UI must show.
func TestImportKeepsFailingBundleWithItsVerdict(t *testing.T) {
	ctx := context.Background()
	st, v := mem.New(), verifier(t)
	res, err := library.Import(ctx, st, v, "replay-mismatch.json", fixture(t, "redacted-transcript_pii.v0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != library.Accepted {
		t.Fatalf("status %q: %v", res.Status, res.Problems)
	}
	if res.Report.Verdict == "" {
		t.Error("no verdict")
	}
}

// A different bundle claiming a stored skill version is refused.
func TestImportConflict(t *testing.T) {
	ctx := context.Background()
	st, v := mem.New(), verifier(t)
	data := fixture(t, "valid-skill-bundle.v0.json")
	if _, err := library.Import(ctx, st, v, "a.json", data); err != nil {
		t.Fatal(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	b.Manifest.Description += " (edited)"
	if err := v.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	f, err := store.EncodeBundle(b)
	if err != nil {
		t.Fatal(err)
	}
	res, err := library.Import(ctx, st, v, "b.json", f.Data)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != library.Rejected || res.Problems[0].Pointer != "/skill_version" {
		t.Fatalf("status %q problems %v; want rejected at /skill_version", res.Status, res.Problems)
	}
}

// A store failure is an error, not a rejection of the file.
func TestImportStoreFailure(t *testing.T) {
	ctx := context.Background()
	st, v := mem.New(), verifier(t)
	st.Close()
	_, err := library.Import(ctx, st, v, "a.json", fixture(t, "valid-skill-bundle.v0.json"))
	if !errors.Is(err, store.ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

// A file with more problems than are listed is rejected with the first
// ones and the count of the others, whatever their number.
func TestImportRejectsListingFirstProblems(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	b.WriteString(`{"interaction_trace":{"edges":[0`)
	b.WriteString(strings.Repeat(",0", 99_999))
	b.WriteString(`]}}`)
	res, err := library.Import(ctx, mem.New(), verifier(t), "edges.json", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	// The 10 other members a bundle requires, the 9 others a trace does,
	// and 100,000 edges of the wrong type.
	if res.Status != library.Rejected || len(res.Problems) != schemas.MaxFieldErrors ||
		len(res.Problems)+res.ProblemsOmitted != 10+9+100_000 {
		t.Fatalf("status %q, %d problems and %d omitted", res.Status, len(res.Problems), res.ProblemsOmitted)
	}
	if p := res.Problems[0]; p.Pointer != "/bundle_id" {
		t.Errorf("first problem %s, want one at /bundle_id", p)
	}
}

// TestImportSaysWhatAFileIs: a rejected file carries its diagnosis, the
// headline the import page shows first: another artifact of the spec is
// named and validated against its own schema.
func TestImportSaysWhatAFileIs(t *testing.T) {
	ctx := context.Background()
	v := verifier(t)
	for _, tc := range []struct {
		name, headline string
		data           []byte
	}{
		{"not JSON", "not JSON: ", []byte(`{"bundle_version": `)},
		{"replay report", "not a bundle: a valid ReplayReport (spec §5.3)", fixture(t, "replay-success.v0.json")},
		{"missing content hash", "a bundle with 1 problem against the bundle schema", fixture(t, "invalid-missing-content-hash.v0.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := library.Import(ctx, mem.New(), v, tc.name+".json", tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != library.Rejected || res.Invalid == nil || !strings.HasPrefix(res.Invalid.Headline(), tc.headline) {
				t.Fatalf("status %q, diagnosis %+v; want rejected, %q", res.Status, res.Invalid, tc.headline)
			}
		})
	}
}
