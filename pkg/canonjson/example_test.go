package canonjson_test

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"workbench/pkg/canonjson"
)

func ExampleTransform() {
	out, err := canonjson.Transform([]byte(`{"b": [1e2, 2.50, -0], "a": "\u00e9\/"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output: {"a":"é/","b":[100,2.5,0]}
}

// A rejection names its kind, the byte offset and the JSON pointer of the
// offending value, so a caller can show it next to the field.
func ExampleParse_error() {
	_, err := canonjson.Parse([]byte(`{"edges": [{"id": 1, "id": 2}]}`), canonjson.DefaultLimits())
	var ce *canonjson.Error
	if errors.As(err, &ce) {
		fmt.Println(ce.Kind, ce.Offset, ce.Pointer)
		fmt.Println(err)
	}
	// Output:
	// duplicate member name 21 /edges/0/id
	// duplicate member name at byte 21 (JSON pointer /edges/0/id): "id" appears more than once
}

// Sealing hashes the canonical form of a bundle without the members that
// carry the hash itself.
func ExampleDocument_AppendCanonical() {
	doc, err := canonjson.Parse([]byte(`{"name": "demo", "content_hash": "sha256:…", "signature": null}`), canonjson.DefaultLimits())
	if err != nil {
		fmt.Println(err)
		return
	}
	hashed := doc.AppendCanonical(nil, "content_hash", "signature")
	fmt.Println(string(hashed))
	fmt.Printf("sha256:%x\n", sha256.Sum256(hashed))
	// Output:
	// {"name":"demo"}
	// sha256:d7d234f759ec34fd6298b7e32318614760070aaef9f4e92ced928324b49a0602
}

func ExampleAppendNumber() {
	for _, f := range []float64{1e21, 1e-7, 0.000001, 123.45, -0.0} {
		fmt.Println(string(canonjson.AppendNumber(nil, f)))
	}
	// Output:
	// 1e+21
	// 1e-7
	// 0.000001
	// 123.45
	// 0
}
