// Package registrytest makes the bundles and withdrawals the registry's
// tests send — one a registry takes, and one of each kind it must refuse —
// from the spec's fixture files, with keys derived from fixed seeds. The
// native tests of package registry and its handler and the Worker's tests
// under wrangler dev use the same cases. It is imported only by tests.
package registrytest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/registry"
	"workbench/pkg/signature"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
	"workbench/schemas"
)

// Key returns the Ed25519 key of seed n: the same key in every test.
func Key(n byte) signature.KeySigner {
	return signature.KeySigner{Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{n}, ed25519.SeedSize))}
}

// FixturePath is the path of a file in the repository's fixtures/.
func FixturePath(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "fixtures", name)
}

// Fixture returns the bytes of a file in fixtures/.
func Fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(FixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Sign signs bundle bytes with k.
func Sign(t testing.TB, k signature.Signer, data []byte) []byte {
	t.Helper()
	out, err := signature.Sign(context.Background(), k, data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Publishable is the spec's transcript_pii-redacted fixture bundle signed
// by Key(1): a bundle a registry takes.
func Publishable(t testing.TB) []byte {
	t.Helper()
	return Sign(t, Key(1), Fixture(t, fixtures.RedactedTranscriptPIIFile))
}

// Grown is the transcript_pii-redacted fixture grown to n edges (its
// edges repeated), sealed with the proof v re-derives: unsigned bytes a
// registry takes once signed, about 1.3 KB an edge, for measuring
// publishes of sizes up to MaxBundleBytes (1,500 edges is just under).
func Grown(t testing.TB, v *verify.Verifier, n int) []byte {
	t.Helper()
	bundle, _, err := skill.Decode(Fixture(t, fixtures.RedactedTranscriptPIIFile))
	if err != nil {
		t.Fatal(err)
	}
	orig := bundle.Trace.Edges
	bundle.Trace.Edges = nil
	for i := range n {
		e := orig[i%len(orig)]
		e.Index, e.EdgeID = i, fmt.Sprintf("%s-%d", e.EdgeID[:8], i)
		e.Provenance.Timestamp = bundle.Trace.StartedAt
		bundle.Trace.Edges = append(bundle.Trace.Edges, e)
	}
	if err := v.SealWithProof(bundle); err != nil {
		t.Fatal(err)
	}
	data, err := bundle.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Verifier is the workbench's verifier with its clock stopped at a fixed
// instant, so that what it seals (Exported) is the same bytes in every run.
func Verifier(t testing.TB) *verify.Verifier {
	t.Helper()
	sv, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := fixtures.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	return verify.New(sv, sc, func() time.Time { return at })
}

// Exported is the fixture bundle file exported under profile by the
// export flow with v, signed by k. From the two fixtures and the two
// profiles come bundles a registry takes besides Publishable; with
// Verifier's v, the same bytes every time.
func Exported(t testing.TB, v *verify.Verifier, file, profile string, k signature.Signer) []byte {
	t.Helper()
	b, _, err := skill.Decode(Fixture(t, file))
	if err != nil {
		t.Fatal(err)
	}
	f, err := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)}).Export(context.Background(), b, profile, false)
	if err != nil {
		t.Fatal(err)
	}
	return Sign(t, k, f.Data)
}

// Refused is a request a registry must refuse, and how.
type Refused struct {
	Name   string
	Body   []byte
	Status int
	Code   string
}

// RefusedBundles are the bundles a registry must refuse, one of each kind,
// each with the status and code it answers.
func RefusedBundles(t testing.TB, v *verify.Verifier) []Refused {
	t.Helper()
	redacted := Fixture(t, fixtures.RedactedTranscriptPIIFile)
	good := Publishable(t)

	badSig := bytes.Clone(good)
	var doc struct {
		Signature signature.Signature `json:"signature"`
	}
	if err := json.Unmarshal(good, &doc); err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(doc.Signature.Value)
	raw[0] ^= 1
	badSig = bytes.Replace(badSig, []byte(doc.Signature.Value), []byte(base64.StdEncoding.EncodeToString(raw)), 1)

	// A secret the redaction left, honestly proved: gate.redaction_verify
	// fails and the proof says so, so no overclaim hides the refusal's
	// reason.
	secret := edit(t, redacted, func(b *skill.Bundle) {
		b.Manifest.Name = "Open the form with sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)
	})
	if err := v.SealWithProof(secret); err != nil {
		t.Fatal(err)
	}
	// An edge denied while the proof still claims every gate passed.
	overclaim := edit(t, redacted, func(b *skill.Bundle) {
		b.Trace.Edges[0].Authorization.Decision = "deny"
	})
	if err := overclaim.Seal(); err != nil {
		t.Fatal(err)
	}
	// The content changed after the seal.
	broken := bytes.Replace(good, []byte(`"name":"Open the support form`), []byte(`"name":"Open the support farm`), 1)

	return []Refused{
		{"oversized", append(bytes.Clone(good), bytes.Repeat([]byte(" "), registry.MaxBundleBytes)...), http.StatusRequestEntityTooLarge, registry.CodeTooLarge},
		{"unsigned", redacted, http.StatusUnprocessableEntity, registry.CodeUnsigned},
		{"badly signed", badSig, http.StatusUnprocessableEntity, registry.CodeSignature},
		{"unredacted transcript", Sign(t, Key(1), Fixture(t, fixtures.ValidBundleFile)), http.StatusUnprocessableEntity, registry.CodeUnredacted},
		{"secret left by the redaction", Sign(t, Key(1), encode(t, secret)), http.StatusUnprocessableEntity, registry.CodeRedaction},
		{"proof overclaims", Sign(t, Key(1), encode(t, overclaim)), http.StatusUnprocessableEntity, registry.CodeOverclaim},
		{"content changed after the seal", broken, http.StatusUnprocessableEntity, registry.CodeInvalid},
		{"not a bundle", []byte(`{"hello":"registry"}`), http.StatusUnprocessableEntity, registry.CodeInvalid},
	}
}

func edit(t testing.TB, data []byte, f func(*skill.Bundle)) *skill.Bundle {
	t.Helper()
	b, _, err := skill.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	f(b)
	return b
}

func encode(t testing.TB, b *skill.Bundle) []byte {
	t.Helper()
	out, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ContentHash is the content_hash member of bundle bytes.
func ContentHash(t testing.TB, data []byte) string {
	t.Helper()
	var doc struct {
		ContentHash string `json:"content_hash"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.ContentHash
}

// Withdrawal is k's withdrawal of hash from the registry at origin, as
// JSON.
func Withdrawal(t testing.TB, k signature.Signer, origin, hash string) []byte {
	t.Helper()
	w, err := registry.SignWithdrawal(context.Background(), k, origin, hash)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// RefusedWithdrawals are the withdrawals of the bundle hash, published by
// Key(1) to the registry at origin, that it must refuse: forged by another
// key, the bundle's own signature replayed as a withdrawal, a withdrawal
// made for another registry, and one signed for another bundle.
func RefusedWithdrawals(t testing.TB, origin, hash string) []Refused {
	t.Helper()
	var own struct {
		Signature signature.Signature `json:"signature"`
	}
	if err := json.Unmarshal(Publishable(t), &own); err != nil {
		t.Fatal(err)
	}
	replayed, err := json.Marshal(registry.Withdrawal{ContentHash: hash, Registry: origin, Signature: own.Signature})
	if err != nil {
		t.Fatal(err)
	}
	other := "sha256:" + strings.Repeat("0", 64)
	var forOther registry.Withdrawal
	if err := json.Unmarshal(Withdrawal(t, Key(1), origin, other), &forOther); err != nil {
		t.Fatal(err)
	}
	forOther.ContentHash = hash
	moved, err := json.Marshal(forOther)
	if err != nil {
		t.Fatal(err)
	}
	return []Refused{
		{"forged by another key", Withdrawal(t, Key(2), origin, hash), http.StatusForbidden, registry.CodeForged},
		{"the bundle's own signature replayed", replayed, http.StatusForbidden, registry.CodeReplayed},
		{"made for another registry", Withdrawal(t, Key(1), "https://other-registry.example", hash), http.StatusForbidden, registry.CodeReplayed},
		{"signed for another bundle", moved, http.StatusForbidden, registry.CodeForged},
		{"not a withdrawal", []byte(`{"content_hash":"` + hash + `"}`), http.StatusBadRequest, registry.CodeWithdrawal},
		{"unknown member", []byte(`{"content_hash":"` + hash + `","registry":"` + origin + `","signature":{},"extra":1}`), http.StatusBadRequest, registry.CodeWithdrawal},
	}
}
