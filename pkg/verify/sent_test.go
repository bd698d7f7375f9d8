package verify_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/signature"
	"workbench/pkg/verify"
)

// through is v sent through JSON, as a message between two Go instances.
func through[T any](t *testing.T, v T) T {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSentReport: a report received from another instance answers
// CheckSignature and SignerPublicKey as the original does, for each pin
// set, and a report whose hash fails keeps its signature invalid.
func TestSentReport(t *testing.T) {
	v, files := setup(t)
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k := signature.KeySigner{Key: priv}
	signed, err := signature.Sign(context.Background(), k, files[fixtures.ValidBundleFile])
	if err != nil {
		t.Fatal(err)
	}
	pinned := &signature.PinSet{Signers: []signature.Pin{signature.NewPin("release key", k.Public())}}
	tests := []struct {
		name string
		data []byte
	}{
		{"unsigned", files[fixtures.ValidBundleFile]},
		{"signed", signed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig, err := v.Bytes(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			got := through(t, orig.Sent()).Received()
			if !reflect.DeepEqual(got, orig) {
				t.Errorf("received %+v\nwant %+v", got, orig)
			}
			for _, pins := range []*signature.PinSet{nil, pinned} {
				orig.CheckSignature(pins)
				got.CheckSignature(pins)
				if got.Signature != orig.Signature || got.Signer != orig.Signer || got.Signed != orig.Signed {
					t.Errorf("pins %v: received %s %q %t, original %s %q %t", pins, got.Signature, got.Signer, got.Signed,
						orig.Signature, orig.Signer, orig.Signed)
				}
			}
			gk, gok := got.SignerPublicKey()
			ok0, ook := orig.SignerPublicKey()
			if gk != ok0 || gok != ook {
				t.Errorf("SignerPublicKey %q %t, original %q %t", gk, gok, ok0, ook)
			}
		})
	}
}

// TestSentInvalid: an invalid bundle received from another instance has
// the headline and the groups computed where it was read, where the input
// is, and every field.
func TestSentInvalid(t *testing.T) {
	v, files := setup(t)
	b := generic(t, files[fixtures.ValidBundleFile])
	withStateHash(b)
	inputs := map[string][]byte{
		"not JSON":           []byte(`{"a":`),
		"not a bundle":       []byte(`{"a":1}`),
		"state_hash edges":   rehash(t, marshal(t, b)),
		"a replay report":    mustReplayReport(t, files),
		"the schema, stale":  marshal(t, b),
		"decimal in a count": []byte(`{"skill_version":1.5}`),
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			_, err := v.Bytes(data)
			var orig *verify.InvalidError
			if !errors.As(err, &orig) {
				t.Fatalf("got %v, want an *InvalidError", err)
			}
			got := through(t, orig.Sent()).Received()
			if got.Headline() != orig.Headline() || got.Error() != orig.Error() || got.Total() != orig.Total() {
				t.Errorf("received %q (%q), original %q (%q)", got.Headline(), got.Error(), orig.Headline(), orig.Error())
			}
			if !reflect.DeepEqual(got.Groups(), orig.Groups()) {
				t.Errorf("groups %+v\nwant %+v", got.Groups(), orig.Groups())
			}
			if got.Stage != orig.Stage || got.Artifact != orig.Artifact || !reflect.DeepEqual(got.Hash, orig.Hash) ||
				!reflect.DeepEqual(got.Foreign, orig.Foreign) || len(got.Problems) != len(orig.Problems) {
				t.Errorf("fields %+v\nwant %+v", got, orig)
			}
		})
	}
}

// mustReplayReport is the replay report the valid bundle carries: an
// artifact of the spec that is not a bundle.
func mustReplayReport(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	ref := generic(t, files[fixtures.ValidBundleFile])
	events := ref["evidence"].(map[string]any)["events"].([]any)
	return marshal(t, events[len(events)-1].(map[string]any)["data"].(map[string]any)["replay_report"])
}
