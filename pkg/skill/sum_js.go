//go:build js && wasm

package skill

import (
	"crypto/sha256"
	"errors"
	"syscall/js"
)

// subtleMinBytes is the size from which sum256 hands the bytes to the
// browser. Go's SHA-256 compiled to wasm has no assembly and runs far
// slower than the browser's native digest; below this size the copy into
// JavaScript and the round trip through the event loop cost more than
// they save (docs/perf/app-import.md has the measurements).
const subtleMinBytes = 256 << 10

// sum256 is the SHA-256 of b. From subtleMinBytes up it is the browser's
// crypto.subtle.digest, when the page has one (secure contexts only), and
// crypto/sha256 otherwise; both give the same 32 bytes.
//
// Waiting for the digest's promise needs the JavaScript event loop to
// run, so sum256 must not be called synchronously from a JavaScript
// callback (a js.FuncOf function): the wait would never end. Go code that
// go-app runs for an event runs on go-app's own goroutine, not in the
// callback, and so may hash.
func sum256(b []byte) [32]byte {
	if len(b) >= subtleMinBytes {
		if sum, err := subtleSum256(b); err == nil {
			return sum
		}
	}
	return sha256.Sum256(b)
}

// subtleSum256 is crypto.subtle.digest("SHA-256", b), waited for.
func subtleSum256(b []byte) (sum [32]byte, err error) {
	subtle := js.Global().Get("crypto")
	if subtle.Type() != js.TypeObject {
		return sum, errors.New("no crypto object")
	}
	if subtle = subtle.Get("subtle"); subtle.Type() != js.TypeObject {
		return sum, errors.New("no crypto.subtle (not a secure context)")
	}
	data := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(data, b)
	type result struct {
		digest js.Value
		err    error
	}
	done := make(chan result, 1)
	var ok, fail js.Func
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{digest: args[0]}
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{err: errors.New("crypto.subtle.digest failed: " + js.Global().Get("String").Invoke(args[0]).String())}
		return nil
	})
	defer ok.Release()
	defer fail.Release()
	subtle.Call("digest", "SHA-256", data).Call("then", ok, fail)
	r := <-done
	if r.err != nil {
		return sum, r.err
	}
	digest := js.Global().Get("Uint8Array").New(r.digest)
	if n := digest.Length(); n != len(sum) {
		return sum, errors.New("crypto.subtle.digest gave a digest of the wrong length")
	}
	js.CopyBytesToGo(sum[:], digest)
	return sum, nil
}
