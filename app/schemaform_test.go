//go:build !wasm

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
	"golang.org/x/net/html"

	"workbench/pkg/schemaform"
)

// The schemaForm tests render the component to HTML (go-app's test
// engine, natively) and check what a screen reader and the CSP need:
// every control has a unique id and a label tied to it, every
// aria-describedby names an element that exists, no style attribute;
// and that the state of the form is on screen — prefilled values with
// their source, errors beside their fields, items, the chosen variant,
// the raw JSON.

func compileForm(t *testing.T, file string) *schemaform.Form {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "pkg", "schemaform", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	f, err := schemaform.Compile(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func render(t *testing.T, f *schemaform.Form) *html.Node {
	t.Helper()
	s := app.HTMLString(&schemaForm{Form: f, IDPrefix: "t"})
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func attr(n *html.Node, k string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == k {
			return a.Val, true
		}
	}
	return "", false
}

// on reads a boolean attribute as go-app writes it natively: "true" as
// a bare attribute, "false" spelled out.
func on(n *html.Node, k string) bool {
	v, ok := attr(n, k)
	return ok && v != "false"
}

func each(n *html.Node, fn func(*html.Node)) {
	if n.Type == html.ElementNode {
		fn(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		each(c, fn)
	}
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func byID(doc *html.Node, id string) *html.Node {
	var found *html.Node
	each(doc, func(n *html.Node) {
		if v, _ := attr(n, "id"); v == id && found == nil {
			found = n
		}
	})
	return found
}

// checkA11y checks labels, ids, describedby and the absence of styles.
func checkA11y(t *testing.T, doc *html.Node) {
	t.Helper()
	ids := map[string]int{}
	labels := map[string]bool{}
	each(doc, func(n *html.Node) {
		if id, ok := attr(n, "id"); ok {
			ids[id]++
		}
		if n.Data == "label" {
			if f, ok := attr(n, "for"); ok {
				labels[f] = true
			}
		}
		if _, ok := attr(n, "style"); ok {
			t.Errorf("<%s> has a style attribute", n.Data)
		}
	})
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q used %d times", id, n)
		}
	}
	each(doc, func(n *html.Node) {
		switch n.Data {
		case "input", "select", "textarea":
			id, _ := attr(n, "id")
			_, aria := attr(n, "aria-label")
			if id == "" || !labels[id] && !aria {
				t.Errorf("<%s id=%q> has no label", n.Data, id)
			}
		}
		if d, ok := attr(n, "aria-describedby"); ok {
			for _, id := range strings.Fields(d) {
				if ids[id] == 0 {
					t.Errorf("aria-describedby names %q, which is not on the page", id)
				}
			}
		}
	})
}

func TestSchemaFormRendersCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "pkg", "schemaform", "testdata", "*", "*.json"))
	if len(files) < 60 {
		t.Fatalf("%d schemas", len(files))
	}
	for _, file := range files {
		rel, _ := filepath.Rel(filepath.Join("..", "pkg", "schemaform", "testdata"), file)
		t.Run(rel, func(t *testing.T) {
			f := compileForm(t, rel)
			f.Value() // errors on the fields, as after Check
			doc := render(t, f)
			checkA11y(t, doc)
			// Every field with a control is on the page, folded or not.
			f.Walk(func(fl *schemaform.Field) bool {
				switch fl.Widget {
				case schemaform.WidgetText, schemaform.WidgetNumber, schemaform.WidgetInteger, schemaform.WidgetBoolean,
					schemaform.WidgetSelect, schemaform.WidgetJSON, schemaform.WidgetTextArea:
					if byID(doc, (&schemaForm{IDPrefix: "t"}).id(fl.Path, "input")) == nil {
						t.Errorf("%s: no control", fl.Path)
					}
				}
				return true
			})
		})
	}
}

func TestSchemaFormStates(t *testing.T) {
	c := &schemaForm{IDPrefix: "t"}

	// Prefilled: visibly marked, with its source, and still an editable
	// control holding the value; a target is never folded.
	f := compileForm(t, "hard/context_names.json")
	f.Prefill(schemaform.Context{SkillID: "checkout", URL: "https://shop.example/"})
	doc := render(t, f)
	checkA11y(t, doc)
	in := byID(doc, c.id("/skill_id", "input"))
	if v, _ := attr(in, "value"); v != "checkout" {
		t.Errorf("skill_id value %q", v)
	}
	if on(in, "disabled") {
		t.Errorf("an inferred field is disabled")
	}
	if note := byID(doc, c.id("/skill_id", "inferred")); note == nil || text(note) != "prefilled from: current skill" {
		t.Errorf("no inferred note on skill_id")
	}
	if d, _ := attr(in, "aria-describedby"); !strings.Contains(d, c.id("/skill_id", "inferred")) {
		t.Errorf("the inferred note is not tied to the control: %q", d)
	}
	each(doc, func(n *html.Node) {
		if n.Data == "details" {
			for _, ptr := range []string{"/url", "/target", "/id"} {
				if byID(n, c.id(ptr, "input")) != nil {
					t.Errorf("%s is folded away", ptr)
				}
			}
			if byID(n, c.id("/note", "input")) == nil {
				t.Errorf("an empty optional field is not folded")
			}
		}
	})

	// Errors beside their fields, the control marked invalid.
	f = compileForm(t, "hard/bounds_formats.json")
	f.Set("/ratio", "2")
	f.Set("/email", "nope")
	f.Value()
	doc = render(t, f)
	checkA11y(t, doc)
	for _, ptr := range []string{"/ratio", "/email"} {
		e := byID(doc, c.id(ptr, "err"))
		in := byID(doc, c.id(ptr, "input"))
		if e == nil || text(e) == "" || !on(in, "aria-invalid") {
			t.Errorf("%s: error %v, aria-invalid %v", ptr, e, on(in, "aria-invalid"))
		}
	}

	// Array items with remove buttons, a variant chooser, entries.
	f = compileForm(t, "hard/nested_arrays.json")
	f.AddItem("/groups")
	f.AddItem("/groups/0/members")
	doc = render(t, f)
	checkA11y(t, doc)
	for _, id := range []string{c.id("/groups/0", "remove"), c.id("/groups/0/members/0/email", "input"), c.id("/groups", "add")} {
		if byID(doc, id) == nil {
			t.Errorf("no %s", id)
		}
	}
	f = compileForm(t, "hard/oneof_discriminated.json")
	f.Choose("/shape", 1)
	f.Choose("/pick", 0) // a described variant whose field has a hint of its own
	f.Set("/pick", "not a date")
	f.Value()
	doc = render(t, f)
	checkA11y(t, doc)
	sel := byID(doc, c.id("/shape", "variant"))
	if sel == nil || !strings.Contains(text(sel), "kind: rect") {
		t.Fatalf("no variant chooser")
	}
	each(sel, func(n *html.Node) {
		if on(n, "selected") && text(n) != "kind: rect" {
			t.Errorf("selected variant %q", text(n))
		}
	})
	if byID(doc, c.id("/shape/w", "input")) == nil {
		t.Errorf("the chosen variant's fields are missing")
	}
	f = compileForm(t, "hard/additional.json")
	f.AddEntry("/labels")
	f.SetKey("/labels", 0, "a b")
	doc = render(t, f)
	checkA11y(t, doc)
	if byID(doc, c.id("/labels", "key-0")) == nil || byID(doc, c.id("/labels/a b", "input")) == nil {
		t.Errorf("entry row missing")
	}

	// Raw mode: one labelled text with the value.
	f = compileForm(t, "corpus/playwright.browser_click.json")
	f.Set("/target", "e1")
	f.SetRawMode(true)
	doc = render(t, f)
	checkA11y(t, doc)
	// The text itself reaches the textarea as its value property in the
	// browser; go-app's native encoder does not escape it for HTML, so
	// only the element is checked here.
	if raw := byID(doc, c.id("", "raw")); raw == nil || raw.Data != "textarea" {
		t.Errorf("no raw JSON textarea")
	}
	if b := byID(doc, c.id("", "raw-toggle")); b == nil || text(b) != "Back to fields" {
		t.Errorf("raw toggle")
	}
}
