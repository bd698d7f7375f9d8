package main

import (
	"encoding/binary"
	"testing"
)

func TestGoPackage(t *testing.T) {
	for _, tc := range []struct{ sym, want string }{
		{"runtime.mallocgc", "runtime"},
		{"net_http.__Client_.Do", "net_http"},
		{"github.com_maxence_charriere_go_app_v10_pkg_app.nodeManager.Update", "github.com_maxence_charriere_go_app_v10_pkg_app"},
		{"golang.org_x_text_internal_tag.Index.Index", "golang.org_x_text_internal_tag"},
		{"workbench_pkg_canonjson.__parser_.str", "workbench_pkg_canonjson"},
		{"type_.eq.log.Logger", "type_"},
		{"go.yaml.in_yaml_v3.__parser_.parse", "go.yaml.in_yaml_v3"},
		{"wasm_pc_f_loop", "wasm_pc_f_loop"},
		{"", "(unnamed)"},
	} {
		if got := goPackage(tc.sym); got != tc.want {
			t.Errorf("goPackage(%q) = %q, want %q", tc.sym, got, tc.want)
		}
	}
}

// module assembles a wasm module: one imported function, then one
// defined function per body, named in a "name" section.
func module(names []string, bodies [][]byte) []byte {
	uleb := func(b []byte, v int) []byte { return binary.AppendUvarint(b, uint64(v)) }
	str := func(b []byte, s string) []byte { return append(uleb(b, len(s)), s...) }
	section := func(out []byte, id byte, payload []byte) []byte {
		return append(uleb(append(out, id), len(payload)), payload...)
	}
	out := []byte("\x00asm\x01\x00\x00\x00")
	imp := uleb(nil, 1)
	imp = str(str(imp, "go"), "debug")
	imp = append(imp, 0, 0) // a function of type 0
	out = section(out, 2, imp)
	code := uleb(nil, len(bodies))
	for _, b := range bodies {
		code = append(uleb(code, len(b)), b...)
	}
	out = section(out, 10, code)
	fn := uleb(nil, len(names))
	for i, n := range names {
		fn = str(uleb(fn, i+1), n)
	}
	name := str(nil, "name")
	name = append(uleb(append(name, 1), len(fn)), fn...)
	return section(out, 0, name)
}

func TestBreakdownWasm(t *testing.T) {
	data := module([]string{"runtime.a", "main.b", "runtime.c"}, [][]byte{make([]byte, 10), make([]byte, 20), make([]byte, 5)})
	w, err := breakdownWasm(data)
	if err != nil {
		t.Fatal(err)
	}
	// Each body is counted with its own length byte excluded.
	if w.Code["runtime"] != 15 || w.Code["main"] != 20 || len(w.Code) != 2 {
		t.Errorf("code by package = %v", w.Code)
	}
	if w.Total != len(data) || w.Sections["code"] == 0 || w.Sections["import"] == 0 || w.Sections["custom name"] == 0 {
		t.Errorf("sections = %v, total %d of %d", w.Sections, w.Total, len(data))
	}

	for name, bad := range map[string][]byte{
		"not wasm":  []byte("hello, world"),
		"truncated": data[:len(data)-3],
		"no names":  module(nil, [][]byte{{0}}),
	} {
		if _, err := breakdownWasm(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestMedianSpread(t *testing.T) {
	for _, tc := range []struct {
		xs     []float64
		median float64
		spread string
	}{
		{[]float64{3}, 3, "3 ms"},
		{[]float64{5, 1, 3}, 3, "3 ms (1–5)"},
		{[]float64{4, 1, 3, 2}, 2.5, "2 ms (1–4)"},
	} {
		if got := median(tc.xs); got != tc.median {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.median)
		}
		if got := spread(tc.xs); got != tc.spread {
			t.Errorf("spread(%v) = %q, want %q", tc.xs, got, tc.spread)
		}
	}
}
