package signature

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
)

// Pin is one trusted signer: a public key with the name a person gave it.
type Pin struct {
	Name      string `json:"name"`
	KeyID     string `json:"key_id"`
	PublicKey string `json:"public_key"` // as EncodeKey writes it

	key ed25519.PublicKey
}

// NewPin returns the pin of pub under name.
func NewPin(name string, pub ed25519.PublicKey) Pin {
	return Pin{Name: name, KeyID: KeyID(pub), PublicKey: EncodeKey(pub), key: pub}
}

// PinSet is a set of trusted signers, as a pin set file holds it:
// {"signers": [Pin...]}. Several pin sets are merged by putting their
// signers in one list.
type PinSet struct {
	Signers []Pin `json:"signers"`
}

// ParsePins reads a pin set file. Every pin needs a name and a well-formed
// public key whose id is its key_id (key_id may be left out: it is
// computed); a public key pinned twice is an error, so that one key never
// has two names. Problems name the pin by its index.
func ParsePins(data []byte) (*PinSet, error) {
	var ps PinSet
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ps); err != nil {
		return nil, fmt.Errorf("pin set: want {\"signers\": [{\"name\", \"key_id\", \"public_key\"}...]}: %w", err)
	}
	seen := make(map[string]int, len(ps.Signers))
	for i := range ps.Signers {
		p := &ps.Signers[i]
		if strings.TrimSpace(p.Name) == "" {
			return nil, fmt.Errorf("pin set: /signers/%d: no name", i)
		}
		pub, err := DecodeKey(p.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("pin set: /signers/%d (%s): %w", i, p.Name, err)
		}
		id := KeyID(pub)
		if p.KeyID != "" && p.KeyID != id {
			return nil, fmt.Errorf("pin set: /signers/%d (%s): key_id %q is not the id of its public key (%s)", i, p.Name, p.KeyID, id)
		}
		if j, ok := seen[id]; ok {
			return nil, fmt.Errorf("pin set: /signers/%d (%s): the key of /signers/%d (%s) again", i, p.Name, j, ps.Signers[j].Name)
		}
		seen[id] = i
		p.KeyID, p.key = id, pub
	}
	return &ps, nil
}

// Lookup returns the pin of pub, comparing the whole key, not its id.
func (ps *PinSet) Lookup(pub ed25519.PublicKey) (Pin, bool) {
	for _, p := range ps.Signers {
		if p.key != nil && p.key.Equal(pub) {
			return p, true
		}
	}
	return Pin{}, false
}
