//go:build js && wasm

package idb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hack-pad/safejs"

	"workbench/pkg/registry"
	"workbench/pkg/signature"
	"workbench/pkg/signature/webcrypto"
	"workbench/pkg/store"
)

// Keys of the keys object store (out-of-line). The browser's one signing
// key is stored under signingKey; each trusted signer under pinPrefix and
// its key id; each skill registry the person added under registryPrefix
// and its origin.
const (
	signingKey     = "signing_key"
	pinPrefix      = "pin:"
	registryPrefix = "registry:"
)

// SigningKey returns the browser's signing key, or store.ErrNotFound when
// none was made. A stored key whose private half is extractable, or not
// an Ed25519 private key, is refused (store.ErrInvalid).
func (d *DB) SigningKey(ctx context.Context) (*webcrypto.Key, error) {
	const op = "read signing key"
	v, err := d.getOne(ctx, op, store.StoreKeys, signingKey, signingKey)
	if err != nil {
		return nil, err
	}
	k, err := webcrypto.FromRecord(v)
	if err != nil {
		return nil, &store.Error{Op: op, Store: store.StoreKeys, Key: signingKey, Kind: store.ErrInvalid, Err: err}
	}
	return k, nil
}

// AddSigningKey stores k as the browser's signing key. A key already
// stored is never replaced (store.ErrDuplicate): what it signed would no
// longer be the browser's.
func (d *DB) AddSigningKey(ctx context.Context, k *webcrypto.Key) error {
	const op = "add signing key"
	rec, err := k.Record()
	if err != nil {
		return &store.Error{Op: op, Store: store.StoreKeys, Key: signingKey, Kind: store.ErrInvalid, Err: err}
	}
	t, err := d.begin(ctx, op, "readwrite", store.StoreKeys)
	if err != nil {
		return err
	}
	if err := t.call(store.StoreKeys, signingKey, "add", rec, signingKey); err != nil {
		return err
	}
	return t.wait(ctx)
}

// TrustedSigners returns the pin set of trusted signers, in key id order.
func (d *DB) TrustedSigners(ctx context.Context) (*signature.PinSet, error) {
	const op = "read trusted signers"
	texts, err := d.keysPrefixed(ctx, op, pinPrefix)
	if err != nil {
		return nil, err
	}
	ps, err := signature.ParsePins([]byte(`{"signers":[` + strings.Join(texts, ",") + `]}`))
	if err != nil {
		return nil, readErr(op, store.StoreKeys, err)
	}
	return ps, nil
}

// keysPrefixed reads the values (strings) of the keys store's records
// whose keys start with prefix, which ends in ':', in key order.
func (d *DB) keysPrefixed(ctx context.Context, op, prefix string) ([]string, error) {
	keyRange, err := safejs.Global().Get("IDBKeyRange")
	if err != nil {
		return nil, &store.Error{Op: op, Store: store.StoreKeys, Kind: store.ErrUnavailable, Err: err}
	}
	// Every key that starts with prefix and nothing else: prefix with ';'
	// for its last ':' is the first string after them, ';' following ':'
	// in code-unit order.
	r, err := keyRange.Call("bound", prefix, strings.TrimSuffix(prefix, ":")+";", false, true)
	if err != nil {
		return nil, fail(op, store.StoreKeys, "", thrown(err))
	}
	all, err := d.getAll(ctx, op, store.StoreKeys, "", r)
	if err != nil {
		return nil, err
	}
	texts, err := joined(all)
	if err != nil {
		return nil, readErr(op, store.StoreKeys, err)
	}
	return texts, nil
}

// TrustSigner adds p to the trusted signers, or renames the pin of its key.
func (d *DB) TrustSigner(ctx context.Context, p signature.Pin) error {
	const op = "trust signer"
	// Checked as a pin set of one is, so that a pin stored is one
	// TrustedSigners can read back; its key id is computed when missing.
	text, err := json.Marshal(signature.PinSet{Signers: []signature.Pin{p}})
	var ps *signature.PinSet
	if err == nil {
		ps, err = signature.ParsePins(text)
	}
	if err == nil {
		p = ps.Signers[0]
		text, err = json.Marshal(p)
	}
	if err != nil {
		return &store.Error{Op: op, Store: store.StoreKeys, Kind: store.ErrInvalid, Err: err}
	}
	key := pinPrefix + p.KeyID
	t, err := d.begin(ctx, op, "readwrite", store.StoreKeys)
	if err != nil {
		return err
	}
	if err := t.call(store.StoreKeys, key, "put", string(text), key); err != nil {
		return err
	}
	return t.wait(ctx)
}

// DistrustSigner removes the trusted signer whose key id is keyID; one
// not trusted is no error.
func (d *DB) DistrustSigner(ctx context.Context, keyID string) error {
	const op = "distrust signer"
	if !strings.HasPrefix(keyID, signature.KeyIDPrefix) {
		return &store.Error{Op: op, Store: store.StoreKeys, Key: keyID, Kind: store.ErrInvalid,
			Err: fmt.Errorf("%q is not a key id", keyID)}
	}
	key := pinPrefix + keyID
	t, err := d.begin(ctx, op, "readwrite", store.StoreKeys)
	if err != nil {
		return err
	}
	if err := t.call(store.StoreKeys, key, "delete", key); err != nil {
		return err
	}
	return t.wait(ctx)
}

// Registries returns the origins of the skill registries the person added
// by hand (package registry), in order.
func (d *DB) Registries(ctx context.Context) ([]string, error) {
	const op = "read registries"
	origins, err := d.keysPrefixed(ctx, op, registryPrefix)
	if err != nil {
		return nil, err
	}
	for _, o := range origins {
		if c, err := registry.Origin(o); err != nil || c != o {
			return nil, readErr(op, store.StoreKeys, fmt.Errorf("a stored registry %q is not an origin", o))
		}
	}
	return origins, nil
}

// AddRegistry adds the registry at origin (as registry.Origin serializes
// it) to those the person fetches bundles from; adding one twice is no
// error.
func (d *DB) AddRegistry(ctx context.Context, origin string) error {
	const op = "add registry"
	if c, err := registry.Origin(origin); err != nil || c != origin {
		if err == nil {
			err = fmt.Errorf("%q is not an origin as a browser writes it (%s)", origin, c)
		}
		return &store.Error{Op: op, Store: store.StoreKeys, Key: origin, Kind: store.ErrInvalid, Err: err}
	}
	key := registryPrefix + origin
	t, err := d.begin(ctx, op, "readwrite", store.StoreKeys)
	if err != nil {
		return err
	}
	if err := t.call(store.StoreKeys, key, "put", origin, key); err != nil {
		return err
	}
	return t.wait(ctx)
}

// RemoveRegistry removes the registry at origin; one not added is no
// error.
func (d *DB) RemoveRegistry(ctx context.Context, origin string) error {
	const op = "remove registry"
	key := registryPrefix + origin
	t, err := d.begin(ctx, op, "readwrite", store.StoreKeys)
	if err != nil {
		return err
	}
	if err := t.call(store.StoreKeys, key, "delete", key); err != nil {
		return err
	}
	return t.wait(ctx)
}
