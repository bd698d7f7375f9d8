// Package canonjson reads untrusted JSON strictly and writes its RFC 8785
// (JSON Canonicalization Scheme) form.
//
// Parse accepts I-JSON only (RFC 7493): well-formed UTF-8, no lone
// surrogates, no duplicate member names, finite numbers, nesting and size
// within Limits. Every rejection is an *Error naming the byte offset and the
// JSON pointer of the offending place. Parse never panics and allocates in
// proportion to its input, which Limits bounds.
//
// Numbers follow RFC 8785 exactly: any number that does not overflow a
// double is read as the nearest IEEE-754 double, as ECMAScript's JSON.parse
// reads it, and written as ECMAScript writes that double. An integer beyond
// 2^53 such as 1234567890123456800 is accepted, as every JavaScript reader
// accepts it. Where the text names a value the double does not write back
// (9007199254740993 becomes 9007199254740992, a twentieth significant digit
// is dropped), the number is inexact: it is accepted all the same, and
// InexactNumbers lists it so that a caller can warn. The canonical form of
// every accepted document is itself accepted and is its own canonical form.
//
// A parsed Document writes its canonical form in one pass: members sorted by
// their UTF-16 code units, strings with the minimal escapes of ECMAScript's
// JSON.stringify, numbers in ECMAScript's Number.prototype.toString form. The
// output is byte-identical to github.com/gowebpki/jcs, which the tests hold
// it to; this encoder exists because it is several times faster.
// AppendCanonicalAnew writes the same bytes by a second, independent route,
// for checks that want two serializations to agree.
//
// A Document is read in place through Values, decoded into Go values with
// Decode, or turned into the generic form schema validators take with
// Generic.
package canonjson

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"
)

// Limits bound what Parse accepts.
type Limits struct {
	// MaxBytes is the largest input accepted, in bytes. Zero, a negative
	// value or one above 1 GiB means DefaultMaxBytes.
	MaxBytes int
	// MaxDepth is the deepest nesting of objects and arrays accepted. Zero
	// or a negative value means DefaultMaxDepth; values above 10,000 are
	// lowered to 10,000, which keeps Parse's recursion within a small stack.
	MaxDepth int
}

// Default limits: generous for a bundle of tens of thousands of edges, small
// enough that a hostile file cannot exhaust a browser tab.
const (
	DefaultMaxBytes = 64 << 20
	DefaultMaxDepth = 128
	hardMaxBytes    = 1 << 30
	hardMaxDepth    = 10000
)

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{MaxBytes: DefaultMaxBytes, MaxDepth: DefaultMaxDepth}
}

// Kind classifies a rejection so callers can branch on it.
type Kind int

// Rejection kinds. KindSyntax is input that is not JSON at all; every other
// kind is JSON that I-JSON or Limits rule out.
const (
	KindSyntax        Kind = iota + 1 // not JSON
	KindDuplicateKey                  // a member name repeats in one object
	KindInvalidUTF8                   // bytes that are not UTF-8
	KindLoneSurrogate                 // a \u escape of half a surrogate pair
	KindNonFinite                     // NaN, Infinity, or a number that overflows
	KindTooDeep                       // nesting beyond Limits.MaxDepth
	KindTooLarge                      // input beyond Limits.MaxBytes
	KindTrailingData                  // something after the top-level value
)

func (k Kind) String() string {
	switch k {
	case KindSyntax:
		return "syntax error"
	case KindDuplicateKey:
		return "duplicate member name"
	case KindInvalidUTF8:
		return "invalid UTF-8"
	case KindLoneSurrogate:
		return "lone surrogate"
	case KindNonFinite:
		return "non-finite number"
	case KindTooDeep:
		return "nesting too deep"
	case KindTooLarge:
		return "input too large"
	case KindTrailingData:
		return "trailing data"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is a rejection of the input, with where it happened.
type Error struct {
	Kind    Kind
	Offset  int    // byte offset into the input
	Pointer string // RFC 6901 JSON pointer of the value being read ("" is the root)
	Detail  string
}

func (e *Error) Error() string {
	where := fmt.Sprintf("at byte %d", e.Offset)
	if e.Pointer != "" {
		where += fmt.Sprintf(" (JSON pointer %s)", e.Pointer)
	}
	if e.Detail == "" {
		return fmt.Sprintf("%s %s", e.Kind, where)
	}
	return fmt.Sprintf("%s %s: %s", e.Kind, where, e.Detail)
}

type kind uint8

const (
	kObject kind = iota + 1
	kArray
	kString
	kNumber
	kTrue
	kFalse
	kNull
)

const (
	flagEscaped  = 1 << iota // string contains backslash escapes
	flagVerbatim             // a string, number or literal whose source is its canonical form
	flagInexact              // a number whose text names a value its double does not write back
)

// A document is stored as one slot and one meta byte per value and per
// member name, in document order: a container's children follow it, a
// name node's value is the node right after it. start and end delimit a
// node's raw bytes, a string's quotes included, so that the encoder
// copies every verbatim value the same way. Since nodes are in document
// order their starts increase, and the nodes of a value's subtree are
// exactly those after it that start before it ends: an array's first
// element is the node after it, and the element after e is the first
// node past e's subtree (next). Only the canonical order of an object's
// members is linked: link is an object's first member name and a name's
// next, in canonical order (-1 for none, and for every other node). Two
// more links per node, as a tree would hold, took 20 bytes a node where
// these take 13; a document dense in small values has a node every two
// or three bytes, so this is most of the memory a parse takes.
type slot struct {
	start int32
	end   int32
	link  int32
}

// meta packs a node's kind (the low three bits) and flags (above them).
func meta(k kind, flags uint8) uint8 { return uint8(k) | flags<<3 }

// node is a node's fields as the encoder and the decoder read them.
type node struct {
	kind  kind
	flags uint8
	start int32
	end   int32
}

// Document is a parsed, validated JSON text. It is safe for concurrent
// use: every method only reads it.
type Document struct {
	src   []byte
	slots []slot
	meta  []uint8
	// text is one string copy of src, made the first time the document
	// (or a part of it) is decoded; every string and number decoded
	// since that needs no unescaping is a substring of it, however many
	// times the document is decoded. textMade says it is made.
	text     string
	textOnce sync.Once
	textMade atomic.Bool
	copied   atomic.Int64 // bytes read before text was made (readText)
	// inexact lists the first MaxInexact inexact numbers, with the path
	// to each; inexactOmitted counts the others.
	inexact        []inexactNumber
	inexactOmitted int
}

// inexactNumber is an inexact number's node and the path to it, from which
// its pointer is written only when asked for.
type inexactNumber struct {
	node int32
	path []pathElem
}

// Parse validates data as I-JSON within lim and returns its document.
// The document refers to data, which must not change afterwards.
func Parse(data []byte, lim Limits) (*Document, error) {
	if lim.MaxBytes <= 0 || lim.MaxBytes > hardMaxBytes {
		lim.MaxBytes = DefaultMaxBytes
	}
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = DefaultMaxDepth
	}
	lim.MaxDepth = min(lim.MaxDepth, hardMaxDepth)
	if len(data) > lim.MaxBytes {
		return nil, &Error{Kind: KindTooLarge, Offset: lim.MaxBytes,
			Detail: fmt.Sprintf("%d bytes, limit %d", len(data), lim.MaxBytes)}
	}
	bound := nodesBound(data)
	p := parser{src: data, lim: lim, slots: make([]slot, 0, bound), meta: make([]uint8, 0, bound)}
	p.skipSpace()
	if p.pos >= len(p.src) {
		return nil, p.fail(KindSyntax, "empty input")
	}
	if _, err := p.value(0); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return nil, p.fail(KindTrailingData, "unexpected "+describe(p.src[p.pos]))
	}
	return &Document{src: data, slots: p.slots, meta: p.meta, inexact: p.inexact, inexactOmitted: p.inexactOmitted}, nil
}

// node returns node i's fields.
func (d *Document) node(i int32) node {
	s, m := d.slots[i], d.meta[i]
	return node{kind: kind(m & 7), flags: m >> 3, start: s.start, end: s.end}
}

// kind is node i's kind.
func (d *Document) kind(i int32) kind { return kind(d.meta[i] & 7) }

// first returns container i's first child: an object's first member
// name in canonical order, an array's first element; -1 when it has none
// and for any other node.
func (d *Document) first(i int32) int32 {
	switch d.kind(i) {
	case kObject:
		return d.slots[i].link
	case kArray:
		if j := i + 1; int(j) < len(d.slots) && d.slots[j].start < d.slots[i].end {
			return j
		}
	}
	return -1
}

// next returns the child of container i that follows its child c in the
// order first starts: the next member name in canonical order, or the
// next element; -1 after the last.
func (d *Document) next(i, c int32) int32 {
	if d.kind(i) == kObject {
		return d.slots[c].link
	}
	j := past(d.slots, c)
	if int(j) >= len(d.slots) || d.slots[j].start >= d.slots[i].end {
		return -1
	}
	return j
}

// past returns the first node after node c's subtree: the first whose
// start is not before c's end. It is usually the node right after c (c
// is a scalar or an empty container); past a subtree it gallops, so that
// walking an array is linear in its elements, not in its nodes.
func past(slots []slot, c int32) int32 {
	end := slots[c].end
	j := c + 1
	if int(j) >= len(slots) || slots[j].start >= end {
		return j
	}
	lo, step := j, int32(1) // slots[lo] starts within c
	hi := lo + step
	for int(hi) < len(slots) && slots[hi].start < end {
		lo, step = hi, step*2
		hi = lo + step
	}
	hi = min(hi, int32(len(slots)))
	// The first node past the subtree lies in (lo, hi].
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if slots[mid].start < end {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// count is the number of children of container i.
func (d *Document) count(i int32) int {
	c := 0
	for k := d.first(i); k >= 0; k = d.next(i, k) {
		c++
	}
	return c
}

// nodesBound returns how many nodes to make room for before parsing data:
// the number of nodes a JSON text can have, or half its length when that
// is less. Every node but the root follows a '{' (a first member name), a
// '[' (a first element), a ',' or a ':', so counting those bytes, in
// strings too, bounds the nodes from above, and growing the node array
// as it fills, which copies it several times over, is avoided. A value
// takes at least two bytes (a digit and a comma), so half the length is
// room for every node of any input; add doubles the array should the
// count be the larger.
//
// The count takes one pass, eight bytes at a time: compiled to wasm,
// where bytes.Count is a plain loop, four passes of it cost an eighth of
// an import.
func nodesBound(data []byte) int {
	return min(1+structural(data), len(data)/2+16)
}

// structural counts the bytes '{', '[', ',' and ':' in data, less the
// brackets closed by the very next byte ("{}", "[]"): no node follows
// those, and a document of empty objects has one in every three bytes.
// (Brackets inside strings are counted or not alike; the count stays a
// bound on the nodes either way.)
func structural(data []byte) int {
	n, i := 0, 0
	carry := uint64(0) // the last byte of the previous word opened a bracket
	for ; i+8 <= len(data); i += 8 {
		x := binary.LittleEndian.Uint64(data[i:])
		// '[' and '{' differ only in bit 0x20, which no other byte
		// sets them apart from, and so do ']' and '}'; ',' and ':'
		// are compared as they are.
		open := zeroBytes(x | ones*0x20 ^ ones*'{')
		closed := zeroBytes(x | ones*0x20 ^ ones*'}')
		m := open | zeroBytes(x^ones*',') | zeroBytes(x^ones*':')
		n += bits.OnesCount64(m) - bits.OnesCount64(open&(closed>>8)) - int(carry&(closed>>7))
		carry = open >> 63
	}
	prev := byte(0)
	if carry != 0 {
		prev = '{'
	}
	for _, c := range data[i:] {
		switch {
		case c == '{' || c == '[' || c == ',' || c == ':':
			n++
		case (c == '}' || c == ']') && (prev == '{' || prev == '['):
			n--
		}
		prev = c
	}
	return n
}

// zeroBytes returns the high bit of each byte of x that is zero, and no
// other bit. Unlike the borrow trick of plain, it gives no false alarms
// past a zero byte, so the bits can be counted.
func zeroBytes(x uint64) uint64 {
	const lows = ^uint64(highs)
	return ^((x&lows + lows) | x | lows)
}

// IsObject reports whether the top-level value is an object.
func (d *Document) IsObject() bool { return d.kind(0) == kObject }

// Canonical returns the RFC 8785 form of the document.
func (d *Document) Canonical() []byte {
	return d.AppendCanonical(nil)
}

// AppendCanonical appends the canonical form to dst. Top-level object
// members named in omit are left out (a bundle's content hash covers the
// bundle without content_hash and signature).
func (d *Document) AppendCanonical(dst []byte, omit ...string) []byte {
	// The canonical form is rarely longer than the input; growing once up
	// front saves growing the output many times over.
	dst = slices.Grow(dst, len(d.src))
	if len(omit) == 0 || d.kind(0) != kObject {
		return d.appendValue(dst, 0)
	}
	dst = append(dst, '{')
	comma := false
	for k := d.first(0); k >= 0; k = d.next(0, k) {
		if d.keyIn(k, omit) {
			continue
		}
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = d.appendMember(dst, k)
	}
	return append(dst, '}')
}

// Transform parses data with the default limits and returns its canonical form.
func Transform(data []byte) ([]byte, error) {
	d, err := Parse(data, DefaultLimits())
	if err != nil {
		return nil, err
	}
	return d.Canonical(), nil
}

func (d *Document) keyIn(k int32, names []string) bool {
	n := d.node(k)
	raw := d.src[n.start+1 : n.end-1]
	if n.flags&flagEscaped != 0 {
		var buf [64]byte
		raw = unescape(buf[:0], raw)
	}
	for _, name := range names {
		if string(raw) == name {
			return true
		}
	}
	return false
}

// appendValue writes node i. Leaves written verbatim are copied in the
// loops rather than through a call, which matters most compiled to wasm,
// where calls are dear.
func (d *Document) appendValue(dst []byte, i int32) []byte {
	n := d.node(i)
	if n.flags&flagVerbatim != 0 {
		return append(dst, d.src[n.start:n.end]...)
	}
	switch n.kind {
	case kObject:
		dst = append(dst, '{')
		first := d.first(i)
		for k := first; k >= 0; k = d.slots[k].link {
			if k != first {
				dst = append(dst, ',')
			}
			dst = d.appendMember(dst, k)
		}
		return append(dst, '}')
	case kArray:
		dst = append(dst, '[')
		first := d.first(i)
		for e := first; e >= 0; e = d.next(i, e) {
			if e != first {
				dst = append(dst, ',')
			}
			if d.meta[e]&(flagVerbatim<<3) != 0 {
				dst = append(dst, d.src[d.slots[e].start:d.slots[e].end]...)
			} else {
				dst = d.appendValue(dst, e)
			}
		}
		return append(dst, ']')
	case kString:
		return appendReescaped(dst, d.src[n.start:n.end])
	default: // a number that needs formatting
		f, _ := strconv.ParseFloat(string(d.src[n.start:n.end]), 64) // validated by Parse
		return AppendNumber(dst, f)
	}
}

// appendMember writes the member whose name is node k.
func (d *Document) appendMember(dst []byte, k int32) []byte {
	dst = d.appendName(dst, k)
	if d.meta[k+1]&(flagVerbatim<<3) != 0 {
		return append(dst, d.src[d.slots[k+1].start:d.slots[k+1].end]...)
	}
	return d.appendValue(dst, k+1)
}

// appendName writes the canonical form of member name node k and a colon.
func (d *Document) appendName(dst []byte, k int32) []byte {
	if key := d.slots[k]; d.meta[k]&(flagVerbatim<<3) != 0 {
		dst = append(dst, d.src[key.start:key.end]...)
	} else {
		dst = appendReescaped(dst, d.src[key.start:key.end])
	}
	return append(dst, ':')
}

// appendReescaped writes a validated JSON string, quotes included, in
// canonical form, going from one escape form to the other without decoding
// the string first. Bytes between escapes are valid UTF-8 with no quote,
// backslash or control character, and most escapes are already canonical,
// so it copies long runs and rewrites only the escapes JSON.stringify would
// not write: \/, \u escapes of printable characters, and \u escapes in
// another form than its own.
func appendReescaped(dst, quoted []byte) []byte {
	raw := quoted[:len(quoted)-1] // the closing quote is written last
	last, i := 0, 1
	for {
		// Find the next backslash, eight bytes at a time first: a zero
		// byte of x^'\\'·ones borrows into its high bit. Written out
		// here because a call per escape is dear compiled to wasm.
		for i+8 <= len(raw) {
			x := binary.LittleEndian.Uint64(raw[i:]) ^ (ones * '\\')
			if (x-ones)&^x&highs != 0 {
				break
			}
			i += 8
		}
		for i < len(raw) && raw[i] != '\\' {
			i++
		}
		if i >= len(raw) {
			break
		}
		switch c := raw[i+1]; c {
		case 'u':
			if canonicalEscape(raw[i+2 : i+6]) {
				i += 6
				continue
			}
			dst = append(dst, raw[last:i]...)
			r := rune(hex4(raw[i+2 : i+6]))
			i += 6
			if utf16.IsSurrogate(r) { // validated: a low surrogate escape follows
				r = utf16.DecodeRune(r, rune(hex4(raw[i+2:i+6])))
				i += 6
			}
			dst = appendRune(dst, r)
			last = i
		case '/':
			dst = append(dst, raw[last:i]...)
			dst = append(dst, '/')
			i += 2
			last = i
		default: // " \ b f n r t: the canonical short forms
			i += 2
		}
	}
	dst = append(dst, raw[last:]...)
	return append(dst, '"')
}

// appendRune writes one decoded character of a string the way
// JSON.stringify does.
func appendRune(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	switch r {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	if r < 0x20 {
		return append(dst, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
	}
	return utf8.AppendRune(dst, r)
}

// AppendNumber appends f in the form ECMAScript's Number.prototype.toString
// gives it, which RFC 8785 §3.2.2.3 adopts. A non-finite f, which JSON
// cannot hold and Parse never yields, is written as null, as
// JSON.stringify writes it.
func AppendNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0') // also -0
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// An integer below 2^53 is its decimal digits, as ECMAScript writes
	// every integer below 1e21. Bundles are full of them (indexes,
	// milliseconds, counts), and the shortest-digits route below is dear
	// compiled to wasm.
	if f < maxSafeInteger && float64(int64(f)) == f {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	// Shortest round-tripping digits, as d[.ddd]e±xx.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	m := bytes.IndexByte(e, 'e')
	var dbuf [17]byte
	digits := append(dbuf[:0], e[0])
	if m > 1 {
		digits = append(digits, e[2:m]...)
	}
	x := 0
	for _, c := range e[m+2:] {
		x = x*10 + int(c-'0')
	}
	if e[m+1] == '-' {
		x = -x
	}
	k, n := len(digits), x+1 // value = 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		dst = append(dst, digits...)
		for range n - k {
			dst = append(dst, '0')
		}
	case 0 < n && n <= 21:
		dst = append(dst, digits[:n]...)
		dst = append(dst, '.')
		dst = append(dst, digits[n:]...)
	case -6 < n && n <= 0:
		dst = append(dst, '0', '.')
		for range -n {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	default:
		dst = append(dst, digits[0])
		if k > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if n-1 >= 0 {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(n-1), 10)
	}
	return dst
}

// unescape decodes the body of a JSON string validated by Parse.
func unescape(dst, raw []byte) []byte {
	var buf [utf8.UTFMax]byte
	for {
		plain, char, rest, ok := nextEscape(raw, &buf)
		dst = append(dst, plain...)
		if !ok {
			return dst
		}
		dst = append(dst, char...)
		raw = rest
	}
}

// unescapeString is unescape to a string, made with one allocation of at
// most the body's length (the decoded text is never longer): a bundle's
// escaped strings run to megabytes, decoded twice, for the schema and the
// typed bundle.
func unescapeString(raw []byte) string {
	var b strings.Builder
	b.Grow(len(raw))
	var buf [utf8.UTFMax]byte
	for {
		plain, char, rest, ok := nextEscape(raw, &buf)
		b.Write(plain)
		if !ok {
			return b.String()
		}
		b.Write(char)
		raw = rest
	}
}

// nextEscape splits the body of a validated JSON string at its first
// escape: the bytes before it, the character it stands for (UTF-8, in
// buf) and the bytes after it. Without an escape, plain is all of raw and
// ok is false.
func nextEscape(raw []byte, buf *[utf8.UTFMax]byte) (plain, char, rest []byte, ok bool) {
	i := bytes.IndexByte(raw, '\\')
	if i < 0 {
		return raw, nil, nil, false
	}
	plain, rest = raw[:i], raw[i+2:]
	switch c := raw[i+1]; c {
	case 'b':
		buf[0] = '\b'
	case 'f':
		buf[0] = '\f'
	case 'n':
		buf[0] = '\n'
	case 'r':
		buf[0] = '\r'
	case 't':
		buf[0] = '\t'
	case 'u':
		r := rune(hex4(raw[i+2 : i+6]))
		rest = raw[i+6:]
		if utf16.IsSurrogate(r) {
			r = utf16.DecodeRune(r, rune(hex4(rest[2:6])))
			rest = rest[6:]
		}
		return plain, utf8.AppendRune(buf[:0], r), rest, true
	default: // " \ /
		buf[0] = c
	}
	return plain, buf[:1], rest, true
}

func hex4(b []byte) int {
	v := 0
	for _, c := range b[:4] {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= int(c - '0')
		case c >= 'a' && c <= 'f':
			v |= int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v |= int(c-'A') + 10
		default:
			return -1
		}
	}
	return v
}

// compareUTF16 orders two UTF-8 strings by their UTF-16 code units, as
// RFC 8785 §3.2.3 sorts member names. UTF-8 byte order is code point order,
// and that agrees with UTF-16 code unit order except between a character
// beyond U+FFFF (a surrogate pair, from 0xD800) and one in U+E000–U+FFFF:
// their lead bytes are 0xF0–0xF4 and 0xEE–0xEF. The first differing bytes
// are lead bytes or continuation bytes of runes with equal lead bytes, so
// comparing there is enough.
func compareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca >= 0xee && cb >= 0xee && (ca >= 0xf0) != (cb >= 0xf0) {
			if ca >= 0xf0 {
				return -1
			}
			return 1
		}
		return int(ca) - int(cb)
	}
	return len(a) - len(b)
}

// member is a name being sorted while its object is parsed.
type member struct {
	name []byte // decoded name
	node int32  // index of the name node
}

// pathElem is one step of the JSON pointer to the value being parsed: the
// name node of an object member, or the index of an array element.
type pathElem struct {
	name  int32 // name node; -1 for an array element
	index int32
}

type parser struct {
	src     []byte
	pos     int
	lim     Limits
	slots   []slot
	meta    []uint8
	members []member // scratch, shared by nested objects as a stack
	// path has one element for each container being parsed, updated in
	// place as the parser moves from child to child.
	path []pathElem
	// names holds the decoded form of member names that contain escapes.
	// It only grows: members keep slices of it, and a slice made before
	// append moved the buffer still reads its old, unchanged bytes.
	names []byte
	// inexact and inexactOmitted become the Document's.
	inexact        []inexactNumber
	inexactOmitted int
}

func (p *parser) fail(k Kind, detail string) *Error {
	return &Error{Kind: k, Offset: p.pos, Pointer: p.pointer(), Detail: detail}
}

func (p *parser) pointer() string {
	var b strings.Builder
	for _, e := range p.path {
		b.WriteByte('/')
		if e.name < 0 {
			b.WriteString(strconv.Itoa(int(e.index)))
			continue
		}
		n := p.slots[e.name]
		name := p.src[n.start+1 : n.end-1]
		if p.meta[e.name]&(flagEscaped<<3) != 0 {
			name = unescape(nil, name)
		}
		s := strings.ReplaceAll(string(name), "~", "~0")
		b.WriteString(strings.ReplaceAll(s, "/", "~1"))
	}
	return b.String()
}

func describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (p *parser) skipSpace() {
	i := p.pos
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\n' || p.src[i] == '\r' || p.src[i] == '\t') {
		i++
	}
	p.pos = i
}

// add appends a node of kind k with flags over start..end and returns its
// index; its link is -1.
func (p *parser) add(k kind, flags uint8, start, end int) int32 {
	if len(p.slots) == cap(p.slots) {
		p.grow()
	}
	p.slots = append(p.slots, slot{start: int32(start), end: int32(end), link: -1})
	p.meta = append(p.meta, meta(k, flags))
	return int32(len(p.slots) - 1)
}

// grow doubles the node arrays. append alone grows a large slice by a
// quarter at a time, which copies it several times over for a document
// dense in small values.
func (p *parser) grow() {
	p.slots = slices.Grow(p.slots, len(p.slots))
	p.meta = slices.Grow(p.meta, len(p.meta))
}

// value parses one value at p.pos (after white space) and returns its node.
func (p *parser) value(depth int) (int32, error) {
	if p.pos >= len(p.src) {
		return 0, p.fail(KindSyntax, "unexpected end of input")
	}
	switch c := p.src[p.pos]; c {
	case '"':
		return p.str()
	case '{':
		return p.object(depth + 1)
	case '[':
		return p.array(depth + 1)
	case 't':
		return p.literal("true", kTrue)
	case 'f':
		return p.literal("false", kFalse)
	case 'n':
		return p.literal("null", kNull)
	case 'N':
		if p.hasPrefix("NaN") {
			return 0, p.fail(KindNonFinite, "NaN is not a JSON number")
		}
	case 'I':
		if p.hasPrefix("Infinity") {
			return 0, p.fail(KindNonFinite, "Infinity is not a JSON number")
		}
	case '-':
		if p.hasPrefix("-Infinity") {
			return 0, p.fail(KindNonFinite, "-Infinity is not a JSON number")
		}
		return p.number()
	default:
		if c >= '0' && c <= '9' {
			return p.number()
		}
	}
	return 0, p.fail(KindSyntax, "unexpected "+describe(p.src[p.pos]))
}

func (p *parser) hasPrefix(s string) bool {
	return len(p.src)-p.pos >= len(s) && string(p.src[p.pos:p.pos+len(s)]) == s
}

func (p *parser) literal(word string, k kind) (int32, error) {
	if !p.hasPrefix(word) {
		return 0, p.fail(KindSyntax, "invalid literal, expected "+word)
	}
	start := p.pos
	p.pos += len(word)
	return p.add(k, flagVerbatim, start, p.pos), nil
}

func (p *parser) object(depth int) (int32, error) {
	if depth > p.lim.MaxDepth {
		return 0, p.fail(KindTooDeep, fmt.Sprintf("limit %d", p.lim.MaxDepth))
	}
	obj := p.add(kObject, 0, p.pos, p.pos)
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.slots[obj].end = int32(p.pos)
		return obj, nil
	}
	base := len(p.members)
	at := len(p.path)
	for {
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return 0, p.expected("a member name in double quotes")
		}
		name, err := p.str()
		if err != nil {
			return 0, err
		}
		n := p.slots[name]
		decoded := p.src[n.start+1 : n.end-1]
		if p.meta[name]&(flagEscaped<<3) != 0 {
			from := len(p.names)
			p.names = unescape(p.names, decoded)
			decoded = p.names[from:len(p.names):len(p.names)]
		}
		if len(p.members) == cap(p.members) {
			// Doubling while the stack is small, then at once room for
			// as many members as the document has room for (a member
			// is two nodes): append grows a large slice by a quarter,
			// and an object of two million members would copy its
			// members again and again on the way.
			more := len(p.members) + 1
			if room := cap(p.slots)/2 - len(p.members); len(p.members) >= 1024 && room > more {
				more = room
			}
			p.members = slices.Grow(p.members, more)
		}
		p.members = append(p.members, member{name: decoded, node: name})
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return 0, p.expected("':' after a member name")
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, pathElem{name: name})
		if p.pos < len(p.src) && p.src[p.pos] == '"' {
			_, err = p.str()
		} else {
			_, err = p.value(depth)
		}
		if err != nil {
			return 0, err
		}
		p.path = p.path[:at]
		p.skipSpace()
		if p.pos >= len(p.src) {
			return 0, p.expected("',' or '}'")
		}
		if p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.src[p.pos] != '}' {
			return 0, p.expected("',' or '}'")
		}
		p.pos++
		break
	}
	p.slots[obj].end = int32(p.pos)
	ms := p.members[base:]
	if !sortMembers(ms) {
		return 0, p.duplicate(ms)
	}
	for i := range len(ms) - 1 {
		p.slots[ms[i].node].link = ms[i+1].node
	}
	p.slots[obj].link = ms[0].node
	p.members = p.members[:base]
	return obj, nil
}

// sortMembers sorts the members of one object into canonical order and
// reports whether their names are unique. Objects are mostly small, and
// insertion sort with a direct comparison beats the general sort there;
// it also meets every pair of equal names on the way.
func sortMembers(ms []member) bool {
	if len(ms) > 24 {
		slices.SortFunc(ms, func(a, b member) int { return compareUTF16(a.name, b.name) })
		for i := 1; i < len(ms); i++ {
			if string(ms[i].name) == string(ms[i-1].name) {
				return false
			}
		}
		return true
	}
	unique := true
	for i := 1; i < len(ms); i++ {
		m := ms[i]
		j := i
		for ; j > 0; j-- {
			c := compareUTF16(ms[j-1].name, m.name)
			if c < 0 {
				break
			}
			if c == 0 {
				unique = false
				break
			}
			ms[j] = ms[j-1]
		}
		ms[j] = m
	}
	return unique
}

// duplicate reports the later of two equal names in sorted members.
func (p *parser) duplicate(ms []member) *Error {
	for i := 1; i < len(ms); i++ {
		if string(ms[i].name) == string(ms[i-1].name) {
			dup := max(ms[i].node, ms[i-1].node)
			p.pos = int(p.slots[dup].start)
			p.path = append(p.path, pathElem{name: dup})
			return p.fail(KindDuplicateKey, fmt.Sprintf("%.60q appears more than once", ms[i].name))
		}
	}
	return p.fail(KindDuplicateKey, "a member name appears more than once") // not reached
}

func (p *parser) array(depth int) (int32, error) {
	if depth > p.lim.MaxDepth {
		return 0, p.fail(KindTooDeep, fmt.Sprintf("limit %d", p.lim.MaxDepth))
	}
	arr := p.add(kArray, 0, p.pos, p.pos)
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.slots[arr].end = int32(p.pos)
		return arr, nil
	}
	at := len(p.path)
	p.path = append(p.path, pathElem{name: -1})
	for i := int32(0); ; i++ {
		p.skipSpace()
		p.path[at].index = i
		var err error
		if p.pos < len(p.src) && p.src[p.pos] == '"' {
			_, err = p.str()
		} else {
			_, err = p.value(depth)
		}
		if err != nil {
			return 0, err
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			p.path = p.path[:at]
			return 0, p.expected("',' or ']'")
		}
		if p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.src[p.pos] != ']' {
			p.path = p.path[:at]
			return 0, p.expected("',' or ']'")
		}
		p.pos++
		break
	}
	p.path = p.path[:at]
	p.slots[arr].end = int32(p.pos)
	return arr, nil
}

func (p *parser) expected(what string) *Error {
	if p.pos >= len(p.src) {
		return p.fail(KindSyntax, "unexpected end of input, expected "+what)
	}
	return p.fail(KindSyntax, "unexpected "+describe(p.src[p.pos])+", expected "+what)
}

// Masks for testing the eight bytes of a uint64 at once: ones·c repeats
// the byte c, and highs holds the high bit of every byte.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain reports whether none of the eight bytes of x is a control
// character, a quote, a backslash or a non-ASCII byte. x - 0x20·ones sets
// the high bit of a byte below 0x20, and a zero byte of x^c·ones (a byte
// equal to c) sets its high bit when ones is subtracted; a borrow only ever
// starts at such a byte, so there are no false alarms, and non-ASCII bytes
// carry their high bit already.
func plain(x uint64) bool {
	q := x ^ (ones * '"')
	s := x ^ (ones * '\\')
	return ((x-ones*0x20)|(q-ones)|(s-ones)|x)&highs == 0
}

// str parses a string at p.pos (on its opening quote).
func (p *parser) str() (int32, error) {
	src := p.src
	start := p.pos // the opening quote
	i := start + 1
	// A string is verbatim while every escape in it is the one
	// JSON.stringify would write: a short form other than \/, or \u00xx
	// in lowercase for a control character without a short form.
	flags := uint8(flagVerbatim)
	for {
		// Fast path: plain ASCII, a word at a time, then a byte at a time.
		for i+8 <= len(src) && plain(binary.LittleEndian.Uint64(src[i:])) {
			i += 8
		}
		for i < len(src) && plainByte[src[i]] {
			i++
		}
		if i >= len(src) {
			p.pos = i
			return 0, p.fail(KindSyntax, "unterminated string")
		}
		c := src[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return p.add(kString, flags, start, p.pos), nil
		case c == '\\':
			flags |= flagEscaped
			if i+1 < len(src) && shortEscape[src[i+1]] {
				if src[i+1] == '/' {
					flags &^= flagVerbatim
				}
				i += 2
				continue
			}
			p.pos = i
			if err := p.escape(); err != nil {
				return 0, err
			}
			if p.pos-i != 6 || !canonicalEscape(src[i+2:i+6]) {
				flags &^= flagVerbatim
			}
			i = p.pos
		case c < 0x20:
			p.pos = i
			return 0, p.fail(KindSyntax, fmt.Sprintf("control character 0x%02x in a string must be escaped", c))
		default:
			// Two- and three-byte sequences without special cases inline,
			// the rest through DecodeRune, which rejects overlong forms and
			// surrogates.
			if c >= 0xc2 && c <= 0xdf && i+1 < len(src) && src[i+1]&0xc0 == 0x80 {
				i += 2
				continue
			}
			if (c >= 0xe1 && c <= 0xec || c == 0xee || c == 0xef) && i+2 < len(src) &&
				src[i+1]&0xc0 == 0x80 && src[i+2]&0xc0 == 0x80 {
				i += 3
				continue
			}
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				p.pos = i
				return 0, p.fail(KindInvalidUTF8, fmt.Sprintf("byte 0x%02x", c))
			}
			i += size
		}
	}
}

// plainByte marks the bytes a string holds as they are: printable ASCII
// other than quote and backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// canonicalEscape reports whether \u followed by the four hex digits is
// how JSON.stringify writes the character: 00 and a lowercase hex byte
// below 0x20 that has no short form.
func canonicalEscape(h []byte) bool {
	if h[0] != '0' || h[1] != '0' || h[2] > '1' {
		return false
	}
	switch h[3] {
	case '8', '9', 'a', 'c', 'd': // \b \t \n \f \r from 00; none from 10
		return h[2] == '1'
	}
	return h[3] >= '0' && h[3] <= '9' || h[3] >= 'a' && h[3] <= 'f'
}

// shortEscape marks the characters that may follow a backslash on their
// own.
var shortEscape = [256]bool{'"': true, '\\': true, '/': true, 'b': true, 'f': true, 'n': true, 'r': true, 't': true}

// escape validates one escape sequence at p.pos (on the backslash).
func (p *parser) escape() error {
	if p.pos+1 >= len(p.src) {
		return p.fail(KindSyntax, "unterminated escape")
	}
	switch p.src[p.pos+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		p.pos += 2
		return nil
	case 'u':
	default:
		return p.fail(KindSyntax, "invalid escape "+strconv.Quote(string(p.src[p.pos:p.pos+2])))
	}
	r, err := p.hexEscape(p.pos)
	if err != nil {
		return err
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return p.fail(KindLoneSurrogate, fmt.Sprintf("low surrogate \\u%04x without a high surrogate", r))
	case r >= 0xD800 && r <= 0xDBFF:
		if p.pos+12 > len(p.src) || p.src[p.pos+6] != '\\' || p.src[p.pos+7] != 'u' {
			return p.fail(KindLoneSurrogate, fmt.Sprintf("high surrogate \\u%04x not followed by a low surrogate", r))
		}
		lo, err := p.hexEscape(p.pos + 6)
		if err != nil {
			return err
		}
		if lo < 0xDC00 || lo > 0xDFFF {
			return p.fail(KindLoneSurrogate, fmt.Sprintf("high surrogate \\u%04x not followed by a low surrogate", r))
		}
		p.pos += 12
	default:
		p.pos += 6
	}
	return nil
}

func (p *parser) hexEscape(at int) (int, error) {
	if at+6 > len(p.src) {
		p.pos = at
		return 0, p.fail(KindSyntax, "truncated \\u escape")
	}
	v := hex4(p.src[at+2 : at+6])
	if v < 0 {
		p.pos = at
		return 0, p.fail(KindSyntax, "invalid hex digits in \\u escape")
	}
	return v, nil
}

// maxSafeInteger is 2^53, the largest magnitude up to which every integer
// has an exact IEEE 754 double.
const maxSafeInteger = 1 << 53

// number parses a number at p.pos. It rejects numbers that overflow a
// double, marks numbers whose spelling is already canonical so that
// encoding copies them instead of formatting them again, and notes the
// inexact ones.
func (p *parser) number() (int32, error) {
	start := p.pos
	src := p.src
	if src[p.pos] == '-' {
		p.pos++
	}
	intStart := p.pos
	switch {
	case p.pos < len(src) && src[p.pos] == '0':
		p.pos++
		if p.pos < len(src) && src[p.pos] >= '0' && src[p.pos] <= '9' {
			return 0, p.fail(KindSyntax, "leading zero in a number")
		}
	case p.pos < len(src) && src[p.pos] >= '1' && src[p.pos] <= '9':
		for p.pos < len(src) && src[p.pos] >= '0' && src[p.pos] <= '9' {
			p.pos++
		}
	default:
		return 0, p.fail(KindSyntax, "a number needs a digit")
	}
	intDigits := p.pos - intStart
	fracStart, fracDigits := p.pos+1, 0
	if p.pos < len(src) && src[p.pos] == '.' {
		p.pos++
		for p.pos < len(src) && src[p.pos] >= '0' && src[p.pos] <= '9' {
			p.pos++
		}
		fracDigits = p.pos - fracStart
		if fracDigits == 0 {
			return 0, p.fail(KindSyntax, "a fraction needs a digit after '.'")
		}
	}
	exponent := false
	if p.pos < len(src) && (src[p.pos] == 'e' || src[p.pos] == 'E') {
		exponent = true
		p.pos++
		if p.pos < len(src) && (src[p.pos] == '+' || src[p.pos] == '-') {
			p.pos++
		}
		d := p.pos
		for p.pos < len(src) && src[p.pos] >= '0' && src[p.pos] <= '9' {
			p.pos++
		}
		if p.pos == d {
			return 0, p.fail(KindSyntax, "an exponent needs a digit")
		}
	}
	raw := src[start:p.pos]
	if fracDigits == 0 && !exponent && (intDigits <= 15 || safeInteger(raw)) {
		// An integer within ±2^53 is its own canonical form, except -0.
		var flags uint8
		if !(intDigits == 1 && len(raw) == 2 && raw[1] == '0') {
			flags = flagVerbatim
		}
		return p.add(kNumber, flags, start, p.pos), nil
	}
	if !exponent && fracDigits > 0 && src[fracStart+fracDigits-1] != '0' && canonicalFixed(src[intStart:fracStart-1], src[fracStart:fracStart+fracDigits]) {
		// Fewer than 16 significant digits, so finite and below 2^53.
		return p.add(kNumber, flagVerbatim, start, p.pos), nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && math.IsInf(f, 0) {
		p.pos = start
		return 0, p.fail(KindNonFinite, fmt.Sprintf("%s overflows a double", shorten(raw)))
	}
	var buf [32]byte
	var flags uint8
	if !sameDecimal(raw, AppendNumber(buf[:0], f)) {
		flags = flagInexact
		p.noteInexact(int32(len(p.slots)))
	}
	return p.add(kNumber, flags, start, p.pos), nil
}

// MaxInexact is how many inexact numbers a Document lists; the others are
// counted. A hostile file can hold millions.
const MaxInexact = 100

// noteInexact records that node i, the number being parsed, is inexact.
func (p *parser) noteInexact(i int32) {
	if len(p.inexact) == MaxInexact {
		p.inexactOmitted++
		return
	}
	p.inexact = append(p.inexact, inexactNumber{node: i, path: slices.Clone(p.path)})
}

// Inexact is a number whose text names a value that its IEEE-754 double,
// and so its canonical form, does not hold: 9007199254740993, read as
// 9007199254740992, or a twentieth significant digit. RFC 8785 reads it as
// that double, as every JavaScript reader does; the digits lost are what a
// caller warns about.
type Inexact struct {
	Pointer   string // RFC 6901 JSON pointer of the number
	Offset    int    // byte offset of the number
	Text      string // the number as written, shortened when long
	Canonical string // the number as RFC 8785 writes it
}

func (e Inexact) String() string {
	return fmt.Sprintf("the number %s is read as %s: the digits beyond a double's precision are lost", e.Text, e.Canonical)
}

// InexactNumbers returns the document's first MaxInexact inexact numbers
// in document order, and how many more there are.
func (d *Document) InexactNumbers() ([]Inexact, int) {
	if len(d.inexact) == 0 {
		return nil, d.inexactOmitted
	}
	out := make([]Inexact, 0, len(d.inexact))
	for _, in := range d.inexact {
		n := d.slots[in.node]
		raw := d.src[n.start:n.end]
		f, _ := strconv.ParseFloat(string(raw), 64) // validated by Parse
		p := parser{src: d.src, slots: d.slots, meta: d.meta, path: in.path}
		out = append(out, Inexact{Pointer: p.pointer(), Offset: int(n.start),
			Text: shorten(raw), Canonical: string(AppendNumber(nil, f))})
	}
	return out, d.inexactOmitted
}

// sameDecimal reports whether the JSON numbers a and b name the same
// decimal value (zeros of either sign being equal). It compares their
// significant digits and decimal exponents, not doubles: its point is to
// tell whether b, a double's canonical form, lost any of a's digits.
func sameDecimal(a, b []byte) bool {
	var bufA, bufB [32]byte
	negA, digitsA, expA := decimal(bufA[:0], a)
	negB, digitsB, expB := decimal(bufB[:0], b)
	if len(digitsA) == 0 || len(digitsB) == 0 {
		return len(digitsA) == len(digitsB)
	}
	return negA == negB && expA == expB && string(digitsA) == string(digitsB)
}

// decimal splits a JSON number into its sign, its significant digits
// (without leading or trailing zeros; none for zero), appended to buf, and
// the exponent e such that the value is 0.digits × 10^e. An exponent too
// large to matter saturates: no double's canonical form comes near it.
func decimal(buf, num []byte) (neg bool, digits []byte, exp int64) {
	const saturate = 1 << 40
	if len(num) > 0 && num[0] == '-' {
		neg, num = true, num[1:]
	}
	mant := num
	if i := bytes.IndexAny(num, "eE"); i >= 0 {
		mant = num[:i]
		e := num[i+1:]
		negE := len(e) > 0 && e[0] == '-'
		if len(e) > 0 && (e[0] == '-' || e[0] == '+') {
			e = e[1:]
		}
		for _, c := range e {
			exp = min(exp*10+int64(c-'0'), saturate)
		}
		if negE {
			exp = -exp
		}
	}
	intPart, frac := mant, []byte(nil)
	if i := bytes.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	// The value is 0.(intPart frac) × 10^(exp + len(intPart)).
	exp += int64(len(intPart))
	all := append(append(buf, intPart...), frac...)
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	all = all[lead:]
	exp -= int64(lead)
	all = bytes.TrimRight(all, "0")
	return neg, all, exp
}

// shorten keeps a number token in an error message short: a hostile file
// may hold a number megabytes long.
func shorten(raw []byte) string {
	if len(raw) <= 40 {
		return string(raw)
	}
	return fmt.Sprintf("%s…%s (%d characters)", raw[:20], raw[len(raw)-10:], len(raw))
}

// canonicalFixed reports whether a number written int.frac, frac not ending
// in 0, is already in canonical form. It is when it has at most 15
// significant digits (any decimal that short survives a round trip through
// a double, so ECMAScript's shortest digits are those digits) and is at
// least 1e-6 (below that ECMAScript writes an exponent).
func canonicalFixed(intPart, frac []byte) bool {
	if len(intPart) == 1 && intPart[0] == '0' {
		zeros := 0
		for zeros < len(frac) && frac[zeros] == '0' {
			zeros++
		}
		return zeros <= 5 && len(frac)-zeros <= 15
	}
	return len(intPart)+len(frac) <= 15
}

// safeInteger reports whether an integer token is within ±2^53. Parsing as
// a double would round 2^53+1 down to 2^53 and let it through.
func safeInteger(raw []byte) bool {
	v, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && v <= maxSafeInteger && v >= -maxSafeInteger
}
