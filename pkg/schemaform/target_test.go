package schemaform_test

import (
	"testing"

	"workbench/pkg/schemaform"
)

// The target is the page's selection, never a form field's value: a
// nested attachments[0].url prefilled or typed into the form is an input.
func TestSelectedTarget(t *testing.T) {
	edge := 3
	tests := []struct {
		name          string
		ctx           schemaform.Context
		value, source string
	}{
		{"nothing selected", schemaform.Context{Route: "/", URL: "https://example.test/a"}, "", ""},
		{"the skill on screen", schemaform.Context{SkillID: "s-1", URL: "https://example.test/a"}, "s-1", "current skill"},
		{"an edge of it", schemaform.Context{SkillID: "s-1", EdgeID: "e-7", EdgeIndex: &edge}, "e-7", "selected edge"},
		{"a selection wins", schemaform.Context{SkillID: "s-1", EdgeID: "e-7", Selection: "line 4"}, "line 4", "current selection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, src := tt.ctx.SelectedTarget()
			if v != tt.value || src != tt.source {
				t.Errorf("SelectedTarget() = %q, %q; want %q, %q", v, src, tt.value, tt.source)
			}
		})
	}
}
