package schemas

import (
	"math/big"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"workbench/pkg/canonjson"
)

// A plan decides, on a parsed document in place, whether a value satisfies
// a compiled schema, without building the generic form the library
// validates for the whole of it. Building and walking the generic form of
// a large bundle dominated its verification.
//
// A plan is made from the library's own compiled schema, so references,
// formats and patterns are resolved, compiled and checked by the library;
// the plan only walks the keywords (and matches the simplest patterns
// itself, see fastPattern). It understands the keywords whose meaning does
// not depend on other keywords' results — type, enum and const of
// strings, booleans and null, format, $ref, allOf, required, properties,
// patternProperties, additionalProperties, min/maxProperties,
// prefixItems, items, contains (without min/maxContains), min/maxItems,
// min/maxLength, pattern, minimum, maximum and their exclusive forms —
// and annotations.
//
// A subschema that uses any other keyword (applicators such as anyOf or
// if, unevaluated*, uniqueItems …) or sets a field a later
// library version adds is left to the library: its plan node validates the
// generic form of that one value with the library. Its verdict there is
// its verdict in place, because the parents a plan walks collect no
// annotations (no unevaluated*) and the schemas use no dynamic
// references, the only ways a subschema's verdict depends on where it is
// applied; New holds the embedded schemas to the latter.
//
// A plan answers valid or invalid (valid), and says why a value is
// invalid (explain, in explain.go) with the field errors the library
// gives for the same value, built from the library's own error kinds.
type plan struct {
	always *bool              // a boolean schema
	lib    *jsonschema.Schema // a schema left to the library
	schema *jsonschema.Schema // the schema planned, for explain's messages
	types  typeSet

	enum     []any // when hasEnum: the allowed strings, booleans and nulls
	hasEnum  bool
	format   *jsonschema.Format
	ref      *plan
	all      []*plan        // allOf
	required map[string]int // each required name, numbered from 0
	// requiredNames are the required names, each once, in the schema's
	// order.
	requiredNames []string

	props      map[string]*plan
	patterns   []patternPlan
	additional *plan // when addl is addlSchema
	addl       addlKind

	minProps, maxProps int // -1: none
	prefix             []*plan
	items              *plan
	contains           *plan
	minItems, maxItems int // -1: none
	minLen, maxLen     int // -1: none
	pattern            jsonschema.Regexp

	minimum, maximum, exclMin, exclMax *big.Rat
}

type patternPlan struct {
	re jsonschema.Regexp
	p  *plan
}

type addlKind uint8

const (
	addlAny addlKind = iota
	addlNone
	addlSchema
)

// typeSet holds the JSON types a schema's "type" allows; 0 allows all.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

var typeBits = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "number": tNumber, "integer": tInteger,
	"string": tString, "array": tArray, "object": tObject,
}

// planFields are the exported fields of jsonschema.Schema a plan
// understands or that do not affect validation (identifiers, anchors,
// annotations). Every other exported field must be zero for a plan.
var planFields = map[string]bool{
	"DraftVersion": true, "Location": true, "Bool": true, "ID": true, "Ref": true,
	"Anchor": true, "DynamicAnchor": true, "Types": true, "Enum": true, "Const": true, "Format": true,
	"MaxProperties": true, "MinProperties": true, "Required": true, "Properties": true,
	"PatternProperties": true, "AdditionalProperties": true,
	"MinItems": true, "MaxItems": true, "PrefixItems": true, "Items2020": true, "Contains": true, "AllOf": true,
	"MinLength": true, "MaxLength": true, "Pattern": true,
	"Maximum": true, "Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true,
	"Title": true, "Description": true, "Default": true, "Comment": true,
	"ReadOnly": true, "WriteOnly": true, "Examples": true, "Deprecated": true,
}

// newPlan makes the plan of s.
func newPlan(s *jsonschema.Schema) *plan {
	return makePlan(s, map[*jsonschema.Schema]*plan{}, map[*jsonschema.Schema]bool{})
}

// makePlan builds the plan of s. done memoizes finished and unfinished
// plans so that a recursive schema makes a finite plan; viaRef holds the
// schemas that reached s through $ref and allOf alone, which apply to the
// same value: a cycle there the library reports as an error and a plan
// would loop on, so it is left to the library.
func makePlan(s *jsonschema.Schema, done map[*jsonschema.Schema]*plan, viaRef map[*jsonschema.Schema]bool) *plan {
	if viaRef[s] {
		return &plan{lib: s}
	}
	if p, ok := done[s]; ok {
		return p
	}
	if s.Bool != nil {
		p := &plan{always: s.Bool}
		done[s] = p
		return p
	}
	p := &plan{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	done[s] = p
	if !p.fill(s, done, viaRef) {
		*p = plan{lib: s}
	}
	return p
}

// plannable reports whether a plan understands every keyword s uses.
func plannable(s *jsonschema.Schema) bool {
	if s.DraftVersion < 2020 {
		return false
	}
	rv := reflect.ValueOf(s).Elem()
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.IsExported() && !planFields[f.Name] && !rv.Field(i).IsZero() {
			return false
		}
	}
	scalar := func(v any) bool {
		switch v.(type) {
		case string, bool, nil:
			return true
		}
		return false
	}
	if s.Enum != nil && slices.ContainsFunc(s.Enum.Values, func(v any) bool { return !scalar(v) }) {
		return false
	}
	return s.Const == nil || scalar(*s.Const)
}

// fill makes p the plan of s, reporting false when s is not plannable.
// Subschemas that are not get library nodes of their own.
func (p *plan) fill(s *jsonschema.Schema, done map[*jsonschema.Schema]*plan, viaRef map[*jsonschema.Schema]bool) bool {
	if !plannable(s) {
		return false
	}
	p.schema = s
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			b, ok := typeBits[t]
			if !ok {
				return false
			}
			p.types |= b
		}
	}
	if s.Enum != nil {
		p.hasEnum, p.enum = true, s.Enum.Values
	}
	if s.Const != nil {
		// A const is an enum of one, as far as a verdict goes.
		p.hasEnum, p.enum = true, []any{*s.Const}
		if s.Enum != nil {
			return false
		}
	}
	p.format = s.Format
	if s.Ref != nil {
		viaRef[s] = true
		p.ref = makePlan(s.Ref, done, viaRef)
		delete(viaRef, s)
	}
	// Every subschema below applies to a part of the value, so a cycle
	// through one of them consumes the instance and ends.
	sub := func(s *jsonschema.Schema) *plan {
		return makePlan(s, done, map[*jsonschema.Schema]bool{})
	}
	if len(s.Required) > 0 {
		p.required = make(map[string]int, len(s.Required))
		for _, r := range s.Required {
			if _, dup := p.required[r]; !dup {
				p.required[r] = len(p.required)
				p.requiredNames = append(p.requiredNames, r)
			}
		}
	}
	if len(s.Properties) > 0 {
		p.props = make(map[string]*plan, len(s.Properties))
		for name, ps := range s.Properties {
			p.props[name] = sub(ps)
		}
	}
	for re, ps := range s.PatternProperties {
		p.patterns = append(p.patterns, patternPlan{fastPattern(re), sub(ps)})
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		if !a {
			p.addl = addlNone
		}
	case *jsonschema.Schema:
		p.addl, p.additional = addlSchema, sub(a)
	default:
		return false
	}
	for _, ps := range s.PrefixItems {
		p.prefix = append(p.prefix, sub(ps))
	}
	if s.Items2020 != nil {
		p.items = sub(s.Items2020)
	}
	if s.Contains != nil {
		p.contains = sub(s.Contains)
	}
	// An allOf subschema applies to the value itself, like $ref, so a
	// cycle through it alone is left to the library in the same way.
	for _, as := range s.AllOf {
		viaRef[s] = true
		p.all = append(p.all, makePlan(as, done, viaRef))
		delete(viaRef, s)
	}
	for _, b := range []struct {
		dst *int
		src *int
	}{
		{&p.minProps, s.MinProperties}, {&p.maxProps, s.MaxProperties},
		{&p.minItems, s.MinItems}, {&p.maxItems, s.MaxItems},
		{&p.minLen, s.MinLength}, {&p.maxLen, s.MaxLength},
	} {
		if b.src != nil {
			*b.dst = *b.src
		}
	}
	if s.Pattern != nil {
		p.pattern = fastPattern(s.Pattern)
	}
	p.minimum, p.maximum, p.exclMin, p.exclMax = s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum
	return true
}

// native reports whether the plan leaves nothing to the library.
func (p *plan) native() bool {
	return p.nativeSeen(map[*plan]bool{})
}

func (p *plan) nativeSeen(seen map[*plan]bool) bool {
	if seen[p] {
		return true
	}
	seen[p] = true
	if p.lib != nil {
		return false
	}
	subs := slices.Concat(p.prefix, p.all, []*plan{p.ref, p.items, p.contains, p.additional})
	for _, s := range p.props {
		subs = append(subs, s)
	}
	for _, pp := range p.patterns {
		subs = append(subs, pp.p)
	}
	for _, s := range subs {
		if s != nil && !s.nativeSeen(seen) {
			return false
		}
	}
	return true
}

// valid reports whether v satisfies the plan's schema.
func (p *plan) valid(v canonjson.Value) bool {
	if p.always != nil {
		return *p.always
	}
	if p.lib != nil {
		return p.lib.Validate(v.Generic()) == nil
	}
	t := v.Type()
	if p.types != 0 && !p.hasType(v, t) {
		return false
	}
	if p.hasEnum && !p.inEnum(v, t) {
		return false
	}
	if p.format != nil {
		var x any
		if t == canonjson.String {
			x = v.Text()
		} else {
			x = v.Generic()
		}
		if p.format.Validate(x) != nil {
			return false
		}
	}
	if p.ref != nil && !p.ref.valid(v) {
		return false
	}
	ok := true
	switch t {
	case canonjson.Object:
		ok = p.validObject(v)
	case canonjson.Array:
		ok = p.validArray(v)
	case canonjson.String:
		ok = p.validString(v.Text())
	case canonjson.Number:
		ok = p.validNumber(v.Text())
	}
	for _, a := range p.all {
		ok = ok && a.valid(v)
	}
	return ok
}

func (p *plan) hasType(v canonjson.Value, t canonjson.Type) bool {
	switch t {
	case canonjson.Null:
		return p.types&tNull != 0
	case canonjson.Boolean:
		return p.types&tBoolean != 0
	case canonjson.String:
		return p.types&tString != 0
	case canonjson.Array:
		return p.types&tArray != 0
	case canonjson.Object:
		return p.types&tObject != 0
	case canonjson.Number:
		return p.types&tNumber != 0 || p.types&tInteger != 0 && isInteger(v.Text())
	}
	return false
}

// inEnum reports whether v is one of the enum's strings, booleans and
// nulls; such an enum allows no other value.
func (p *plan) inEnum(v canonjson.Value, t canonjson.Type) bool {
	for _, e := range p.enum {
		switch e := e.(type) {
		case string:
			if t == canonjson.String && v.Text() == e {
				return true
			}
		case bool:
			if t == canonjson.Boolean && v.Bool() == e {
				return true
			}
		case nil:
			if t == canonjson.Null {
				return true
			}
		}
	}
	return false
}

func (p *plan) validObject(v canonjson.Value) bool {
	n, required := 0, 0
	for name, m := range v.Members() {
		n++
		if _, ok := p.required[name]; ok {
			required++ // names are unique: the parser rejects duplicates
		}
		evaluated := false
		if pp, ok := p.props[name]; ok {
			evaluated = true
			if !pp.valid(m) {
				return false
			}
		}
		for _, pat := range p.patterns {
			if pat.re.MatchString(name) {
				evaluated = true
				if !pat.p.valid(m) {
					return false
				}
			}
		}
		if evaluated {
			continue
		}
		switch p.addl {
		case addlNone:
			return false
		case addlSchema:
			if !p.additional.valid(m) {
				return false
			}
		}
	}
	return required == len(p.required) &&
		!(p.minProps >= 0 && n < p.minProps || p.maxProps >= 0 && n > p.maxProps)
}

func (p *plan) validArray(v canonjson.Value) bool {
	n, contained := 0, p.contains == nil
	for i, e := range v.Elements() {
		n++
		if !contained {
			contained = p.contains.valid(e)
		}
		switch {
		case i < len(p.prefix):
			if !p.prefix[i].valid(e) {
				return false
			}
		case p.items != nil:
			if !p.items.valid(e) {
				return false
			}
		}
	}
	return contained && !(p.minItems >= 0 && n < p.minItems || p.maxItems >= 0 && n > p.maxItems)
}

func (p *plan) validString(s string) bool {
	if p.minLen >= 0 || p.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if p.minLen >= 0 && n < p.minLen || p.maxLen >= 0 && n > p.maxLen {
			return false
		}
	}
	return p.pattern == nil || p.pattern.MatchString(s)
}

func (p *plan) validNumber(text string) bool {
	return !(p.minimum != nil && compare(text, p.minimum) < 0 ||
		p.maximum != nil && compare(text, p.maximum) > 0 ||
		p.exclMin != nil && compare(text, p.exclMin) <= 0 ||
		p.exclMax != nil && compare(text, p.exclMax) >= 0)
}

// compare compares a JSON number text with a bound exactly, as rationals,
// the way the library does; a plain integer against an integer bound is
// compared without big arithmetic.
func compare(text string, bound *big.Rat) int {
	if n, ok := smallInt(text); ok && bound.IsInt() && bound.Num().IsInt64() {
		m := bound.Num().Int64()
		switch {
		case n < m:
			return -1
		case n > m:
			return 1
		}
		return 0
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return -1 // not reached: Parse accepted the text as a JSON number
	}
	return r.Cmp(bound)
}

// smallInt parses an integer of at most 18 digits, which fits an int64.
func smallInt(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// isInteger reports whether a JSON number is an integer as the library
// decides it: 1.0 and 1e3 are.
func isInteger(text string) bool {
	if _, ok := smallInt(text); ok {
		return true
	}
	r, ok := new(big.Rat).SetString(text)
	return ok && r.IsInt()
}

// dynamicRefs reports whether a schema document uses a dynamic reference,
// whose target depends on where its schema is applied.
func dynamicRefs(doc any) bool {
	switch d := doc.(type) {
	case map[string]any:
		for k, v := range d {
			if k == "$dynamicRef" || k == "$recursiveRef" || dynamicRefs(v) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(d, dynamicRefs)
	}
	return false
}
