package skill

import (
	"fmt"

	"workbench/pkg/canonjson"
)

// Reading is one bundle file being read: its bytes, their strict parse and,
// once its steps have run, the bundle decoded from that parse and the
// content hash computed from it. A verifier runs the steps as it needs
// them (Decode, AppendHashedForm) and then asks for the Sealed file, so a
// file that is verified and then stored is parsed, decoded and hashed once.
//
// Every part of a Reading is made by this package from the bytes it was
// given, never handed in, which is what lets Sealed vouch for the seal.
//
// Decode and AppendHashedForm may run at the same time, on different
// goroutines; every other use is sequential.
type Reading struct {
	data   []byte
	doc    *canonjson.Document
	bundle *Bundle
	// hash is the content hash of the document, "" until AppendHashedForm
	// has computed it.
	hash string
}

// Read strictly parses bundle bytes, as Parse does, and returns the reading
// of them. data must not change afterwards.
func Read(data []byte) (*Reading, error) {
	doc, err := Parse(data)
	if err != nil {
		return nil, err
	}
	return &Reading{data: data, doc: doc}, nil
}

// Document is the parsed document.
func (r *Reading) Document() *canonjson.Document { return r.doc }

// Decode decodes the document into a Bundle (as DecodeDocument does) and
// keeps it for Sealed. The caller must not modify the bundle: it is the one
// the sealed file carries.
func (r *Reading) Decode() (*Bundle, error) {
	b, err := DecodeDocument(r.doc)
	if err != nil {
		return nil, err
	}
	r.bundle = b
	return b, nil
}

// AppendHashedForm appends the bytes the content hash covers to dst (as
// the package function of that name does), hashes them, and keeps the hash
// for Sealed. It returns the extended buffer and the hash.
func (r *Reading) AppendHashedForm(dst []byte) ([]byte, string, error) {
	start := len(dst)
	dst, err := AppendHashedForm(dst, r.doc)
	if err != nil {
		return dst, "", err
	}
	r.hash = HashBytes(dst[start:])
	return dst, r.hash, nil
}

// Sealed returns the file as a Sealed bundle when its seal holds: the
// content hash of the bytes equals the decoded content_hash. It runs
// whichever of Decode and AppendHashedForm has not run yet. A seal that
// does not hold is a *SealError.
func (r *Reading) Sealed() (Sealed, error) {
	if r.bundle == nil {
		if _, err := r.Decode(); err != nil {
			return Sealed{}, err
		}
	}
	if r.hash == "" {
		if _, _, err := r.AppendHashedForm(nil); err != nil {
			return Sealed{}, err
		}
	}
	if r.hash != r.bundle.ContentHash {
		return Sealed{}, &SealError{Claimed: r.bundle.ContentHash, Computed: r.hash}
	}
	return Sealed{data: r.data, doc: r.doc, bundle: r.bundle}, nil
}

// ReadSealed reads bundle bytes and returns them as a Sealed bundle: a
// strict parse, a typed decode and the content hash check.
func ReadSealed(data []byte) (Sealed, error) {
	r, err := Read(data)
	if err != nil {
		return Sealed{}, err
	}
	return r.Sealed()
}

// SealError says bundle bytes do not hash to the content_hash they claim.
type SealError struct {
	Claimed  string // the bundle's content_hash
	Computed string // the hash of its content
}

func (e *SealError) Error() string {
	return fmt.Sprintf("content_hash does not match the content (computed %s)", e.Computed)
}

// Sealed is bundle bytes whose seal holds: the bundle was strictly parsed
// and decoded from the bytes, and the content hash of the bytes, computed
// by this package, equals the bundle's content_hash. Only a Reading makes
// one; the zero Sealed holds nothing.
type Sealed struct {
	data   []byte
	doc    *canonjson.Document
	bundle *Bundle
}

// Data is the file's bytes, as read.
func (s Sealed) Data() []byte { return s.data }

// Bundle is the bundle decoded from the bytes. The caller must not modify
// it.
func (s Sealed) Bundle() *Bundle { return s.bundle }

// Document is the strict parse of the bytes.
func (s Sealed) Document() *canonjson.Document { return s.doc }
