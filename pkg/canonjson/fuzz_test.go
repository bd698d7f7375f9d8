package canonjson_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"

	"workbench/pkg/canonjson"
)

// fuzzLimits keep inputs small enough for the fuzzer to stay fast; the
// depth limit is the default, so nesting rejections are exercised.
var fuzzLimits = canonjson.Limits{MaxBytes: 1 << 20, MaxDepth: canonjson.DefaultMaxDepth}

// FuzzParse: Parse never panics; a rejection is an *Error with a known
// kind and an offset inside the input; whatever is accepted canonicalizes
// to valid JSON that Parse accepts again, that is its own canonical form
// and that holds no inexact number, and AppendCanonicalAnew writes the
// same bytes. The seed corpus is
// in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"b":[1,2.50,-0,1e2],"a":"\u00e9\ud83d\ude00\n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := canonjson.Parse(data, fuzzLimits)
		if err != nil {
			var ce *canonjson.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is %T, not *canonjson.Error", err, err)
			}
			if ce.Kind < canonjson.KindSyntax || ce.Kind > canonjson.KindTrailingData {
				t.Fatalf("unknown kind %d: %v", ce.Kind, err)
			}
			if ce.Offset < 0 || ce.Offset > len(data) {
				t.Fatalf("offset %d outside the %d-byte input: %v", ce.Offset, len(data), err)
			}
			return
		}
		c1 := doc.Canonical()
		if !utf8.Valid(c1) || !json.Valid(c1) {
			t.Fatalf("canonical form is not valid JSON: %q", c1)
		}
		if a := doc.AppendCanonicalAnew(nil); !bytes.Equal(a, c1) {
			t.Fatalf("the two routes differ:\nAppendCanonical     %q\nAppendCanonicalAnew %q", c1, a)
		}
		doc2, err := canonjson.Parse(c1, fuzzLimits)
		if err != nil {
			t.Fatalf("canonical form %q does not parse: %v", c1, err)
		}
		if c2 := doc2.Canonical(); !bytes.Equal(c1, c2) {
			t.Fatalf("not a fixed point:\nonce  %q\ntwice %q", c1, c2)
		}
		// The canonical form writes each number as its double: nothing in
		// it is inexact, whatever the input held.
		doc.InexactNumbers()
		if in, more := doc2.InexactNumbers(); len(in)+more != 0 {
			t.Fatalf("canonical form %q holds inexact numbers: %+v", c1, in)
		}
		if doc.IsObject() {
			// Leaving members out keeps the output a valid canonical object.
			omitted := doc.AppendCanonical(nil, "a", "content_hash")
			d3, err := canonjson.Parse(omitted, fuzzLimits)
			if err != nil || !bytes.Equal(d3.Canonical(), omitted) {
				t.Fatalf("AppendCanonical with omit gave %q: %v", omitted, err)
			}
			if a := doc.AppendCanonicalAnew(nil, "a", "content_hash"); !bytes.Equal(a, omitted) {
				t.Fatalf("the two routes differ with omit:\nAppendCanonical     %q\nAppendCanonicalAnew %q", omitted, a)
			}
		}
	})
}

// FuzzCanonicalMatchesReference: when gowebpki/jcs and canonjson both
// accept an input, their outputs are the same bytes; when only jcs accepts
// it, canonjson's rejection is one of I-JSON's rules, not a disagreement
// about JSON syntax. The seed corpus is in
// testdata/fuzz/FuzzCanonicalMatchesReference.
func FuzzCanonicalMatchesReference(f *testing.F) {
	f.Add([]byte(`{"\u20ac":1,"\ud83d\ude00":[1E30,4.50,2e-3],"\ufb33":"\u000F"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAgainstReference(t, "fuzz input", data)
	})
}
