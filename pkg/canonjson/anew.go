package canonjson

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendCanonicalAnew appends the canonical form of the document as
// AppendCanonical does, by a second route that shares only the parsed
// values with the first: it orders each object's members itself, by
// comparing their decoded names as UTF-16 code units, rather than
// following the order the parser linked them in; it decodes every string
// and escapes it again as JSON.stringify does, rather than carrying escapes
// over or copying strings the parser found canonical; and it formats every
// number from its value, rather than copying the numbers the parser found
// canonical. A difference between the two routes is a defect in one of
// them; content hashes computed both ways expose it (DESIGN §2: two
// independent re-serializations give the same bytes).
func (d *Document) AppendCanonicalAnew(dst []byte, omit ...string) []byte {
	w := anew{d: d, t: d.textOf(0)}
	return w.value(slices.Grow(dst, len(d.src)), 0, omit)
}

// anew writes canonical forms by the second route.
type anew struct {
	d *Document
	t text
	// members is scratch space shared by nested objects as a stack.
	members []anewMember
}

type anewMember struct {
	name  string
	value int32
}

func (w *anew) value(dst []byte, i int32, omit []string) []byte {
	n := w.d.node(i)
	switch n.kind {
	case kObject:
		base := len(w.members)
		for k := w.d.first(i); k >= 0; k = w.d.next(i, k) {
			name := w.d.strIn(w.t, k)
			if slices.Contains(omit, name) {
				continue
			}
			if len(w.members) == cap(w.members) {
				w.members = slices.Grow(w.members, len(w.members)+1) // doubling, as the parser's
			}
			w.members = append(w.members, anewMember{name, k + 1})
		}
		ms := w.members[base:]
		sortAnew(ms)
		dst = append(dst, '{')
		for j := range len(ms) {
			m := w.members[base+j] // the stack may move while a member is written
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendStringified(dst, m.name)
			dst = append(dst, ':')
			dst = w.value(dst, m.value, nil)
		}
		w.members = w.members[:base]
		return append(dst, '}')
	case kArray:
		dst = append(dst, '[')
		first := w.d.first(i)
		for e := first; e >= 0; e = w.d.next(i, e) {
			if e != first {
				dst = append(dst, ',')
			}
			dst = w.value(dst, e, nil)
		}
		return append(dst, ']')
	case kString:
		return appendStringified(dst, w.d.strIn(w.t, i))
	case kNumber:
		f, _ := strconv.ParseFloat(w.t.at(n.start, n.end), 64) // validated by Parse
		return AppendNumber(dst, f)
	case kTrue:
		return append(dst, "true"...)
	case kFalse:
		return append(dst, "false"...)
	}
	return append(dst, "null"...)
}

// sortAnew sorts members by compareCodeUnits: by insertion, with direct
// calls, for the small objects that are most of a bundle (a comparison
// through a function value is dear compiled to wasm), by slices.SortFunc
// for the others.
func sortAnew(ms []anewMember) {
	if len(ms) > 24 {
		slices.SortFunc(ms, func(a, b anewMember) int { return compareCodeUnits(a.name, b.name) })
		return
	}
	for i := 1; i < len(ms); i++ {
		m := ms[i]
		j := i
		for ; j > 0 && compareCodeUnits(ms[j-1].name, m.name) > 0; j-- {
			ms[j] = ms[j-1]
		}
		ms[j] = m
	}
}

// compareCodeUnits orders two strings by their UTF-16 code units, decoding
// each character and splitting those beyond U+FFFF into their surrogates.
func compareCodeUnits(a, b string) int {
	// ASCII characters are single code units of their own value.
	i := 0
	for i < len(a) && i < len(b) && a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
		i++
	}
	a, b = a[i:], b[i:]
	var ua, ub [2]uint16
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		a, b = a[na:], b[nb:]
		if ra == rb {
			continue
		}
		ka, kb := codeUnits(ra, &ua), codeUnits(rb, &ub)
		for j := range min(ka, kb) {
			if ua[j] != ub[j] {
				return int(ua[j]) - int(ub[j])
			}
		}
		return ka - kb
	}
	return len(a) - len(b)
}

// codeUnits stores r's UTF-16 encoding in u and returns its length.
func codeUnits(r rune, u *[2]uint16) int {
	if r < 0x10000 {
		u[0] = uint16(r)
		return 1
	}
	r -= 0x10000
	u[0], u[1] = uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff))
	return 2
}

// appendStringified writes s as JSON.stringify does: quoted, with \" \\
// \b \t \n \f \r, \u00xx for the other control characters, and every
// other character as itself.
func appendStringified(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	last := 0
	for i := 0; i < len(s); i++ {
		// The eight loads combine into one; quiet inlines. A call per
		// eight bytes would be dear compiled to wasm.
		for i+8 <= len(s) {
			_ = s[i+7]
			x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if !quiet(x) {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[last:i]...)
		last = i + 1
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\r':
			dst = append(dst, '\\', 'r')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	dst = append(dst, s[last:]...)
	return append(dst, '"')
}

// quiet reports whether none of the eight bytes of x is a control
// character, a quote or a backslash: whether JSON.stringify writes them as
// they are. Each term sets a byte's high bit only where that byte is below
// 0x20, or equal to '"' or '\\', so the test is exact.
func quiet(x uint64) bool {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x|(q-ones)&^q|(b-ones)&^b)&highs == 0
}
