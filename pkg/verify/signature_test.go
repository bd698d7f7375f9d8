package verify_test

import (
	"bytes"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/verify"
)

// A signature string is shown as present and not verified, never as
// signed, and changes no verdict (spec §7.5): nothing verifies signatures
// yet, and the content hash does not cover the signature member.
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
				t.Errorf("Signed is true for signature %s, which nothing verified", tt.signature)
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
