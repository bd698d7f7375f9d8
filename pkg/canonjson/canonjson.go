// Package canonjson reads untrusted JSON strictly and writes its RFC 8785
// (JSON Canonicalization Scheme) form.
//
// Parse accepts I-JSON only (RFC 7493): well-formed UTF-8, no lone
// surrogates, no duplicate member names, finite numbers, integers no larger
// in magnitude than 2^53, nesting and size within Limits. Every rejection is
// an *Error naming the byte offset and the JSON pointer of the offending
// place. Parse never panics and allocates in proportion to its input, which
// Limits bounds.
//
// A parsed Document writes its canonical form in one pass: members sorted by
// their UTF-16 code units, strings with the minimal escapes of ECMAScript's
// JSON.stringify, numbers in ECMAScript's Number.prototype.toString form. The
// output is byte-identical to github.com/gowebpki/jcs, which the tests hold
// it to; this encoder exists because it is several times faster.
package canonjson

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Limits bound what Parse accepts.
type Limits struct {
	// MaxBytes is the largest input accepted, in bytes.
	MaxBytes int
	// MaxDepth is the deepest nesting of objects and arrays accepted.
	MaxDepth int
}

// Default limits: generous for a bundle of tens of thousands of edges, small
// enough that a hostile file cannot exhaust a browser tab.
const (
	DefaultMaxBytes = 64 << 20
	DefaultMaxDepth = 128
	hardMaxBytes    = 1 << 30
)

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{MaxBytes: DefaultMaxBytes, MaxDepth: DefaultMaxDepth}
}

// Kind classifies a rejection so callers can branch on it.
type Kind int

// Rejection kinds.
const (
	KindSyntax        Kind = iota + 1 // not JSON
	KindDuplicateKey                  // a member name repeats in one object
	KindInvalidUTF8                   // bytes that are not UTF-8
	KindLoneSurrogate                 // a \u escape of half a surrogate pair
	KindNonFinite                     // NaN, Infinity, or a number that overflows
	KindIntegerRange                  // an integer beyond ±2^53
	KindTooDeep                       // nesting beyond Limits.MaxDepth
	KindTooLarge                      // input beyond Limits.MaxBytes
	KindTrailingData                  // something after the top-level value
)

var kindNames = map[Kind]string{
	KindSyntax:        "syntax error",
	KindDuplicateKey:  "duplicate member name",
	KindInvalidUTF8:   "invalid UTF-8",
	KindLoneSurrogate: "lone surrogate",
	KindNonFinite:     "non-finite number",
	KindIntegerRange:  "integer out of range",
	KindTooDeep:       "nesting too deep",
	KindTooLarge:      "input too large",
	KindTrailingData:  "trailing data",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
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
	flagEscaped   = 1 << iota // string contains backslash escapes
	flagSimpleInt             // number is an integer of at most 15 digits
)

// node is one value of a parsed document. For an object, first is its
// first member's name node; a name node's value is the node right after it,
// and next links names in canonical order. For an array, first is the first
// element and next links elements. start and end delimit the raw bytes: for a
// string, the bytes between the quotes.
type node struct {
	kind  kind
	flags uint8
	start int32
	end   int32
	first int32
	next  int32
}

// Document is a parsed, validated JSON text.
type Document struct {
	src   []byte
	nodes []node
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
	if len(data) > lim.MaxBytes {
		return nil, &Error{Kind: KindTooLarge, Offset: lim.MaxBytes,
			Detail: fmt.Sprintf("%d bytes, limit %d", len(data), lim.MaxBytes)}
	}
	p := parser{src: data, lim: lim, nodes: make([]node, 0, len(data)/8+4)}
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
	return &Document{src: data, nodes: p.nodes}, nil
}

// IsObject reports whether the top-level value is an object.
func (d *Document) IsObject() bool { return d.nodes[0].kind == kObject }

// Canonical returns the RFC 8785 form of the document.
func (d *Document) Canonical() []byte {
	return d.AppendCanonical(make([]byte, 0, len(d.src)))
}

// AppendCanonical appends the canonical form to dst. Top-level object
// members named in omit are left out (a bundle's content hash covers the
// bundle without content_hash and signature).
func (d *Document) AppendCanonical(dst []byte, omit ...string) []byte {
	if len(omit) == 0 || d.nodes[0].kind != kObject {
		return d.appendValue(dst, 0)
	}
	dst = append(dst, '{')
	comma := false
	for k := d.nodes[0].first; k >= 0; k = d.nodes[k].next {
		if d.keyIn(k, omit) {
			continue
		}
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = d.appendString(dst, k)
		dst = append(dst, ':')
		dst = d.appendValue(dst, k+1)
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
	n := d.nodes[k]
	raw := d.src[n.start:n.end]
	if n.flags&flagEscaped != 0 {
		raw = unescape(nil, raw)
	}
	for _, name := range names {
		if string(raw) == name {
			return true
		}
	}
	return false
}

func (d *Document) appendValue(dst []byte, i int32) []byte {
	n := d.nodes[i]
	switch n.kind {
	case kObject:
		dst = append(dst, '{')
		for k := n.first; k >= 0; k = d.nodes[k].next {
			if k != n.first {
				dst = append(dst, ',')
			}
			dst = d.appendString(dst, k)
			dst = append(dst, ':')
			dst = d.appendValue(dst, k+1)
		}
		return append(dst, '}')
	case kArray:
		dst = append(dst, '[')
		for e := n.first; e >= 0; e = d.nodes[e].next {
			if e != n.first {
				dst = append(dst, ',')
			}
			dst = d.appendValue(dst, e)
		}
		return append(dst, ']')
	case kString:
		return d.appendString(dst, i)
	case kNumber:
		raw := d.src[n.start:n.end]
		if n.flags&flagSimpleInt != 0 {
			if len(raw) == 2 && raw[0] == '-' && raw[1] == '0' {
				return append(dst, '0')
			}
			return append(dst, raw...)
		}
		f, _ := strconv.ParseFloat(string(raw), 64) // validated by Parse
		return AppendNumber(dst, f)
	case kTrue:
		return append(dst, "true"...)
	case kFalse:
		return append(dst, "false"...)
	default:
		return append(dst, "null"...)
	}
}

func (d *Document) appendString(dst []byte, i int32) []byte {
	n := d.nodes[i]
	raw := d.src[n.start:n.end]
	dst = append(dst, '"')
	if n.flags&flagEscaped == 0 {
		// Without escapes the raw bytes hold no quote, backslash or control
		// character, so they already are their canonical form.
		dst = append(dst, raw...)
	} else {
		dst = appendEscaped(dst, unescape(nil, raw))
	}
	return append(dst, '"')
}

// appendEscaped writes s (valid UTF-8) with JSON.stringify's escapes.
func appendEscaped(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	last := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[last:i]...)
		last = i + 1
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	return append(dst, s[last:]...)
}

// AppendNumber appends f in the form ECMAScript's Number.prototype.toString
// gives it, which RFC 8785 §3.2.2.3 adopts. f must be finite.
func AppendNumber(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0') // also -0
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// Shortest round-tripping digits, as d.ddddde±x.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(string(e), "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
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
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := rune(hex4(raw[i+2 : i+6]))
			if utf16.IsSurrogate(r) {
				lo := rune(hex4(raw[i+8 : i+12]))
				r = utf16.DecodeRune(r, lo)
				i += 6
			}
			dst = utf8.AppendRune(dst, r)
			i += 6
			continue
		default: // " \ /
			dst = append(dst, raw[i+1])
		}
		i += 2
	}
	return dst
}

func hex4(b []byte) int {
	v := 0
	for _, c := range b {
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

// lessUTF16 orders two UTF-8 strings by their UTF-16 code units, as
// RFC 8785 §3.2.3 sorts member names.
func lessUTF16(a, b []byte) bool {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) < len(b)
	}
	if a[i] < 0x80 && b[i] < 0x80 {
		return a[i] < b[i]
	}
	for i > 0 && a[i]&0xC0 == 0x80 { // back to the start of the differing rune
		i--
	}
	ra, _ := utf8.DecodeRune(a[i:])
	rb, _ := utf8.DecodeRune(b[i:])
	ua, ub := firstUnit(ra), firstUnit(rb)
	if ua != ub {
		return ua < ub
	}
	return ra < rb
}

func firstUnit(r rune) rune {
	if r >= 0x10000 {
		hi, _ := utf16.EncodeRune(r)
		return hi
	}
	return r
}

// member is a name being sorted while its object is parsed.
type member struct {
	name []byte // decoded name
	node int32  // index of the name node
}

type pathElem struct {
	name  []byte
	index int // -1 for an object member
}

type parser struct {
	src     []byte
	pos     int
	lim     Limits
	nodes   []node
	members []member // scratch, shared by nested objects as a stack
	path    []pathElem
}

func (p *parser) fail(k Kind, detail string) *Error {
	return &Error{Kind: k, Offset: p.pos, Pointer: p.pointer(), Detail: detail}
}

func (p *parser) pointer() string {
	if len(p.path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, e := range p.path {
		b.WriteByte('/')
		if e.index >= 0 {
			b.WriteString(strconv.Itoa(e.index))
			continue
		}
		s := strings.ReplaceAll(string(e.name), "~", "~0")
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
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) add(n node) int32 {
	p.nodes = append(p.nodes, n)
	return int32(len(p.nodes) - 1)
}

// value parses one value at p.pos (after white space) and returns its node.
func (p *parser) value(depth int) (int32, error) {
	if p.pos >= len(p.src) {
		return 0, p.fail(KindSyntax, "unexpected end of input")
	}
	switch c := p.src[p.pos]; c {
	case '{':
		return p.object(depth + 1)
	case '[':
		return p.array(depth + 1)
	case '"':
		return p.str()
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
		if p.pos+1 < len(p.src) && p.src[p.pos+1] == 'I' {
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
	return p.add(node{kind: k, start: int32(start), end: int32(p.pos), first: -1, next: -1}), nil
}

func (p *parser) object(depth int) (int32, error) {
	if depth > p.lim.MaxDepth {
		return 0, p.fail(KindTooDeep, fmt.Sprintf("limit %d", p.lim.MaxDepth))
	}
	obj := p.add(node{kind: kObject, start: int32(p.pos), first: -1, next: -1})
	p.pos++ // {
	base := len(p.members)
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.nodes[obj].end = int32(p.pos)
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return 0, p.expected("a member name in double quotes")
		}
		name, err := p.str()
		if err != nil {
			return 0, err
		}
		n := p.nodes[name]
		decoded := p.src[n.start:n.end]
		if n.flags&flagEscaped != 0 {
			decoded = unescape(nil, decoded)
		}
		p.members = append(p.members, member{name: decoded, node: name})
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return 0, p.expected("':' after a member name")
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, pathElem{name: decoded, index: -1})
		if _, err := p.value(depth); err != nil {
			return 0, err
		}
		p.path = p.path[:len(p.path)-1]
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
	p.nodes[obj].end = int32(p.pos)
	ms := p.members[base:]
	if len(ms) > 1 {
		slices.SortFunc(ms, func(a, b member) int {
			switch {
			case lessUTF16(a.name, b.name):
				return -1
			case lessUTF16(b.name, a.name):
				return 1
			}
			return 0
		})
	}
	for i := range ms {
		if i > 0 && string(ms[i].name) == string(ms[i-1].name) {
			dup := max(ms[i].node, ms[i-1].node)
			p.pos = int(p.nodes[dup].start) - 1
			p.path = append(p.path, pathElem{name: ms[i].name, index: -1})
			return 0, p.fail(KindDuplicateKey, fmt.Sprintf("%q appears more than once", ms[i].name))
		}
		if i+1 < len(ms) {
			p.nodes[ms[i].node].next = ms[i+1].node
		}
	}
	p.nodes[obj].first = ms[0].node
	p.members = p.members[:base]
	return obj, nil
}

func (p *parser) array(depth int) (int32, error) {
	if depth > p.lim.MaxDepth {
		return 0, p.fail(KindTooDeep, fmt.Sprintf("limit %d", p.lim.MaxDepth))
	}
	arr := p.add(node{kind: kArray, start: int32(p.pos), first: -1, next: -1})
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.nodes[arr].end = int32(p.pos)
		return arr, nil
	}
	prev := int32(-1)
	for i := 0; ; i++ {
		p.skipSpace()
		p.path = append(p.path, pathElem{index: i})
		e, err := p.value(depth)
		if err != nil {
			return 0, err
		}
		p.path = p.path[:len(p.path)-1]
		if prev < 0 {
			p.nodes[arr].first = e
		} else {
			p.nodes[prev].next = e
		}
		prev = e
		p.skipSpace()
		if p.pos >= len(p.src) {
			return 0, p.expected("',' or ']'")
		}
		if p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.src[p.pos] != ']' {
			return 0, p.expected("',' or ']'")
		}
		p.pos++
		break
	}
	p.nodes[arr].end = int32(p.pos)
	return arr, nil
}

func (p *parser) expected(what string) *Error {
	if p.pos >= len(p.src) {
		return p.fail(KindSyntax, "unexpected end of input, expected "+what)
	}
	return p.fail(KindSyntax, "unexpected "+describe(p.src[p.pos])+", expected "+what)
}

// str parses a string at p.pos (on its opening quote).
func (p *parser) str() (int32, error) {
	p.pos++ // "
	start := p.pos
	var flags uint8
	src := p.src
	for {
		// Fast path: plain ASCII.
		for p.pos < len(src) {
			c := src[p.pos]
			if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				break
			}
			p.pos++
		}
		if p.pos >= len(src) {
			return 0, p.fail(KindSyntax, "unterminated string")
		}
		switch c := src[p.pos]; {
		case c == '"':
			end := p.pos
			p.pos++
			return p.add(node{kind: kString, flags: flags, start: int32(start), end: int32(end), first: -1, next: -1}), nil
		case c == '\\':
			flags |= flagEscaped
			if err := p.escape(); err != nil {
				return 0, err
			}
		case c < 0x20:
			return 0, p.fail(KindSyntax, fmt.Sprintf("control character 0x%02x in a string must be escaped", c))
		default:
			r, size := utf8.DecodeRune(src[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return 0, p.fail(KindInvalidUTF8, fmt.Sprintf("byte 0x%02x", c))
			}
			p.pos += size
		}
	}
}

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
		return p.fail(KindSyntax, "invalid escape \\"+string(rune(p.src[p.pos+1])))
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

// safeInteger reports whether an integer token is within ±2^53. Parsing as
// a double would round 2^53+1 down to 2^53 and let it through.
func safeInteger(raw []byte) bool {
	v, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && v <= maxSafeInteger && v >= -maxSafeInteger
}

// maxSafeInteger is 2^53, the largest magnitude up to which every integer
// has an exact IEEE 754 double.
const maxSafeInteger = 1 << 53

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
	integer := true
	if p.pos < len(src) && src[p.pos] == '.' {
		integer = false
		p.pos++
		d := p.pos
		for p.pos < len(src) && src[p.pos] >= '0' && src[p.pos] <= '9' {
			p.pos++
		}
		if p.pos == d {
			return 0, p.fail(KindSyntax, "a fraction needs a digit after '.'")
		}
	}
	if p.pos < len(src) && (src[p.pos] == 'e' || src[p.pos] == 'E') {
		integer = false
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
	n := node{kind: kNumber, start: int32(start), end: int32(p.pos), first: -1, next: -1}
	raw := src[start:p.pos]
	if integer && intDigits <= 15 {
		n.flags = flagSimpleInt
		return p.add(n), nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) {
		p.pos = start
		return 0, p.fail(KindNonFinite, fmt.Sprintf("%s overflows a double", raw))
	}
	if integer && !safeInteger(raw) {
		p.pos = start
		return 0, p.fail(KindIntegerRange, fmt.Sprintf("%s is beyond ±2^53", raw))
	}
	return p.add(n), nil
}
