package skill

import (
	"errors"
	"fmt"
	"strings"

	"workbench/pkg/canonjson"
)

// MaxBundleBytes is the largest bundle file Decode accepts: 64 MiB, far
// above a 10,000-edge bundle, small enough for a browser tab.
const MaxBundleBytes = canonjson.DefaultMaxBytes

// DecodeError is why bytes are not a bundle, with the place: a JSON pointer
// into the document, a byte offset, or both.
type DecodeError struct {
	Pointer string
	Offset  int // -1 when unknown
	Reason  string
	Err     error
}

func (e *DecodeError) Error() string {
	where := ""
	switch {
	case e.Pointer != "" && e.Offset >= 0:
		where = fmt.Sprintf(" at %s (byte %d)", e.Pointer, e.Offset)
	case e.Pointer != "":
		where = " at " + e.Pointer
	case e.Offset >= 0:
		where = fmt.Sprintf(" at byte %d", e.Offset)
	}
	return "not a bundle" + where + ": " + e.Reason
}

func (e *DecodeError) Unwrap() error { return e.Err }

// Parse strictly parses bundle bytes (I-JSON, within MaxBundleBytes) and
// checks that the root is an object. It does not check the schema.
func Parse(data []byte) (*canonjson.Document, error) {
	doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
	if err != nil {
		var ce *canonjson.Error
		if errors.As(err, &ce) {
			return nil, &DecodeError{Pointer: ce.Pointer, Offset: ce.Offset, Reason: ce.Error(), Err: err}
		}
		return nil, &DecodeError{Offset: -1, Reason: err.Error(), Err: err}
	}
	if !doc.IsObject() {
		return nil, &DecodeError{Offset: 0, Reason: "the top-level value must be a JSON object"}
	}
	return doc, nil
}

// Decode strictly parses data and decodes it into a Bundle, keeping the
// unknown members of open objects. Callers that need to know the document
// matches the bundle schema validate it first (package schemas); Decode
// reports only what stops typed decoding.
func Decode(data []byte) (*Bundle, *canonjson.Document, error) {
	doc, err := Parse(data)
	if err != nil {
		return nil, nil, err
	}
	b, err := DecodeDocument(doc)
	if err != nil {
		return nil, nil, err
	}
	return b, doc, nil
}

// DecodeDocument decodes an already parsed bundle document.
func DecodeDocument(doc *canonjson.Document) (*Bundle, error) {
	var b Bundle
	if err := doc.Decode(&b); err != nil {
		de := &DecodeError{Offset: -1, Reason: err.Error(), Err: err}
		var te *canonjson.TypeError
		if errors.As(err, &te) {
			de.Pointer, de.Offset = te.Pointer, te.Offset
			de.Reason = fmt.Sprintf("must be %s, found JSON %s", goTypeName(te.Go), te.JSON)
		}
		return nil, de
	}
	return &b, nil
}

// goTypeName says a Go type in JSON's words for error messages.
func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case strings.HasPrefix(t, "map["), strings.HasPrefix(t, "skill."):
		return "an object"
	}
	return t
}
