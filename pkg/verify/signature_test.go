package verify_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/signature"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// A signature string (the advisory form of v0.1) is shown as present and
// not verified, never as signed, and changes no verdict (spec §7.5): the
// content hash does not cover the signature member.
func TestSignatureNeverImpliesVerification(t *testing.T) {
	v, files := setup(t)
	valid := files[fixtures.ValidBundleFile]
	if n := bytes.Count(valid, []byte(`"signature":null`)); n != 1 {
		t.Fatalf("the reference bundle has %d null signature members, want 1", n)
	}
	tests := []struct {
		name      string
		signature string // the JSON value written into the signature member
		want      string
		text      string
	}{
		{"null", `null`, verify.SignatureNone, "false"},
		{"bogus string", `"ed25519:bm90IGEgc2lnbmF0dXJl"`, verify.SignatureUnverified, "false (signature present, not verified)"},
		{"empty string", `""`, verify.SignatureUnverified, "false (signature present, not verified)"},
	}
	base, err := v.Bytes(valid)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := bytes.Replace(valid, []byte(`"signature":null`), []byte(`"signature":`+tt.signature), 1)
			r, err := v.Bytes(data)
			if err != nil {
				t.Fatal(err)
			}
			if r.Signed {
				t.Errorf("Signed is true for signature %s, which nothing can verify", tt.signature)
			}
			if r.Signature != tt.want {
				t.Errorf("Signature %q, want %q", r.Signature, tt.want)
			}
			if got := r.SignedText(); got != tt.text {
				t.Errorf("SignedText %q, want %q", got, tt.text)
			}
			if r.Verdict != base.Verdict || r.Derived.OverallVerdict != base.Derived.OverallVerdict || len(r.Overclaims) != 0 {
				t.Errorf("verdict %s (re-derived %s, %d overclaims), want %s as without a signature",
					r.Verdict, r.Derived.OverallVerdict, len(r.Overclaims), base.Verdict)
			}
		})
	}
}

// A signed bundle reads as signed only when its signature verifies over a
// content hash that is the content's and its key is pinned; changing a
// byte of the content makes the signature invalid even though the
// signature itself is untouched.
func TestSignatureAgainstPins(t *testing.T) {
	v, files := setup(t)
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, otherPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, other := signature.KeySigner{Key: priv}, signature.KeySigner{Key: otherPriv}
	data, err := signature.Sign(context.Background(), k, files[fixtures.ValidBundleFile])
	if err != nil {
		t.Fatal(err)
	}
	mine := &signature.PinSet{Signers: []signature.Pin{signature.NewPin("release key", k.Public())}}
	theirs := &signature.PinSet{Signers: []signature.Pin{signature.NewPin("release key", other.Public())}}
	tests := []struct {
		name   string
		pins   *signature.PinSet
		want   string
		signed bool
		text   string
	}{
		{"no pin set", nil, verify.SignatureUnverified, false, "false (signature present, not verified)"},
		{"pinned", mine, verify.SignatureTrusted, true, "true (signed by release key, key " + signature.KeyID(k.Public()) + ")"},
		{"not pinned", theirs, verify.SignatureUnknownKey, false, "false (signed by an unknown key " + signature.KeyID(k.Public()) + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := v.Bytes(data)
			if err != nil {
				t.Fatal(err)
			}
			r.CheckSignature(tt.pins)
			if r.Signature != tt.want || r.Signed != tt.signed || r.SignedText() != tt.text {
				t.Errorf("signature %s, signed %t, %q; want %s, %t, %q", r.Signature, r.Signed, r.SignedText(), tt.want, tt.signed, tt.text)
			}
			if r.Verdict != skill.VerdictPass {
				t.Errorf("verdict %s, want pass: the signature changes no verdict", r.Verdict)
			}
		})
	}

	// Each letter of the first name in the file changed in turn: the content
	// hash no longer holds, and the untouched signature is invalid.
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte(`"name":"`+b.Manifest.Name+`"`)) + len(`"name":"`)
	for i := at; i < at+len(b.Manifest.Name); i++ {
		if c := data[i] | 0x20; c < 'a' || c > 'z' {
			continue
		}
		tampered := bytes.Clone(data)
		tampered[i] ^= 0x20 // a letter's case
		r, err := v.Bytes(tampered)
		if err != nil {
			t.Fatal(err)
		}
		r.CheckSignature(mine)
		if r.Signature != verify.SignatureInvalid || r.Signed || !strings.Contains(r.SignatureProblem, "not the hash of the content") {
			t.Fatalf("byte %d changed: signature %s, signed %t, problem %q", i, r.Signature, r.Signed, r.SignatureProblem)
		}
		if h := r.Headline(); !strings.HasSuffix(h, "; SIGNATURE INVALID") {
			t.Fatalf("byte %d changed: the headline does not say the signature is invalid: %q", i, h)
		}
	}
}
