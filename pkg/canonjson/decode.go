package canonjson

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A parsed Document is already validated and tokenized, so turning it into
// Go values needs no second scan of the text. Decode and Generic do that;
// they are several times faster than encoding/json on the same bytes, which
// matters for multi-megabyte bundles in the browser.

// Extensible is implemented by struct types that keep the members they do
// not declare. Decode fills such a struct field by field and hands it the
// unknown members, instead of calling its UnmarshalJSON method.
type Extensible interface {
	SetExtra(members map[string]json.RawMessage)
}

// TypeError says a JSON value does not fit the Go value it is decoded into.
type TypeError struct {
	Pointer string // JSON pointer of the value
	Offset  int    // byte offset of the value
	JSON    string // the JSON kind found: "string", "number 1.5", "object" …
	Go      string // the Go type wanted
}

func (e *TypeError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "the document root"
	}
	return fmt.Sprintf("%s (byte %d): cannot decode JSON %s into Go %s", p, e.Offset, e.JSON, e.Go)
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	extensibleType  = reflect.TypeFor[Extensible]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	numberType      = reflect.TypeFor[json.Number]()
	genericMapType  = reflect.TypeFor[map[string]any]()
	genericListType = reflect.TypeFor[[]any]()
	stringType      = reflect.TypeFor[string]()
	intType         = reflect.TypeFor[int]()
	float64Type     = reflect.TypeFor[float64]()
	boolType        = reflect.TypeFor[bool]()
	anyType         = reflect.TypeFor[any]()
)

// Decode stores the document's value in the value v points to, following
// encoding/json's rules for the types a bundle uses: structs by json tag
// name (exact, else case-insensitive), pointers, slices, maps with string
// keys, strings, booleans, integers and floats, json.RawMessage, json.Number,
// and interfaces (as map[string]any, []any, float64, string, bool, nil).
// A type implementing json.Unmarshaler decodes itself unless it is
// Extensible. Unknown members of other structs are ignored.
func (d *Document) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("canonjson: Decode needs a non-nil pointer, got %T", v)
	}
	dec := decoder{d: d, t: d.textOf(0), structs: map[reflect.Type]*structInfo{}}
	return dec.value(0, rv.Elem())
}

// Generic returns the document as the values encoding/json decodes into an
// interface with UseNumber: map[string]any, []any, json.Number, string,
// bool and nil. Schema validators take this form.
func (d *Document) Generic() any {
	return d.generic(d.textOf(0), 0, true, -1)
}

// ArrayLen reports the number of elements of the array at the RFC 6901 JSON
// pointer ptr, and false when ptr designates no array.
func (d *Document) ArrayLen(ptr string) (int, bool) {
	i, ok := d.lookup(ptr)
	if !ok || d.kind(i) != kArray {
		return 0, false
	}
	return d.count(i), true
}

// GenericWithout is Generic with the array at ptr given as an empty []any,
// its elements left out. When ptr designates no array it equals Generic.
// With GenericElements it lets a caller build and use the generic form of a
// large array's elements in parallel, apart from the rest of the document.
func (d *Document) GenericWithout(ptr string) any {
	i, ok := d.lookup(ptr)
	if !ok || d.kind(i) != kArray {
		return d.Generic()
	}
	return d.generic(d.textOf(0), 0, true, i)
}

// GenericElements returns the generic form (as Generic gives it) of the
// elements from..to-1 of the array at ptr, fewer when the array is shorter,
// and false when ptr designates no array.
func (d *Document) GenericElements(ptr string, from, to int) ([]any, bool) {
	i, ok := d.lookup(ptr)
	if !ok || d.kind(i) != kArray {
		return nil, false
	}
	e := d.first(i)
	for j := 0; j < from && e >= 0; j++ {
		e = d.next(i, e)
	}
	if e < 0 || from >= to {
		return []any{}, true
	}
	last := e
	n := 1
	for n < to-from && d.next(i, last) >= 0 {
		last = d.next(i, last)
		n++
	}
	t := d.textOf(e)
	out := make([]any, 0, n)
	for k := 0; k < n; k, e = k+1, d.next(i, e) {
		out = append(out, d.generic(t, e, true, -1))
	}
	return out, true
}

// text is where strings decoded from the document come from: the
// document's source as one string, of which they are substrings, which
// saves an allocation per string (a decoded value keeps the whole text
// alive, no more than the document itself would); or, before a decoding
// has made that copy, the source bytes, each string a copy of its own.
type text struct {
	s   string
	src []byte // when not nil, copy from here instead
}

// textOf returns the shared string copy of the source, which holds node i
// as every other node, making it if no decoding has yet.
func (d *Document) textOf(int32) text {
	d.textOnce.Do(func() {
		d.text = string(d.src)
		d.textMade.Store(true)
	})
	return text{s: d.text}
}

// readText returns where to read the strings of node i's text from: the
// shared copy of the source if it is made, and otherwise the source
// itself, to copy them from one by one, as long as what is read so far
// that way is under an eighth of the source. Reading a few names or
// strings of a document (as a schema does of one it rejects) must not
// copy the whole of it; reading much of it, or a string as large as the
// document, makes the shared copy once rather than several.
func (d *Document) readText(i int32) text {
	if d.textMade.Load() {
		return text{s: d.text}
	}
	n := d.slots[i]
	if d.copied.Add(int64(n.end-n.start)) > int64(len(d.src)/8) {
		return d.textOf(i)
	}
	return text{src: d.src}
}

// at is the text of bytes start..end of the source.
func (t text) at(start, end int32) string {
	if t.src != nil {
		return string(t.src[start:end])
	}
	return t.s[start:end]
}

// numIn is the text of number node i, which lies within t: as written,
// or, for an inexact number, its canonical form, so that whoever reads
// the text (json.Number, big.Rat) reads the double RFC 8785 reads.
func (d *Document) numIn(t text, i int32) string {
	n := d.node(i)
	if n.flags&flagInexact != 0 {
		f, _ := strconv.ParseFloat(t.at(n.start, n.end), 64) // validated by Parse
		return string(AppendNumber(nil, f))
	}
	return t.at(n.start, n.end)
}

// intIn reads number node i, within t, as an integer: its digits when they
// are its exact value, otherwise the double it is read as, when that is a
// whole number within int64 (1e3, or 9007199254740993, which is read as
// 9007199254740992).
func (d *Document) intIn(t text, i int32) (int64, bool) {
	n := d.node(i)
	raw := t.at(n.start, n.end)
	if n.flags&flagInexact == 0 {
		if x, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return x, true
		}
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// strIn is the decoded text of string node i, which lies within t.
func (d *Document) strIn(t text, i int32) string {
	n := d.node(i)
	if n.flags&flagEscaped != 0 {
		return unescapeString(d.src[n.start+1 : n.end-1])
	}
	return t.at(n.start+1, n.end-1)
}

// generic builds the generic form of node i, which lies within t, giving
// the array at node skip as empty (-1 skips nothing).
func (d *Document) generic(t text, i int32, useNumber bool, skip int32) any {
	n := d.node(i)
	switch n.kind {
	case kObject:
		m := make(map[string]any, d.count(i))
		for k := d.first(i); k >= 0; k = d.slots[k].link {
			m[d.strIn(t, k)] = d.generic(t, k+1, useNumber, skip)
		}
		return m
	case kArray:
		if i == skip {
			return []any{}
		}
		a := make([]any, 0, d.count(i))
		for e := d.first(i); e >= 0; e = d.next(i, e) {
			a = append(a, d.generic(t, e, useNumber, skip))
		}
		return a
	case kString:
		return d.strIn(t, i)
	case kNumber:
		if useNumber {
			return json.Number(d.numIn(t, i))
		}
		f, _ := strconv.ParseFloat(t.at(n.start, n.end), 64)
		return f
	case kTrue:
		return true
	case kFalse:
		return false
	}
	return nil
}

// nameIs reports whether string node i decodes to name, without copying
// a name that has no escapes: a hostile one may be megabytes long.
func (d *Document) nameIs(i int32, name string) bool {
	n := d.node(i)
	raw := d.src[n.start+1 : n.end-1]
	if n.flags&flagEscaped != 0 {
		return unescapeString(raw) == name
	}
	return string(raw) == name
}

// raw is the source text of a value node, quotes included for a string.
func (d *Document) raw(i int32) []byte {
	n := d.slots[i]
	return d.src[n.start:n.end]
}

type structInfo struct {
	byName     map[string]int // json name → field index
	byFold     map[string]int // lower-case json name → field index
	extensible bool
}

type decoder struct {
	d       *Document
	t       text // the source of the value being decoded
	structs map[reflect.Type]*structInfo
	custom  map[reflect.Type]bool // see unmarshals
	path    []pathElem
}

func (dec *decoder) fail(i int32, want reflect.Type) error {
	n := dec.d.node(i)
	found := map[kind]string{kObject: "object", kArray: "array", kString: "string", kTrue: "true", kFalse: "false", kNull: "null"}[n.kind]
	if n.kind == kNumber {
		found = "number " + shorten(dec.d.src[n.start:n.end])
	}
	p := parser{src: dec.d.src, slots: dec.d.slots, meta: dec.d.meta, path: dec.path}
	return &TypeError{Pointer: p.pointer(), Offset: int(n.start), JSON: found, Go: want.String()}
}

// unmarshals reports whether values of type t decode themselves: *t is a
// json.Unmarshaler and t is not an Extensible struct. The answer is cached
// per type, as asking costs more than decoding most values.
func (dec *decoder) unmarshals(t reflect.Type) bool {
	switch t {
	case stringType, intType, float64Type, boolType, anyType:
		return false // predeclared types have no methods
	}
	u, ok := dec.custom[t]
	if !ok {
		u = reflect.PointerTo(t).Implements(unmarshalerType) && !(t.Kind() == reflect.Struct && dec.info(t).extensible)
		if dec.custom == nil {
			dec.custom = map[reflect.Type]bool{}
		}
		dec.custom[t] = u
	}
	return u
}

func (dec *decoder) info(t reflect.Type) *structInfo {
	if si, ok := dec.structs[t]; ok {
		return si
	}
	si := &structInfo{byName: map[string]int{}, byFold: map[string]int{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		si.byName[name] = i
		if _, dup := si.byFold[strings.ToLower(name)]; !dup {
			si.byFold[strings.ToLower(name)] = i
		}
	}
	si.extensible = reflect.PointerTo(t).Implements(extensibleType)
	dec.structs[t] = si
	return si
}

func (dec *decoder) value(i int32, v reflect.Value) error {
	n := dec.d.node(i)
	if n.kind == kNull {
		switch v.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
			v.SetZero()
		}
		return nil
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return dec.value(i, v.Elem())
	}
	t := v.Type()
	switch {
	case t == rawMessageType:
		v.SetBytes(append([]byte(nil), dec.d.raw(i)...))
		return nil
	case t == numberType:
		if n.kind != kNumber {
			return dec.fail(i, t)
		}
		v.SetString(dec.t.at(n.start, n.end))
		return nil
	case t == genericMapType && n.kind == kObject, t == genericListType && n.kind == kArray:
		// What the element-by-element path below would build, built
		// without reflection.
		v.Set(reflect.ValueOf(dec.d.generic(dec.t, i, false, -1)))
		return nil
	case v.CanAddr() && dec.unmarshals(t):
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(dec.d.raw(i))
	}

	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return dec.fail(i, t)
		}
		v.Set(reflect.ValueOf(dec.d.generic(dec.t, i, false, -1)))
	case reflect.String:
		if n.kind != kString {
			return dec.fail(i, t)
		}
		v.SetString(dec.d.strIn(dec.t, i))
	case reflect.Bool:
		if n.kind != kTrue && n.kind != kFalse {
			return dec.fail(i, t)
		}
		v.SetBool(n.kind == kTrue)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.kind != kNumber {
			return dec.fail(i, t)
		}
		x, ok := dec.d.intIn(dec.t, i)
		if !ok || v.OverflowInt(x) {
			return dec.fail(i, t)
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.kind != kNumber {
			return dec.fail(i, t)
		}
		x, ok := dec.d.intIn(dec.t, i)
		if !ok || x < 0 || v.OverflowUint(uint64(x)) {
			return dec.fail(i, t)
		}
		v.SetUint(uint64(x))
	case reflect.Float32, reflect.Float64:
		if n.kind != kNumber {
			return dec.fail(i, t)
		}
		x, err := strconv.ParseFloat(dec.t.at(n.start, n.end), t.Bits())
		if err != nil {
			return dec.fail(i, t)
		}
		v.SetFloat(x)
	case reflect.Slice:
		if n.kind != kArray {
			return dec.fail(i, t)
		}
		count := dec.d.count(i)
		s := reflect.MakeSlice(t, count, count)
		if err := dec.elements(i, s); err != nil {
			return err
		}
		v.Set(s)
	case reflect.Map:
		if n.kind != kObject || t.Key().Kind() != reflect.String {
			return dec.fail(i, t)
		}
		m := reflect.MakeMapWithSize(t, dec.d.count(i))
		for k := dec.d.first(i); k >= 0; k = dec.d.slots[k].link {
			name := dec.d.strIn(dec.t, k)
			elem := reflect.New(t.Elem()).Elem()
			dec.path = append(dec.path, pathElem{name: k})
			if err := dec.value(k+1, elem); err != nil {
				return err
			}
			dec.path = dec.path[:len(dec.path)-1]
			m.SetMapIndex(reflect.ValueOf(name).Convert(t.Key()), elem)
		}
		v.Set(m)
	case reflect.Struct:
		if n.kind != kObject {
			return dec.fail(i, t)
		}
		return dec.object(i, v, dec.info(t))
	default:
		return dec.fail(i, t)
	}
	return nil
}

// Arrays at least parallelBytes long in the source, of at least
// parallelElems elements, are decoded in chunks on several goroutines: a
// bundle's trace edges are most of its decoding.
const (
	parallelBytes = 256 << 10
	parallelElems = 64
)

// elements decodes the elements of array node i into the slice s, which
// has room for all of them. The error, if any, is the one a decoding in
// order would give: that of the first element that fails.
func (dec *decoder) elements(i int32, s reflect.Value) error {
	chunks := min(2*runtime.GOMAXPROCS(0), s.Len()/(parallelElems/2))
	if n := dec.d.slots[i]; n.end-n.start < parallelBytes || s.Len() < parallelElems || chunks < 2 {
		return dec.elementRange(i, dec.d.first(i), 0, s.Len(), s)
	}
	size := (s.Len() + chunks - 1) / chunks
	errs := make([]error, chunks)
	var wg sync.WaitGroup
	e := dec.d.first(i)
	for c := range chunks {
		from, to := c*size, min((c+1)*size, s.Len())
		if from >= to {
			break
		}
		// Each chunk has a decoder of its own: the struct cache and the
		// path are not safe to share.
		sub := &decoder{d: dec.d, t: dec.t, structs: map[reflect.Type]*structInfo{}, path: slices.Clone(dec.path)}
		first := e
		wg.Go(func() { errs[c] = sub.elementRange(i, first, from, to, s) })
		for range to - from {
			e = dec.d.next(i, e)
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// elementRange decodes the elements from..to-1 of array node i, the first
// of which is node e, into s.
func (dec *decoder) elementRange(i, e int32, from, to int, s reflect.Value) error {
	for j := from; j < to; j, e = j+1, dec.d.next(i, e) {
		dec.path = append(dec.path, pathElem{name: -1, index: int32(j)})
		if err := dec.value(e, s.Index(j)); err != nil {
			return err
		}
		dec.path = dec.path[:len(dec.path)-1]
	}
	return nil
}

func (dec *decoder) object(i int32, v reflect.Value, si *structInfo) error {
	var extra map[string]json.RawMessage
	for k := dec.d.first(i); k >= 0; k = dec.d.slots[k].link {
		f, ok := 0, false
		if nk := dec.d.node(k); nk.flags&flagEscaped == 0 {
			// The common case, looked up without allocating the name.
			f, ok = si.byName[string(dec.d.src[nk.start+1:nk.end-1])]
		}
		var name string
		if !ok {
			name = dec.d.strIn(dec.t, k)
			f, ok = si.byName[name]
		}
		if !ok {
			f, ok = si.byFold[strings.ToLower(name)]
		}
		if !ok {
			if si.extensible {
				if extra == nil {
					extra = map[string]json.RawMessage{}
				}
				extra[name] = append(json.RawMessage(nil), dec.d.raw(k+1)...)
			}
			continue
		}
		dec.path = append(dec.path, pathElem{name: k})
		if err := dec.value(k+1, v.Field(f)); err != nil {
			return err
		}
		dec.path = dec.path[:len(dec.path)-1]
	}
	if si.extensible {
		v.Addr().Interface().(Extensible).SetExtra(extra)
	}
	return nil
}

// DecodeAt decodes the value at the RFC 6901 JSON pointer ptr into v. It
// reports false when nothing is at ptr.
func (d *Document) DecodeAt(ptr string, v any) (bool, error) {
	i, ok := d.lookup(ptr)
	if !ok {
		return false, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return true, fmt.Errorf("canonjson: DecodeAt needs a non-nil pointer, got %T", v)
	}
	dec := decoder{d: d, t: d.textOf(i), structs: map[reflect.Type]*structInfo{}}
	return true, dec.value(i, rv.Elem())
}

// lookup finds the node a JSON pointer designates.
func (d *Document) lookup(ptr string) (int32, bool) {
	if ptr == "" {
		return 0, true
	}
	if ptr[0] != '/' {
		return 0, false
	}
	i := int32(0)
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		found := false
		switch d.kind(i) {
		case kObject:
			for k := d.first(i); k >= 0; k = d.slots[k].link {
				if d.nameIs(k, tok) {
					i, found = k+1, true
					break
				}
			}
		case kArray:
			idx, err := strconv.Atoi(tok)
			if err != nil || idx < 0 || tok != strconv.Itoa(idx) {
				return 0, false
			}
			for e, j := d.first(i), 0; e >= 0; j++ {
				if j == idx {
					i, found = e, true
					break
				}
				e = d.next(i, e)
			}
		}
		if !found {
			return 0, false
		}
	}
	return i, true
}
