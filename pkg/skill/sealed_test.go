package skill_test

import (
	"bytes"
	"errors"
	"testing"

	"workbench/pkg/skill"
)

func TestReadSealed(t *testing.T) {
	data := referenceBundle(t)
	s, err := skill.ReadSealed(data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(s.Data(), data) || s.Bundle().ContentHash == "" || s.Document() == nil {
		t.Fatalf("sealed: %d bytes, content_hash %q", len(s.Data()), s.Bundle().ContentHash)
	}

	for _, tc := range []struct {
		name string
		data []byte
		seal bool // want a *SealError rather than a *DecodeError
	}{
		{"tampered", bytes.Replace(data, []byte(s.Bundle().Manifest.Name), []byte(s.Bundle().Manifest.Name+"!"), 1), true},
		{"unsealed", bytes.Replace(data, []byte(s.Bundle().ContentHash), nil, 1), true},
		{"not JSON", data[:len(data)/2], false},
		{"not a bundle", []byte(`{"skill_version":"one"}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := skill.ReadSealed(tc.data)
			var se *skill.SealError
			var de *skill.DecodeError
			switch {
			case got.Bundle() != nil || got.Data() != nil:
				t.Errorf("a sealed bundle was made: %v", err)
			case tc.seal && !errors.As(err, &se):
				t.Errorf("%v, want a *skill.SealError", err)
			case !tc.seal && !errors.As(err, &de):
				t.Errorf("%v, want a *skill.DecodeError", err)
			}
		})
	}
}

// A Reading whose steps ran keeps their results: Sealed uses the hash
// AppendHashedForm computed and the bundle Decode decoded.
func TestReadingSteps(t *testing.T) {
	data := referenceBundle(t)
	r, err := skill.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Decode()
	if err != nil {
		t.Fatal(err)
	}
	form, h, err := r.AppendHashedForm([]byte("prefix"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := skill.HashedForm(r.Document())
	if err != nil {
		t.Fatal(err)
	}
	if string(form) != "prefix"+string(want) || h != skill.HashBytes(want) || h != b.ContentHash {
		t.Fatalf("hashed form or hash differ: %s, content_hash %s", h, b.ContentHash)
	}
	s, err := r.Sealed()
	if err != nil {
		t.Fatal(err)
	}
	if s.Bundle() != b {
		t.Error("Sealed decoded the bundle again")
	}
}
