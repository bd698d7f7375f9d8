//go:build wasm

package main

import (
	"encoding/json"
	"os"
	"strings"
	"syscall/js"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/schemaform"
)

// These tests mount schemaForm in a real browser page (headless Chromium
// under wasmbrowsertest; see mk/schemaform.mk), type into its controls
// with real DOM events, and read the Form and the page back.

func mount(t *testing.T, f *schemaform.Form) (app.TestEngine, *int) {
	t.Helper()
	changes := 0
	e := load(t, &schemaForm{Form: f, IDPrefix: "w", OnChange: func(app.Context, *schemaform.Form) { changes++ }})
	return e, &changes
}

// load mounts c in the browser page under go-app's test engine and runs
// what its mounting queued.
func load(t *testing.T, c app.Composer) app.TestEngine {
	t.Helper()
	// go-app mounts into the body's first element; the page's own
	// elements (the test runner's) stay after it.
	doc := js.Global().Get("document")
	body := doc.Get("body")
	body.Call("insertBefore", doc.Call("createElement", "div"), body.Get("firstChild"))
	t.Cleanup(func() { body.Get("firstElementChild").Call("remove") })
	e := app.NewTestEngine()
	if err := e.Load(c); err != nil {
		t.Fatal(err)
	}
	e.ConsumeAll()
	return e
}

func el(t *testing.T, id string) js.Value {
	t.Helper()
	v := js.Global().Get("document").Call("getElementById", id)
	if v.IsNull() {
		t.Fatalf("no element #%s", id)
	}
	return v
}

// typeInto sets a control's value and fires the event a user's edit
// fires.
func typeInto(t *testing.T, e app.TestEngine, id, value, event string) {
	t.Helper()
	x := el(t, id)
	x.Set("value", value)
	x.Call("dispatchEvent", js.Global().Get("Event").New(event, map[string]any{"bubbles": true}))
	e.ConsumeAll()
}

func click(t *testing.T, e app.TestEngine, id string) {
	t.Helper()
	el(t, id).Call("click")
	e.ConsumeAll()
}

func loadForm(t *testing.T, file string) *schemaform.Form {
	t.Helper()
	data, err := os.ReadFile("../pkg/schemaform/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := schemaform.Compile(data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func value(t *testing.T, f *schemaform.Form) string {
	t.Helper()
	b, errs := f.JSON()
	if len(errs) > 0 {
		t.Fatalf("errors %v (value %s)", errs, b)
	}
	var v any
	json.Unmarshal(b, &v)
	out, _ := json.Marshal(v) // keys sorted
	return string(out)
}

func TestSchemaFormInBrowser(t *testing.T) {
	c := &schemaForm{IDPrefix: "w"}

	t.Run("typed values and array items", func(t *testing.T) {
		f := loadForm(t, "corpus/playwright.browser_click.json")
		e, changes := mount(t, f)
		typeInto(t, e, c.id("/target", "input"), "e12", "input")
		typeInto(t, e, c.id("/button", "input"), "right", "change")
		click(t, e, c.id("/modifiers", "add"))
		typeInto(t, e, c.id("/modifiers/0", "input"), "Shift", "change")
		click(t, e, c.id("/modifiers", "add"))
		typeInto(t, e, c.id("/modifiers/1", "input"), "Alt", "change")
		click(t, e, c.id("/modifiers/0", "remove"))
		if v := el(t, c.id("/modifiers/0", "input")).Get("value").String(); v != "Alt" {
			t.Errorf("after removing the first item, the first select shows %q", v)
		}
		// The moved item's control edits the moved item.
		typeInto(t, e, c.id("/modifiers/0", "input"), "Meta", "change")
		if got, want := value(t, f), `{"button":"right","modifiers":["Meta"],"target":"e12"}`; got != want {
			t.Errorf("value %s, want %s", got, want)
		}
		if *changes != 8 {
			t.Errorf("OnChange called %d times, want 8", *changes)
		}
	})

	t.Run("prefilled, edited, errors beside fields", func(t *testing.T) {
		f := loadForm(t, "hard/context_names.json")
		f.Prefill(schemaform.Context{SkillID: "checkout"})
		e, _ := mount(t, f)
		in := el(t, c.id("/skill_id", "input"))
		if in.Get("value").String() != "checkout" || in.Get("disabled").Bool() {
			t.Errorf("prefilled control: value %q disabled %v", in.Get("value").String(), in.Get("disabled").Bool())
		}
		if note := el(t, c.id("/skill_id", "inferred")).Get("textContent").String(); note != "prefilled from: current skill" {
			t.Errorf("inferred note %q", note)
		}
		typeInto(t, e, c.id("/edge_index", "input"), "x", "input")
		click(t, e, c.id("", "check"))
		if msg := el(t, c.id("/edge_index", "err")).Get("textContent").String(); !strings.Contains(msg, "not an integer") {
			t.Errorf("error beside edge_index: %q", msg)
		}
		if inv := el(t, c.id("/edge_index", "input")).Call("getAttribute", "aria-invalid"); inv.IsNull() || inv.String() != "true" {
			t.Errorf("aria-invalid %v", inv)
		}
		typeInto(t, e, c.id("/edge_index", "input"), "3", "input")
		if !js.Global().Get("document").Call("getElementById", c.id("/edge_index", "err")).IsNull() {
			t.Errorf("the error stays after the fix")
		}
		typeInto(t, e, c.id("/skill_id", "input"), "other", "input")
		if !js.Global().Get("document").Call("getElementById", c.id("/skill_id", "inferred")).IsNull() {
			t.Errorf("an edited value is still marked inferred")
		}
		if got, want := value(t, f), `{"edge_index":3,"skill_id":"other"}`; got != want {
			t.Errorf("value %s, want %s", got, want)
		}
	})

	t.Run("variant chooser and raw JSON", func(t *testing.T) {
		f := loadForm(t, "hard/oneof_discriminated.json")
		e, _ := mount(t, f)
		typeInto(t, e, c.id("/shape", "variant"), "1", "change")
		typeInto(t, e, c.id("/shape/w", "input"), "1", "input")
		typeInto(t, e, c.id("/shape/h", "input"), "2", "input")
		if got, want := value(t, f), `{"shape":{"h":2,"kind":"rect","w":1}}`; got != want {
			t.Errorf("value %s, want %s", got, want)
		}
		click(t, e, c.id("", "raw-toggle"))
		raw := el(t, c.id("", "raw"))
		if !strings.Contains(raw.Get("value").String(), `"kind": "rect"`) {
			t.Fatalf("raw text %q", raw.Get("value").String())
		}
		typeInto(t, e, c.id("", "raw"), `{"shape": {"kind": "circle", "r": 4}}`, "input")
		click(t, e, c.id("", "raw-toggle"))
		if f.RawMode() {
			t.Fatal("still in raw mode")
		}
		if v := el(t, c.id("/shape/r", "input")).Get("value").String(); v != "4" {
			t.Errorf("back in fields, r shows %q", v)
		}
		// A value the fields cannot hold: the form stays raw and says why.
		click(t, e, c.id("", "raw-toggle"))
		typeInto(t, e, c.id("", "raw"), `{"shape": {"kind": "hexagon"}}`, "input")
		click(t, e, c.id("", "raw-toggle"))
		if !f.RawMode() {
			t.Fatal("left raw mode with an unfitting value")
		}
		if msg := el(t, c.id("", "raw")+"-err").Get("textContent").String(); !strings.Contains(msg, "/shape") {
			t.Errorf("raw error %q", msg)
		}
	})

	t.Run("a parent's changes shown by revision", func(t *testing.T) {
		f := loadForm(t, "hard/context_names.json")
		e, _ := mount(t, f)
		f.Prefill(schemaform.Context{SkillID: "checkout"})
		if err := e.Load(&schemaForm{Form: f, IDPrefix: "w", Revision: 1, ShowErrors: true}); err != nil {
			t.Fatal(err)
		}
		e.ConsumeAll()
		if v := el(t, c.id("/skill_id", "input")).Get("value").String(); v != "checkout" {
			t.Errorf("after a new revision, skill_id shows %q", v)
		}
		typeInto(t, e, c.id("/edge_index", "input"), "-1", "input")
		if msg := el(t, c.id("/edge_index", "err")).Get("textContent").String(); msg == "" {
			t.Errorf("ShowErrors: no error beside edge_index")
		}
	})

	t.Run("no error on a field not touched yet", func(t *testing.T) {
		f, err := schemaform.Compile(json.RawMessage(`{"type":"object","required":["skill_id","note"],"properties":{
			"skill_id":{"type":"string","minLength":1},"note":{"type":"string","minLength":3}}}`))
		if err != nil {
			t.Fatal(err)
		}
		e, _ := mount(t, f)
		// A parent reading the value (as the palette does for its
		// preflight) puts errors on the fields; none is shown.
		f.JSON()
		typeInto(t, e, c.id("/note", "input"), "ab", "input")
		doc := js.Global().Get("document")
		if !doc.Call("getElementById", c.id("/skill_id", "err")).IsNull() || el(t, c.id("/skill_id", "input")).Call("getAttribute", "aria-invalid").Truthy() {
			t.Error("an error shows on skill_id, which nobody touched")
		}
		if msg := el(t, c.id("/note", "err")).Get("textContent").String(); msg == "" {
			t.Error("no error on note, which was typed into")
		}
		click(t, e, c.id("", "check"))
		if doc.Call("getElementById", c.id("/skill_id", "err")).IsNull() {
			t.Error("Check shows no error on the empty required field")
		}
	})

	t.Run("a skill id chosen by name", func(t *testing.T) {
		f, err := schemaform.Compile(json.RawMessage(`{"type":"object","required":["skill_id"],"properties":{"skill_id":{"type":"string"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		f.Prefill(schemaform.Context{Skills: []schemaform.Choice{{Value: "019e-a", Label: "Check out a cart (v2)"}, {Value: "019e-b", Label: "File a bug (v1)"}}})
		e, _ := mount(t, f)
		sel := el(t, c.id("/skill_id", "input"))
		if sel.Get("tagName").String() != "SELECT" || sel.Get("options").Length() != 3 || sel.Get("options").Index(2).Get("textContent").String() != "File a bug (v1)" {
			t.Fatalf("skill_id is a %s with %d options", sel.Get("tagName").String(), sel.Get("options").Length())
		}
		typeInto(t, e, c.id("/skill_id", "input"), "019e-b", "change")
		if got, want := value(t, f), `{"skill_id":"019e-b"}`; got != want {
			t.Errorf("value %s, want %s", got, want)
		}
	})

	t.Run("free properties", func(t *testing.T) {
		f := loadForm(t, "hard/additional.json")
		e, _ := mount(t, f)
		click(t, e, c.id("/labels", "add-entry"))
		typeInto(t, e, c.id("/labels", "key-0"), "retries", "input")
		typeInto(t, e, c.id("/labels/retries", "input"), "3", "input")
		if got, want := value(t, f), `{"labels":{"retries":3}}`; got != want {
			t.Errorf("value %s, want %s", got, want)
		}
	})
}
