package canonjson_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"workbench/pkg/canonjson"
)

func kindOf(err error) canonjson.Kind {
	var ce *canonjson.Error
	if errors.As(err, &ce) {
		return ce.Kind
	}
	return 0
}

func strconvE(f float64) string { return strconv.FormatFloat(f, 'e', 20, 64) }

// TestParseRejects holds one case or more for every class of hostile input
// a bundle file may be: each must fail with its kind, at its byte offset and
// JSON pointer.
func TestParseRejects(t *testing.T) {
	deep := func(n int, open, close string) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	zeros := func(n int) string { return strings.Repeat("/0", n) }
	for _, tc := range []struct {
		name    string
		in      string
		lim     canonjson.Limits
		kind    canonjson.Kind
		offset  int
		pointer string
	}{
		// Not JSON.
		{"empty", "", canonjson.Limits{}, canonjson.KindSyntax, 0, ""},
		{"only space", " \n\t", canonjson.Limits{}, canonjson.KindSyntax, 3, ""},
		{"word", "hello", canonjson.Limits{}, canonjson.KindSyntax, 0, ""},
		{"bad literal", "[tru]", canonjson.Limits{}, canonjson.KindSyntax, 1, "/0"},
		{"single quotes", "{'a':1}", canonjson.Limits{}, canonjson.KindSyntax, 1, ""},
		{"missing colon", `{"a" 1}`, canonjson.Limits{}, canonjson.KindSyntax, 5, ""},
		{"missing comma", `{"a":1 "b":2}`, canonjson.Limits{}, canonjson.KindSyntax, 7, ""},
		{"trailing comma", `[1,]`, canonjson.Limits{}, canonjson.KindSyntax, 3, "/1"},
		{"trailing comma object", `{"a":1,}`, canonjson.Limits{}, canonjson.KindSyntax, 7, ""},
		{"unclosed array", `[1,2`, canonjson.Limits{}, canonjson.KindSyntax, 4, ""},
		{"unclosed object", `{"a":{"b":1}`, canonjson.Limits{}, canonjson.KindSyntax, 12, ""},
		{"comment", "[1/*x*/]", canonjson.Limits{}, canonjson.KindSyntax, 2, ""},
		{"non-ASCII outside string", "[\u00e9]", canonjson.Limits{}, canonjson.KindSyntax, 1, "/0"},
		{"BOM", "\ufeff{}", canonjson.Limits{}, canonjson.KindSyntax, 0, ""},
		{"plus sign", "[+1]", canonjson.Limits{}, canonjson.KindSyntax, 1, "/0"},
		{"hex number", "[0x10]", canonjson.Limits{}, canonjson.KindSyntax, 2, ""},
		{"bare dot", "[.5]", canonjson.Limits{}, canonjson.KindSyntax, 1, "/0"},
		{"dot without digits", "[1.]", canonjson.Limits{}, canonjson.KindSyntax, 3, "/0"},
		{"exponent without digits", "[1e+]", canonjson.Limits{}, canonjson.KindSyntax, 4, "/0"},
		{"minus alone", "[-]", canonjson.Limits{}, canonjson.KindSyntax, 2, "/0"},
		{"minus word", "[-Inf]", canonjson.Limits{}, canonjson.KindSyntax, 2, "/0"},
		// Leading zeros.
		{"leading zero", "01", canonjson.Limits{}, canonjson.KindSyntax, 1, ""},
		{"negative leading zero", `{"n":-012}`, canonjson.Limits{}, canonjson.KindSyntax, 7, "/n"},
		{"leading zero fraction", "[00.5]", canonjson.Limits{}, canonjson.KindSyntax, 2, "/0"},
		// Trailing data (a non-object root is fine here; package skill
		// rejects it).
		{"two values", `{} {}`, canonjson.Limits{}, canonjson.KindTrailingData, 3, ""},
		{"trailing garbage", `{"a":1}x`, canonjson.Limits{}, canonjson.KindTrailingData, 7, ""},
		{"trailing NUL", "[1]\x00", canonjson.Limits{}, canonjson.KindTrailingData, 3, ""},
		{"number then letter", "1x", canonjson.Limits{}, canonjson.KindTrailingData, 1, ""},
		// Duplicate member names, also when only their escaping differs.
		{"duplicate", `{"a":1,"a":2}`, canonjson.Limits{}, canonjson.KindDuplicateKey, 7, "/a"},
		{"duplicate escaped", `{"a":1,"\u0061":2}`, canonjson.Limits{}, canonjson.KindDuplicateKey, 7, "/a"},
		{"duplicate escaped first", `{"\u0061":1, "b":0, "a":2}`, canonjson.Limits{}, canonjson.KindDuplicateKey, 20, "/a"},
		{"duplicate solidus", `{"a/b":1,"a\/b":2}`, canonjson.Limits{}, canonjson.KindDuplicateKey, 9, "/a~1b"},
		{"duplicate astral", `{"\ud83d\ude00":1,"😀":2}`, canonjson.Limits{}, canonjson.KindDuplicateKey, 18, "/\U0001F600"},
		{"duplicate nested", `{"x":[{"k":1,"k":1}]}`, canonjson.Limits{}, canonjson.KindDuplicateKey, 13, "/x/0/k"},
		{"duplicate tilde", `{"~":{},"~":{}}`, canonjson.Limits{}, canonjson.KindDuplicateKey, 8, "/~0"},
		// Invalid UTF-8.
		{"0xFF", "[\"a\xffb\"]", canonjson.Limits{}, canonjson.KindInvalidUTF8, 3, "/0"},
		{"overlong slash", "\"\xc0\xaf\"", canonjson.Limits{}, canonjson.KindInvalidUTF8, 1, ""},
		{"overlong NUL", "{\"k\":\"\xe0\x80\x80\"}", canonjson.Limits{}, canonjson.KindInvalidUTF8, 6, "/k"},
		{"truncated sequence", "\"\xe2\x82\"", canonjson.Limits{}, canonjson.KindInvalidUTF8, 1, ""},
		{"truncated at end", "\"\xf0\x9f\x98", canonjson.Limits{}, canonjson.KindInvalidUTF8, 1, ""},
		{"lone continuation", "\"\x80\"", canonjson.Limits{}, canonjson.KindInvalidUTF8, 1, ""},
		{"UTF-8 high surrogate", "\"\xed\xa0\x80\"", canonjson.Limits{}, canonjson.KindInvalidUTF8, 1, ""},
		{"UTF-8 low surrogate", "\"\xed\xbf\xbf\"", canonjson.Limits{}, canonjson.KindInvalidUTF8, 1, ""},
		{"beyond U+10FFFF", "\"\xf4\x90\x80\x80\"", canonjson.Limits{}, canonjson.KindInvalidUTF8, 1, ""},
		{"invalid in name", "{\"\xff\":1}", canonjson.Limits{}, canonjson.KindInvalidUTF8, 2, ""},
		{"invalid after long ASCII", "\"0123456789abcdef\xff\"", canonjson.Limits{}, canonjson.KindInvalidUTF8, 17, ""},
		// Lone surrogate escapes.
		{"lone high", `["\ud800"]`, canonjson.Limits{}, canonjson.KindLoneSurrogate, 2, "/0"},
		{"lone high at end", `"ab\uDBFF"`, canonjson.Limits{}, canonjson.KindLoneSurrogate, 3, ""},
		{"lone low", `{"s":"\udc00"}`, canonjson.Limits{}, canonjson.KindLoneSurrogate, 6, "/s"},
		{"high then high", `"\ud83d\ud83d"`, canonjson.Limits{}, canonjson.KindLoneSurrogate, 1, ""},
		{"high then BMP", `"\ud83d\u0041"`, canonjson.Limits{}, canonjson.KindLoneSurrogate, 1, ""},
		{"high then text", `"\ud83dxxxxxx"`, canonjson.Limits{}, canonjson.KindLoneSurrogate, 1, ""},
		{"low then high", `"\ude00\ud83d"`, canonjson.Limits{}, canonjson.KindLoneSurrogate, 1, ""},
		{"lone surrogate in name", `{"\udfff":1}`, canonjson.Limits{}, canonjson.KindLoneSurrogate, 2, ""},
		// Non-finite numbers.
		{"NaN", "NaN", canonjson.Limits{}, canonjson.KindNonFinite, 0, ""},
		{"Infinity", `{"x":Infinity}`, canonjson.Limits{}, canonjson.KindNonFinite, 5, "/x"},
		{"-Infinity", `[0,-Infinity]`, canonjson.Limits{}, canonjson.KindNonFinite, 3, "/1"},
		{"1e400", "[1e400]", canonjson.Limits{}, canonjson.KindNonFinite, 1, "/0"},
		{"-1e400", `{"v":-1e400}`, canonjson.Limits{}, canonjson.KindNonFinite, 5, "/v"},
		{"huge mantissa", "1.8e308", canonjson.Limits{}, canonjson.KindNonFinite, 0, ""},
		{"400 digits", "[" + strings.Repeat("9", 400) + "]", canonjson.Limits{}, canonjson.KindNonFinite, 1, "/0"},
		// Nesting.
		{"arrays 129 deep", deep(129, "[", "]"), canonjson.Limits{}, canonjson.KindTooDeep, 128, zeros(128)},
		{"objects 129 deep", deep(129, `{"a":`, "}"), canonjson.Limits{}, canonjson.KindTooDeep, 128 * 5, strings.Repeat("/a", 128)},
		{"custom depth", deep(4, "[", "]"), canonjson.Limits{MaxDepth: 3}, canonjson.KindTooDeep, 3, zeros(3)},
		{"deep unclosed", strings.Repeat("[", 100000), canonjson.Limits{}, canonjson.KindTooDeep, 128, zeros(128)},
		{"depth beyond hard limit", strings.Repeat("[", 20000), canonjson.Limits{MaxDepth: 1 << 30}, canonjson.KindTooDeep, 10000, zeros(10000)},
		// Size.
		{"over MaxBytes", `{"a":"0123456789"}`, canonjson.Limits{MaxBytes: 17}, canonjson.KindTooLarge, 17, ""},
		// Bad escapes.
		{"unknown escape", `["\x"]`, canonjson.Limits{}, canonjson.KindSyntax, 2, "/0"},
		{"escaped quote char", `"\'"`, canonjson.Limits{}, canonjson.KindSyntax, 1, ""},
		{"bad hex", `"\u12G4"`, canonjson.Limits{}, canonjson.KindSyntax, 1, ""},
		{"short hex", `"\u12"`, canonjson.Limits{}, canonjson.KindSyntax, 1, ""},
		{"escape at end", `"\`, canonjson.Limits{}, canonjson.KindSyntax, 1, ""},
		{"bad low surrogate hex", `"\ud83d\uzzzz"`, canonjson.Limits{}, canonjson.KindSyntax, 7, ""},
		// Unterminated strings.
		{"unterminated", `"abc`, canonjson.Limits{}, canonjson.KindSyntax, 4, ""},
		{"unterminated name", `{"abc`, canonjson.Limits{}, canonjson.KindSyntax, 5, ""},
		{"unterminated long", `["` + strings.Repeat("x", 100), canonjson.Limits{}, canonjson.KindSyntax, 102, "/0"},
		// Raw control characters.
		{"raw newline", "\"a\nb\"", canonjson.Limits{}, canonjson.KindSyntax, 2, ""},
		{"raw tab", "{\"t\":\"\t\"}", canonjson.Limits{}, canonjson.KindSyntax, 6, "/t"},
		{"raw NUL", "\"\x00\"", canonjson.Limits{}, canonjson.KindSyntax, 1, ""},
		{"raw control after long ASCII", "\"0123456789abcdef\x1f\"", canonjson.Limits{}, canonjson.KindSyntax, 17, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := canonjson.Parse([]byte(tc.in), tc.lim)
			var ce *canonjson.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse(%.40q) = %v, %v; want *Error", tc.in, doc, err)
			}
			if ce.Kind != tc.kind || ce.Offset != tc.offset || ce.Pointer != tc.pointer {
				t.Errorf("Parse(%.40q) = {%v, offset %d, pointer %.60q}, want {%v, offset %d, pointer %.60q}: %v",
					tc.in, ce.Kind, ce.Offset, ce.Pointer, tc.kind, tc.offset, tc.pointer, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.kind.String()) || !strings.Contains(msg, "at byte "+strconv.Itoa(tc.offset)) {
				t.Errorf("message %q does not say what and where", msg)
			}
			if tc.pointer != "" && len(tc.pointer) < 100 && !strings.Contains(msg, tc.pointer) {
				t.Errorf("message %q does not name the pointer %s", msg, tc.pointer)
			}
		})
	}
}

// TestParseAccepts holds inputs next to the rejected ones that must pass:
// the limits are inclusive, and a non-object root is JSON.
func TestParseAccepts(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		lim  canonjson.Limits
		want string
	}{
		{"arrays 128 deep", strings.Repeat("[", 128) + strings.Repeat("]", 128), canonjson.Limits{},
			strings.Repeat("[", 128) + strings.Repeat("]", 128)},
		{"objects 128 deep", strings.Repeat(`{"a":`, 128) + "1" + strings.Repeat("}", 128), canonjson.Limits{},
			strings.Repeat(`{"a":`, 128) + "1" + strings.Repeat("}", 128)},
		{"exactly MaxBytes", `{"a":"0123456789"}`, canonjson.Limits{MaxBytes: 18}, `{"a":"0123456789"}`},
		{"2^53", "9007199254740992", canonjson.Limits{}, "9007199254740992"},
		{"-2^53", "-9007199254740992", canonjson.Limits{}, "-9007199254740992"},
		// Integers beyond 2^53, written or canonical: any finite number
		// is read as its double (RFC 8785), however many digits it has.
		{"2^53+1", "9007199254740993", canonjson.Limits{}, "9007199254740992"},
		{"-(2^53+1)", `{"n":-9007199254740993}`, canonjson.Limits{}, `{"n":-9007199254740992}`},
		{"2^64", "[18446744073709551616]", canonjson.Limits{}, "[18446744073709552000]"},
		{"an integer JavaScript writes back", "1234567890123456800", canonjson.Limits{}, "1234567890123456800"},
		{"1e20", "[1e20]", canonjson.Limits{}, "[100000000000000000000]"},
		{"2^53+2 as float", "9007199254740994.0", canonjson.Limits{}, "9007199254740994"},
		{"-9.99e20", "-9.99e20", canonjson.Limits{}, "-999000000000000000000"},
		{"twenty significant digits", "0.12345678901234567891", canonjson.Limits{}, "0.12345678901234568"},
		{"1e2", "1e2", canonjson.Limits{}, "100"},
		{"1e21", "1e21", canonjson.Limits{}, "1e+21"},
		{"string root", ` "x" `, canonjson.Limits{}, `"x"`},
		{"number root", "\r\n42\t", canonjson.Limits{}, "42"},
		{"literals", "[true,false,null]", canonjson.Limits{}, "[true,false,null]"},
		{"empty containers", `{"a":{},"b":[]}`, canonjson.Limits{}, `{"a":{},"b":[]}`},
		{"U+FFFD literal", "\"\xef\xbf\xbd\"", canonjson.Limits{}, "\"\ufffd\""},
		{"max code point", "\"\xf4\x8f\xbf\xbf\"", canonjson.Limits{}, "\"\U0010FFFF\""},
		{"names differing after escape", `{"a":1,"\u0062":2}`, canonjson.Limits{}, `{"a":1,"b":2}`},
		{"case differs", `{"A":1,"a":2}`, canonjson.Limits{}, `{"A":1,"a":2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := canonjson.Parse([]byte(tc.in), tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			if got := doc.Canonical(); string(got) != tc.want {
				t.Errorf("Canonical = %.80q, want %.80q", got, tc.want)
			}
		})
	}
}

func TestAppendCanonicalOmit(t *testing.T) {
	doc, err := canonjson.Parse([]byte(`{"z":1,"content_hash":"x","sig\u006eature":null,"a":{"content_hash":2}}`), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	got := doc.AppendCanonical([]byte("prefix:"), "content_hash", "signature")
	if want := `prefix:{"a":{"content_hash":2},"z":1}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, want := doc.Canonical(), `{"a":{"content_hash":2},"content_hash":"x","signature":null,"z":1}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	all, err := canonjson.Parse([]byte(`{"content_hash":"x"}`), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got := all.AppendCanonical(nil, "content_hash"); string(got) != "{}" {
		t.Errorf("omitting every member gave %s", got)
	}
	arr, err := canonjson.Parse([]byte(`[{"content_hash":1}]`), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got := arr.AppendCanonical(nil, "content_hash"); string(got) != `[{"content_hash":1}]` {
		t.Errorf("omit applied below the top level: %s", got)
	}
}

func TestIsObject(t *testing.T) {
	for in, want := range map[string]bool{`{}`: true, ` {"a":[]} `: true, `[]`: false, `"{}"`: false, `1`: false, `null`: false} {
		doc, err := canonjson.Parse([]byte(in), canonjson.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if doc.IsObject() != want {
			t.Errorf("IsObject(%s) = %v", in, !want)
		}
	}
}

// TestVerbatimNumbers checks the shortcut that copies numbers already in
// canonical form against formatting them, on decimal spellings near its
// edges: 15 and 16 significant digits, values near 1e-6, trailing zeros.
func TestVerbatimNumbers(t *testing.T) {
	var ins []string
	for _, m := range []string{"1", "9", "12345", "123456789012345", "1234567890123456", "999999999999999", "100000000000001"} {
		for _, shift := range []int{0, 1, 5, 6, 7, 14, 15, 16, 20} {
			for _, tail := range []string{"", "0"} {
				var s string
				switch {
				case shift == 0:
					s = m + ".5" + tail
				case shift < len(m):
					s = m[:len(m)-shift] + "." + m[len(m)-shift:] + tail
				default:
					s = "0." + strings.Repeat("0", shift-len(m)) + m + tail
				}
				ins = append(ins, s, "-"+s)
			}
		}
	}
	for _, in := range ins {
		got, err := canonjson.Transform([]byte(in))
		if err != nil {
			t.Errorf("Transform(%s): %v", in, err)
			continue
		}
		f, err := strconv.ParseFloat(in, 64)
		if err != nil {
			t.Fatal(err)
		}
		if want := canonjson.AppendNumber(nil, f); string(got) != string(want) {
			t.Errorf("Transform(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestErrorText(t *testing.T) {
	_, err := canonjson.Parse([]byte(`{"a/b":{"c~d":[1,2,NaN]}}`), canonjson.DefaultLimits())
	const want = "non-finite number at byte 19 (JSON pointer /a~1b/c~0d/2): NaN is not a JSON number"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	if s := canonjson.Kind(99).String(); s != "kind(99)" {
		t.Errorf("unknown kind prints %q", s)
	}
}

func TestAppendNumberNonFinite(t *testing.T) {
	for _, f := range []float64{nan(), inf(1), inf(-1)} {
		if got := string(canonjson.AppendNumber(nil, f)); got != "null" {
			t.Errorf("AppendNumber(%v) = %s, want null", f, got)
		}
	}
}

func nan() float64         { return math.NaN() }
func inf(sign int) float64 { return math.Inf(sign) }

// TestErrorsStayShort: a hostile file cannot make an error message as long
// as itself.
func TestErrorsStayShort(t *testing.T) {
	long := strings.Repeat("9", 1<<20)
	for _, in := range []string{
		"[" + long + "]",
		"[1" + long + "e400]",
		"[" + long + "e-1" + "]",
		`{"` + long + `":1,"` + long + `":2}`,
	} {
		_, err := canonjson.Parse([]byte(in), canonjson.DefaultLimits())
		if err == nil {
			t.Fatalf("accepted %.40q", in)
		}
		var ce *canonjson.Error
		if errors.As(err, &ce) && len(ce.Detail) > 200 {
			t.Errorf("detail of %d bytes: %.100s", len(ce.Detail), ce.Detail)
		}
	}
}
