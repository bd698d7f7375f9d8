package schemaform_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"workbench/pkg/schemaform"
)

// FuzzCompile: a schema comes from whatever MCP server the user connects.
// Whatever it is, Compile returns a form or an error, and a compiled
// form assembles and validates its value, in raw mode too, without
// panicking.
func FuzzCompile(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"oneOf": [{"$ref": "#"}, {"$ref": "#"}]}`))
	f.Add([]byte(`{"properties": {"a": {"$ref": "#/properties/a"}}}`))
	f.Add([]byte(`{"allOf": [{"$ref": "#"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		form, err := schemaform.Compile(json.RawMessage(data))
		if err != nil {
			return
		}
		edge := 1
		form.Prefill(schemaform.Context{SkillID: "s", EdgeIndex: &edge, URL: "https://x.example/"})
		form.Walk(func(fl *schemaform.Field) bool {
			switch fl.Widget {
			case schemaform.WidgetArray:
				form.AddItem(fl.Path)
			case schemaform.WidgetObject:
				form.AddEntry(fl.Path)
			}
			return false // only the top level: items may recurse
		})
		v, _ := form.Value()
		if err := form.SetRawMode(true); err != nil {
			t.Fatalf("raw mode of %v: %v", v, err)
		}
		form.SetRawMode(false)
	})
}
