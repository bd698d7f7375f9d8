package main

import "testing"

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

func TestParseInitTrace(t *testing.T) {
	got, err := parseInitTrace([]string{
		"init runtime @0.38 ms, 0.65 ms clock, 0 bytes, 0 allocs",
		"init github.com/santhosh-tekuri/jsonschema/v6 @120 ms, 141 ms clock, 1700712 bytes, 21283 allocs",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []initLine{{"runtime", 0.38, 0.65, 0, 0}, {"github.com/santhosh-tekuri/jsonschema/v6", 120, 141, 1700712, 21283}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("parseInitTrace = %+v, want %+v", got, want)
	}
	for name, lines := range map[string][]string{
		"none":      nil,
		"not trace": {"panic: something"},
	} {
		if _, err := parseInitTrace(lines); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
