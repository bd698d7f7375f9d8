//go:build js && wasm

// Package jsbytes copies bytes between Go and JavaScript under
// GOOS=js GOARCH=wasm. Both directions copy: a Go slice and a JavaScript
// buffer never share memory, so neither side sees the other's later writes.
package jsbytes

import (
	"fmt"

	"github.com/hack-pad/safejs"
)

// ToJS copies b into a new Uint8Array.
func ToJS(b []byte) (safejs.Value, error) {
	u8, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return safejs.Value{}, err
	}
	arr, err := u8.New(len(b))
	if err != nil {
		return safejs.Value{}, err
	}
	if _, err := safejs.CopyBytesToJS(arr, b); err != nil {
		return safejs.Value{}, err
	}
	return arr, nil
}

// ToGo copies a Uint8Array into Go. Any other value is an error: a value
// the Uint8Array constructor would coerce (a number, a string) is not
// bytes.
func ToGo(v safejs.Value) ([]byte, error) {
	u8, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return nil, err
	}
	if ok, err := v.InstanceOf(u8); err != nil || !ok {
		return nil, fmt.Errorf("value is %s, not a Uint8Array", describe(v))
	}
	return copyToGo(v)
}

// BufferToGo copies an ArrayBuffer or a Uint8Array into Go. WebCrypto
// answers with ArrayBuffers; values read back from storage are Uint8Arrays.
func BufferToGo(v safejs.Value) ([]byte, error) {
	u8, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return nil, err
	}
	if ok, err := v.InstanceOf(u8); err == nil && ok {
		return copyToGo(v)
	}
	buf, err := safejs.Global().Get("ArrayBuffer")
	if err != nil {
		return nil, err
	}
	if ok, err := v.InstanceOf(buf); err != nil || !ok {
		return nil, fmt.Errorf("value is %s, not an ArrayBuffer or a Uint8Array", describe(v))
	}
	// A view over the buffer, not a copy: copyToGo makes the one copy.
	view, err := u8.New(v)
	if err != nil {
		return nil, err
	}
	return copyToGo(view)
}

// copyToGo copies the Uint8Array v into a new slice.
func copyToGo(v safejs.Value) ([]byte, error) {
	n, err := v.Length()
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if _, err := safejs.CopyBytesToGo(b, v); err != nil {
		return nil, err
	}
	return b, nil
}

// describe names v's JavaScript type for an error, with an object's
// constructor ("object Array") since every buffer is an object.
func describe(v safejs.Value) string {
	t := v.Type().String()
	if v.Type() != safejs.TypeObject {
		return t
	}
	ctor, err := v.Get("constructor")
	if err != nil || ctor.Type() != safejs.TypeFunction {
		return t
	}
	name, err := ctor.Get("name")
	if err != nil {
		return t
	}
	if s, err := name.String(); err == nil && s != "" {
		return t + " " + s
	}
	return t
}
