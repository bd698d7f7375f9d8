//go:build js && wasm

// Package webcrypto signs with Ed25519 keys held by the browser's
// WebCrypto. A key it makes is non-extractable: the browser keeps the
// private half, which never reaches Go, the page's JavaScript, the
// library's export or a file; only signatures and the public key come
// out. The key is kept as a CryptoKey in IndexedDB (package store/idb),
// which stores it without exposing its bytes.
//
// Like IndexedDB, WebCrypto answers with promises settled by the
// JavaScript event loop: call Generate and Key.Sign from a goroutine of
// their own, never synchronously from a JavaScript callback.
package webcrypto

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/hack-pad/safejs"

	"workbench/pkg/jsbytes"
)

// algorithm is the WebCrypto algorithm identifier of Ed25519.
const algorithm = "Ed25519"

// Key is a non-extractable Ed25519 private key in WebCrypto, with its
// public key. It implements signature.Signer.
type Key struct {
	private safejs.Value // a CryptoKey: type "private", extractable false
	public  ed25519.PublicKey
}

// Generate makes a new Ed25519 key pair whose private key is not
// extractable.
func Generate(ctx context.Context) (*Key, error) {
	subtle, err := subtleCrypto()
	if err != nil {
		return nil, err
	}
	p, err := subtle.Call("generateKey", map[string]any{"name": algorithm}, false, []any{"sign", "verify"})
	if err != nil {
		return nil, fmt.Errorf("webcrypto: generateKey: %w", jsErr(err))
	}
	pair, err := await(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: generateKey: %w", err)
	}
	priv, err := pair.Get("privateKey")
	if err != nil {
		return nil, fmt.Errorf("webcrypto: generateKey: %w", err)
	}
	pubKey, err := pair.Get("publicKey")
	if err != nil {
		return nil, fmt.Errorf("webcrypto: generateKey: %w", err)
	}
	// The public half of a generated pair is always extractable.
	p, err = subtle.Call("exportKey", "raw", pubKey)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: export the public key: %w", jsErr(err))
	}
	raw, err := await(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: export the public key: %w", err)
	}
	pub, err := jsbytes.BufferToGo(raw)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: export the public key: %w", err)
	}
	return newKey(priv, pub)
}

// newKey checks that priv is a non-extractable Ed25519 private signing
// key and pub a 32-byte public key.
func newKey(priv safejs.Value, pub []byte) (*Key, error) {
	if len(pub) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("webcrypto: a public key of %d bytes, want %d", len(pub), ed25519.PublicKeySize)
	}
	check := func(name, want string) error {
		v, err := priv.Get(name)
		if err != nil {
			return err
		}
		got := ""
		if v.Type() == safejs.TypeString {
			got, _ = v.String()
		}
		if got != want {
			return fmt.Errorf("the private key's %s is %q, want %q", name, got, want)
		}
		return nil
	}
	if err := check("type", "private"); err != nil {
		return nil, fmt.Errorf("webcrypto: %w", err)
	}
	alg, err := priv.Get("algorithm")
	if err != nil {
		return nil, fmt.Errorf("webcrypto: %w", err)
	}
	name, err := alg.Get("name")
	if err != nil || name.Type() != safejs.TypeString {
		return nil, errors.New("webcrypto: the private key has no algorithm name")
	}
	if n, _ := name.String(); n != algorithm {
		return nil, fmt.Errorf("webcrypto: the private key is a %s key, want %s", n, algorithm)
	}
	// A key that could be exported is refused: its bytes could leave.
	ex, err := priv.Get("extractable")
	if err != nil {
		return nil, fmt.Errorf("webcrypto: %w", err)
	}
	if b, err := ex.Bool(); err != nil || b {
		return nil, errors.New("webcrypto: the private key is extractable; only a non-extractable key is used")
	}
	return &Key{private: priv, public: ed25519.PublicKey(pub)}, nil
}

// Public returns the public key.
func (k *Key) Public() ed25519.PublicKey { return k.public }

// Sign returns the Ed25519 signature of msg.
func (k *Key) Sign(ctx context.Context, msg []byte) ([]byte, error) {
	subtle, err := subtleCrypto()
	if err != nil {
		return nil, err
	}
	data, err := jsbytes.ToJS(msg)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: sign: %w", err)
	}
	p, err := subtle.Call("sign", map[string]any{"name": algorithm}, k.private, data)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: sign: %w", jsErr(err))
	}
	sig, err := await(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: sign: %w", err)
	}
	return jsbytes.BufferToGo(sig)
}

// Record is the value the key is stored as: {private_key: CryptoKey,
// public_key: Uint8Array}. IndexedDB clones the CryptoKey as it is,
// non-extractable.
func (k *Key) Record() (safejs.Value, error) {
	obj, err := safejs.Global().Get("Object")
	if err != nil {
		return safejs.Value{}, err
	}
	rec, err := obj.New()
	if err != nil {
		return safejs.Value{}, err
	}
	pub, err := jsbytes.ToJS(k.public)
	if err != nil {
		return safejs.Value{}, err
	}
	if err := rec.Set("private_key", k.private); err != nil {
		return safejs.Value{}, err
	}
	if err := rec.Set("public_key", pub); err != nil {
		return safejs.Value{}, err
	}
	return rec, nil
}

// FromRecord reads a key stored as Record wrote it, refusing one whose
// private key is extractable, of another algorithm or not private.
func FromRecord(rec safejs.Value) (*Key, error) {
	priv, err := rec.Get("private_key")
	if err != nil {
		return nil, fmt.Errorf("webcrypto: stored key: %w", err)
	}
	pubV, err := rec.Get("public_key")
	if err != nil {
		return nil, fmt.Errorf("webcrypto: stored key: %w", err)
	}
	pub, err := jsbytes.BufferToGo(pubV)
	if err != nil {
		return nil, fmt.Errorf("webcrypto: stored key: %w", err)
	}
	return newKey(priv, pub)
}

func subtleCrypto() (safejs.Value, error) {
	if c, err := safejs.Global().Get("crypto"); err == nil {
		if ok, _ := c.Truthy(); ok {
			if s, err := c.Get("subtle"); err == nil {
				if ok, _ := s.Truthy(); ok {
					return s, nil
				}
			}
		}
	}
	return safejs.Value{}, errors.New("webcrypto: crypto.subtle is not available (a secure context is needed)")
}

// await waits for a promise to settle or ctx to end. A rejection becomes
// an error carrying the JavaScript error's name and message.
func await(ctx context.Context, p safejs.Value) (safejs.Value, error) {
	type settled struct {
		v   safejs.Value
		err error
	}
	ch := make(chan settled, 1)
	onOK, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		ch <- settled{v: arg0(args)}
		return nil
	})
	if err != nil {
		return safejs.Value{}, err
	}
	defer onOK.Release()
	onErr, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		ch <- settled{err: describe(arg0(args))}
		return nil
	})
	if err != nil {
		return safejs.Value{}, err
	}
	defer onErr.Release()
	if _, err := p.Call("then", onOK, onErr); err != nil {
		return safejs.Value{}, err
	}
	select {
	case s := <-ch:
		return s.v, s.err
	case <-ctx.Done():
		return safejs.Value{}, ctx.Err()
	}
}

func arg0(args []safejs.Value) safejs.Value {
	if len(args) == 0 {
		return safejs.Undefined()
	}
	return args[0]
}

// describe turns a JavaScript error value into an error naming it.
func describe(v safejs.Value) error {
	name, msg := "Error", ""
	if n, err := v.Get("name"); err == nil && n.Type() == safejs.TypeString {
		name, _ = n.String()
	}
	if m, err := v.Get("message"); err == nil && m.Type() == safejs.TypeString {
		msg, _ = m.String()
	}
	return &Error{Name: name, Message: msg}
}

// jsErr unwraps an exception a call threw.
func jsErr(err error) error {
	var je js.Error
	if errors.As(err, &je) {
		return describe(safejs.Safe(je.Value))
	}
	return err
}

// Error is a WebCrypto failure: the DOMException's name
// (InvalidAccessError, NotSupportedError …) and message.
type Error struct {
	Name, Message string
}

func (e *Error) Error() string { return e.Name + ": " + e.Message }
