package schemaform_test

import (
	"os"
	"path/filepath"
	"testing"

	"workbench/pkg/schemaform"
)

// BenchmarkCompileCorpus compiles every tool schema of the corpus once per
// iteration: the cost of opening all the forms of two real servers.
func BenchmarkCompileCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	var schemas [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		schemas = append(schemas, data)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range schemas {
			if _, err := schemaform.Compile(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(schemas)), "schemas/op")
}

// BenchmarkValue is one keystroke's work once errors are shown: assemble
// and validate the value of Playwright's browser_fill_form with two items.
func BenchmarkValue(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "playwright.browser_fill_form.json"))
	if err != nil {
		b.Fatal(err)
	}
	f, err := schemaform.Compile(data)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 2 {
		p, _ := f.AddItem("/fields")
		f.Set(p+"/target", "e1")
		f.Set(p+"/name", "Email")
		f.Set(p+"/type", "textbox")
		if i == 0 {
			f.Set(p+"/value", "a@b.example")
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		f.Value()
	}
}
