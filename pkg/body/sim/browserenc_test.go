package sim

import (
	"testing"

	"workbench/pkg/canonjson"
)

// The browser part written directly equals its encoding through
// encoding/json and canonjson, and its skeleton equals canonjson's, for
// views that hold every case the direct writers treat apart: no page,
// empty lists, fields with and without options, repeated and distinct
// form layouts, and strings needing escapes or holding bytes that are not
// UTF-8.
func TestBrowserPartMatchesReference(t *testing.T) {
	field := func(name string, opts ...string) FieldView {
		return FieldView{Name: name, Label: name, Type: "text", Options: opts, Value: "v"}
	}
	tricky := "q\"b\\s/\b\f\n\r\t\x00\x1f\x7f<>&\u2028\u2029é😀\ufffd\xff\xc3(end"
	for _, c := range []struct {
		name string
		url  string
		view *PageView
	}{
		{"no page", "", nil},
		{"removed page", "https://x.test/gone", nil},
		{"empty page", "https://x.test/", &PageView{URL: "https://x.test/", Blocks: []Block{}, Links: []Link{}, Forms: []FormView{}}},
		{"nil lists", tricky, &PageView{URL: tricky, Title: tricky}},
		{"full page", "https://x.test/a?b=c", &PageView{
			URL: "https://x.test/a?b=c", Title: tricky,
			Blocks: []Block{{"h1", tricky}, {"p", "text"}},
			Links:  []Link{{tricky, "https://x.test/"}, {"b", "c"}},
			Forms: []FormView{
				{Name: "a", Fields: []FieldView{field("x"), field("y", "1", "2"), field("z", tricky)}, Buttons: []string{"Go", tricky}},
				{Name: "b", Fields: []FieldView{field("x")}, Buttons: []string{}},
				{Name: "c", Fields: []FieldView{field("y", "1")}, Buttons: []string{"Go"}},
				{Name: "d", Fields: []FieldView{}, Buttons: nil},
				{Name: "e", Fields: []FieldView{field("x"), {Name: "o", Options: []string{}, Required: true}}, Buttons: []string{"Go"}},
				{Name: "f", Fields: []FieldView{field("y", "1")}, Buttons: []string{"Other"}},
			},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := canonical(browserState{URL: c.url, Page: c.view})
			if err != nil {
				t.Fatal(err)
			}
			if got := appendBrowser(nil, c.url, c.view); string(got) != string(want) {
				t.Errorf("appendBrowser:\n got %s\nwant %s", got, want)
			}
			doc, err := canonjson.Parse(want, canonjson.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			wantSk := doc.AppendSkeleton(nil)
			if got := appendBrowserSkeleton(nil, c.view); string(got) != string(wantSk) {
				t.Errorf("appendBrowserSkeleton:\n got %s\nwant %s", got, wantSk)
			}
		})
	}
}
