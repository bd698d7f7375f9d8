package schemas

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"workbench/pkg/canonjson"
	"workbench/pkg/sortfunc"
)

// MaxFieldErrors is how many field errors a ValidationError lists; the
// rest are only counted. A hostile document can fail its schema millions
// of times (a member that is not allowed, two million times over), and a
// list that long helps no one and costs more than the validation.
const MaxFieldErrors = 100

// fieldList keeps the first max (at least one) field errors in pointer order (see
// compareFields) and counts the others. It holds kept errors as a heap,
// the last in order on top, so that an error is kept or counted in
// O(log max) and the cost of a validation stays linear in the document
// however many errors it has.
type fieldList struct {
	max     int
	kept    []FieldError
	in      map[FieldError]bool // kept, to drop a cause reported twice
	omitted int
}

func newFieldList(max int) *fieldList {
	return &fieldList{max: max, in: make(map[FieldError]bool, min(max, MaxFieldErrors))}
}

// beyond reports whether every field error at ptr or below it comes after
// every kept one when the list is full: such errors need only be counted.
func (l *fieldList) beyond(ptr []byte) bool {
	return len(l.kept) >= l.max && comparePointers(l.kept[0].Pointer, ptr) < 0
}

// add offers the field error at pointer ptr. An error equal to a kept one
// is dropped, as a cause reported twice; one equal to an error already
// counted is counted again.
func (l *fieldList) add(ptr []byte, keyword, message string) {
	if len(l.kept) >= l.max {
		top := l.kept[0]
		c := comparePointers(top.Pointer, ptr)
		if c == 0 {
			c = compareKeyMessage(top, keyword, message)
		}
		switch {
		case c < 0:
			l.omitted++
			return
		case c == 0:
			return
		}
	}
	f := FieldError{Pointer: string(ptr), Keyword: keyword, Message: message}
	if l.in[f] {
		return
	}
	l.in[f] = true
	if len(l.kept) < l.max {
		l.kept = append(l.kept, f)
		l.up(len(l.kept) - 1)
		return
	}
	delete(l.in, l.kept[0])
	l.omitted++
	l.kept[0] = f
	l.down(0)
}

func (l *fieldList) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if compareFields(l.kept[parent], l.kept[i]) >= 0 {
			return
		}
		l.kept[parent], l.kept[i] = l.kept[i], l.kept[parent]
		i = parent
	}
}

func (l *fieldList) down(i int) {
	for {
		last, left := i, 2*i+1
		if left < len(l.kept) && compareFields(l.kept[left], l.kept[last]) > 0 {
			last = left
		}
		if right := left + 1; right < len(l.kept) && compareFields(l.kept[right], l.kept[last]) > 0 {
			last = right
		}
		if last == i {
			return
		}
		l.kept[i], l.kept[last] = l.kept[last], l.kept[i]
		i = last
	}
}

// result returns the kept errors in order, or nil when there are none.
func (l *fieldList) result(schemaID string) *ValidationError {
	if len(l.kept) == 0 {
		return nil
	}
	errs := slices.Clone(l.kept)
	sortfunc.Sort(errs, compareFields)
	return &ValidationError{Schema: schemaID, Errors: errs, Omitted: l.omitted}
}

// An explainer collects the field errors of one validation into a
// fieldList, following the JSON pointer of the place being explained.
type explainer struct {
	v    *Validator
	list *fieldList
	ptr  []byte // the pointer of the value being explained
	// counting is set below a place all of whose errors come after the
	// kept ones: they are counted without being built.
	counting bool
}

// enter moves to the member or element tok of the current value, and
// returns what leave needs to come back.
func (x *explainer) enter(tok string) (int, bool) {
	mark, counting := len(x.ptr), x.counting
	if !x.counting {
		x.ptr = appendToken(x.ptr, tok)
		x.counting = x.list.beyond(x.ptr)
	}
	return mark, counting
}

// enterIndex is enter for an array element.
func (x *explainer) enterIndex(i int) (int, bool) {
	mark, counting := len(x.ptr), x.counting
	if !x.counting {
		x.ptr = strconv.AppendInt(append(x.ptr, '/'), int64(i), 10)
		x.counting = x.list.beyond(x.ptr)
	}
	return mark, counting
}

func (x *explainer) leave(mark int, counting bool) {
	x.ptr, x.counting = x.ptr[:mark], counting
}

// counted counts one error and reports true when errors here are only
// counted; the caller then builds nothing.
func (x *explainer) counted() bool {
	if x.counting {
		x.list.omitted++
	}
	return x.counting
}

// fail records that the current value fails k, a kind that makes one
// field error; schemaURL is the failing schema's location.
func (x *explainer) fail(schemaURL string, k jsonschema.ErrorKind) {
	if !x.counted() {
		x.list.add(x.ptr, keyword(k), x.v.message(schemaURL, k))
	}
}

// member records a field error at the member name of the current value:
// one that is required and missing, or one that is not allowed.
func (x *explainer) member(name, keyword, message string) {
	if x.counted() {
		return
	}
	mark := len(x.ptr)
	x.ptr = appendToken(x.ptr, name)
	x.list.add(x.ptr, keyword, message)
	x.ptr = x.ptr[:mark]
}

// Messages of the field errors made per member.
const (
	requiredMessage   = "is required"
	additionalMessage = "is not an allowed member here"
)

// library validates the current value against s with the library and
// collects its field errors.
func (x *explainer) library(s *jsonschema.Schema, v canonjson.Value) {
	if err := s.Validate(v.Generic()); err != nil {
		x.libraryError(err)
	}
}

// libraryError collects the field errors of an error from the library's
// Validate, whose instance locations are relative to the current value.
// Validate returns nothing but a *jsonschema.ValidationError; anything
// else would be a defect of the library, and says so as a field error on
// the value rather than vanishing.
func (x *explainer) libraryError(err error) {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		if !x.counted() {
			x.list.add(x.ptr, "", "cannot be validated: "+err.Error())
		}
		return
	}
	x.collect(ve)
}

// collect flattens the library's error tree into leaf field errors. Every
// leaf is a requirement the value really failed: the schemas avoid anyOf
// and oneOf, whose branch causes would each be only one possible way out
// (a test holds them to that), and a failed contains is reported on the
// array.
func (x *explainer) collect(e *jsonschema.ValidationError) {
	// A failed contains carries every item's mismatch as a cause; none of
	// those items was required to match, so the array itself is the leaf.
	_, contains := e.ErrorKind.(*kind.Contains)
	if len(e.Causes) > 0 && !contains {
		for _, c := range e.Causes {
			x.collect(c)
		}
		return
	}
	mark, counting := len(x.ptr), x.counting
	if !x.counting {
		for _, t := range e.InstanceLocation {
			x.ptr = appendToken(x.ptr, t)
		}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			x.member(m, "required", requiredMessage)
		}
	case *kind.AdditionalProperties:
		for _, m := range k.Properties {
			x.member(m, "additionalProperties", additionalMessage)
		}
	default:
		x.fail(e.SchemaURL, e.ErrorKind)
	}
	x.leave(mark, counting)
}

// explain collects why v fails the plan's schema: the field errors the
// library gives for v, each a leaf cause, made from the library's own
// error kinds. It follows the library's order of checks where that
// changes the errors: a value of the wrong type, or outside an enum or
// const, or not in its format, fails that alone.
func (p *plan) explain(v canonjson.Value, x *explainer) {
	switch {
	case p.always != nil:
		if !*p.always {
			x.fail("", &kind.FalseSchema{})
		}
		return
	case p.lib != nil:
		x.library(p.lib, v)
		return
	}
	s := p.schema
	t := v.Type()
	if p.types != 0 && !p.hasType(v, t) {
		if !x.counted() {
			x.fail(s.Location, &kind.Type{Got: t.String(), Want: s.Types.ToStrings()})
		}
		return
	}
	if p.hasEnum && !p.inEnum(v, t) {
		if !x.counted() {
			if s.Const != nil {
				x.fail(s.Location, &kind.Const{Want: *s.Const})
			} else {
				x.fail(s.Location, &kind.Enum{Want: s.Enum.Values})
			}
		}
		return
	}
	if p.format != nil {
		var val any
		if t == canonjson.String {
			val = v.Text()
		} else {
			val = v.Generic()
		}
		if err := p.format.Validate(val); err != nil {
			x.fail(s.Location, &kind.Format{Got: val, Want: p.format.Name, Err: err})
			return
		}
	}
	if p.ref != nil {
		p.ref.explain(v, x)
	}
	switch t {
	case canonjson.Object:
		p.explainObject(v, x)
	case canonjson.Array:
		p.explainArray(v, x)
	case canonjson.String:
		p.explainString(v.Text(), x)
	case canonjson.Number:
		p.explainNumber(v.Text(), x)
	}
	for _, a := range p.all {
		a.explain(v, x)
	}
}

func (p *plan) explainObject(v canonjson.Value, x *explainer) {
	s, n := p.schema, v.Len()
	if p.minProps >= 0 && n < p.minProps {
		x.fail(s.Location, &kind.MinProperties{Got: n, Want: p.minProps})
	}
	if p.maxProps >= 0 && n > p.maxProps {
		x.fail(s.Location, &kind.MaxProperties{Got: n, Want: p.maxProps})
	}
	// Which required members are present matters only for errors that
	// are built; counted, the missing ones are only a number.
	var present []bool
	if len(p.required) > 0 && !x.counting {
		present = make([]bool, len(p.required))
	}
	found := 0
	for name, m := range v.Members() {
		if r, ok := p.required[name]; ok {
			found++
			if present != nil {
				present[r] = true
			}
		}
		evaluated := false
		if pp, ok := p.props[name]; ok {
			evaluated = true
			mark, c := x.enter(name)
			pp.explain(m, x)
			x.leave(mark, c)
		}
		for _, pat := range p.patterns {
			if pat.re.MatchString(name) {
				evaluated = true
				mark, c := x.enter(name)
				pat.p.explain(m, x)
				x.leave(mark, c)
			}
		}
		if evaluated {
			continue
		}
		switch p.addl {
		case addlNone:
			x.member(name, "additionalProperties", additionalMessage)
		case addlSchema:
			mark, c := x.enter(name)
			p.additional.explain(m, x)
			x.leave(mark, c)
		}
	}
	if present == nil {
		x.list.omitted += len(p.required) - found
		return
	}
	for r, name := range p.requiredNames {
		if !present[r] {
			x.member(name, "required", requiredMessage)
		}
	}
}

func (p *plan) explainArray(v canonjson.Value, x *explainer) {
	s, n := p.schema, v.Len()
	if p.minItems >= 0 && n < p.minItems {
		x.fail(s.Location, &kind.MinItems{Got: n, Want: p.minItems})
	}
	if p.maxItems >= 0 && n > p.maxItems {
		x.fail(s.Location, &kind.MaxItems{Got: n, Want: p.maxItems})
	}
	contained := p.contains == nil
	// Once the errors of one element all come after the kept ones, so do
	// those of every later element: they are counted without comparing
	// each element's pointer. restMark is then where to leave to.
	restMark, restCounting := -1, false
	for i, e := range v.Elements() {
		if !contained {
			contained = p.contains.valid(e)
		}
		sub := p.items
		if i < len(p.prefix) {
			sub = p.prefix[i]
		}
		if sub == nil {
			if contained && i >= len(p.prefix) {
				break // nothing applies to the elements left
			}
			continue
		}
		if restMark >= 0 {
			sub.explain(e, x)
			continue
		}
		mark, c := x.enterIndex(i)
		sub.explain(e, x)
		if x.counting && !c {
			restMark, restCounting = mark, c
			continue
		}
		x.leave(mark, c)
	}
	if restMark >= 0 {
		x.leave(restMark, restCounting)
	}
	if !contained {
		x.fail(s.Location, &kind.Contains{})
	}
}

func (p *plan) explainString(text string, x *explainer) {
	s := p.schema
	if p.minLen >= 0 || p.maxLen >= 0 {
		n := utf8.RuneCountInString(text)
		if p.minLen >= 0 && n < p.minLen {
			x.fail(s.Location, &kind.MinLength{Got: n, Want: p.minLen})
		}
		if p.maxLen >= 0 && n > p.maxLen {
			x.fail(s.Location, &kind.MaxLength{Got: n, Want: p.maxLen})
		}
	}
	if p.pattern != nil && !p.pattern.MatchString(text) {
		x.fail(s.Location, &kind.Pattern{Want: p.pattern.String()})
	}
}

func (p *plan) explainNumber(text string, x *explainer) {
	s := p.schema
	if p.minimum != nil && compare(text, p.minimum) < 0 {
		x.fail(s.Location, &kind.Minimum{Want: p.minimum})
	}
	if p.maximum != nil && compare(text, p.maximum) > 0 {
		x.fail(s.Location, &kind.Maximum{Want: p.maximum})
	}
	if p.exclMin != nil && compare(text, p.exclMin) <= 0 {
		x.fail(s.Location, &kind.ExclusiveMinimum{Want: p.exclMin})
	}
	if p.exclMax != nil && compare(text, p.exclMax) >= 0 {
		x.fail(s.Location, &kind.ExclusiveMaximum{Want: p.exclMax})
	}
}

// appendToken appends "/" and tok escaped as a JSON pointer token.
func appendToken(dst []byte, tok string) []byte {
	dst = append(dst, '/')
	for i := 0; i < len(tok); i++ {
		switch c := tok[i]; c {
		case '~':
			dst = append(dst, '~', '0')
		case '/':
			dst = append(dst, '~', '1')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
