package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"workbench/pkg/signature"
)

// What a person pastes to trust a signer: a pin set, whose names are kept
// unless one name is given for a set of one, or a bare public key, which
// needs a name.
func TestPinsFromInput(t *testing.T) {
	pubA, _, _ := ed25519.GenerateKey(rand.Reader)
	pubB, _, _ := ed25519.GenerateKey(rand.Reader)
	one := `{"signers":[{"name":"release","public_key":"` + signature.EncodeKey(pubA) + `"}]}`
	two := `{"signers":[{"name":"a","public_key":"` + signature.EncodeKey(pubA) + `"},{"name":"b","public_key":"` + signature.EncodeKey(pubB) + `"}]}`
	tests := []struct {
		name, inName, text string
		want               []string // the names trusted
		err                string
	}{
		{"pin set, its name", "", one, []string{"release"}, ""},
		{"pin set, renamed", " CI ", "\n" + one + "\n", []string{"CI"}, ""},
		{"pin set of two keeps its names", "ignored", two, []string{"a", "b"}, ""},
		{"bare key", "laptop", signature.EncodeKey(pubB), []string{"laptop"}, ""},
		{"bare key without a name", "", signature.EncodeKey(pubB), nil, "give the signer a name"},
		{"nothing", "x", "  ", nil, "paste a pin set or a public key"},
		{"empty pin set", "", `{"signers":[]}`, nil, "names no signer"},
		{"short key", "x", "AAAA", nil, "3 bytes, want 32"},
		{"bad pin set", "", `{"signers":[{"name":"a","public_key":"AAAA"}]}`, nil, "/signers/0 (a)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pins, err := pinsFromInput(tt.inName, tt.text)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range pins {
				names = append(names, p.Name)
				if p.KeyID == "" {
					t.Errorf("pin %s has no key id", p.Name)
				}
			}
			if strings.Join(names, ",") != strings.Join(tt.want, ",") {
				t.Errorf("names %v, want %v", names, tt.want)
			}
		})
	}
}
