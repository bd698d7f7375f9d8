//go:build js && wasm

package jsbytes

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hack-pad/safejs"
)

// eval runs a JavaScript expression and returns its value.
func eval(t *testing.T, expr string) safejs.Value {
	t.Helper()
	fn, err := safejs.Global().Get("Function")
	if err != nil {
		t.Fatal(err)
	}
	f, err := fn.New("return " + expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	v, err := f.Invoke()
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"one", []byte{0}},
		{"every byte value", allBytes()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ToJS(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := v.Length(); err != nil || n != len(tc.in) {
				t.Fatalf("Uint8Array length %d (%v), want %d", n, err, len(tc.in))
			}
			for name, read := range map[string]func(safejs.Value) ([]byte, error){"ToGo": ToGo, "BufferToGo": BufferToGo} {
				got, err := read(v)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !bytes.Equal(got, tc.in) || got == nil {
					t.Errorf("%s = %v, want %v (non-nil)", name, got, tc.in)
				}
			}
		})
	}
}

// TestCopies checks that neither direction shares memory: a write on one
// side after the copy does not show on the other.
func TestCopies(t *testing.T) {
	b := []byte{1, 2, 3}
	v, err := ToJS(b)
	if err != nil {
		t.Fatal(err)
	}
	b[0] = 9
	got, err := ToGo(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte{1, 2, 3}) {
		t.Fatalf("after a Go write, JavaScript holds %v, want [1 2 3]", got)
	}
	if err := v.SetIndex(1, 7); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte{1, 2, 3}) {
		t.Fatalf("after a JavaScript write, Go holds %v, want [1 2 3]", got)
	}
}

func TestBufferToGo(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		want       []byte
	}{
		{"ArrayBuffer", "new Uint8Array([4, 5, 6]).buffer", []byte{4, 5, 6}},
		{"empty ArrayBuffer", "new ArrayBuffer(0)", []byte{}},
		{"Uint8Array", "new Uint8Array([7, 8])", []byte{7, 8}},
		// A view reads its own window, not the whole buffer.
		{"Uint8Array view", "new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 3)", []byte{2, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := BufferToGo(eval(t, tc.expr))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Errorf("BufferToGo(%s) = %v, want %v", tc.expr, got, tc.want)
			}
		})
	}
}

// TestNotBytes checks that values the Uint8Array constructor would coerce
// into bytes are refused, with their type in the error.
func TestNotBytes(t *testing.T) {
	for _, tc := range []struct {
		expr, want   string
		bufferAccept bool
	}{
		{"32", "number", false},
		{"'abc'", "string", false},
		{"undefined", "undefined", false},
		{"null", "null", false},
		{"[1, 2, 3]", "object Array", false},
		{"({length: 2})", "object Object", false},
		{"new Uint16Array(2)", "object Uint16Array", false},
		{"new ArrayBuffer(2)", "object ArrayBuffer", true},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			v := eval(t, tc.expr)
			_, err := ToGo(v)
			if err == nil || !strings.Contains(err.Error(), "is "+tc.want+",") {
				t.Errorf("ToGo(%s) error %v, want one naming %q", tc.expr, err, tc.want)
			}
			_, err = BufferToGo(v)
			if tc.bufferAccept {
				if err != nil {
					t.Errorf("BufferToGo(%s): %v", tc.expr, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "is "+tc.want+",") {
				t.Errorf("BufferToGo(%s) error %v, want one naming %q", tc.expr, err, tc.want)
			}
		})
	}
}
