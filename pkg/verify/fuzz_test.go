package verify_test

import (
	"errors"
	"testing"

	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// FuzzVerify feeds arbitrary bytes to the verifier. It must never panic,
// and must answer either with an *InvalidError or with a report whose
// verdict is one of the four and which is never pass with an overclaim.
func FuzzVerify(f *testing.F) {
	v, files := setup(f)
	for _, data := range files {
		f.Add(data)
	}
	// Each hostile shape, small: many members, long arrays, deep nesting,
	// long strings, many escapes (BenchmarkVerifyHostile runs them at
	// 20 MB).
	for _, s := range hostileShapes {
		f.Add(s.make(300))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := v.Bytes(data)
		if err != nil {
			var ie *verify.InvalidError
			if !errors.As(err, &ie) || len(ie.Problems) == 0 {
				t.Fatalf("error is not an InvalidError with problems: %v", err)
			}
			return
		}
		switch r.Verdict {
		case skill.VerdictPass, skill.VerdictPartial, skill.VerdictFail, skill.VerdictInconclusive:
		default:
			t.Fatalf("verdict %q", r.Verdict)
		}
		if r.Verdict == skill.VerdictPass && (len(r.Overclaims) > 0 || r.Derived.OverallVerdict != skill.VerdictPass) {
			t.Fatalf("pass despite overclaims %v / derived %s", r.Overclaims, r.Derived.OverallVerdict)
		}
	})
}
