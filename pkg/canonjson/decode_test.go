package canonjson_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"workbench/pkg/canonjson"
)

type open struct {
	A     string                     `json:"a"`
	Extra map[string]json.RawMessage `json:"-"`
}

func (o *open) SetExtra(m map[string]json.RawMessage) { o.Extra = m }

// UnmarshalJSON exists to prove Decode does not call it on an Extensible type.
func (o *open) UnmarshalJSON([]byte) error { return errors.New("must not be called") }

type upper string

func (u *upper) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*u = upper(strings.ToUpper(s))
	return nil
}

type target struct {
	S     string            `json:"s"`
	I     int               `json:"i"`
	F     float64           `json:"f"`
	B     bool              `json:"b"`
	P     *int              `json:"p"`
	L     []string          `json:"l"`
	M     map[string]int    `json:"m"`
	Any   any               `json:"any"`
	Raw   json.RawMessage   `json:"raw"`
	Num   json.Number       `json:"num"`
	Open  open              `json:"open"`
	Up    upper             `json:"up"`
	Fold  string            `json:"Folded"`
	Skip  string            `json:"-"`
	Elems []map[string]bool `json:"elems"`
	GM    map[string]any    `json:"gm"`
	GL    []any             `json:"gl"`
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	in := `{"s":"h\u00e9\"llo","i":-42,"f":1.5e3,"b":true,"p":7,"l":["x","y"],"m":{"k":1},
		"any":{"n":1,"a":[true,null,"s"]},"raw":{"z": [1, 2]},"num":12.50,"open":{"a":"x","extra":[1],"more":"m"},
		"up":"shout","folded":"ci","Skip":"no","elems":[{"t":true}],"unknown":1,
		"gm":{"x":[1.5,{"y":"\u00e9"}],"z":null},"gl":[2,"s",{}]}`
	doc, err := canonjson.Parse([]byte(in), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var got target
	if err := doc.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := target{S: "hé\"llo", I: -42, F: 1500, B: true, P: new(int), L: []string{"x", "y"}, M: map[string]int{"k": 1},
		Any: map[string]any{"n": 1.0, "a": []any{true, nil, "s"}}, Raw: json.RawMessage(`{"z": [1, 2]}`), Num: "12.50",
		Open: open{A: "x", Extra: map[string]json.RawMessage{"extra": json.RawMessage(`[1]`), "more": json.RawMessage(`"m"`)}},
		Up:   "SHOUT", Fold: "ci", Elems: []map[string]bool{{"t": true}},
		GM: map[string]any{"x": []any{1.5, map[string]any{"y": "é"}}, "z": nil}, GL: []any{2.0, "s", map[string]any{}}}
	*want.P = 7
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}
}

func TestDecodeTypeErrors(t *testing.T) {
	tests := []struct{ in, pointer, json, goType string }{
		{`{"i":"1"}`, "/i", "string", "int"},
		{`{"i":1.5}`, "/i", "number 1.5", "int"},
		{`{"l":["a",2]}`, "/l/1", "number 2", "string"},
		{`{"m":{"k":true}}`, "/m/k", "true", "int"},
		{`{"elems":[{"t":1}]}`, "/elems/0/t", "number 1", "bool"},
		{`{"s":{}}`, "/s", "object", "string"},
	}
	for _, tt := range tests {
		doc, err := canonjson.Parse([]byte(tt.in), canonjson.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		var v target
		err = doc.Decode(&v)
		var te *canonjson.TypeError
		if !errors.As(err, &te) {
			t.Errorf("%s: got %v, want a TypeError", tt.in, err)
			continue
		}
		if te.Pointer != tt.pointer || te.JSON != tt.json || te.Go != tt.goType {
			t.Errorf("%s: got %+v, want pointer %s, JSON %s, Go %s", tt.in, te, tt.pointer, tt.json, tt.goType)
		}
	}
}

func TestDecodeAtAndGeneric(t *testing.T) {
	doc, err := canonjson.Parse([]byte(`{"a":[{"b~/c":5},{"d":"e"}],"n":2.50}`), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if ok, err := doc.DecodeAt("/a/0/b~0~1c", &n); !ok || err != nil || n != 5 {
		t.Fatalf("DecodeAt: %v %v %d", ok, err, n)
	}
	var s string
	if ok, _ := doc.DecodeAt("/a/1/d", &s); !ok || s != "e" {
		t.Fatalf("DecodeAt string: %v %q", ok, s)
	}
	for _, missing := range []string{"/a/2", "/x", "/a/01", "a", "/n/0"} {
		if ok, _ := doc.DecodeAt(missing, &s); ok {
			t.Errorf("DecodeAt(%q) found something", missing)
		}
	}
	g := doc.Generic().(map[string]any)
	if g["n"] != json.Number("2.50") {
		t.Errorf("Generic numbers are json.Number: got %#v", g["n"])
	}
}

// TestDecodeLargeArray covers arrays decoded in parallel chunks: the
// result is encoding/json's, and the error is the first element's in
// document order, whichever chunk finishes first.
func TestDecodeLargeArray(t *testing.T) {
	type item struct {
		N    int    `json:"n"`
		Text string `json:"text"`
	}
	build := func(bad ...int) []byte {
		var b strings.Builder
		b.WriteByte('[')
		for i := range 300 {
			if i > 0 {
				b.WriteByte(',')
			}
			n := strconv.Itoa(i)
			if slices.Contains(bad, i) {
				n = `"x"`
			}
			fmt.Fprintf(&b, `{"n":%s,"text":"%s"}`, n, strings.Repeat("t", 1000+i))
		}
		b.WriteByte(']')
		return []byte(b.String())
	}
	data := build()
	doc, err := canonjson.Parse(data, canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var got, want []item
	if err := doc.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("parallel decoding differs from encoding/json")
	}
	for _, bad := range [][]int{{299}, {250, 20}, {0, 1, 299}} {
		doc, err := canonjson.Parse(build(bad...), canonjson.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		err = doc.Decode(&got)
		var te *canonjson.TypeError
		if want := fmt.Sprintf("/%d/n", slices.Min(bad)); !errors.As(err, &te) || te.Pointer != want {
			t.Errorf("bad elements %v: error %v, want a TypeError at %s", bad, err, want)
		}
	}
}
