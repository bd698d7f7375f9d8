package schemaform_test

import (
	"math"
	"testing"

	"workbench/pkg/schemaform"
)

func TestFieldText(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   any
		want string
	}{
		{"string as it is", "a \"quoted\" <b>", `a "quoted" <b>`},
		{"empty string", "", ""},
		{"number", 2.5, "2.5"},
		{"bool", true, "true"},
		{"null", nil, "null"},
		{"object", map[string]any{"a": 1.0}, `{"a":1}`},
		{"array", []any{"x", 1.0}, `["x",1]`},
		{"not JSON", math.Inf(1), "+Inf"},
	} {
		if got := schemaform.FieldText(tc.in); got != tc.want {
			t.Errorf("%s: FieldText(%#v) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}
