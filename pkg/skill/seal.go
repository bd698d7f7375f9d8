package skill

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"workbench/pkg/canonjson"
)

// Members left out of the hashed form of a bundle (DESIGN §2).
var unhashedMembers = []string{"content_hash", "signature"}

// HashPrefix starts every content and state hash.
const HashPrefix = "sha256:"

// Seal computes the bundle's content hash and stores it, clearing any
// signature: a signature speaks for the content hash it was made over,
// and signing comes after sealing (package signature).
func (b *Bundle) Seal() error {
	b.Signature = nil
	h, err := b.Hash()
	if err != nil {
		return err
	}
	b.ContentHash = h
	return nil
}

// Hash computes the content hash of the bundle as it stands, without
// storing it.
func (b *Bundle) Hash() (string, error) {
	b.Normalize()
	data, err := json.Marshal(b)
	if err != nil {
		return "", fmt.Errorf("encode bundle: %w", err)
	}
	doc, err := canonjson.Parse(data, canonjson.Limits{MaxBytes: 1 << 30})
	if err != nil {
		return "", fmt.Errorf("canonicalize bundle: %w", err)
	}
	return DocumentHash(doc)
}

// DocumentHash is the content hash of a parsed bundle document: SHA-256 of
// its canonical form without content_hash and signature.
func DocumentHash(doc *canonjson.Document) (string, error) {
	b, err := HashedForm(doc)
	if err != nil {
		return "", err
	}
	return HashBytes(b), nil
}

// HashedForm returns the bytes a bundle's content hash covers: the
// canonical form of the parsed bundle document without content_hash and
// signature.
func HashedForm(doc *canonjson.Document) ([]byte, error) {
	return AppendHashedForm(nil, doc)
}

// AppendHashedForm appends what HashedForm returns to dst.
func AppendHashedForm(dst []byte, doc *canonjson.Document) ([]byte, error) {
	if !doc.IsObject() {
		return dst, errors.New("a bundle must be a JSON object")
	}
	return doc.AppendCanonical(dst, unhashedMembers...), nil
}

// HashedFormAnew returns what HashedForm returns, written by canonjson's
// second, independent route (Document.AppendCanonicalAnew). The two are
// the same bytes unless one route has a defect; verification computes both
// (DESIGN §2, §6).
func HashedFormAnew(doc *canonjson.Document) ([]byte, error) {
	return AppendHashedFormAnew(nil, doc)
}

// AppendHashedFormAnew appends what HashedFormAnew returns to dst.
func AppendHashedFormAnew(dst []byte, doc *canonjson.Document) ([]byte, error) {
	if !doc.IsObject() {
		return dst, errors.New("a bundle must be a JSON object")
	}
	return doc.AppendCanonicalAnew(dst, unhashedMembers...), nil
}

// HashBytes is "sha256:" and the lowercase hex SHA-256 of b.
//
// Compiled to js/wasm, a large b is hashed by the browser (see sum256):
// there, call it from a goroutine of its own, never synchronously from a
// JavaScript callback, as any call that waits for the browser.
func HashBytes(b []byte) string {
	sum := sum256(b)
	return HashPrefix + hex.EncodeToString(sum[:])
}

// HashValue hashes the canonical JSON of any JSON-encodable value: state
// hashes, shape signatures and tool call hashes all use it.
func HashValue(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	c, err := canonjson.Transform(data)
	if err != nil {
		return "", err
	}
	return HashBytes(c), nil
}

// Encode returns the bytes a bundle is exported as: its RFC 8785 canonical
// form, content_hash and signature included. Exporting, importing and
// exporting again gives the same bytes.
func (b *Bundle) Encode() ([]byte, error) {
	b.Normalize()
	data, err := json.Marshal(b)
	if err != nil {
		return nil, fmt.Errorf("encode bundle: %w", err)
	}
	return canonjson.Transform(data)
}
