package canonjson

import "iter"

// Value is one value of a parsed Document, read in place. Walking a
// document through Values decodes nothing it is not asked for: member
// names and strings without escapes, and number texts, are substrings of
// one shared copy of the source once a decoding of the Document (Decode,
// Generic …) has made it, and copies of their own before, so that reading
// a few names of a large document does not copy all of it. A Value is
// valid as long as its Document and, like the Document, safe for
// concurrent use.
type Value struct {
	d *Document
	i int32
}

// Type is the JSON type of a Value.
type Type uint8

// The JSON types. True and false are both Boolean.
const (
	Null Type = iota + 1
	Boolean
	Number
	String
	Array
	Object
)

func (t Type) String() string {
	switch t {
	case Null:
		return "null"
	case Boolean:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "invalid"
}

// Root returns the top-level value.
func (d *Document) Root() Value { return Value{d, 0} }

// At returns the value at the RFC 6901 JSON pointer ptr, and false when
// nothing is there.
func (d *Document) At(ptr string) (Value, bool) {
	i, ok := d.lookup(ptr)
	if !ok {
		return Value{}, false
	}
	return Value{d, i}, true
}

// Raw is the value's text as it stands in the source, a string's quotes
// included: a slice of the parsed bytes, which the caller must not modify.
func (v Value) Raw() []byte { return v.d.raw(v.i) }

// Type reports the value's JSON type.
func (v Value) Type() Type {
	switch v.d.kind(v.i) {
	case kObject:
		return Object
	case kArray:
		return Array
	case kString:
		return String
	case kNumber:
		return Number
	case kTrue, kFalse:
		return Boolean
	}
	return Null
}

// Bool reports whether the value is true.
func (v Value) Bool() bool { return v.d.kind(v.i) == kTrue }

// Text is a string's decoded text or a number's text as written in the
// source (valid JSON number syntax, which json.Number and big.Rat accept),
// except that an inexact number's is its canonical form, the double it is
// read as; "" for other types.
func (v Value) Text() string {
	switch v.d.kind(v.i) {
	case kString:
		return v.d.strIn(v.d.readText(v.i), v.i)
	case kNumber:
		return v.d.numIn(v.d.readText(v.i), v.i)
	}
	return ""
}

// Len is the number of members of an object or elements of an array; 0
// for other types.
func (v Value) Len() int {
	if k := v.d.kind(v.i); k != kObject && k != kArray {
		return 0
	}
	return v.d.count(v.i)
}

// Members yields an object's members in canonical order (by the UTF-16
// code units of their names); nothing for other types.
func (v Value) Members() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		d := v.d
		if d.kind(v.i) != kObject {
			return
		}
		for k := d.first(v.i); k >= 0; k = d.next(v.i, k) {
			if !yield(d.strIn(d.readText(k), k), Value{d, k + 1}) {
				return
			}
		}
	}
}

// Elements yields an array's elements in order; nothing for other types.
func (v Value) Elements() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) {
		d := v.d
		if d.kind(v.i) != kArray {
			return
		}
		j := 0
		for e := d.first(v.i); e >= 0; e = d.next(v.i, e) {
			if !yield(j, Value{d, e}) {
				return
			}
			j++
		}
	}
}

// Generic returns the value in the form Document.Generic gives the whole
// document.
func (v Value) Generic() any {
	return v.d.generic(v.d.readText(v.i), v.i, true, -1)
}
