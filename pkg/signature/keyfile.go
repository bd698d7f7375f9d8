package signature

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// pemType is the PEM block type of a key file: a PKCS #8 private key, the
// form other Ed25519 tools read and write.
const pemType = "PRIVATE KEY"

// MarshalKey returns the key file form of an Ed25519 private key: PEM,
// PKCS #8.
func MarshalKey(key ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("key file: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemType, Bytes: der}), nil
}

// ParseKey reads a key file written by MarshalKey. Its errors never quote
// the file's contents.
func ParseKey(data []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != pemType {
		return nil, errors.New("key file: not a PEM \"PRIVATE KEY\" block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("key file: not a PKCS #8 private key")
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("key file: a %T, not an Ed25519 private key", k)
	}
	return ek, nil
}
