package schemaform

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Value assembles the JSON instance the form holds and validates it
// against the schema. Numbers come out as json.Number, objects as
// map[string]any, arrays as []any.
//
// What goes in: every field the user set; an optional field left empty is
// left out; a default shows in its field as a suggestion and goes in as
// typed, unless the user cleared it (then it is left out, and the server
// applies its own default). A const goes in whenever its object does. An
// optional object goes in when something in it was set by the user or
// inferred; an untouched default alone does not make it appear.
//
// The errors are parse errors of fields, then schema violations, each at
// its instance location; they are also left on the fields (Field.Error).
// The value is returned even when there are errors, so a UI can show it.
func (f *Form) Value() (any, []FieldError) {
	walk(f.Root, func(fl *Field) bool {
		fl.Error = ""
		for _, e := range fl.Entries {
			e.KeyError = ""
		}
		return true
	})
	var errs []FieldError
	var v any
	if f.raw {
		parsed, err := parseJSON(f.rawText)
		if err != nil {
			return nil, []FieldError{{Path: "", Keyword: "json", Message: err.Error()}}
		}
		v = parsed
	} else {
		a := &assembler{}
		val, ok, _ := a.value(f.Root, true)
		if !ok {
			val = map[string]any{}
		}
		v = val
		errs = a.errs
	}
	seen := map[string]bool{}
	for _, e := range errs {
		seen[e.Path] = true
	}
	for _, e := range f.validate(v) {
		if !seen[e.Path] {
			errs = append(errs, e)
		}
	}
	if !f.raw {
		for _, e := range errs {
			if fl := f.nearest(e.Path); fl != nil {
				if fl.Error != "" {
					fl.Error += "; "
				}
				fl.Error += e.Message
			}
		}
	}
	return v, errs
}

// JSON is Value encoded: the arguments to send.
func (f *Form) JSON() (json.RawMessage, []FieldError) {
	v, errs := f.Value()
	b, err := json.Marshal(v)
	if err != nil {
		return nil, append(errs, FieldError{Keyword: "json", Message: err.Error()})
	}
	return b, errs
}

// nearest is the field that shows an error at pointer: the field there,
// else the closest enclosing one.
func (f *Form) nearest(pointer string) *Field {
	for {
		if fl := f.Field(pointer); fl != nil {
			return fl
		}
		i := strings.LastIndexByte(pointer, '/')
		if i < 0 {
			return f.Root
		}
		pointer = pointer[:i]
	}
}

type assembler struct {
	errs []FieldError
}

func (a *assembler) fail(fl *Field, kw, msg string) {
	a.errs = append(a.errs, FieldError{Path: fl.Path, Keyword: kw, Message: msg})
}

// value returns a field's value, whether it goes in, and whether it is
// substantive (set by the user or inferred, not only a default or a
// const). force: the enclosing value needs this one (a required object
// or array goes in empty rather than not at all; an array item always
// goes in).
func (a *assembler) value(fl *Field, force bool) (any, bool, bool) {
	if fl.Null {
		return nil, true, true
	}
	switch fl.Widget {
	case WidgetObject:
		if fl.Collapsed {
			if force {
				return map[string]any{}, true, false
			}
			return nil, false, false
		}
		obj := map[string]any{}
		substantive := false
		for _, c := range fl.Fields {
			if c.Widget == WidgetConst {
				continue
			}
			if v, ok, sub := a.value(c, false); ok {
				obj[c.Name] = v
				substantive = substantive || sub
			}
		}
		for _, e := range fl.Entries {
			if e.Key == "" {
				if e.Value.Raw != "" {
					e.KeyError = "give this entry a name"
					a.errs = append(a.errs, FieldError{Path: fl.Path, Keyword: "key", Message: "an entry has a value but no name"})
				}
				continue
			}
			if _, dup := obj[e.Key]; dup {
				e.KeyError = "this name is already used"
				a.errs = append(a.errs, FieldError{Path: e.Value.Path, Keyword: "key", Message: fmt.Sprintf("%q is given twice", e.Key)})
				continue
			}
			if v, ok, _ := a.value(e.Value, true); ok {
				obj[e.Key] = v
				substantive = true
			}
		}
		if !force && !substantive {
			return nil, false, false
		}
		for _, c := range fl.Fields {
			if _, in := obj[c.Name]; in {
				continue
			}
			if c.Widget == WidgetConst || c.Required {
				if v, ok, _ := a.value(c, true); ok {
					obj[c.Name] = v
				}
			}
		}
		return obj, true, substantive
	case WidgetArray:
		arr := []any{}
		for _, c := range fl.Fields {
			v, ok, _ := a.value(c, true)
			if !ok {
				if !hasError(a.errs, c.Path) {
					a.fail(c, "item", "empty item: give it a value or remove it")
				}
				continue
			}
			arr = append(arr, v)
		}
		if len(fl.Fields) == 0 && !force {
			return nil, false, false
		}
		return arr, true, fl.touched || len(fl.Fields) > 0
	case WidgetVariant:
		if fl.Chosen < 0 || len(fl.Fields) == 0 {
			return nil, false, false
		}
		if fl.Fields[0].Widget == WidgetNull {
			return nil, true, true // choosing the null variant is the value
		}
		v, ok, sub := a.value(fl.Fields[0], force)
		return v, ok, sub || ok && fl.touched
	case WidgetConst:
		return fl.Const, force, false
	case WidgetNull:
		return nil, force, false
	}
	if fl.Raw == "" {
		return nil, false, false
	}
	v, err := parse(fl)
	if err != nil {
		kw := "type"
		switch fl.Widget {
		case WidgetSelect:
			kw = "enum"
		case WidgetJSON:
			kw = "json"
		}
		a.fail(fl, kw, err.Error())
		return nil, false, false
	}
	return v, true, fl.touched || fl.Inferred != nil
}

func hasError(errs []FieldError, path string) bool {
	for _, e := range errs {
		if e.Path == path {
			return true
		}
	}
	return false
}

// parse reads a scalar field's text as its widget's type.
func parse(fl *Field) (any, error) {
	raw := fl.Raw
	switch fl.Widget {
	case WidgetText, WidgetTextArea:
		return raw, nil
	case WidgetNumber, WidgetInteger:
		return parseNumber(strings.TrimSpace(raw), fl.Widget == WidgetInteger)
	case WidgetBoolean:
		switch strings.TrimSpace(raw) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("not true or false: %q", raw)
	case WidgetSelect:
		for _, o := range fl.Options {
			if o.Label == raw {
				return o.Value, nil
			}
		}
		return nil, fmt.Errorf("%q is not one of the choices", raw)
	case WidgetJSON:
		return parseJSON(raw)
	}
	return nil, fmt.Errorf("a %s field has no text", fl.Widget)
}

// parseNumber accepts what people type for a number ("5", "-1.5", "1e3",
// "+2", ".5") and gives the JSON number. An integer field takes any
// number without a fraction ("5.0", "1e3") and writes it as an integer.
func parseNumber(s string, integer bool) (json.Number, error) {
	what := "a number"
	if integer {
		what = "an integer"
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || strings.ContainsAny(s, "_xXpP") || math.IsInf(f, 0) || math.IsNaN(f) {
		if ne := (*strconv.NumError)(nil); errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return "", fmt.Errorf("%q is out of range", s)
		}
		return "", fmt.Errorf("not %s: %q", what, s)
	}
	if integer {
		bf, _, err := big.ParseFloat(s, 10, 256, big.ToNearestEven)
		if err != nil || !bf.IsInt() {
			return "", fmt.Errorf("not %s: %q has a fraction", what, s)
		}
		i, _ := bf.Int(nil)
		return json.Number(i.String()), nil
	}
	if json.Valid([]byte(s)) && s[0] != '+' {
		return json.Number(s), nil
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
}

// parseJSON reads one JSON value, numbers as json.Number.
func parseJSON(s string) (any, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if d.More() {
		return nil, fmt.Errorf("not valid JSON: more than one value (offset %d)", d.InputOffset())
	}
	return v, nil
}

// validate checks v against the schema and lists the violations at the
// instance locations they concern.
func (f *Form) validate(v any) []FieldError {
	err := f.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []FieldError{{Keyword: "schema", Message: err.Error()}}
	}
	p := message.NewPrinter(language.English)
	var out []FieldError
	seen := map[FieldError]bool{}
	add := func(e FieldError) {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	var visit func(e *jsonschema.ValidationError)
	visit = func(e *jsonschema.ValidationError) {
		at := pointer(e.InstanceLocation)
		if len(e.Causes) > 0 {
			causes := e.Causes
			if kw := keyword(e.ErrorKind); kw == "oneOf" || kw == "anyOf" {
				causes = f.branchCauses(at, kw, e)
			}
			for _, c := range causes {
				visit(c)
			}
			return
		}
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, name := range k.Missing {
				add(FieldError{Path: at + "/" + escape(name), Keyword: "required", Message: "required"})
			}
			return
		case *kind.AdditionalProperties:
			for _, name := range k.Properties {
				add(FieldError{Path: at + "/" + escape(name), Keyword: "additionalProperties", Message: "not allowed here"})
			}
			return
		}
		add(FieldError{Path: at, Keyword: keyword(e.ErrorKind), Message: e.ErrorKind.LocalizedString(p)})
	}
	visit(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// branchCauses keeps, of a failed oneOf/anyOf, the causes of the branch
// the user is filling in: the chosen variant, or the non-null branch of a
// nullable field. Errors of the other branches are not about what the
// user typed. When the form has no choice there, all causes stay.
func (f *Form) branchCauses(at, kw string, e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	branch := -1
	var fl *Field
	walk(f.Root, func(c *Field) bool {
		if c.Path == at && fl == nil && (c.Widget == WidgetVariant || c.branchKw == kw) {
			fl = c
		}
		return strings.HasPrefix(at, c.Path)
	})
	switch {
	case fl == nil:
	case fl.Widget == WidgetVariant && fl.n.varKw == kw && fl.Chosen >= 0:
		branch = fl.n.varIdx[fl.Chosen]
	case fl.branchKw == kw:
		branch = fl.branch
	}
	if branch < 0 {
		return e.Causes
	}
	// A branch that failed once is reported by its one error, whose
	// schema location lies under the branch's.
	prefix := e.SchemaURL + "/" + kw + "/" + strconv.Itoa(branch)
	var keep []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if c.SchemaURL == prefix || strings.HasPrefix(c.SchemaURL, prefix+"/") {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return e.Causes
	}
	return keep
}

func keyword(k jsonschema.ErrorKind) string {
	if _, ok := k.(*kind.Not); ok {
		return "not"
	}
	p := k.KeywordPath()
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}

func pointer(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}

// RawMode reports whether the form is edited as one JSON text.
func (f *Form) RawMode() bool { return f.raw }

// RawText is the JSON text of raw mode.
func (f *Form) RawText() string { return f.rawText }

// SetRawText replaces the JSON text of raw mode.
func (f *Form) SetRawText(s string) { f.rawText = s }

// SetRawMode switches between the fields and one JSON text. Switching on
// writes the current value as indented JSON. Switching off loads the text
// back into the fields; when it does not fit them (invalid JSON, a
// property the form has no place for, a value of another type) the form
// stays in raw mode and the error says where.
func (f *Form) SetRawMode(on bool) error {
	if on == f.raw {
		return nil
	}
	if on {
		v, _ := f.Value()
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Errorf("schemaform: raw mode: %w", err)
		}
		f.raw, f.rawText = true, string(b)
		return nil
	}
	v, err := parseJSON(f.rawText)
	if err != nil {
		return fmt.Errorf("schemaform: back to fields: %w", err)
	}
	if err := f.Load(v); err != nil {
		return fmt.Errorf("schemaform: back to fields: %w", err)
	}
	f.raw = false
	return nil
}

// Load fills the fields from a value (e.g. a proposal's exact inputs):
// fields the value does not mention are emptied, even those with
// defaults, so Value gives back exactly v. Inferred marks stay on fields
// whose value did not change. On error the form is unchanged.
func (f *Form) Load(v any) error {
	if b, ok := v.(json.RawMessage); ok {
		p, err := parseJSON(string(b))
		if err != nil {
			return err
		}
		v = p
	}
	fresh := f.build(f.root, "", "", true, nil)
	if err := f.load(fresh, v); err != nil {
		return err
	}
	keepInferred(f.Root, fresh)
	f.Root = fresh
	return nil
}

func keepInferred(old, fresh *Field) {
	if old.Inferred != nil && old.Raw == fresh.Raw && old.Null == fresh.Null {
		fresh.Inferred = old.Inferred
	}
	if len(old.Fields) == len(fresh.Fields) && old.Chosen == fresh.Chosen {
		for i := range old.Fields {
			keepInferred(old.Fields[i], fresh.Fields[i])
		}
	}
}

// LoadError says where a value does not fit the form.
type LoadError struct {
	Pointer string
	Msg     string
}

func (e *LoadError) Error() string {
	at := e.Pointer
	if at == "" {
		at = "(input)"
	}
	return "value does not fit the form at " + at + ": " + e.Msg
}

// maxLoad bounds how deep load goes: a value is finite, but variants
// of a recursive schema can choose each other in turn for the same one.
const maxLoad = 2000

// load sets fl (and its subtree) to v.
func (f *Form) load(fl *Field, v any) error {
	fail := func(format string, a ...any) error {
		return &LoadError{Pointer: fl.Path, Msg: fmt.Sprintf(format, a...)}
	}
	f.loadDepth++
	defer func() { f.loadDepth-- }()
	if f.loadDepth > maxLoad {
		return fail("nested more than %d deep", maxLoad)
	}
	fl.touched, fl.Null = true, false
	if v == nil && fl.Nullable && fl.Widget != WidgetVariant {
		fl.Null, fl.Raw = true, ""
		return nil
	}
	switch fl.Widget {
	case WidgetObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return fail("want an object, got %s", kindOf(v))
		}
		if fl.Collapsed {
			fl.Collapsed = false
			f.buildProps(fl, []*node{fl.n})
		}
		known := map[string]bool{}
		for _, c := range fl.Fields {
			known[c.Name] = true
			if x, ok := obj[c.Name]; ok {
				if err := f.load(c, x); err != nil {
					return err
				}
			} else {
				empty(c)
			}
		}
		var extra []string
		for k := range obj {
			if !known[k] {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		fl.Entries = nil
		for _, k := range extra {
			if !fl.AllowEntries {
				return &LoadError{Pointer: fl.Path + "/" + escape(k), Msg: "the form has no field for this property"}
			}
			val := f.build(fl.n.extra, fl.Path+"/"+escape(k), k, true, nil)
			if err := f.load(val, obj[k]); err != nil {
				return err
			}
			fl.Entries = append(fl.Entries, &Entry{Key: k, Value: val})
		}
	case WidgetArray:
		arr, ok := v.([]any)
		if !ok {
			return fail("want an array, got %s", kindOf(v))
		}
		fl.Fields = nil
		for i, x := range arr {
			it := f.build(fl.n.items, fl.Path+"/"+strconv.Itoa(i), strconv.Itoa(i), true, nil)
			if err := f.load(it, x); err != nil {
				return err
			}
			fl.Fields = append(fl.Fields, it)
		}
	case WidgetVariant:
		i := fitting(fl.n, v)
		if i < 0 {
			return fail("%s fits none of the variants (%s)", kindOf(v), strings.Join(fl.Variants, ", "))
		}
		f.choose(fl, i, nil)
		return f.load(fl.Fields[0], v)
	case WidgetConst:
		if !jsonEqual(v, fl.Const) {
			return fail("want the constant %s", FieldText(fl.Const))
		}
	case WidgetNull:
		if v != nil {
			return fail("want null, got %s", kindOf(v))
		}
	case WidgetText, WidgetTextArea:
		s, ok := v.(string)
		if !ok {
			return fail("want a string, got %s", kindOf(v))
		}
		fl.Raw, fl.Null = s, false
	case WidgetNumber, WidgetInteger:
		n, ok := number(v)
		if !ok {
			return fail("want a number, got %s", kindOf(v))
		}
		if fl.Widget == WidgetInteger {
			if _, err := parseNumber(n, true); err != nil {
				return fail("want an integer, got %s", n)
			}
		}
		fl.Raw, fl.Null = n, false
	case WidgetBoolean:
		b, ok := v.(bool)
		if !ok {
			return fail("want true or false, got %s", kindOf(v))
		}
		fl.Raw, fl.Null = strconv.FormatBool(b), false
	case WidgetSelect:
		for _, o := range fl.Options {
			if jsonEqual(o.Value, v) {
				fl.Raw, fl.Null = o.Label, false
				return nil
			}
		}
		return fail("%s is not one of the choices", FieldText(v))
	case WidgetJSON:
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fail("%v", err)
		}
		fl.Raw, fl.Null = string(b), false
	}
	return nil
}

// empty empties a field and everything under it.
func empty(fl *Field) {
	fl.Raw, fl.Null, fl.touched, fl.Inferred = "", false, true, nil
	switch fl.Widget {
	case WidgetArray:
		fl.Fields = nil
	case WidgetVariant:
		if !fl.Required {
			fl.Chosen, fl.Fields = -1, nil
		}
	}
	for _, c := range fl.Fields {
		empty(c)
	}
	fl.Entries = nil
}

// fitting is the first variant of n whose shape v has, or -1: the type,
// and for objects the required properties and const discriminators.
func fitting(n *node, v any) int {
	// n itself is not an answer: a variant that is its own variant
	// (oneOf: [{$ref: itself}, …]) would be chosen without end.
	return fittingSeen(n, v, map[*node]bool{n: true})
}

// fittingSeen and fits look at one value through variants of variants
// and wrappers; seen holds the nodes already asked about this value, so
// a recursive schema is asked once per node.
func fittingSeen(n *node, v any, seen map[*node]bool) int {
	for i, vn := range n.variants {
		if fits(vn, v, seen) {
			return i
		}
	}
	return -1
}

func fits(n *node, v any, seen map[*node]bool) bool {
	if seen[n] {
		return false
	}
	seen[n] = true
	if v == nil && n.nullable {
		return true
	}
	if n.inner != nil {
		return fits(n.inner, v, seen)
	}
	switch n.widget {
	case WidgetObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		names := map[string]bool{}
		for _, p := range n.props {
			names[p.name] = true
			x, present := obj[p.name]
			if p.required && !present {
				return false
			}
			if present && p.n.widget == WidgetConst && !jsonEqual(x, p.n.constVal) {
				return false
			}
		}
		if !n.extraOK {
			for k := range obj {
				if !names[k] {
					return false
				}
			}
		}
		return true
	case WidgetArray:
		_, ok := v.([]any)
		return ok
	case WidgetText, WidgetTextArea:
		_, ok := v.(string)
		return ok
	case WidgetNumber:
		_, ok := number(v)
		return ok
	case WidgetInteger:
		s, ok := number(v)
		if ok {
			_, err := parseNumber(s, true)
			ok = err == nil
		}
		return ok
	case WidgetBoolean:
		_, ok := v.(bool)
		return ok
	case WidgetSelect:
		for _, o := range n.enum {
			if jsonEqual(o, v) {
				return true
			}
		}
		return false
	case WidgetConst:
		return jsonEqual(v, n.constVal)
	case WidgetNull:
		return v == nil
	case WidgetVariant:
		return fittingSeen(n, v, seen) >= 0
	}
	return true // raw JSON takes anything
}

// number gives the JSON text of a numeric value.
func number(v any) (string, bool) {
	switch v := v.(type) {
	case json.Number:
		return string(v), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}

// jsonEqual compares JSON values, numbers by value (1 equals 1.0).
func jsonEqual(a, b any) bool {
	if na, ok := number(a); ok {
		nb, ok := number(b)
		if !ok {
			return false
		}
		fa, _, ea := big.ParseFloat(na, 10, 256, big.ToNearestEven)
		fb, _, eb := big.ParseFloat(nb, 10, 256, big.ToNearestEven)
		return ea == nil && eb == nil && fa.Cmp(fb) == 0
	}
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, x := range a {
			y, ok := b[k]
			if !ok || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	}
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return bytes.Equal(ab, bb)
}
