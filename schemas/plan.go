package schemas

import (
	"math/big"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"workbench/pkg/canonjson"
)

// A plan decides, on a parsed document in place, whether a value satisfies
// a compiled schema, without building the generic form the library
// validates. It exists for the part of a bundle that grows with its trace,
// the edges, where building and walking the generic form dominated
// verification.
//
// A plan is made from the library's own compiled schema, so references,
// formats and patterns are resolved, compiled and checked by the library;
// the plan only walks the keywords (and matches the simplest patterns
// itself, see fastPattern). It understands the keywords whose
// meaning does not depend on other keywords' results — type, an enum of
// strings, format, $ref, required, properties, patternProperties,
// additionalProperties, min/maxProperties, prefixItems, items,
// min/maxItems, min/maxLength, pattern, minimum, maximum and their
// exclusive forms — and annotations. A schema that uses any other keyword
// (applicators such as allOf or if, unevaluated*, const, contains,
// uniqueItems …) or sets a field a later library version adds gets no
// plan, and the library validates as before.
//
// A plan only ever answers valid or invalid. Field errors always come from
// the library: a value the plan finds invalid is validated again by the
// library, whose verdict stands.
type plan struct {
	always *bool // a boolean schema
	types  typeSet

	enum     []string // when hasEnum: the allowed strings
	hasEnum  bool
	format   *jsonschema.Format
	ref      *plan
	required map[string]bool

	props      map[string]*plan
	patterns   []patternPlan
	additional *plan // when addl is addlSchema
	addl       addlKind

	minProps, maxProps int // -1: none
	prefix             []*plan
	items              *plan
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
	"Anchor": true, "DynamicAnchor": true, "Types": true, "Enum": true, "Format": true,
	"MaxProperties": true, "MinProperties": true, "Required": true, "Properties": true,
	"PatternProperties": true, "AdditionalProperties": true,
	"MinItems": true, "MaxItems": true, "PrefixItems": true, "Items2020": true,
	"MinLength": true, "MaxLength": true, "Pattern": true,
	"Maximum": true, "Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true,
	"Title": true, "Description": true, "Default": true, "Comment": true,
	"ReadOnly": true, "WriteOnly": true, "Examples": true, "Deprecated": true,
}

// newPlan makes the plan of s, or returns nil when s or a schema it
// reaches uses a keyword plans do not understand.
func newPlan(s *jsonschema.Schema) *plan {
	p, ok := makePlan(s, map[*jsonschema.Schema]*plan{}, map[*jsonschema.Schema]bool{})
	if !ok {
		return nil
	}
	return p
}

// makePlan builds the plan of s. done memoizes finished and unfinished
// plans so that a recursive schema makes a finite plan; viaRef holds the
// schemas that reached s through $ref alone, a cycle the library reports
// as an error and a plan would loop on.
func makePlan(s *jsonschema.Schema, done map[*jsonschema.Schema]*plan, viaRef map[*jsonschema.Schema]bool) (*plan, bool) {
	if viaRef[s] {
		return nil, false
	}
	if p, ok := done[s]; ok {
		return p, true
	}
	if s.Bool != nil {
		p := &plan{always: s.Bool}
		done[s] = p
		return p, true
	}
	if s.DraftVersion < 2020 {
		return nil, false
	}
	rv := reflect.ValueOf(s).Elem()
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.IsExported() && !planFields[f.Name] && !rv.Field(i).IsZero() {
			return nil, false
		}
	}
	p := &plan{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLen: -1, maxLen: -1}
	done[s] = p
	if s.Types != nil {
		for _, t := range s.Types.ToStrings() {
			b, ok := typeBits[t]
			if !ok {
				return nil, false
			}
			p.types |= b
		}
	}
	if s.Enum != nil {
		p.hasEnum = true
		for _, v := range s.Enum.Values {
			str, ok := v.(string)
			if !ok {
				return nil, false
			}
			p.enum = append(p.enum, str)
		}
	}
	p.format = s.Format
	if s.Ref != nil {
		viaRef[s] = true
		r, ok := makePlan(s.Ref, done, viaRef)
		delete(viaRef, s)
		if !ok {
			return nil, false
		}
		p.ref = r
	}
	// Every subschema below applies to a part of the value, so a cycle
	// through one of them consumes the instance and ends.
	sub := func(s *jsonschema.Schema) (*plan, bool) {
		return makePlan(s, done, map[*jsonschema.Schema]bool{})
	}
	if len(s.Required) > 0 {
		p.required = make(map[string]bool, len(s.Required))
		for _, r := range s.Required {
			p.required[r] = true
		}
	}
	if len(s.Properties) > 0 {
		p.props = make(map[string]*plan, len(s.Properties))
		for name, ps := range s.Properties {
			pp, ok := sub(ps)
			if !ok {
				return nil, false
			}
			p.props[name] = pp
		}
	}
	for re, ps := range s.PatternProperties {
		pp, ok := sub(ps)
		if !ok {
			return nil, false
		}
		p.patterns = append(p.patterns, patternPlan{fastPattern(re), pp})
	}
	switch a := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		if !a {
			p.addl = addlNone
		}
	case *jsonschema.Schema:
		ap, ok := sub(a)
		if !ok {
			return nil, false
		}
		p.addl, p.additional = addlSchema, ap
	default:
		return nil, false
	}
	for _, ps := range s.PrefixItems {
		pp, ok := sub(ps)
		if !ok {
			return nil, false
		}
		p.prefix = append(p.prefix, pp)
	}
	if s.Items2020 != nil {
		ip, ok := sub(s.Items2020)
		if !ok {
			return nil, false
		}
		p.items = ip
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
	return p, true
}

// valid reports whether v satisfies the plan's schema.
func (p *plan) valid(v canonjson.Value) bool {
	if p.always != nil {
		return *p.always
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
	switch t {
	case canonjson.Object:
		return p.validObject(v)
	case canonjson.Array:
		return p.validArray(v)
	case canonjson.String:
		return p.validString(v.Text())
	case canonjson.Number:
		return p.validNumber(v.Text())
	}
	return true
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

// inEnum reports whether v is one of the enum's strings; an enum of
// strings allows nothing else.
func (p *plan) inEnum(v canonjson.Value, t canonjson.Type) bool {
	if t != canonjson.String {
		return false
	}
	s := v.Text()
	for _, e := range p.enum {
		if s == e {
			return true
		}
	}
	return false
}

func (p *plan) validObject(v canonjson.Value) bool {
	n, required := 0, 0
	for name, m := range v.Members() {
		n++
		if p.required[name] {
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
	n := 0
	for i, e := range v.Elements() {
		n++
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
	return !(p.minItems >= 0 && n < p.minItems || p.maxItems >= 0 && n > p.maxItems)
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
