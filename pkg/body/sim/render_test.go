package sim

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/schemas"
)

// The snapshot written by hand reads exactly as the fmt-based rendering it
// replaced, kept here as the reference, for every page of every fixture
// world and for a page with every kind of element and awkward text.
func TestRenderSnapshotMatchesReference(t *testing.T) {
	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	tricky := "q\"b\\\n\t\x00\u2028é😀\xff"
	views := []*PageView{nil, {Title: tricky, URL: tricky,
		Blocks: []Block{{"h1", tricky}, {"h2", "x"}, {"h3", "y"}, {"p", tricky}, {"li", tricky}, {"code", tricky}, {"other", "z"}},
		Links:  []Link{{tricky, tricky}},
		Forms: []FormView{{Name: tricky, Buttons: []string{tricky, "Go"}, Fields: []FieldView{
			{Name: "a", Label: tricky, Type: "textarea", Required: true, Value: tricky},
			{Name: "b", Label: "b", Type: "email"},
			{Name: "c", Label: "c", Type: "select", Options: []string{tricky, "x"}},
			{Name: "d", Label: "d", Type: "number", Options: []string{}},
		}}}}}
	for _, name := range fixtures.Worlds() {
		data, err := fixtures.World(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewWithValidator(data, v)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.world.Pages {
			s.url = p.URL
			views = append(views, s.view())
		}
	}
	for i, v := range views {
		if got, want := renderSnapshot(v), renderSnapshotFmt(v); got != want {
			t.Errorf("view %d:\n got %q\nwant %q", i, got, want)
		}
	}
}

// renderSnapshotFmt is renderSnapshot as it was written with fmt.
func renderSnapshotFmt(v *PageView) string {
	if v == nil {
		return "No page is open."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Page: %s\nURL: %s\n", strconv.Quote(v.Title), v.URL)
	for _, bl := range v.Blocks {
		switch bl.Kind {
		case "h1", "h2", "h3":
			fmt.Fprintf(&b, "- heading %s [level=%c]\n", strconv.Quote(bl.Text), bl.Kind[1])
		case "p":
			fmt.Fprintf(&b, "- paragraph: %s\n", bl.Text)
		case "li":
			fmt.Fprintf(&b, "- listitem: %s\n", bl.Text)
		case "code":
			fmt.Fprintf(&b, "- code: %s\n", strconv.Quote(bl.Text))
		}
	}
	for _, l := range v.Links {
		fmt.Fprintf(&b, "- link %s -> %s\n", strconv.Quote(l.Name), l.Href)
	}
	for _, f := range v.Forms {
		fmt.Fprintf(&b, "- form %s:\n", strconv.Quote(f.Name))
		for _, fl := range f.Fields {
			var attrs []string
			if fl.Type == "textarea" {
				attrs = append(attrs, "multiline")
			}
			if fl.Type == "email" {
				attrs = append(attrs, "email")
			}
			if fl.Required {
				attrs = append(attrs, "required")
			}
			if fl.Options != nil {
				attrs = append(attrs, "options: "+quoteList(fl.Options))
			}
			a := ""
			if len(attrs) > 0 {
				a = " [" + strings.Join(attrs, ", ") + "]"
			}
			fmt.Fprintf(&b, "  - %s %s%s: %s\n", role(fl.Type), strconv.Quote(fl.Label), a, strconv.Quote(fl.Value))
		}
		for _, name := range f.Buttons {
			fmt.Fprintf(&b, "  - button %s\n", strconv.Quote(name))
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
