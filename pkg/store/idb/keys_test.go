//go:build js && wasm

package idb

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hack-pad/safejs"

	"workbench/pkg/signature"
	"workbench/pkg/signature/webcrypto"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/storetest"
)

// awaitT waits for a promise and returns its value or why it was
// rejected (the rejection's name).
func awaitT(t *testing.T, p safejs.Value) (safejs.Value, string) {
	t.Helper()
	type settled struct {
		v    safejs.Value
		name string
	}
	ch := make(chan settled, 1)
	ok, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		ch <- settled{v: args[0]}
		return nil
	})
	must(t, err)
	defer ok.Release()
	fail, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		n, _ := args[0].Get("name")
		s, _ := n.String()
		ch <- settled{name: s}
		return nil
	})
	must(t, err)
	defer fail.Release()
	_, err = p.Call("then", ok, fail)
	must(t, err)
	s := <-ch
	return s.v, s.name
}

// The browser's signing key is a non-extractable WebCrypto key kept in
// the keys store: it survives closing the database, signs bundles that
// the Go verifier checks against a pin of its public key, and no export
// format gets its private half out.
func TestSigningKey(t *testing.T) {
	ctx := context.Background()
	name := testName(t)
	d := openT(t, name, migrations())
	if _, err := d.SigningKey(ctx); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("SigningKey of a new library: %v, want ErrNotFound", err)
	}
	k, err := webcrypto.Generate(ctx)
	must(t, err)
	must(t, d.AddSigningKey(ctx, k))
	other, err := webcrypto.Generate(ctx)
	must(t, err)
	if err := d.AddSigningKey(ctx, other); !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("a second signing key: %v, want ErrDuplicate (never replaced)", err)
	}
	d.Close()

	d = openT(t, name, migrations())
	defer d.Close()
	got, err := d.SigningKey(ctx)
	must(t, err)
	if !got.Public().Equal(k.Public()) {
		t.Fatal("the stored key's public key differs")
	}

	// Signed in the browser, verified by the Go verifier.
	f := storetest.Bundle(t, skill.NewID(), 1, "Signed in the browser")
	signed, err := signature.Sign(ctx, got, f.Data)
	must(t, err)
	s, err := skill.ReadSealed(signed)
	must(t, err)
	pins := &signature.PinSet{Signers: []signature.Pin{signature.NewPin("this browser", got.Public())}}
	if r := signature.Check(s.Bundle().Signature, s.Bundle().ContentHash, pins); r.State != signature.Trusted || r.Signer != "this browser" {
		t.Fatalf("a browser signature checked natively: %+v", r)
	}
	var obj signature.Signature
	must(t, json.Unmarshal(s.Bundle().Signature, &obj))
	if obj.PublicKey != signature.EncodeKey(k.Public()) || obj.KeyID != signature.KeyID(k.Public()) {
		t.Fatal("the signature names another public key")
	}

	// The private key cannot be exported, in any format.
	rec, err := got.Record()
	must(t, err)
	priv, err := rec.Get("private_key")
	must(t, err)
	if ex, _ := priv.Get("extractable"); ex.Type() != safejs.TypeBoolean {
		t.Fatal("the stored private key has no extractable flag")
	} else if b, _ := ex.Bool(); b {
		t.Fatal("the stored private key is extractable")
	}
	c, err := safejs.Global().Get("crypto")
	must(t, err)
	subtle, err := c.Get("subtle")
	must(t, err)
	for _, format := range []string{"pkcs8", "jwk", "raw"} {
		p, err := subtle.Call("exportKey", format, priv)
		if err != nil {
			continue // thrown at once: not exported either
		}
		if v, rejected := awaitT(t, p); rejected == "" {
			t.Fatalf("exportKey(%q) of the private key gave %v", format, v)
		} else if rejected != "InvalidAccessError" && rejected != "NotSupportedError" {
			t.Errorf("exportKey(%q) rejected with %s", format, rejected)
		}
	}
}

// A stored signing key that could be exported is refused.
func TestSigningKeyRefusesExtractable(t *testing.T) {
	ctx := context.Background()
	d := openT(t, testName(t), migrations())
	defer d.Close()
	c, _ := safejs.Global().Get("crypto")
	subtle, _ := c.Get("subtle")
	p, err := subtle.Call("generateKey", map[string]any{"name": "Ed25519"}, true, []any{"sign", "verify"})
	must(t, err)
	pair, rejected := awaitT(t, p)
	if rejected != "" {
		t.Fatal(rejected)
	}
	priv, _ := pair.Get("privateKey")
	pubKey, _ := pair.Get("publicKey")
	p, err = subtle.Call("exportKey", "raw", pubKey)
	must(t, err)
	raw, rejected := awaitT(t, p)
	if rejected != "" {
		t.Fatal(rejected)
	}
	u8, _ := safejs.Global().Get("Uint8Array")
	pubBytes, err := u8.New(raw)
	must(t, err)
	obj, _ := safejs.Global().Get("Object")
	rec, err := obj.New()
	must(t, err)
	must(t, rec.Set("private_key", priv))
	must(t, rec.Set("public_key", pubBytes))
	tx, err := d.begin(ctx, "test", "readwrite", store.StoreKeys)
	must(t, err)
	must(t, tx.call(store.StoreKeys, signingKey, "put", rec, signingKey))
	must(t, tx.wait(ctx))
	if _, err := d.SigningKey(ctx); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an extractable stored key: %v, want ErrInvalid", err)
	}
}

// Trusted signers are kept beside the signing key and never mixed with it;
// a pin is renamed by trusting its key again and removed by its key id.
func TestTrustedSigners(t *testing.T) {
	ctx := context.Background()
	d := openT(t, testName(t), migrations())
	defer d.Close()
	k, err := webcrypto.Generate(ctx)
	must(t, err)
	must(t, d.AddSigningKey(ctx, k))
	a, err := webcrypto.Generate(ctx)
	must(t, err)
	b, err := webcrypto.Generate(ctx)
	must(t, err)
	must(t, d.TrustSigner(ctx, signature.NewPin("alpha", a.Public())))
	must(t, d.TrustSigner(ctx, signature.Pin{Name: "beta", PublicKey: signature.EncodeKey(b.Public())}))
	must(t, d.TrustSigner(ctx, signature.NewPin("alpha, renamed", a.Public())))
	ps, err := d.TrustedSigners(ctx)
	must(t, err)
	names := map[string]string{}
	for _, p := range ps.Signers {
		names[p.KeyID] = p.Name
	}
	want := map[string]string{signature.KeyID(a.Public()): "alpha, renamed", signature.KeyID(b.Public()): "beta"}
	if len(names) != 2 || names[signature.KeyID(a.Public())] != want[signature.KeyID(a.Public())] || names[signature.KeyID(b.Public())] != "beta" {
		t.Fatalf("trusted signers %v, want %v", names, want)
	}
	if _, ok := ps.Lookup(k.Public()); ok {
		t.Fatal("the browser's own signing key reads as a trusted signer without being pinned")
	}
	must(t, d.DistrustSigner(ctx, signature.KeyID(b.Public())))
	ps, err = d.TrustedSigners(ctx)
	must(t, err)
	if len(ps.Signers) != 1 || ps.Signers[0].Name != "alpha, renamed" {
		t.Fatalf("after removing beta: %+v", ps.Signers)
	}
	if err := d.TrustSigner(ctx, signature.Pin{Name: "bad", PublicKey: "AAAA"}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a malformed pin: %v, want ErrInvalid", err)
	}
}

// The registries a person adds are kept beside the trusted signers, in
// order, once each, and only as origins.
func TestRegistries(t *testing.T) {
	ctx := context.Background()
	d := openT(t, testName(t), migrations())
	defer d.Close()
	rs, err := d.Registries(ctx)
	if err != nil || len(rs) != 0 {
		t.Fatalf("a new library's registries: %v %v", rs, err)
	}
	must(t, d.AddRegistry(ctx, "https://wb.example.org"))
	must(t, d.AddRegistry(ctx, "http://localhost:8787"))
	must(t, d.AddRegistry(ctx, "https://wb.example.org"))
	must(t, d.TrustSigner(ctx, signature.NewPin("alpha", make([]byte, 32))))
	rs, err = d.Registries(ctx)
	must(t, err)
	if len(rs) != 2 || rs[0] != "http://localhost:8787" || rs[1] != "https://wb.example.org" {
		t.Fatalf("registries %v", rs)
	}
	for _, bad := range []string{"https://wb.example.org/api", "HTTPS://WB.EXAMPLE.ORG", "wb.example.org"} {
		if err := d.AddRegistry(ctx, bad); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("AddRegistry(%q): %v, want ErrInvalid", bad, err)
		}
	}
	must(t, d.RemoveRegistry(ctx, "http://localhost:8787"))
	must(t, d.RemoveRegistry(ctx, "https://never.example"))
	rs, err = d.Registries(ctx)
	must(t, err)
	if len(rs) != 1 || rs[0] != "https://wb.example.org" {
		t.Fatalf("after removing one: %v", rs)
	}
	ps, err := d.TrustedSigners(ctx)
	must(t, err)
	if len(ps.Signers) != 1 {
		t.Errorf("the registries are read as trusted signers, or the reverse: %+v", ps.Signers)
	}
}
