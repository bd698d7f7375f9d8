package wasmsize

import (
	"encoding/binary"
	"testing"
)

func TestOwnerOf(t *testing.T) {
	paths := map[string]bool{
		"runtime": true, "net/http": true, "workbench/pkg/skill": true, "workbench/pkg/skill/sub": true,
		"github.com/maxence-charriere/go-app/v10/pkg/app": true, "golang.org/x/text/internal/tag": true,
	}
	mangled := map[string]bool{}
	for p := range paths {
		mangled[nameRegexp.ReplaceAllString(p, "_")] = true
	}
	for _, tc := range []struct {
		sym   string
		names map[string]bool
		want  string
	}{
		{"runtime.mallocgc", paths, "runtime"},
		{"net/http.(*Client).Do", paths, "net/http"},
		{"type:net/http.Header", paths, "net/http"},
		{"type:*workbench/pkg/skill.Edge", paths, "workbench/pkg/skill"},
		{"workbench/pkg/skill/sub.F", paths, "workbench/pkg/skill/sub"},
		{"go:itab.*net/http.Client,io.Closer", paths, "net/http"},
		{"type:.eq.workbench/pkg/skill.Edge", paths, "workbench/pkg/skill"},
		{"go:string.\"hello\"", paths, "(other)"},
		{"type:[]string", paths, "(other)"},
		{"github.com_maxence_charriere_go_app_v10_pkg_app.nodeManager.Update", mangled, "github.com_maxence_charriere_go_app_v10_pkg_app"},
		{"golang.org_x_text_internal_tag.Index.Index", mangled, "golang.org_x_text_internal_tag"},
		{"net_http.__Client_.Do", mangled, "net_http"},
		{"type_.eq.workbench_pkg_skill.Edge", mangled, "workbench_pkg_skill"},
		{"wasm_pc_f_loop", mangled, "(other)"},
	} {
		if got := ownerOf(tc.sym, tc.names); got != tc.want {
			t.Errorf("ownerOf(%q) = %q, want %q", tc.sym, got, tc.want)
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
	w, err := ReadModule(data)
	if err != nil {
		t.Fatal(err)
	}
	// Each body is counted with its own length byte excluded.
	if w.Code["runtime.a"] != 10 || w.Code["main.b"] != 20 || w.Code["runtime.c"] != 5 || len(w.Code) != 3 {
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
		if _, err := ReadModule(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestAttribute(t *testing.T) {
	m := Module{
		Code:     map[string]int{"main.main": 100, "workbench_pkg_skill.Decode": 40, "runtime.mallocgc": 30, "wasm_pc_f_loop": 5},
		Sections: map[string]int{"data": 1000},
	}
	modules := map[string]string{"workbench/app": "workbench", "main": "workbench", "workbench/pkg/skill": "workbench", "runtime": "std"}
	dump := []byte("# workbench/app\n" +
		"_ -> main.main\n" +
		"main.main -> workbench/pkg/skill.Decode\n" +
		"main.main -> go:string.\"hello\"\n" +
		"workbench/pkg/skill.Decode -> type:*workbench/pkg/skill.Edge <UsedInIface>\n" +
		"type:*workbench/pkg/skill.Edge <UsedInIface> -> type:[]string\n" +
		"workbench/pkg/skill.Decode -> workbench/pkg/skill..stmp_1\n" +
		"workbench/pkg/skill.Decode -> runtime.mallocgc\n")
	nm := []byte("/cache/a-d:\t  10 48 R type:*workbench/pkg/skill.Edge\n" +
		"/cache/a-d:\t  40 24 R type:[]string\n" +
		"/cache/a-d:\t  60 16 d workbench/pkg/skill..stmp_1<1>\n" +
		"/cache/a-d:\t  80 64 B workbench/pkg/skill.zeroed\n" +
		"/cache/a-d:\t  90 40 T workbench/pkg/skill.Decode\n" +
		"/cache/b-d:\t     0 U runtime.mallocgc\n")
	r := attribute(m, modules, "workbench/app", dump, symbolSizes(nm))
	got := map[string][2]int{}
	for _, p := range r.Packages {
		got[p.Path] = [2]int{p.Code, p.Data}
	}
	want := map[string][2]int{
		"main (workbench/app)": {100, 5}, // the string "hello"
		"workbench/pkg/skill":  {40, 48 + 24 + 16},
		"runtime":              {30, 0},
		"(no package: the runtime's assembly and linker-made functions)": {5, 0},
	}
	if len(got) != len(want) {
		t.Errorf("packages = %v, want %v", got, want)
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: code, data = %v, want %v", p, got[p], w)
		}
	}
	if r.Attributed != 5+48+24+16 || r.Data != 1000 {
		t.Errorf("attributed %d of %d", r.Attributed, r.Data)
	}
}
