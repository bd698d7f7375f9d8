package verify_test

import (
	"bytes"
	"errors"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// File gives the verification Bytes gives and, from the same reading, the
// sealed bundle; a bundle whose seal does not hold is reported, not
// handed over.
func TestFile(t *testing.T) {
	v, files := setup(t)
	valid := files[fixtures.ValidBundleFile]
	tampered := bytes.Replace(valid, []byte(`"description":"`), []byte(`"description":"X`), 1)
	if bytes.Equal(tampered, valid) {
		t.Fatal("could not tamper with the fixture")
	}

	t.Run("sealed", func(t *testing.T) {
		rep, s, err := v.File(valid)
		if err != nil {
			t.Fatal(err)
		}
		want, err := v.Bytes(valid)
		if err != nil {
			t.Fatal(err)
		}
		if rep.ContentHash != want.ContentHash || rep.Verdict != want.Verdict || len(rep.Overclaims) != len(want.Overclaims) {
			t.Errorf("File's report %+v differs from Bytes' %+v", rep, want)
		}
		if !bytes.Equal(s.Data(), valid) || s.Bundle() == nil || s.Bundle().ContentHash != rep.ContentHash || s.Document() == nil {
			t.Errorf("sealed file: %d bytes, bundle %v", len(s.Data()), s.Bundle() != nil)
		}
	})
	t.Run("seal broken", func(t *testing.T) {
		rep, s, err := v.File(tampered)
		var se *skill.SealError
		if !errors.As(err, &se) || se.Claimed != decode(t, valid).ContentHash || se.Computed == se.Claimed {
			t.Fatalf("File of tampered bytes: %v, want a *skill.SealError", err)
		}
		if rep == nil || rep.Verdict != skill.VerdictFail {
			t.Errorf("report of tampered bytes: %+v, want one failing", rep)
		}
		if s.Bundle() != nil || s.Data() != nil {
			t.Error("a bundle whose seal does not hold was handed over")
		}
	})
	t.Run("invalid", func(t *testing.T) {
		rep, s, err := v.File(files[fixtures.MissingContentHashFile])
		var inv *verify.InvalidError
		if !errors.As(err, &inv) || rep != nil || s.Bundle() != nil {
			t.Fatalf("File of a bundle without content_hash: report %v, %v; want an *InvalidError alone", rep, err)
		}
	})
}
