package canonjson_test

import (
	"encoding/hex"
	"math"
	"strings"
	"testing"

	"workbench/pkg/canonjson"
)

// The expected outputs in this file are written from the text of RFC 8785,
// not produced by any implementation.

// appendixB is RFC 8785 Appendix B: IEEE 754 values and the JSON text a
// conforming serializer writes for them. NaN and Infinity, the table's two
// rows without a representation, are in TestParseRejects.
var appendixB = []struct {
	bits uint64
	want string
	note string
}{
	{0x0000000000000000, "0", "zero"},
	{0x8000000000000000, "0", "minus zero"},
	{0x0000000000000001, "5e-324", "min pos number"},
	{0x8000000000000001, "-5e-324", "min neg number"},
	{0x7fefffffffffffff, "1.7976931348623157e+308", "max pos number"},
	{0xffefffffffffffff, "-1.7976931348623157e+308", "max neg number"},
	{0x4340000000000000, "9007199254740992", "max pos int"},
	{0xc340000000000000, "-9007199254740992", "max neg int"},
	{0x4430000000000000, "295147905179352830000", "~2**68"},
	{0x44b52d02c7e14af5, "9.999999999999997e+22", ""},
	{0x44b52d02c7e14af6, "1e+23", ""},
	{0x44b52d02c7e14af7, "1.0000000000000001e+23", ""},
	{0x444b1ae4d6e2ef4e, "999999999999999700000", ""},
	{0x444b1ae4d6e2ef4f, "999999999999999900000", ""},
	{0x444b1ae4d6e2ef50, "1e+21", ""},
	{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7", ""},
	{0x3eb0c6f7a0b5ed8d, "0.000001", ""},
	{0x41b3de4355555553, "333333333.3333332", ""},
	{0x41b3de4355555554, "333333333.33333325", ""},
	{0x41b3de4355555555, "333333333.3333333", ""},
	{0x41b3de4355555556, "333333333.3333334", ""},
	{0x41b3de4355555557, "333333333.33333343", ""},
	{0xbecbf647612f3696, "-0.0000033333333333333333", ""},
	{0x43143ff3c1cb0959, "1424953923781206.2", "round to even"},
}

func TestAppendNumberAppendixB(t *testing.T) {
	for _, tc := range appendixB {
		f := math.Float64frombits(tc.bits)
		if got := string(canonjson.AppendNumber(nil, f)); got != tc.want {
			t.Errorf("AppendNumber(%016x %s) = %s, want %s", tc.bits, tc.note, got, tc.want)
		}
	}
}

// TestParseAppendixB reads each Appendix B value from JSON text, spelled
// with more digits than it needs, and checks the canonical form, the three
// rows whose canonical form is an integer beyond 2^53 below 1e21 included.
func TestParseAppendixB(t *testing.T) {
	for _, tc := range appendixB {
		f := math.Float64frombits(tc.bits)
		for _, in := range []string{tc.want, strconvE(f)} {
			got, err := canonjson.Transform([]byte(in))
			if err != nil || string(got) != tc.want {
				t.Errorf("Transform(%s) = %s, %v; want %s", in, got, err, tc.want)
			}
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1e2", "100"},
		{"1E2", "100"},
		{"1e+2", "100"},
		{"-1e2", "-100"},
		{"1.5e2", "150"},
		{"100e-2", "1"},
		{"1.0", "1"},
		{"-0", "0"},
		{"-0.0", "0"},
		{"0e10", "0"},
		{"-0e-10", "0"},
		{"0.1", "0.1"},
		{"123.450", "123.45"},
		{"476.445", "476.445"},
		{"-0.5", "-0.5"},
		{"100.5", "100.5"},
		{"99999999999999.9", "99999999999999.9"},
		{"999999999999999.9", "999999999999999.9"},
		{"0.000001", "0.000001"},
		{"0.000001234", "0.000001234"},
		{"0.0000001234", "1.234e-7"},
		{"1e-7", "1e-7"},
		{"0.0000001", "1e-7"},
		{"1e21", "1e+21"},
		{"1e+21", "1e+21"},
		{"12e20", "1.2e+21"},
		{"1e300", "1e+300"},
		{"-1.5E-300", "-1.5e-300"},
		{"4.9e-324", "5e-324"},
		{"1e-400", "0"},
		{"9007199254740992", "9007199254740992"},
		{"-9007199254740992", "-9007199254740992"},
		{"9007199254740991", "9007199254740991"},
		{"9.007199254740992e15", "9007199254740992"},
		{"123456789012345", "123456789012345"},
		{"0.30000000000000004", "0.30000000000000004"},
		{"[1e2,2.50,-0]", "[100,2.5,0]"},
	} {
		got, err := canonjson.Transform([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Transform(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

// TestSortingExample is RFC 8785 §3.2.3: members sorted by UTF-16 code
// units, so the emoji (a surrogate pair from 0xD83D) sorts before U+FB33.
func TestSortingExample(t *testing.T) {
	in := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	// The RFC lists the values in this order.
	order := []string{
		"Carriage Return",
		"One",
		"Control",
		"Latin Small Letter O With Diaeresis",
		"Euro Sign",
		"Emoji: Grinning Face",
		"Hebrew Letter Dalet With Dagesh",
	}
	want := "{" +
		`"\r":"Carriage Return",` +
		`"1":"One",` +
		"\"\u0080\":\"Control\"," +
		"\"\u00f6\":\"Latin Small Letter O With Diaeresis\"," +
		"\"\u20ac\":\"Euro Sign\"," +
		"\"\U0001F600\":\"Emoji: Grinning Face\"," +
		"\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"" +
		"}"
	got, err := canonjson.Transform([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	at := 0
	for _, v := range order {
		i := strings.Index(string(got[at:]), `"`+v+`"`)
		if i < 0 {
			t.Fatalf("%q missing or out of order in %q", v, got)
		}
		at += i
	}
}

// TestMainExample is the sample of RFC 8785 §3.2.2 and its UTF-8 bytes as
// §3.2.4 prints them.
func TestMainExample(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	wantHex := `
7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d`
	wantBytes, err := hex.DecodeString(strings.Join(strings.Fields(wantHex), ""))
	if err != nil {
		t.Fatal(err)
	}
	got, err := canonjson.Transform([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if string(got) != string(wantBytes) {
		t.Errorf("bytes differ from §3.2.4:\ngot  % x\nwant % x", got, wantBytes)
	}
}

// TestStringEscapes is RFC 8785 §3.2.2.2: the five controls with a short
// form use it, the other controls are \u00xx in lowercase hex, " and \ are
// escaped, everything else (/, DEL, U+2028, non-ASCII) is written as is.
func TestStringEscapes(t *testing.T) {
	controls := []string{
		`\u0000`, `\u0001`, `\u0002`, `\u0003`, `\u0004`, `\u0005`, `\u0006`, `\u0007`,
		`\b`, `\t`, `\n`, `\u000b`, `\f`, `\r`, `\u000e`, `\u000f`,
		`\u0010`, `\u0011`, `\u0012`, `\u0013`, `\u0014`, `\u0015`, `\u0016`, `\u0017`,
		`\u0018`, `\u0019`, `\u001a`, `\u001b`, `\u001c`, `\u001d`, `\u001e`, `\u001f`,
	}
	for c, want := range controls {
		for _, in := range []string{
			`"` + `\u00` + hexByte(c, "0123456789abcdef") + `"`,
			`"` + `\u00` + hexByte(c, "0123456789ABCDEF") + `"`,
		} {
			got, err := canonjson.Transform([]byte(in))
			if err != nil || string(got) != `"`+want+`"` {
				t.Errorf("Transform(%s) = %s, %v; want %q", in, got, err, `"`+want+`"`)
			}
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`"\b\t\n\f\r"`, `"\b\t\n\f\r"`},
		{`"\""`, `"\""`},
		{`"\u0022"`, `"\""`},
		{`"\\"`, `"\\"`},
		{`"\u005C"`, `"\\"`},
		{`"\/"`, `"/"`},
		{`"/"`, `"/"`},
		{`"\u002f"`, `"/"`},
		{`"\u007f"`, "\"\x7f\""},
		{"\"\x7f\"", "\"\x7f\""},
		{`"\u2028\u2029"`, "\"\u2028\u2029\""},
		{"\"\u2028\"", "\"\u2028\""},
		{`"\u00e9\u00E9é"`, `"ééé"`},
		{`"\ud83d\ude00"`, "\"\U0001F600\""},
		{`"\uD83D\uDE00"`, "\"\U0001F600\""},
		{`"\ufeff\uffff"`, "\"\ufeff\uffff\""},
		{`"a\u0041\n\u0000z"`, `"aA\n\u0000z"`},
		{`{"\n":"\u0001"}`, `{"\n":"\u0001"}`},
	} {
		got, err := canonjson.Transform([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("Transform(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func hexByte(c int, digits string) string {
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
