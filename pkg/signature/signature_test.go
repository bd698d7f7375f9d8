package signature_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/signature"
	"workbench/pkg/skill"
)

func validBundle(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", fixtures.ValidBundleFile))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func newKey(t testing.TB) signature.KeySigner {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return signature.KeySigner{Key: priv}
}

// signed signs the reference bundle with k and returns the signed bytes,
// the decoded bundle and its signature member.
func signed(t *testing.T, k signature.Signer) ([]byte, *skill.Bundle) {
	t.Helper()
	out, err := signature.Sign(context.Background(), k, validBundle(t))
	if err != nil {
		t.Fatal(err)
	}
	s, err := skill.ReadSealed(out)
	if err != nil {
		t.Fatalf("the signed bundle's seal: %v", err)
	}
	return out, s.Bundle()
}

func pins(ps ...signature.Pin) *signature.PinSet { return &signature.PinSet{Signers: ps} }

func TestSignKeepsContentAndCanonicalForm(t *testing.T) {
	k := newKey(t)
	out, b := signed(t, k)
	orig, _, err := skill.Decode(validBundle(t))
	if err != nil {
		t.Fatal(err)
	}
	if b.ContentHash != orig.ContentHash {
		t.Errorf("signing changed the content hash: %s, was %s", b.ContentHash, orig.ContentHash)
	}
	doc, err := skill.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(doc.Canonical(), out) {
		t.Error("the signed bundle is not in canonical form")
	}
	var s signature.Signature
	if err := json.Unmarshal(b.Signature, &s); err != nil {
		t.Fatal(err)
	}
	if s.Algorithm != "Ed25519" || s.KeyID != signature.KeyID(k.Public()) || s.PublicKey != signature.EncodeKey(k.Public()) {
		t.Errorf("signature object %+v", s)
	}
	// Signing again with another key replaces the signature.
	k2 := newKey(t)
	again, err := signature.Sign(context.Background(), k2, out)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := skill.ReadSealed(again)
	if r := signature.Check(s2.Bundle().Signature, s2.Bundle().ContentHash, pins(signature.NewPin("two", k2.Public()))); r.State != signature.Trusted {
		t.Errorf("re-signed: %+v", r)
	}
}

func TestCheckStates(t *testing.T) {
	k, other := newKey(t), newKey(t)
	_, b := signed(t, k)
	tests := []struct {
		name   string
		raw    string
		pins   *signature.PinSet
		want   signature.State
		signer string
	}{
		{"null", "null", pins(signature.NewPin("me", k.Public())), signature.None, ""},
		{"absent", "", nil, signature.None, ""},
		{"a string", `"ed25519:abc"`, pins(signature.NewPin("me", k.Public())), signature.Unverified, ""},
		{"no pin set", string(b.Signature), nil, signature.Unverified, ""},
		{"empty pin set", string(b.Signature), pins(), signature.UnknownKey, ""},
		{"pinned", string(b.Signature), pins(signature.NewPin("other", other.Public()), signature.NewPin("me", k.Public())), signature.Trusted, "me"},
		{"another key pinned", string(b.Signature), pins(signature.NewPin("me", other.Public())), signature.UnknownKey, ""},
		{"not an object", `[1]`, nil, signature.Invalid, ""},
		{"unknown member", strings.Replace(string(b.Signature), `{`, `{"x":1,`, 1), pins(signature.NewPin("me", k.Public())), signature.Invalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := signature.Check(json.RawMessage(tt.raw), b.ContentHash, tt.pins)
			if r.State != tt.want || r.Signer != tt.signer {
				t.Errorf("got %+v, want state %s signer %q", r, tt.want, tt.signer)
			}
			if r.State == signature.Invalid && r.Reason == "" {
				t.Error("an invalid signature without a reason")
			}
		})
	}
}

// Changing any byte of the signed content hash, of the signature value or
// of the public key makes the signature invalid, whatever the pin set.
func TestTamperingFails(t *testing.T) {
	k := newKey(t)
	_, b := signed(t, k)
	var s signature.Signature
	if err := json.Unmarshal(b.Signature, &s); err != nil {
		t.Fatal(err)
	}
	ps := pins(signature.NewPin("me", k.Public()))
	for i := range len(b.ContentHash) {
		h := []byte(b.ContentHash)
		h[i] ^= 0x01
		if r := signature.Check(b.Signature, string(h), ps); r.State != signature.Invalid {
			t.Fatalf("content_hash byte %d changed: %+v", i, r)
		}
	}
	reencode := func(field *string, i int) json.RawMessage {
		raw, _ := base64.StdEncoding.DecodeString(*field)
		raw[i] ^= 0x01
		saved := *field
		*field = base64.StdEncoding.EncodeToString(raw)
		out, _ := json.Marshal(s)
		*field = saved
		return out
	}
	for i := range ed25519.SignatureSize {
		if r := signature.Check(reencode(&s.Value, i), b.ContentHash, ps); r.State != signature.Invalid {
			t.Fatalf("signature byte %d changed: %+v", i, r)
		}
	}
	for i := range ed25519.PublicKeySize {
		if r := signature.Check(reencode(&s.PublicKey, i), b.ContentHash, ps); r.State != signature.Invalid {
			t.Fatalf("public key byte %d changed: %+v", i, r)
		}
	}
	// Another key's public key and id in place of the signer's: the
	// signature does not verify with it, even when that key is pinned.
	other := newKey(t)
	forged := s
	forged.PublicKey, forged.KeyID = signature.EncodeKey(other.Public()), signature.KeyID(other.Public())
	raw, _ := json.Marshal(forged)
	if r := signature.Check(raw, b.ContentHash, pins(signature.NewPin("other", other.Public()))); r.State != signature.Invalid {
		t.Fatalf("another key named as the signer: %+v", r)
	}
	// The pinned key's id with the signer's own public key.
	forged = s
	forged.KeyID = signature.KeyID(other.Public())
	raw, _ = json.Marshal(forged)
	if r := signature.Check(raw, b.ContentHash, pins(signature.NewPin("other", other.Public()))); r.State != signature.Invalid {
		t.Fatalf("a pinned key's id beside another public key: %+v", r)
	}
}

func TestSignRefusesBrokenSeal(t *testing.T) {
	data := validBundle(t)
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	stale := bytes.Replace(data, []byte(b.Manifest.Name), []byte(b.Manifest.Name+"x"), 1)
	if _, err := signature.Sign(context.Background(), newKey(t), stale); !errors.Is(err, signature.ErrNotSealed) {
		t.Fatalf("signing a bundle whose hash does not hold: %v, want ErrNotSealed", err)
	}
	if _, err := signature.Sign(context.Background(), newKey(t), []byte("{")); err == nil {
		t.Fatal("signing bytes that are not JSON succeeded")
	}
}

func TestParsePins(t *testing.T) {
	a, b := newKey(t), newKey(t)
	ka, kb := signature.EncodeKey(a.Public()), signature.EncodeKey(b.Public())
	tests := []struct {
		name, data, err string
	}{
		{"two signers", `{"signers":[{"name":"a","public_key":"` + ka + `"},{"name":"b","key_id":"` + signature.KeyID(b.Public()) + `","public_key":"` + kb + `"}]}`, ""},
		{"empty", `{"signers":[]}`, ""},
		{"no name", `{"signers":[{"name":" ","public_key":"` + ka + `"}]}`, "/signers/0: no name"},
		{"short key", `{"signers":[{"name":"a","public_key":"AAAA"}]}`, "3 bytes, want 32"},
		{"wrong key id", `{"signers":[{"name":"a","key_id":"` + signature.KeyID(b.Public()) + `","public_key":"` + ka + `"}]}`, "is not the id of its public key"},
		{"key twice", `{"signers":[{"name":"a","public_key":"` + ka + `"},{"name":"b","public_key":"` + ka + `"}]}`, "/signers/1 (b): the key of /signers/0 (a) again"},
		{"unknown member", `{"signers":[],"keys":[]}`, "unknown field"},
		{"not JSON", `signers`, "pin set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, err := signature.ParsePins([]byte(tt.data))
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range ps.Signers {
					if p.KeyID == "" {
						t.Errorf("pin %s has no key id", p.Name)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one containing %q", err, tt.err)
			}
		})
	}
	// A pin set read from a file is what Check trusts.
	ps, err := signature.ParsePins([]byte(`{"signers":[{"name":"a","public_key":"` + ka + `"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, sb := signed(t, a)
	if r := signature.Check(sb.Signature, sb.ContentHash, ps); r.State != signature.Trusted || r.Signer != "a" {
		t.Fatalf("%+v", r)
	}
}

func TestKeyFile(t *testing.T) {
	k := newKey(t)
	data, err := signature.MarshalKey(k.Key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := signature.ParseKey(data)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(k.Key) {
		t.Fatal("the key read back differs")
	}
	for _, bad := range [][]byte{nil, []byte("not pem"), bytes.Replace(data, []byte("PRIVATE KEY"), []byte("PUBLIC KEY"), 2)} {
		if _, err := signature.ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%q) succeeded", bad)
		}
	}
}
