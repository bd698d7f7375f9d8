// Package signature signs SkillBundles with Ed25519 and checks their
// signatures against a pin set of trusted public keys (spec §7.5, v0.2).
//
// A signature covers the bundle's content_hash string, as UTF-8 bytes.
// The content hash leaves the signature member out (DESIGN §2), so signing
// changes no hashed byte, and the content hash in turn covers every other
// member: a signature over it speaks for the whole bundle once the hash is
// checked against the content, which Check's caller does (package verify).
//
// What a signature proves depends on who holds the key. Check therefore
// never calls a signature trusted unless its public key is in the pin set
// it is given; a valid signature by any other key is only "unknown key".
package signature

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Algorithm is the only signature algorithm: Ed25519 (RFC 8032), pure,
// over the content_hash string.
const Algorithm = "Ed25519"

// KeyIDPrefix starts every key id.
const KeyIDPrefix = "sha256:"

// Signature is the object a signed bundle carries in its top-level
// signature member (docs/decisions.md).
type Signature struct {
	// Algorithm is always "Ed25519".
	Algorithm string `json:"algorithm"`
	// KeyID is "sha256:" and the lowercase hex SHA-256 of the raw 32-byte
	// public key: a short name for the key that cannot be chosen apart
	// from it.
	KeyID string `json:"key_id"`
	// PublicKey is the raw 32-byte public key, standard base64 with
	// padding.
	PublicKey string `json:"public_key"`
	// Value is the 64-byte signature over the content_hash string,
	// standard base64 with padding.
	Value string `json:"value"`
}

// KeyID returns the key id of a public key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return KeyIDPrefix + hex.EncodeToString(sum[:])
}

// EncodeKey returns a public key as a signature or pin carries it.
func EncodeKey(pub ed25519.PublicKey) string {
	return base64.StdEncoding.EncodeToString(pub)
}

// DecodeKey reads a public key as a signature or pin carries it: standard
// base64 of exactly 32 bytes.
func DecodeKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("public key: not standard base64: %w", err)
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("public key: %d bytes, want %d", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// New returns the signature object for sig, made by the private key of
// pub.
func New(pub ed25519.PublicKey, sig []byte) Signature {
	return Signature{
		Algorithm: Algorithm,
		KeyID:     KeyID(pub),
		PublicKey: EncodeKey(pub),
		Value:     base64.StdEncoding.EncodeToString(sig),
	}
}

// Parse reads a signature object and checks its form: the algorithm, a
// public key of 32 bytes, a key id that is that key's, a value of 64
// bytes. It says nothing of whether the signature verifies.
func Parse(raw json.RawMessage) (Signature, ed25519.PublicKey, []byte, error) {
	var s Signature
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, nil, nil, fmt.Errorf("signature: not a signature object: %w", err)
	}
	if s.Algorithm != Algorithm {
		return s, nil, nil, fmt.Errorf("signature: algorithm %q, want %q", s.Algorithm, Algorithm)
	}
	pub, err := DecodeKey(s.PublicKey)
	if err != nil {
		return s, nil, nil, fmt.Errorf("signature: %w", err)
	}
	if id := KeyID(pub); s.KeyID != id {
		return s, nil, nil, fmt.Errorf("signature: key_id %q is not the id of its public key (%s)", s.KeyID, id)
	}
	sig, err := base64.StdEncoding.Strict().DecodeString(s.Value)
	if err != nil {
		return s, nil, nil, fmt.Errorf("signature: value: not standard base64: %w", err)
	}
	if len(sig) != ed25519.SignatureSize {
		return s, nil, nil, fmt.Errorf("signature: value: %d bytes, want %d", len(sig), ed25519.SignatureSize)
	}
	return s, pub, sig, nil
}

// State is what a bundle's signature amounts to.
type State string

// The states of a signature, as Check finds them.
const (
	// None: the signature member is null or absent.
	None State = "none"
	// Unverified: a signature is present but no pin set was given, or
	// the member is a string (the advisory form of spec v0.1), which
	// nothing can check. Never read as signed.
	Unverified State = "present_unverified"
	// Trusted: the signature verifies and its key is in the pin set.
	Trusted State = "trusted"
	// UnknownKey: the signature verifies, but its key is not in the pin
	// set; who made it is not known.
	UnknownKey State = "unknown_key"
	// Invalid: the signature object is malformed or does not verify. A
	// failure.
	Invalid State = "invalid"
)

// Result is the outcome of checking a signature.
type Result struct {
	State  State  `json:"state"`
	KeyID  string `json:"key_id,omitempty"` // the signing key's id, when the object is well-formed
	Signer string `json:"signer,omitempty"` // the pin's name, when Trusted
	Reason string `json:"reason,omitempty"` // why, when Invalid
}

// Check checks the signature member raw of a bundle whose content_hash is
// contentHash against pins. A nil pins means no pin set was given: a
// signature that verifies is then Unverified. A signature that does not
// verify is Invalid whether or not pins are given.
//
// Check verifies the signature over contentHash only; the caller must
// also check that contentHash is the hash of the bundle's content.
func Check(raw json.RawMessage, contentHash string, pins *PinSet) Result {
	switch t := strings.TrimSpace(string(raw)); {
	case t == "" || t == "null":
		return Result{State: None}
	case t[0] == '"':
		return Result{State: Unverified, Reason: "a string, not a signature object: nothing can verify it"}
	}
	s, pub, sig, err := Parse(raw)
	if err != nil {
		return Result{State: Invalid, Reason: err.Error()}
	}
	if !ed25519.Verify(pub, []byte(contentHash), sig) {
		return Result{State: Invalid, KeyID: s.KeyID, Reason: "the signature does not verify over the content_hash"}
	}
	if pins == nil {
		return Result{State: Unverified, KeyID: s.KeyID}
	}
	p, ok := pins.Lookup(pub)
	if !ok {
		return Result{State: UnknownKey, KeyID: s.KeyID}
	}
	return Result{State: Trusted, KeyID: s.KeyID, Signer: p.Name}
}

// ErrNotSealed says bundle bytes cannot be signed because their
// content_hash is not the hash of their content.
var ErrNotSealed = errors.New("the bundle's content_hash does not match its content")
