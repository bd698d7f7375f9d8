package seedpack

import (
	"bytes"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, bundles := range [][][]byte{
		nil,
		{[]byte(`{"a":1}`)},
		{[]byte(`{"a":1}`), {}, bytes.Repeat([]byte("x"), 70000)},
	} {
		pack, err := Append(nil, bundles...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Split(pack)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(bundles) {
			t.Fatalf("%d bundles back, want %d", len(got), len(bundles))
		}
		for i := range got {
			if !bytes.Equal(got[i], bundles[i]) {
				t.Errorf("bundle %d: %q, want %q", i, got[i], bundles[i])
			}
		}
	}
}

func TestSplitRefusesACutPack(t *testing.T) {
	pack, _ := Append(nil, []byte("first"), []byte("second"))
	for _, tc := range []struct {
		name string
		pack []byte
		want string
	}{
		{"length cut", pack[:len(pack)-len("second")-2], "2 stray bytes at offset 9"},
		{"body cut", pack[:len(pack)-1], "bundle 1 at offset 9 claims 6 bytes, 5 remain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Split(tc.pack)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Split: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
