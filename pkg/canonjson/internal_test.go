package canonjson

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestCompareUTF16 checks the byte-level shortcut, and the second route's
// comparison, against comparing the UTF-16 encodings, on strings built from characters at the boundaries
// where UTF-8 and UTF-16 order part.
func TestCompareUTF16(t *testing.T) {
	chars := []rune{0, 'a', 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xefff, 0xf000,
		0xfb33, 0xffff, 0x10000, 0x1f600, 0x10ffff}
	r := rand.New(rand.NewPCG(1, 2))
	random := func() []rune {
		s := make([]rune, r.IntN(4))
		for i := range s {
			s[i] = chars[r.IntN(len(chars))]
		}
		return s
	}
	sign := func(x int) int { return min(max(x, -1), 1) }
	for range 200000 {
		a, b := random(), random()
		if r.IntN(2) == 0 && len(a) > 0 { // share a prefix
			b = append(slices.Clone(a[:r.IntN(len(a))]), b...)
		}
		want := slices.Compare(utf16.Encode(a), utf16.Encode(b))
		if got := sign(compareUTF16([]byte(string(a)), []byte(string(b)))); got != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, want %d", string(a), string(b), got, want)
		}
		if got := sign(compareCodeUnits(string(a), string(b))); got != want {
			t.Fatalf("compareCodeUnits(%q, %q) = %d, want %d", string(a), string(b), got, want)
		}
	}
}

// TestQuiet checks the eight-bytes-at-once test of the second route
// against the byte test for every byte value at every position.
func TestQuiet(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			want := c >= 0x20 && c != '"' && c != '\\'
			if got := quiet(binary.LittleEndian.Uint64(b)); got != want {
				t.Errorf("quiet with byte 0x%02x at %d = %v, want %v", c, pos, got, want)
			}
		}
	}
}

// TestPlain checks the eight-bytes-at-once test against the byte test for
// every byte value at every position.
func TestPlain(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			var w [8]byte
			for i := range w {
				w[i] = 'x'
			}
			w[pos] = byte(c)
			want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
			if got := plain(binary.LittleEndian.Uint64(w[:])); got != want {
				t.Errorf("plain with byte 0x%02x at %d = %v, want %v", c, pos, got, want)
			}
		}
	}
	// Borrows between neighbouring bytes must not hide a byte below 0x20.
	r := rand.New(rand.NewPCG(3, 4))
	for range 1000000 {
		var x uint64
		want := true
		for i := range 8 {
			c := byte(0x20 + r.IntN(0x5f)) // mostly printable ASCII
			if r.IntN(16) == 0 {
				c = byte(r.IntN(256))
			}
			if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
				want = false
			}
			x |= uint64(c) << (8 * i)
		}
		if plain(x) != want {
			t.Fatalf("plain(%016x) = %v, want %v", x, !want, want)
		}
	}
}

// TestCanonicalEscape checks, for every \u escape of a BMP character in
// both cases of hex digits, that the parser's shortcut agrees with how the
// encoder writes the character.
func TestCanonicalEscape(t *testing.T) {
	for v := range 0x10000 {
		if v >= 0xd800 && v < 0xe000 {
			continue
		}
		for _, digits := range []string{"0123456789abcdef", "0123456789ABCDEF"} {
			h := []byte{digits[v>>12], digits[v>>8&0xf], digits[v>>4&0xf], digits[v&0xf]}
			want := string(appendRune(nil, rune(v))) == `\u`+string(h)
			if got := canonicalEscape(h); got != want {
				t.Errorf("canonicalEscape(%s) = %v, want %v", h, got, want)
			}
		}
	}
}

// structural counts what four bytes.Count passes count, less the
// brackets the next byte closes, at every length and alignment, with the
// counted bytes next to their neighbours in value (0x5b/0x7b and
// 0x5d/0x7d differ by 0x20; 0x2b, 0x2d, 0x39, 0x3b, 0x1a … are near).
func TestStructural(t *testing.T) {
	alphabet := []byte("{[,:}]{}[]zZ+-9;;\x1a\x0c\x1b\x5a\x7a\x6b\x4b\xfb\xdb\xac\xba\x00\xff\x5c\x7c\xfd\xdd\"\\ a")
	want := func(data []byte) int {
		n := 0
		for _, c := range []byte("{[,:") {
			n += bytes.Count(data, []byte{c})
		}
		for i := 1; i < len(data); i++ {
			if (data[i-1] == '{' || data[i-1] == '[') && (data[i] == '}' || data[i] == ']') {
				n--
			}
		}
		return n
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		data := make([]byte, r.IntN(80))
		for i := range data {
			data[i] = alphabet[r.IntN(len(alphabet))]
		}
		if got, w := structural(data), want(data); got != w {
			t.Fatalf("structural(%q) = %d, want %d", data, got, w)
		}
	}
	for c := range 256 {
		data := bytes.Repeat([]byte{byte(c)}, 100)
		if got, w := structural(data), want(data); got != w {
			t.Fatalf("structural of 100 × 0x%02x = %d, want %d", c, got, w)
		}
	}
	// Empty containers at every alignment: one node each, not two.
	for _, unit := range []string{"{},", "[],", "{ },"} {
		for pre := range 9 {
			data := []byte(strings.Repeat(" ", pre) + "[" + strings.Repeat(unit, 40) + "0]")
			if got, w := structural(data), want(data); got != w {
				t.Fatalf("structural(%q) = %d, want %d", data, got, w)
			}
		}
	}
}

// unescape and unescapeString decode what encoding/json decodes.
func TestUnescape(t *testing.T) {
	for _, body := range []string{
		``, `plain`, `\n`, `a\tb\\c\/d\"e`, `\b\f\r`, `\u00e9t\u00E9`, `\ud83d\ude00!`, `x\u0000y`,
		`\u2028\u2029`, `mixed é and \u00e9 and 😀 and \ud83d\ude00`, `ends with \\`,
	} {
		var want string
		if err := json.Unmarshal([]byte(`"`+body+`"`), &want); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if got := unescapeString([]byte(body)); got != want {
			t.Errorf("unescapeString(%q) = %q, want %q", body, got, want)
		}
		if got := unescape([]byte("pre"), []byte(body)); string(got) != "pre"+want {
			t.Errorf("unescape(%q) = %q, want %q", body, got, "pre"+want)
		}
	}
}
