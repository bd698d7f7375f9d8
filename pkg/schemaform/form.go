package schemaform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Form is the editable state of one tool's input: a tree of fields made
// from the schema, or, in raw mode, one JSON text. Its methods keep the
// tree consistent with the schema (paths, items, the chosen variant);
// callers read the fields and change them only through the methods.
// A Form is not safe for concurrent use.
type Form struct {
	// Root is the field of the whole input, at pointer "".
	Root *Field

	schema *jsonschema.Schema
	root   *node

	raw       bool
	rawText   string
	loadDepth int // how deep the running Load is
}

// Field is one value of the input, at a JSON pointer of the instance.
//
// Invariants: Path is the instance location the field's value takes in
// Value(); a variant's chosen field shares its path. Raw is the text the
// user sees and edits; for a select it is the chosen option's Label, for a
// boolean "true", "false" or "" (not set). An empty Raw means "not set":
// an unset optional field is left out of the value.
type Field struct {
	Path        string
	Name        string // property name, or the item's index; "" at the root
	Label       string // the schema's title, else the name
	Description string
	Widget      Widget
	Required    bool
	ReadOnly    bool // the schema says readOnly; shown, still editable
	Default     any  // the schema's default, when HasDefault
	HasDefault  bool
	Const       any // WidgetConst: the fixed value
	Options     []Option
	Constraints Constraints
	Nullable    bool // null is allowed besides the widget's values
	Null        bool // the user chose null
	Fallback    string

	Raw   string
	Error string // parse and validation errors, after Value

	// Inferred says where a prefilled value came from; nil when the
	// value is the user's (or the schema's default). Editing clears it.
	Inferred *Inference
	// Target marks a field that names what an action acts on (target,
	// path, id, file, url …). Such fields are never folded away.
	Target bool
	// Choices are the values the page offers for this text field, by
	// name (Prefill sets them from the Context: the library's skills on a
	// skill id field). The value stays the field's text: a choice is one
	// way to fill it.
	Choices []Choice

	// Fields are an object's properties, an array's items, or a
	// variant's chosen field (at most one).
	Fields []*Field
	// Entries are an object's free key/value rows, when AllowEntries.
	Entries      []*Entry
	AllowEntries bool
	// Variants are the labels of a variant field's choices; Chosen is the
	// index of the chosen one, -1 for none.
	Variants []string
	Chosen   int
	// Collapsed: a recursive object not built yet (Expand builds it).
	Collapsed bool

	n        *node
	touched  bool   // the user (or Load) set Raw; an untouched default is only a suggestion
	branchKw string // a nullable oneOf/anyOf pair: the keyword and
	branch   int    // the index of the non-null branch
}

// Option is one choice of a select.
type Option struct {
	Label string
	Value any
}

// Entry is a free key/value row of an object.
type Entry struct {
	Key      string
	KeyError string
	Value    *Field
}

// FieldError is a problem with the input, at the instance location it
// concerns: a parse error ("not a number") or a schema violation
// (Keyword is the failing keyword, e.g. "minimum", "required").
type FieldError struct {
	Path    string `json:"path"`
	Keyword string `json:"keyword"`
	Message string `json:"message"`
}

func (e FieldError) Error() string {
	at := e.Path
	if at == "" {
		at = "(input)"
	}
	return at + ": " + e.Message
}

// PointerError is a call naming a field the form does not have, or asking
// a field for something its widget cannot do.
type PointerError struct {
	Pointer string
	Op      string
	Msg     string
}

func (e *PointerError) Error() string {
	return fmt.Sprintf("schemaform: %s %q: %s", e.Op, e.Pointer, e.Msg)
}

// Compile makes a form from a tool's input schema (draft 2020-12 unless
// its $schema says otherwise). Only local references ("#…") are
// followed. Whatever the form cannot model becomes a raw-JSON field that
// says why; the whole schema still validates the assembled value.
func Compile(schema json.RawMessage) (*Form, error) {
	doc, err := decode(schema)
	if err != nil {
		return nil, fmt.Errorf("schemaform: schema: %w", err)
	}
	var rootMap map[string]any
	switch d := doc.(type) {
	case map[string]any:
		rootMap = d
	case bool:
		rootMap = map[string]any{}
	default:
		return nil, fmt.Errorf("schemaform: schema: want an object, got %s", kindOf(doc))
	}
	c := &compiler{root: rootMap, byRef: map[string]*node{}}
	root, err := c.compile(rootMap, "#", 0)
	if err != nil {
		return nil, err
	}
	if root.origin == "" {
		root.origin = "#" // a "$ref": "#" inside is the root again
	}
	sch, err := validator(schema)
	if err != nil {
		return nil, err
	}
	f := &Form{schema: sch, root: root}
	f.Root = f.build(root, "", "", true, nil)
	return f, nil
}

// urn is the location the validator knows the schema by.
const urn = "urn:workbench:schemaform:input"

func validator(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("schemaform: schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Formats are checked: a form is where a user learns that "tomorrow"
	// is not a date-time, before the server says so.
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(urn, doc); err != nil {
		return nil, fmt.Errorf("schemaform: schema: %w", err)
	}
	sch, err := c.Compile(urn)
	if err != nil {
		return nil, fmt.Errorf("schemaform: schema: %w", err)
	}
	return sch, nil
}

type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("%s: the form follows only references inside the schema", u)
}

// build makes the field of node n at path. ancestors holds the object
// nodes being built above it: meeting one again is recursion, and that
// object stays collapsed until the user expands it.
func (f *Form) build(n *node, path, name string, required bool, ancestors []*node) *Field {
	if n.inner != nil {
		return f.buildWrapped(n, path, name, required, ancestors)
	}
	fl := &Field{
		Path: path, Name: name, Label: name, Description: n.desc, Widget: n.widget,
		Required: required, ReadOnly: n.readOnly, Default: n.def, HasDefault: n.hasDef,
		Const: n.constVal, Constraints: n.c, Nullable: n.nullable, Fallback: n.fallback,
		Chosen: -1, n: n, Target: isTarget(name),
	}
	if n.title != "" {
		fl.Label = n.title
	}
	if fl.Label == "" {
		fl.Label = "Input"
	}
	for _, v := range n.enum {
		fl.Options = append(fl.Options, Option{Label: FieldText(v), Value: v})
	}
	switch n.widget {
	case WidgetObject:
		fl.AllowEntries = n.extraOK
		for _, a := range ancestors {
			if a == n || a.origin != "" && a.origin == n.origin {
				fl.Collapsed = true
				return fl
			}
		}
		f.buildProps(fl, append(ancestors, n))
	case WidgetArray:
		if n.hasDef {
			if items, ok := n.def.([]any); ok {
				for _, v := range items {
					it := f.build(n.items, path+"/"+strconv.Itoa(len(fl.Fields)), strconv.Itoa(len(fl.Fields)), true, ancestors)
					if err := f.load(it, v); err == nil {
						fl.Fields = append(fl.Fields, it)
					}
				}
				untouch(fl)
			}
		}
	case WidgetVariant:
		fl.Variants = append([]string(nil), n.varLabels...)
		recursive := false
		for _, a := range ancestors {
			recursive = recursive || a == n
		}
		ancestors = append(ancestors, n)
		if required && len(n.variants) > 0 && !recursive {
			f.choose(fl, 0, ancestors)
		}
		if n.hasDef {
			if i := fitting(n, n.def); i >= 0 {
				f.choose(fl, i, ancestors)
				if err := f.load(fl.Fields[0], n.def); err == nil {
					untouch(fl.Fields[0])
				}
			}
		}
	default:
		if n.hasDef {
			if n.def == nil && n.nullable {
				fl.Null = true
			} else {
				fl.Raw = FieldText(n.def)
			}
		}
	}
	return fl
}

// buildWrapped builds the field of a wrapper node: its inner node's
// field, made nullable and described as the wrapper says.
func (f *Form) buildWrapped(n *node, path, name string, required bool, ancestors []*node) *Field {
	// Refs that only point at each other ($defs A: {$ref: B}, B: {$ref:
	// A}) describe no value at all: raw JSON, saying so.
	seen := map[*node]bool{}
	for w := n; w.inner != nil; w = w.inner {
		if seen[w] {
			return &Field{Path: path, Name: name, Label: name, Widget: WidgetJSON, Required: required, Chosen: -1,
				Fallback: "the schema's references only lead back to themselves", Target: isTarget(name),
				n: &node{widget: WidgetJSON}}
		}
		seen[w] = true
	}
	fl := f.build(n.inner, path, name, required, ancestors)
	fl.Nullable = fl.Nullable || n.nullable
	if n.branchKw != "" {
		fl.branchKw, fl.branch = n.branchKw, n.branch
	}
	if n.title != "" {
		fl.Label = n.title
	}
	if n.desc != "" {
		fl.Description = n.desc
	}
	if n.hasDef {
		fl.Default, fl.HasDefault = n.def, true
		switch {
		case n.def == nil && fl.Nullable:
			fl.Null, fl.Raw = true, ""
		case fl.Widget != WidgetObject && fl.Widget != WidgetArray && fl.Widget != WidgetVariant:
			fl.Raw = FieldText(n.def)
		}
	}
	return fl
}

func (f *Form) buildProps(fl *Field, ancestors []*node) {
	fl.Fields = nil
	for _, p := range fl.n.props {
		fl.Fields = append(fl.Fields, f.build(p.n, fl.Path+"/"+escape(p.name), p.name, p.required, ancestors))
	}
}

// choose makes variant i the chosen one, with a fresh field; -1 chooses
// none.
func (f *Form) choose(fl *Field, i int, ancestors []*node) {
	fl.Chosen = i
	fl.Fields = nil
	if i < 0 {
		return
	}
	sub := f.build(fl.n.variants[i], fl.Path, fl.Name, true, ancestors)
	sub.Label, sub.Target = fl.Label, fl.Target
	if sub.Description == "" {
		sub.Description = fl.Description
	}
	fl.Fields = []*Field{sub}
}

// untouch marks a subtree as holding only suggestions (defaults).
func untouch(fl *Field) {
	fl.touched = false
	for _, c := range fl.Fields {
		untouch(c)
	}
}

// isTarget: names that say what an action acts on. The schema alone does
// not say whether an action writes, so the rule applies to every action:
// it errs towards showing a field.
func isTarget(name string) bool {
	n := norm(name)
	switch n {
	case "target", "targets", "path", "paths", "id", "ids", "file", "files", "filename", "filepath",
		"uri", "url", "destination", "dest", "ref", "selector":
		return true
	}
	idSuffix := strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID") ||
		strings.HasSuffix(strings.ToLower(name), "_id") || strings.HasSuffix(strings.ToLower(name), "-id")
	return idSuffix || strings.HasSuffix(n, "path") || strings.HasSuffix(n, "target")
}

// norm folds a field name for matching: lower case, without _ - and
// spaces, so skill_id, skillId and skill-id are one name.
func norm(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r != '_' && r != '-' && r != ' ' && r != '.' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Field returns the field at pointer, or nil. When a variant and its
// chosen field share the pointer, it returns the innermost one, which
// holds the value.
func (f *Form) Field(pointer string) *Field {
	var found *Field
	walk(f.Root, func(fl *Field) bool {
		if fl.Path == pointer {
			found = fl
		}
		return strings.HasPrefix(pointer, fl.Path)
	})
	return found
}

// variantAt returns the variant field at pointer, or nil.
func (f *Form) variantAt(pointer string) *Field {
	var found *Field
	walk(f.Root, func(fl *Field) bool {
		if fl.Path == pointer && fl.Widget == WidgetVariant && found == nil {
			found = fl
		}
		return strings.HasPrefix(pointer, fl.Path)
	})
	return found
}

// Walk calls fn for every field in display order, depth first; fn
// returns false to skip a field's children.
func (f *Form) Walk(fn func(*Field) bool) { walk(f.Root, fn) }

func walk(fl *Field, fn func(*Field) bool) {
	if !fn(fl) {
		return
	}
	for _, c := range fl.Fields {
		walk(c, fn)
	}
	for _, e := range fl.Entries {
		walk(e.Value, fn)
	}
}

// Edited reports whether the user changed this field or one inside it:
// typed into it, chose a variant or null, added or removed an item or a
// property. A prefilled value or an untouched default is not an edit. A
// UI shows a field's error once it is edited, or when the user asks for
// the whole form to be checked: before that, an error only says the form
// is not filled in yet.
func (fl *Field) Edited() bool {
	edited := false
	walk(fl, func(c *Field) bool {
		edited = edited || c.touched
		return !edited
	})
	return edited
}

// Set gives the field at pointer the text raw. The text is parsed when
// the value is assembled; a parse error then stays on the field. Setting
// a value clears its Inferred mark (the user owns it now) and null.
func (f *Form) Set(pointer, raw string) error {
	fl := f.Field(pointer)
	if fl == nil {
		return &PointerError{pointer, "set", "no such field"}
	}
	switch fl.Widget {
	case WidgetObject, WidgetArray, WidgetVariant, WidgetConst, WidgetNull:
		return &PointerError{pointer, "set", "a " + string(fl.Widget) + " field has no text of its own"}
	}
	fl.Raw, fl.touched, fl.Inferred, fl.Null, fl.Error = raw, true, nil, false, ""
	return nil
}

// SetNull chooses null (or takes it back) for a nullable field.
func (f *Form) SetNull(pointer string, null bool) error {
	fl := f.Field(pointer)
	if fl == nil {
		return &PointerError{pointer, "set null", "no such field"}
	}
	if !fl.Nullable {
		return &PointerError{pointer, "set null", "null is not allowed here"}
	}
	fl.Null, fl.touched, fl.Inferred = null, true, nil
	return nil
}

// Choose picks variant i (-1: none) of the variant field at pointer. The
// variant's field starts empty: values typed for another variant do not
// carry over, since they belonged to another shape.
func (f *Form) Choose(pointer string, i int) error {
	fl := f.variantAt(pointer)
	if fl == nil {
		return &PointerError{pointer, "choose", "no variant field here"}
	}
	if i < -1 || i >= len(fl.n.variants) {
		return &PointerError{pointer, "choose", fmt.Sprintf("variant %d of %d", i, len(fl.n.variants))}
	}
	f.choose(fl, i, nil)
	fl.touched = true
	return nil
}

// AddItem appends an empty item (with the item schema's defaults) to the
// array at pointer and returns the new item's pointer.
func (f *Form) AddItem(pointer string) (string, error) {
	fl := f.Field(pointer)
	if fl == nil || fl.Widget != WidgetArray {
		return "", &PointerError{pointer, "add item", "no array field here"}
	}
	i := len(fl.Fields)
	it := f.build(fl.n.items, pointer+"/"+strconv.Itoa(i), strconv.Itoa(i), true, nil)
	fl.Fields = append(fl.Fields, it)
	fl.touched = true
	return it.Path, nil
}

// RemoveItem removes the array item at pointer; the items after it move
// up one index, and their pointers with them.
func (f *Form) RemoveItem(pointer string) error {
	i := strings.LastIndexByte(pointer, '/')
	if i < 0 {
		return &PointerError{pointer, "remove item", "not an array item"}
	}
	arr := f.Field(pointer[:i])
	idx, err := strconv.Atoi(pointer[i+1:])
	if arr == nil || arr.Widget != WidgetArray || err != nil || idx < 0 || idx >= len(arr.Fields) {
		return &PointerError{pointer, "remove item", "not an array item"}
	}
	arr.Fields = append(arr.Fields[:idx], arr.Fields[idx+1:]...)
	for j := idx; j < len(arr.Fields); j++ {
		arr.Fields[j].Name = strconv.Itoa(j)
		repath(arr.Fields[j], arr.Path+"/"+strconv.Itoa(j))
	}
	arr.touched = true
	return nil
}

// AddEntry appends an empty key/value row to the object at pointer.
func (f *Form) AddEntry(pointer string) error {
	fl := f.objectAt(pointer)
	if fl == nil || !fl.AllowEntries {
		return &PointerError{pointer, "add entry", "no object that takes free properties here"}
	}
	fl.Entries = append(fl.Entries, &Entry{Value: f.build(fl.n.extra, pointer+"/", "", true, nil)})
	return nil
}

// SetKey names entry i of the object at pointer. The entry's value field
// moves to the pointer of its new key.
func (f *Form) SetKey(pointer string, i int, key string) error {
	fl := f.objectAt(pointer)
	if fl == nil || i < 0 || i >= len(fl.Entries) {
		return &PointerError{pointer, "set key", fmt.Sprintf("no entry %d", i)}
	}
	e := fl.Entries[i]
	e.Key = key
	e.Value.Name, e.Value.Label = key, key
	repath(e.Value, pointer+"/"+escape(key))
	return nil
}

// RemoveEntry removes entry i of the object at pointer.
func (f *Form) RemoveEntry(pointer string, i int) error {
	fl := f.objectAt(pointer)
	if fl == nil || i < 0 || i >= len(fl.Entries) {
		return &PointerError{pointer, "remove entry", fmt.Sprintf("no entry %d", i)}
	}
	fl.Entries = append(fl.Entries[:i], fl.Entries[i+1:]...)
	return nil
}

// Expand builds the fields of a collapsed (recursive) object.
func (f *Form) Expand(pointer string) error {
	fl := f.objectAt(pointer)
	if fl == nil {
		return &PointerError{pointer, "expand", "no object field here"}
	}
	if fl.Collapsed {
		fl.Collapsed = false
		f.buildProps(fl, []*node{fl.n})
	}
	fl.Null = false // filling it in is choosing a value over null
	return nil
}

func (f *Form) objectAt(pointer string) *Field {
	var found *Field
	walk(f.Root, func(fl *Field) bool {
		if fl.Path == pointer && fl.Widget == WidgetObject {
			found = fl
		}
		return strings.HasPrefix(pointer, fl.Path)
	})
	return found
}

// repath moves a subtree to a new pointer.
func repath(fl *Field, path string) {
	fl.Path = path
	switch fl.Widget {
	case WidgetObject:
		for _, c := range fl.Fields {
			repath(c, path+"/"+escape(c.Name))
		}
		for _, e := range fl.Entries {
			repath(e.Value, path+"/"+escape(e.Key))
		}
	case WidgetArray:
		for i, c := range fl.Fields {
			repath(c, path+"/"+strconv.Itoa(i))
		}
	case WidgetVariant:
		for _, c := range fl.Fields {
			repath(c, path)
		}
	}
}

// Folded reports whether a UI may fold the field away under "more
// options": an optional field with nothing in it, not inferred, and not a
// target. Required, inferred and target fields are always shown.
func (fl *Field) Folded() bool {
	if fl.Required || fl.Target || fl.Inferred != nil || fl.Error != "" {
		return false
	}
	hasValue := false
	walk(fl, func(c *Field) bool {
		if c.Inferred != nil || c.Target && c.Raw != "" || c.Raw != "" || c.Null || len(c.Entries) > 0 ||
			c.Widget == WidgetArray && len(c.Fields) > 0 || c.Widget == WidgetVariant && c.Chosen >= 0 {
			hasValue = true
		}
		return !hasValue
	})
	return !hasValue
}

// escape encodes a reference token of a JSON pointer (RFC 6901).
func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// FieldText is the text a value shows as in a field, as a user would
// type it: a string as it is, anything else as JSON (or, for a value JSON
// cannot encode, as fmt prints it).
func FieldText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64, int:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
