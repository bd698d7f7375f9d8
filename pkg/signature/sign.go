package signature

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"

	"workbench/pkg/skill"
)

// Signer makes Ed25519 signatures with a private key it keeps to itself.
// In the browser it is a non-extractable WebCrypto key (package
// signature/webcrypto); natively a key read from a key file (KeySigner).
type Signer interface {
	// Public returns the public key.
	Public() ed25519.PublicKey
	// Sign returns the 64-byte Ed25519 signature of msg.
	Sign(ctx context.Context, msg []byte) ([]byte, error)
}

// KeySigner signs with an in-memory Ed25519 private key.
type KeySigner struct {
	Key ed25519.PrivateKey
}

// Public returns the key's public half.
func (k KeySigner) Public() ed25519.PublicKey { return k.Key.Public().(ed25519.PublicKey) }

// Sign signs msg.
func (k KeySigner) Sign(_ context.Context, msg []byte) ([]byte, error) {
	return ed25519.Sign(k.Key, msg), nil
}

// Sign signs bundle bytes with s and returns them carrying the signature:
// the bundle's canonical form (as skill.Bundle.Encode writes it) with its
// signature member set. The bytes must be a bundle whose content_hash is
// the hash of its content (ErrNotSealed otherwise); an existing signature
// is replaced. The signature is checked before it is returned.
func Sign(ctx context.Context, s Signer, data []byte) ([]byte, error) {
	sealed, err := skill.ReadSealed(data)
	if err != nil {
		var se *skill.SealError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("sign: %w: %w", ErrNotSealed, err)
		}
		return nil, fmt.Errorf("sign: %w", err)
	}
	hash := sealed.Bundle().ContentHash
	pub := s.Public()
	sig, err := s.Sign(ctx, []byte(hash))
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	if len(sig) != ed25519.SignatureSize || !ed25519.Verify(pub, []byte(hash), sig) {
		return nil, fmt.Errorf("sign: the signer made a signature that does not verify with its public key")
	}
	member, err := json.Marshal(New(pub, sig))
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	// The canonical form without the signature member, reopened to take
	// it back and canonicalized again, since "signature" sorts before
	// other top-level members.
	out := sealed.Document().AppendCanonical(nil, "signature")
	out = out[:len(out)-1]
	out = append(out, `,"signature":`...)
	out = append(out, member...)
	doc, err := skill.Parse(append(out, '}'))
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	return doc.Canonical(), nil
}
