package registry

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"

	"workbench/pkg/signature"
)

// WithdrawalContext starts every withdrawal's signed message. It keeps a
// withdrawal apart from every other thing an Ed25519 key of the workbench
// signs: a bundle's signature is over its bare content hash, so without
// it the signature any published bundle carries would withdraw it.
const WithdrawalContext = "skill-workbench registry withdrawal v1"

// MaxWithdrawalBytes caps a withdrawal's JSON: it is a few hundred bytes.
const MaxWithdrawalBytes = 4 << 10

// Withdrawal is a signer's statement that the bundle ContentHash is no
// longer offered by Registry: a signature.Signature (the same object a
// bundle carries) over WithdrawalMessage(Registry, ContentHash).
type Withdrawal struct {
	ContentHash string              `json:"content_hash"`
	Registry    string              `json:"registry"`
	Signature   signature.Signature `json:"signature"`
}

// WithdrawalMessage is the message a withdrawal signs: the context, the
// registry's origin and the content hash, one per line.
func WithdrawalMessage(registry, contentHash string) []byte {
	return []byte(WithdrawalContext + "\n" + registry + "\n" + contentHash)
}

// SignWithdrawal makes the withdrawal of contentHash from the registry at
// origin registry, signed by s.
func SignWithdrawal(ctx context.Context, s signature.Signer, registry, contentHash string) (Withdrawal, error) {
	origin, err := Origin(registry)
	if err != nil {
		return Withdrawal{}, err
	}
	if !ValidHash(contentHash) {
		return Withdrawal{}, fmt.Errorf("withdraw: %q is not a content hash", clip(contentHash))
	}
	msg := WithdrawalMessage(origin, contentHash)
	sig, err := s.Sign(ctx, msg)
	if err != nil {
		return Withdrawal{}, fmt.Errorf("withdraw: %w", err)
	}
	if len(sig) != ed25519.SignatureSize || !ed25519.Verify(s.Public(), msg, sig) {
		return Withdrawal{}, fmt.Errorf("withdraw: the signer made a signature that does not verify with its public key")
	}
	return Withdrawal{ContentHash: contentHash, Registry: origin, Signature: signature.New(s.Public(), sig)}, nil
}

// ParseWithdrawal reads a withdrawal as posted: one JSON object with
// exactly the three members, within MaxWithdrawalBytes, naming a content
// hash and an origin, with a well-formed signature object (whether it
// verifies is Check's). A refusal is a *Refusal (CodeWithdrawal).
func ParseWithdrawal(data []byte) (Withdrawal, error) {
	bad := func(msg string) error {
		return &Refusal{Status: http.StatusBadRequest, Code: CodeWithdrawal, Message: "not a withdrawal: " + msg}
	}
	if len(data) > MaxWithdrawalBytes {
		return Withdrawal{}, bad(fmt.Sprintf("%d bytes, over %d", len(data), MaxWithdrawalBytes))
	}
	var w Withdrawal
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return Withdrawal{}, bad("want {\"content_hash\", \"registry\", \"signature\"}: " + err.Error())
	}
	if dec.More() {
		return Withdrawal{}, bad("more than one JSON value")
	}
	if !ValidHash(w.ContentHash) {
		return Withdrawal{}, bad(fmt.Sprintf("content_hash %q is not a content hash", clip(w.ContentHash)))
	}
	if o, err := Origin(w.Registry); err != nil || o != w.Registry {
		return Withdrawal{}, bad(fmt.Sprintf("registry %q is not an origin as a browser writes it (scheme://host[:port])", clip(w.Registry)))
	}
	raw, err := json.Marshal(w.Signature)
	if err == nil {
		_, _, _, err = signature.Parse(raw)
	}
	if err != nil {
		return Withdrawal{}, bad(err.Error())
	}
	return w, nil
}

// Check decides whether w withdraws the entry e from the registry whose
// origin is registry: w names this registry and e's content hash, and its
// signature verifies under e's signing key over WithdrawalMessage. e must
// not be withdrawn already. A refusal is a *Refusal: CodeReplayed for a
// withdrawal made for another registry or bundle, or carrying the
// bundle's own signature; CodeForged for one another key made, or that
// does not verify; CodeAlreadyWithdrawn.
func (w Withdrawal) Check(registry string, e Entry) error {
	replayed := func(msg string) error {
		return &Refusal{Status: http.StatusForbidden, Code: CodeReplayed, Message: msg}
	}
	forged := func(msg string) error {
		return &Refusal{Status: http.StatusForbidden, Code: CodeForged, Message: msg}
	}
	if w.ContentHash != e.ContentHash {
		return replayed(fmt.Sprintf("the withdrawal names %s, not %s", w.ContentHash, e.ContentHash))
	}
	if w.Registry != registry {
		return replayed(fmt.Sprintf("the withdrawal was made for the registry at %s, not this one (%s)", clip(w.Registry), registry))
	}
	raw, err := json.Marshal(w.Signature)
	if err != nil {
		return forged(err.Error())
	}
	s, pub, sig, err := signature.Parse(raw)
	if err != nil {
		return forged("the withdrawal's " + err.Error())
	}
	if s.PublicKey != e.SignerPublicKey {
		return forged(fmt.Sprintf("signed by key %s; only the bundle's signer, key %s, can withdraw it", s.KeyID, e.SignerKeyID))
	}
	if !ed25519.Verify(pub, WithdrawalMessage(registry, w.ContentHash), sig) {
		if ed25519.Verify(pub, []byte(w.ContentHash), sig) {
			return replayed("that is the bundle's own signature over its content hash, not a withdrawal")
		}
		return forged("the signature does not verify over the withdrawal of " + w.ContentHash + " from " + registry)
	}
	if e.Withdrawn() {
		return &Refusal{Status: http.StatusConflict, Code: CodeAlreadyWithdrawn,
			Message: "withdrawn by its signer already, at " + *e.WithdrawnAt}
	}
	return nil
}
