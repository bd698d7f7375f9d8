package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/schemaform"
)

// schemaForm renders a *schemaform.Form: a field per schema value, its
// label tied to its control, its description, constraints and error
// beside it; prefilled fields say where their value came from and stay
// editable; arrays add and remove items; a oneOf/anyOf field chooses its
// variant; the whole form can switch to raw JSON and back.
//
// It is self-contained: the parent gives the Form and is told of every
// change through OnChange (after the form has been updated). A field's
// error shows once the user has touched that field (schemaform's
// Field.Edited), and every error once the user asks to check the form or
// the parent sets ShowErrors (e.g. after a failed submit); from then on
// they follow every edit. A field that has not been touched never shows
// one: a form just opened is not wrong, only not filled in. A text field
// the page offers choices for (a skill id: the library's skills by name)
// is a list to choose from. Optional fields with nothing in them fold
// under "More options"; required, inferred and target fields never fold.
//
// go-app re-renders a component when a prop changes, and the Form is a
// pointer that stays the same: a parent that changes the Form itself
// (Prefill, Load, a new Context) bumps Revision to have it shown.
type schemaForm struct {
	app.Compo

	// Form is the form to render and edit. A nil Form renders nothing.
	Form *schemaform.Form
	// OnChange is called after each change the user makes.
	OnChange func(ctx app.Context, f *schemaform.Form)
	// IDPrefix makes element ids unique when several forms are on a page.
	IDPrefix string
	// ShowErrors shows the form's errors and keeps them current.
	ShowErrors bool
	// Revision is bumped by a parent that changed the Form itself.
	Revision int

	checked  bool   // errors are shown and kept current
	rawErr   string // why the raw JSON did not go back into the fields
	lastForm *schemaform.Form
}

func (c *schemaForm) showErrors() bool { return c.checked || c.ShowErrors }

// fieldError is the error fl shows now: its own once the user touched
// it, every one once the form is checked.
func (c *schemaForm) fieldError(fl *schemaform.Field) string {
	if c.showErrors() || fl.Edited() {
		return fl.Error
	}
	return ""
}

func (c *schemaForm) changed(ctx app.Context) {
	// The errors are kept current; which show is fieldError's to say.
	c.Form.Value()
	if c.OnChange != nil {
		c.OnChange(ctx, c.Form)
	}
}

// id is the element id of the field at pointer: the prefix, then the
// pointer with every character outside [A-Za-z0-9] written as _hex, so
// distinct pointers give distinct ids.
func (c *schemaForm) id(pointer, part string) string {
	var b strings.Builder
	b.WriteString(c.IDPrefix)
	if c.IDPrefix == "" {
		b.WriteString("sf")
	}
	b.WriteString("-f")
	for _, r := range pointer {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "_%x", r)
		}
	}
	if part != "" {
		b.WriteString("-" + part)
	}
	return b.String()
}

// OnUpdate refreshes the errors a parent asked to see. Another Form is
// another input: it starts unchecked.
func (c *schemaForm) OnUpdate(ctx app.Context) {
	if c.Form != c.lastForm {
		c.lastForm, c.checked, c.rawErr = c.Form, false, ""
	}
	if c.ShowErrors && c.Form != nil {
		c.Form.Value()
	}
}

func (c *schemaForm) OnMount(ctx app.Context) { c.lastForm = c.Form }

func (c *schemaForm) Render() app.UI {
	f := c.Form
	if f == nil {
		return app.Div().Class("sf")
	}
	toggle := "Edit as JSON"
	if f.RawMode() {
		toggle = "Back to fields"
	}
	var body app.UI
	if f.RawMode() {
		body = c.renderRaw()
	} else {
		body = app.Div().Class("sf-fields").Body(c.renderChildren(f.Root)...)
	}
	return app.Div().Class("sf").Body(
		app.Div().Class("sf-toolbar").Body(
			app.Button().Type("button").Class("secondary").ID(c.id("", "raw-toggle")).
				Aria("pressed", strconv.FormatBool(f.RawMode())).Text(toggle).OnClick(c.onToggleRaw),
			app.Button().Type("button").Class("secondary").ID(c.id("", "check")).Text("Check").OnClick(c.onCheck),
			app.If(c.showErrors(), func() app.UI { return c.renderSummary() }),
		),
		body,
	)
}

func (c *schemaForm) renderSummary() app.UI {
	_, errs := c.Form.Value()
	if len(errs) == 0 {
		return app.Span().Class("sf-summary sf-summary-ok").Aria("live", "polite").Text("The input fits the schema.")
	}
	word := "problems"
	if len(errs) == 1 {
		word = "problem"
	}
	return app.Span().Class("sf-summary sf-summary-error").Aria("live", "polite").Text(fmt.Sprintf("%d %s: see the marked fields.", len(errs), word))
}

func (c *schemaForm) renderRaw() app.UI {
	f := c.Form
	id := c.id("", "raw")
	var errText string
	if c.showErrors() {
		if _, errs := f.Value(); len(errs) > 0 {
			var lines []string
			for _, e := range errs {
				lines = append(lines, e.Error())
			}
			errText = strings.Join(lines, "\n")
		}
	}
	msg := strings.TrimSpace(strings.Join([]string{c.rawErr, errText}, "\n"))
	ta := app.Textarea().ID(id).Class("sf-json sf-raw").Rows(16).Attr("spellcheck", "false").
		Attr("value", f.RawText()).OnInput(c.onRawInput)
	if msg != "" {
		ta = ta.Aria("describedby", id+"-err").Aria("invalid", "true")
	}
	return app.Div().Class("sf-field").Body(
		app.Label().For(id).Text("Input as JSON"),
		ta,
		app.If(msg != "", func() app.UI { return app.P().ID(id + "-err").Class("sf-error").Text(msg) }),
	)
}

// renderChildren renders an object's properties (folding the empty
// optional ones) and its free entries.
func (c *schemaForm) renderChildren(fl *schemaform.Field) []app.UI {
	var shown, folded []app.UI
	for _, ch := range fl.Fields {
		if ch.Folded() {
			folded = append(folded, c.renderField(ch))
		} else {
			shown = append(shown, c.renderField(ch))
		}
	}
	if fl.AllowEntries {
		shown = append(shown, c.renderEntries(fl))
	}
	if len(folded) > 0 {
		shown = append(shown, app.Details().Class("sf-more").Body(
			append([]app.UI{app.Summary().Text(fmt.Sprintf("More options (%d)", len(folded)))}, folded...)...,
		))
	}
	if len(fl.Fields) == 0 && !fl.AllowEntries && fl.Path == "" {
		shown = append(shown, app.P().Class("muted").Text("This action takes no input."))
	}
	return shown
}

func (c *schemaForm) renderField(fl *schemaform.Field) app.UI {
	switch fl.Widget {
	case schemaform.WidgetObject:
		return c.renderObject(fl)
	case schemaform.WidgetArray:
		return c.renderArray(fl)
	case schemaform.WidgetVariant:
		return c.renderVariant(fl)
	}
	return c.renderScalar(fl, true)
}

// legend is a group's caption: label, required mark, inferred note.
func (c *schemaForm) legend(fl *schemaform.Field) app.UI {
	return app.Legend().Body(
		app.Text(fl.Label),
		app.If(fl.Required, func() app.UI { return app.Span().Class("sf-req").Text(" (required)") }),
	)
}

// notes are a field's description, hints, fallback reason and inferred
// source. scope tells apart the notes of a variant and of its chosen
// field, which share a pointer.
func (c *schemaForm) notes(fl *schemaform.Field, scope string) []app.UI {
	var out []app.UI
	if fl.Description != "" {
		out = append(out, app.P().ID(c.id(fl.Path, scope+"desc")).Class("sf-desc").Text(fl.Description))
	}
	if h := fl.Constraints.Hints(); len(h) > 0 {
		out = append(out, app.P().ID(c.id(fl.Path, scope+"hint")).Class("sf-hint").Text(strings.Join(h, " · ")))
	}
	if fl.Fallback != "" {
		out = append(out, app.P().ID(c.id(fl.Path, scope+"why")).Class("sf-hint").Text("Raw JSON: "+fl.Fallback+"."))
	}
	if fl.Inferred != nil {
		out = append(out, app.P().ID(c.id(fl.Path, scope+"inferred")).Class("sf-inferred").Text("prefilled from: "+fl.Inferred.Source))
	}
	return out
}

func (c *schemaForm) errorLine(fl *schemaform.Field, scope string) app.UI {
	msg := c.fieldError(fl)
	return app.If(msg != "", func() app.UI {
		return app.P().ID(c.id(fl.Path, scope+"err")).Class("sf-error").Text(msg)
	})
}

// describedBy lists the ids of a field's notes and error (in scope, as
// notes and errorLine name them).
func (c *schemaForm) describedBy(fl *schemaform.Field, scope string) string {
	var ids []string
	if fl.Description != "" {
		ids = append(ids, c.id(fl.Path, scope+"desc"))
	}
	if len(fl.Constraints.Hints()) > 0 {
		ids = append(ids, c.id(fl.Path, scope+"hint"))
	}
	if fl.Fallback != "" {
		ids = append(ids, c.id(fl.Path, scope+"why"))
	}
	if fl.Inferred != nil {
		ids = append(ids, c.id(fl.Path, scope+"inferred"))
	}
	if c.fieldError(fl) != "" {
		ids = append(ids, c.id(fl.Path, scope+"err"))
	}
	return strings.Join(ids, " ")
}

func (c *schemaForm) renderObject(fl *schemaform.Field) app.UI {
	body := []app.UI{c.legend(fl)}
	body = append(body, c.notes(fl, "")...)
	if fl.Collapsed {
		body = append(body, app.Button().Type("button").Class("secondary").ID(c.id(fl.Path, "expand")).
			Attr("data-ptr", fl.Path).Text("Fill in "+fl.Label).OnClick(c.onExpand))
	} else {
		body = append(body, c.renderChildren(fl)...)
	}
	body = append(body, c.errorLine(fl, ""))
	return app.FieldSet().Class(c.fieldClass(fl, "sf-group")).ID(c.id(fl.Path, "group")).Body(body...)
}

func (c *schemaForm) renderEntries(fl *schemaform.Field) app.UI {
	rows := []app.UI{}
	for i, e := range fl.Entries {
		keyID := c.id(fl.Path, "key-"+strconv.Itoa(i))
		row := []app.UI{
			app.Div().Class("sf-field").Body(
				app.Label().For(keyID).Text("Name"),
				app.Input().Type("text").ID(keyID).Value(e.Key).Attr("data-ptr", fl.Path).Attr("data-index", i).OnInput(c.onKey),
				app.If(e.KeyError != "", func() app.UI { return app.P().Class("sf-error").Text(e.KeyError) }),
			),
		}
		if e.Key != "" {
			row = append(row, c.renderField(e.Value))
		}
		row = append(row, app.Button().Type("button").Class("secondary sf-remove").
			Aria("label", "Remove property "+strconv.Quote(e.Key)).Attr("data-ptr", fl.Path).Attr("data-index", i).Text("Remove").OnClick(c.onRemoveEntry))
		rows = append(rows, app.Div().Class("sf-entry").Body(row...))
	}
	rows = append(rows, app.Button().Type("button").Class("secondary sf-add").ID(c.id(fl.Path, "add-entry")).
		Attr("data-ptr", fl.Path).Text("Add property").OnClick(c.onAddEntry))
	return app.Div().Class("sf-entries").Body(rows...)
}

func (c *schemaForm) renderArray(fl *schemaform.Field) app.UI {
	body := []app.UI{c.legend(fl)}
	body = append(body, c.notes(fl, "")...)
	items := []app.UI{}
	for i, it := range fl.Fields {
		items = append(items, app.Li().Class("sf-item").Body(
			c.renderField(it),
			app.Button().Type("button").Class("secondary sf-remove").ID(c.id(it.Path, "remove")).
				Aria("label", fmt.Sprintf("Remove item %d of %s", i+1, fl.Label)).Text("Remove").
				Attr("data-ptr", it.Path).OnClick(c.onRemoveItem),
		))
	}
	if len(items) > 0 {
		body = append(body, app.Ol().Class("sf-items").Body(items...))
	} else {
		body = append(body, app.P().Class("muted").Text("No items."))
	}
	full := fl.Constraints.MaxItems != nil && len(fl.Fields) >= *fl.Constraints.MaxItems
	body = append(body,
		app.Button().Type("button").Class("secondary sf-add").ID(c.id(fl.Path, "add")).Disabled(full).
			Text("Add item").Aria("label", "Add an item to "+fl.Label).Attr("data-ptr", fl.Path).OnClick(c.onAddItem),
		c.errorLine(fl, ""),
	)
	return app.FieldSet().Class(c.fieldClass(fl, "sf-group sf-array")).ID(c.id(fl.Path, "group")).Body(body...)
}

func (c *schemaForm) renderVariant(fl *schemaform.Field) app.UI {
	id := c.id(fl.Path, "variant")
	opts := []app.UI{}
	if !fl.Required {
		opts = append(opts, app.Option().Value("-1").Selected(fl.Chosen < 0).Text("— not set —"))
	}
	for i, v := range fl.Variants {
		opts = append(opts, app.Option().Value(strconv.Itoa(i)).Selected(fl.Chosen == i).Text(v))
	}
	sel := app.Select().ID(id).Attr("data-ptr", fl.Path).Body(opts...).OnChange(c.onChoose)
	if d := c.describedBy(fl, "variant-"); d != "" {
		sel = sel.Aria("describedby", d)
	}
	body := []app.UI{c.legend(fl)}
	body = append(body, c.notes(fl, "variant-")...)
	body = append(body, app.Div().Class("sf-field").Body(
		app.Label().For(id).Text("Kind of value"),
		sel,
	))
	if fl.Chosen >= 0 && len(fl.Fields) == 1 {
		ch := fl.Fields[0]
		switch {
		case ch.Widget == schemaform.WidgetObject && ch.Collapsed:
			body = append(body, c.renderObject(ch))
		case ch.Widget == schemaform.WidgetObject:
			body = append(body, c.renderChildren(ch)...)
			body = append(body, c.errorLine(ch, ""))
		case ch.Widget == schemaform.WidgetArray || ch.Widget == schemaform.WidgetVariant:
			body = append(body, c.renderField(ch))
		default:
			body = append(body, c.renderScalar(ch, false))
		}
	}
	body = append(body, c.errorLine(fl, "variant-"))
	return app.FieldSet().Class(c.fieldClass(fl, "sf-group sf-variant")).ID(c.id(fl.Path, "group")).Body(body...)
}

func (c *schemaForm) fieldClass(fl *schemaform.Field, base string) string {
	cl := base
	if fl.Inferred != nil {
		cl += " sf-is-inferred"
	}
	if fl.Target {
		cl += " sf-is-target"
	}
	if c.fieldError(fl) != "" {
		cl += " sf-has-error"
	}
	return cl
}

// renderScalar renders a value field. Inside a variant (own=false) the
// variant's fieldset already carries the label's words, so the control
// is labelled "Value".
func (c *schemaForm) renderScalar(fl *schemaform.Field, own bool) app.UI {
	id := c.id(fl.Path, "input")
	label := fl.Label
	if !own {
		label = "Value"
	}
	desc := c.describedBy(fl, "")
	lab := app.Label().For(id).Body(
		app.Text(label),
		app.If(fl.Required && own, func() app.UI { return app.Span().Class("sf-req").Text(" (required)") }),
	)
	var control app.UI
	disabled := fl.Null
	switch fl.Widget {
	case schemaform.WidgetText:
		if len(fl.Choices) > 0 {
			control = c.choices(fl, id, desc, disabled)
			break
		}
		in := app.Input().Type(inputType(fl)).ID(id).Value(fl.Raw).Disabled(disabled).Attr("data-ptr", fl.Path).OnInput(c.onSet)
		in = c.aria(in, fl, desc)
		control = in
	case schemaform.WidgetNumber, schemaform.WidgetInteger:
		mode := "decimal"
		if fl.Widget == schemaform.WidgetInteger {
			mode = "numeric"
		}
		in := app.Input().Type("text").Attr("inputmode", mode).ID(id).Value(fl.Raw).Disabled(disabled).Attr("data-ptr", fl.Path).OnInput(c.onSet)
		control = c.aria(in, fl, desc)
	case schemaform.WidgetTextArea, schemaform.WidgetJSON:
		cl := "sf-text"
		if fl.Widget == schemaform.WidgetJSON {
			cl = "sf-json"
		}
		ta := app.Textarea().ID(id).Class(cl).Rows(4).Attr("value", fl.Raw).Disabled(disabled).Attr("data-ptr", fl.Path).OnInput(c.onSet)
		if fl.Widget == schemaform.WidgetJSON {
			ta = ta.Attr("spellcheck", "false")
		}
		control = ariaOf(ta, fl, desc, c.fieldError(fl) != "")
	case schemaform.WidgetBoolean, schemaform.WidgetSelect:
		opts := []app.UI{app.Option().Value("").Selected(fl.Raw == "").Text("— not set —")}
		if fl.Widget == schemaform.WidgetBoolean {
			opts = append(opts,
				app.Option().Value("true").Selected(fl.Raw == "true").Text("true"),
				app.Option().Value("false").Selected(fl.Raw == "false").Text("false"))
		} else {
			for _, o := range fl.Options {
				opts = append(opts, app.Option().Value(o.Label).Selected(fl.Raw == o.Label).Text(o.Label))
			}
		}
		sel := app.Select().ID(id).Disabled(disabled).Attr("data-ptr", fl.Path).Body(opts...).OnChange(c.onSet)
		control = ariaOf(sel, fl, desc, c.fieldError(fl) != "")
	case schemaform.WidgetConst:
		control = app.Output().ID(id).Class("sf-const").Text(constText(fl.Const))
	case schemaform.WidgetNull:
		control = app.Output().ID(id).Class("sf-const").Text("null")
	}
	body := []app.UI{lab, control}
	if fl.Nullable {
		nid := c.id(fl.Path, "null")
		body = append(body, app.Div().Class("choice").Body(
			app.Input().Type("checkbox").ID(nid).Checked(fl.Null).Attr("data-ptr", fl.Path).OnChange(c.onNull),
			app.Label().For(nid).Text("Send null"),
		))
	}
	body = append(body, c.notes(fl, "")...)
	body = append(body, c.errorLine(fl, ""))
	return app.Div().Class(c.fieldClass(fl, "sf-field")).Body(body...)
}

// choices is a text field the page offers values for, as a list to
// choose from by name (the value stays the field's text). A value that is
// not among them (typed before, or prefilled) stays, shown as it is.
func (c *schemaForm) choices(fl *schemaform.Field, id, desc string, disabled bool) app.UI {
	opts := []app.UI{app.Option().Value("").Selected(fl.Raw == "").Text("— choose —")}
	found := fl.Raw == ""
	for _, ch := range fl.Choices {
		found = found || ch.Value == fl.Raw
		opts = append(opts, app.Option().Value(ch.Value).Selected(fl.Raw == ch.Value).Text(ch.Label))
	}
	if !found {
		opts = append(opts, app.Option().Value(fl.Raw).Selected(true).Text(fl.Raw+" (not in the list)"))
	}
	sel := app.Select().ID(id).Class("sf-choices").Disabled(disabled).Attr("data-ptr", fl.Path).Body(opts...).OnChange(c.onSet)
	if desc != "" {
		sel = sel.Aria("describedby", desc)
	}
	if fl.Required {
		sel = sel.Aria("required", "true")
	}
	if c.fieldError(fl) != "" {
		sel = sel.Aria("invalid", "true")
	}
	return sel
}

func (c *schemaForm) aria(in app.HTMLInput, fl *schemaform.Field, desc string) app.HTMLInput {
	in = ariaOf(in, fl, desc, c.fieldError(fl) != "")
	if fl.Constraints.Pattern != "" || fl.Constraints.Format != "" {
		in = in.Attr("spellcheck", "false")
	}
	return in
}

// ariaOf gives control e of field fl the ARIA states a screen reader
// announces: described by desc, required, invalid.
func ariaOf[E interface{ Aria(string, any) E }](e E, fl *schemaform.Field, desc string, invalid bool) E {
	if desc != "" {
		e = e.Aria("describedby", desc)
	}
	if fl.Required {
		e = e.Aria("required", "true")
	}
	if invalid {
		e = e.Aria("invalid", "true")
	}
	return e
}

// inputType picks the browser's input type for a string format. Formats
// whose browser control does not produce the schema's text (date-time
// gives no zone) stay text; the hint says the format.
func inputType(fl *schemaform.Field) string {
	switch fl.Constraints.Format {
	case "uri", "url", "iri":
		return "url"
	case "email", "idn-email":
		return "email"
	case "date":
		return "date"
	}
	return "text"
}

func constText(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// The handlers read the field's pointer (and an entry's index) from the
// element's data attributes rather than from a closure: go-app keeps an
// element's old handler when the new one has the same code, so a closure
// over a pointer would go stale when items move or a variant changes.

// ptr is the pointer in the event source's data-ptr.
func ptr(ctx app.Context) string {
	return ctx.JSSrc().Call("getAttribute", "data-ptr").String()
}

// index is the entry index in the event source's data-index.
func index(ctx app.Context) int {
	i, err := strconv.Atoi(ctx.JSSrc().Call("getAttribute", "data-index").String())
	if err != nil {
		return -1
	}
	return i
}

func (c *schemaForm) onSet(ctx app.Context, e app.Event) {
	if err := c.Form.Set(ptr(ctx), recordTyped(ctx)); err == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onNull(ctx app.Context, e app.Event) {
	if err := c.Form.SetNull(ptr(ctx), ctx.JSSrc().Get("checked").Bool()); err == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onChoose(ctx app.Context, e app.Event) {
	i, err := strconv.Atoi(recordTyped(ctx))
	if err == nil && c.Form.Choose(ptr(ctx), i) == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onAddItem(ctx app.Context, e app.Event) {
	if _, err := c.Form.AddItem(ptr(ctx)); err == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onRemoveItem(ctx app.Context, e app.Event) {
	if err := c.Form.RemoveItem(ptr(ctx)); err == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onAddEntry(ctx app.Context, e app.Event) {
	if err := c.Form.AddEntry(ptr(ctx)); err == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onKey(ctx app.Context, e app.Event) {
	if err := c.Form.SetKey(ptr(ctx), index(ctx), recordTyped(ctx)); err == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onRemoveEntry(ctx app.Context, e app.Event) {
	if err := c.Form.RemoveEntry(ptr(ctx), index(ctx)); err == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onExpand(ctx app.Context, e app.Event) {
	if err := c.Form.Expand(ptr(ctx)); err == nil {
		c.changed(ctx)
	}
}

func (c *schemaForm) onRawInput(ctx app.Context, e app.Event) {
	c.Form.SetRawText(recordTyped(ctx))
	c.rawErr = ""
	c.changed(ctx)
}

func (c *schemaForm) onToggleRaw(ctx app.Context, e app.Event) {
	c.rawErr = ""
	if err := c.Form.SetRawMode(!c.Form.RawMode()); err != nil {
		c.rawErr = err.Error()
		return
	}
	c.changed(ctx)
}

func (c *schemaForm) onCheck(ctx app.Context, e app.Event) {
	c.checked = true
	c.Form.Value()
	if c.OnChange != nil {
		c.OnChange(ctx, c.Form)
	}
}
