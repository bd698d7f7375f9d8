package canonjson_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"workbench/pkg/canonjson"
)

// TestInexactNumbers: a number whose canonical form names another decimal
// value than its text is accepted and listed with its pointer; one whose
// canonical form is the same value however spelled is not listed.
func TestInexactNumbers(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []canonjson.Inexact
	}{
		{"exact numbers", `[0.1,1e20,1234567890123456800,1.0,1.5e300,-0,0e5,9007199254740992,1e21,5e-324,123.4500]`, nil},
		{"2^53+1", `{"a":{"b/c":[1,9007199254740993]}}`,
			[]canonjson.Inexact{{Pointer: "/a/b~1c/1", Offset: 15, Text: "9007199254740993", Canonical: "9007199254740992"}}},
		{"2^64", `[18446744073709551616]`,
			[]canonjson.Inexact{{Pointer: "/0", Offset: 1, Text: "18446744073709551616", Canonical: "18446744073709552000"}}},
		{"twenty digits", `{"x":-0.12345678901234567891}`,
			[]canonjson.Inexact{{Pointer: "/x", Offset: 5, Text: "-0.12345678901234567891", Canonical: "-0.12345678901234568"}}},
		{"underflow", `[1e-400]`,
			[]canonjson.Inexact{{Pointer: "/0", Offset: 1, Text: "1e-400", Canonical: "0"}}},
		{"root", `12345678901234567891`,
			[]canonjson.Inexact{{Pointer: "", Offset: 0, Text: "12345678901234567891", Canonical: "12345678901234567000"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := canonjson.Parse([]byte(tc.in), canonjson.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			got, omitted := d.InexactNumbers()
			if !reflect.DeepEqual(got, tc.want) || omitted != 0 {
				t.Errorf("got %+v (+%d), want %+v", got, omitted, tc.want)
			}
		})
	}
}

// TestInexactNumbersCounted: past canonjson.MaxInexact, inexact numbers
// are counted, not listed.
func TestInexactNumbersCounted(t *testing.T) {
	n := canonjson.MaxInexact + 7
	in := "[" + strings.Repeat("9007199254740993,", n-1) + "9007199254740993]"
	d, err := canonjson.Parse([]byte(in), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	got, omitted := d.InexactNumbers()
	if len(got) != canonjson.MaxInexact || omitted != 7 {
		t.Fatalf("listed %d, omitted %d; want %d and 7", len(got), omitted, canonjson.MaxInexact)
	}
	if got[canonjson.MaxInexact-1].Pointer != fmt.Sprintf("/%d", canonjson.MaxInexact-1) {
		t.Errorf("last listed at %s", got[canonjson.MaxInexact-1].Pointer)
	}
}

// TestInexactNumbersReadAsDoubles: whoever reads an inexact number — a
// Go integer, a json.Number for a schema validator — reads the double
// RFC 8785 reads, as a JavaScript reader does, not the digits written.
func TestInexactNumbersReadAsDoubles(t *testing.T) {
	d, err := canonjson.Parse([]byte(`{"i":9007199254740993,"u":1e3,"f":0.12345678901234567891}`), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		I int64   `json:"i"`
		U uint    `json:"u"`
		F float64 `json:"f"`
	}
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if v.I != 9007199254740992 || v.U != 1000 || v.F != 0.12345678901234568 {
		t.Errorf("decoded %+v", v)
	}
	if got := d.Generic().(map[string]any)["i"]; got != json.Number("9007199254740992") {
		t.Errorf("generic /i = %#v", got)
	}
	if v, _ := d.At("/i"); v.Text() != "9007199254740992" {
		t.Errorf("/i text %q", v.Text())
	}
	if v, _ := d.At("/u"); v.Text() != "1e3" {
		t.Errorf("/u text %q: an exact number keeps its spelling", v.Text())
	}
}
