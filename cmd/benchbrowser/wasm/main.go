//go:build js && wasm

// Command wasm is package canonjson compiled for the browser, as
// cmd/benchbrowser loads it: it sets globalThis.canonjson to an object with
// two functions and then waits for calls.
//
//	canonjson.canonicalize(bytes Uint8Array, ...omit string) Uint8Array
//	canonjson.seal(bytes Uint8Array) string
//
// canonicalize returns the RFC 8785 form of a JSON document, leaving out
// the top-level members named in omit; seal returns "sha256:" and the hex
// SHA-256 (Go's, compiled to wasm) of a bundle's canonical form without
// its content_hash and signature members. Both take the document's UTF-8
// bytes and copy them into Go memory; when the document is not strict
// I-JSON they return an Error naming the place, which the page throws.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"syscall/js"

	"workbench/pkg/canonjson"
)

func main() {
	api := js.Global().Get("Object").New()
	api.Set("canonicalize", js.FuncOf(func(_ js.Value, args []js.Value) any {
		doc, err := parse(args[:min(len(args), 1)])
		if err != nil {
			return throw(err)
		}
		var omit []string
		for _, a := range args[1:] {
			omit = append(omit, a.String())
		}
		out := doc.AppendCanonical(nil, omit...)
		dst := js.Global().Get("Uint8Array").New(len(out))
		js.CopyBytesToJS(dst, out)
		return dst
	}))
	api.Set("seal", js.FuncOf(func(_ js.Value, args []js.Value) any {
		doc, err := parse(args)
		if err != nil {
			return throw(err)
		}
		sum := sha256.Sum256(doc.AppendCanonical(nil, "content_hash", "signature"))
		return "sha256:" + hex.EncodeToString(sum[:])
	}))
	js.Global().Set("canonjson", api)
	select {}
}

func parse(args []js.Value) (*canonjson.Document, error) {
	if len(args) != 1 || !args[0].InstanceOf(js.Global().Get("Uint8Array")) {
		return nil, errNotBytes
	}
	src := make([]byte, args[0].Length())
	js.CopyBytesToGo(src, args[0])
	return canonjson.Parse(src, canonjson.DefaultLimits())
}

type constError string

func (e constError) Error() string { return string(e) }

const errNotBytes = constError("canonjson: expected one Uint8Array argument")

// throw returns a value the JavaScript side turns into an exception: a
// js.Func cannot throw, so the page checks for an Error result.
func throw(err error) any {
	return js.Global().Get("Error").New(err.Error())
}
