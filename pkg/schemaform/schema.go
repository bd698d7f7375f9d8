package schemaform

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Widget is how a field is edited.
type Widget string

// The widgets. A form is a tree: object, array, variant and map fields
// hold other fields; the rest hold a value.
const (
	WidgetObject   Widget = "object"   // named properties (and, when allowed, free key/value entries)
	WidgetArray    Widget = "array"    // a list of items of one schema; add and remove
	WidgetVariant  Widget = "variant"  // oneOf/anyOf: choose a variant, then fill it
	WidgetText     Widget = "text"     // a string, one line
	WidgetTextArea Widget = "textarea" // a string, several lines (code, prompts)
	WidgetNumber   Widget = "number"   // a JSON number
	WidgetInteger  Widget = "integer"  // a JSON number without a fraction
	WidgetBoolean  Widget = "boolean"  // true, false or not set
	WidgetSelect   Widget = "select"   // one of the enum's values
	WidgetConst    Widget = "const"    // a fixed value, shown, not editable
	WidgetNull     Widget = "null"     // the value null
	WidgetJSON     Widget = "json"     // raw JSON: what the form cannot model
)

// Constraints are the schema's bounds on a value, for display and for
// input hints. The validator enforces them; the form does not duplicate
// the checks.
type Constraints struct {
	Format           string   `json:"format,omitempty"`
	Pattern          string   `json:"pattern,omitempty"`
	MinLength        *int     `json:"minLength,omitempty"`
	MaxLength        *int     `json:"maxLength,omitempty"`
	Minimum          *float64 `json:"minimum,omitempty"`
	Maximum          *float64 `json:"maximum,omitempty"`
	ExclusiveMinimum *float64 `json:"exclusiveMinimum,omitempty"`
	ExclusiveMaximum *float64 `json:"exclusiveMaximum,omitempty"`
	MultipleOf       *float64 `json:"multipleOf,omitempty"`
	MinItems         *int     `json:"minItems,omitempty"`
	MaxItems         *int     `json:"maxItems,omitempty"`
	UniqueItems      bool     `json:"uniqueItems,omitempty"`
}

// Hints are the constraints in words, e.g. "1 ≤ value ≤ 10", "format uri".
func (c Constraints) Hints() []string {
	var h []string
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	switch {
	case c.Minimum != nil && c.Maximum != nil:
		h = append(h, num(*c.Minimum)+" ≤ value ≤ "+num(*c.Maximum))
	case c.Minimum != nil:
		h = append(h, "≥ "+num(*c.Minimum))
	case c.Maximum != nil:
		h = append(h, "≤ "+num(*c.Maximum))
	}
	if c.ExclusiveMinimum != nil {
		h = append(h, "> "+num(*c.ExclusiveMinimum))
	}
	if c.ExclusiveMaximum != nil {
		h = append(h, "< "+num(*c.ExclusiveMaximum))
	}
	if c.MultipleOf != nil {
		h = append(h, "multiple of "+num(*c.MultipleOf))
	}
	switch {
	case c.MinLength != nil && c.MaxLength != nil:
		h = append(h, fmt.Sprintf("%d–%d characters", *c.MinLength, *c.MaxLength))
	case c.MinLength != nil:
		h = append(h, fmt.Sprintf("at least %d characters", *c.MinLength))
	case c.MaxLength != nil:
		h = append(h, fmt.Sprintf("at most %d characters", *c.MaxLength))
	}
	if c.Pattern != "" {
		h = append(h, "matches "+c.Pattern)
	}
	if c.Format != "" {
		h = append(h, "format "+c.Format)
	}
	switch {
	case c.MinItems != nil && c.MaxItems != nil:
		h = append(h, fmt.Sprintf("%d–%d items", *c.MinItems, *c.MaxItems))
	case c.MinItems != nil:
		h = append(h, fmt.Sprintf("at least %d items", *c.MinItems))
	case c.MaxItems != nil:
		h = append(h, fmt.Sprintf("at most %d items", *c.MaxItems))
	}
	if c.UniqueItems {
		h = append(h, "items unique")
	}
	return h
}

// node is one compiled schema: what a field of it looks like. Nodes form
// a graph (a recursive $ref points back to an ancestor); fields are made
// from nodes lazily, so the graph's cycles never unroll.
type node struct {
	widget      Widget
	title, desc string
	def         any
	hasDef      bool
	enum        []any
	constVal    any
	c           Constraints
	fallback    string // why the value is raw JSON (WidgetJSON only)
	readOnly    bool

	// nullable: the value may also be null. branchKw/branch (on a
	// wrapper, see inner) name the anyOf/oneOf branch that holds the
	// non-null schema, so validation errors of the null branch can be
	// told apart.
	nullable bool
	branchKw string
	branch   int

	props     []prop
	extra     *node // schema of free entries; nil when none are offered
	extraOK   bool  // free entries are offered
	items     *node
	variants  []*node
	varKw     string // "oneOf" or "anyOf"
	varIdx    []int  // the branch index of each variant
	varLabels []string
	origin    string // the $ref this node was compiled from: one schema, however described

	// inner: this node is inner, made nullable (nullable, branchKw,
	// branch) or described (title, desc, def) by the schema around it,
	// or an alias of another ref's node. Fields are built from inner.
	inner *node
}

type prop struct {
	name     string
	n        *node
	required bool
}

// compiler turns a decoded schema document into nodes.
type compiler struct {
	root  map[string]any
	byRef map[string]*node
	nodes int // compiled so far, against schemas that multiply through $ref
}

// maxNodes bounds the work one schema may ask for. A schema from an MCP
// server is not trusted: variants that refer back to their own root
// (oneOf: [{$ref: "#"}, {$ref: "#"}]) would otherwise unroll without end.
const maxNodes = 20000

// maxMerge bounds $ref/allOf merging, against refs that only point at
// each other.
const maxMerge = 64

// unsupported says why a schema cannot be shown as fields, or "": it
// uses a keyword whose meaning fields cannot show. Such a schema is
// edited as raw JSON, with the reason.
func unsupported(m map[string]any) string {
	for _, u := range [...]struct{ kw, why string }{
		{"if", "uses if/then/else"},
		{"not", "uses not"},
		{"patternProperties", "uses patternProperties"},
		{"dependentSchemas", "uses dependentSchemas"},
		{"dependencies", "uses dependencies"},
		{"prefixItems", "is a tuple (prefixItems)"},
	} {
		if _, ok := m[u.kw]; ok {
			return u.why
		}
	}
	if _, ok := m["items"].([]any); ok {
		return "is a tuple (items is an array)"
	}
	return ""
}

func (c *compiler) compile(m map[string]any, at string, depth int) (*node, error) {
	c.nodes++
	if c.nodes > maxNodes {
		return nil, fmt.Errorf("schemaform: %s: the schema asks for more than %d fields", at, maxNodes)
	}
	if ref, ok := m["$ref"].(string); ok {
		// Every $ref compiles once per (target, sibling keywords), and is
		// registered before its body compiles, so a recursive reference
		// finds its own node instead of unrolling.
		key := ref
		if len(m) > 1 {
			sib, _ := json.Marshal(without(m, "$ref", orderKey))
			key += "\x00" + string(sib)
		}
		if n, ok := c.byRef[key]; ok {
			return n, nil
		}
		n := &node{}
		c.byRef[key] = n
		target, err := c.resolve(ref, at)
		if err != nil {
			return nil, err
		}
		flat := target
		if len(m) > 1 {
			flat = merge(target, without(m, "$ref"))
		}
		got, err := c.compile(flat, ref, depth+1)
		if err != nil {
			return nil, err
		}
		if _, chained := flat["$ref"]; chained {
			// got is another ref's node, perhaps still being compiled
			// (a cycle of refs): point at it rather than copy it.
			n.inner = got
		} else {
			*n = *got
		}
		n.origin = strings.SplitN(key, "\x00", 2)[0]
		return n, nil
	}
	m, err := c.flatten(m, at, 0)
	if err != nil {
		return nil, err
	}
	if depth > 512 {
		return nil, fmt.Errorf("schemaform: %s: schema nested too deeply", at)
	}
	n := &node{}
	n.title, _ = m["title"].(string)
	n.desc, _ = m["description"].(string)
	if d, ok := m["default"]; ok {
		n.def, n.hasDef = clean(d), true
	}
	n.readOnly, _ = m["readOnly"].(bool)
	n.c = constraints(m)
	if why := unsupported(m); why != "" {
		n.widget, n.fallback = WidgetJSON, "the schema "+why
		return n, nil
	}

	// oneOf/anyOf: a nullable pair, or a variant chooser.
	for _, kw := range []string{"oneOf", "anyOf"} {
		list, ok := m[kw].([]any)
		if !ok {
			continue
		}
		base := without(m, kw)
		var alts, raws []map[string]any
		var idx []int
		nullAt := -1
		for i, s := range list {
			sm, ok := s.(map[string]any)
			if !ok {
				if b, ok := s.(bool); ok && !b {
					continue
				}
				sm = map[string]any{}
			}
			rs, err := c.flatten(sm, fmt.Sprintf("%s/%s/%d", at, kw, i), 0)
			if err != nil {
				return nil, err
			}
			if isNull(rs) {
				nullAt = i
				continue
			}
			alts, raws = append(alts, rs), append(raws, sm)
			idx = append(idx, i)
		}
		switch {
		case len(alts) == 0:
			n.widget = WidgetNull
			return n, nil
		case len(alts) == 1:
			sub, err := c.alternative(base, raws[0], alts[0], fmt.Sprintf("%s/%s/%d", at, kw, idx[0]), depth)
			if err != nil {
				return nil, err
			}
			// A wrapper, not a copy: sub may be a recursive ref's node
			// that is still being compiled.
			w := &node{inner: sub, nullable: nullAt >= 0, branchKw: kw, branch: idx[0]}
			annotate(w, base)
			return w, nil
		}
		n.widget, n.varKw = WidgetVariant, kw
		for j := range alts {
			sub, err := c.alternative(base, raws[j], alts[j], fmt.Sprintf("%s/%s/%d", at, kw, idx[j]), depth)
			if err != nil {
				return nil, err
			}
			n.variants = append(n.variants, sub)
			n.varIdx = append(n.varIdx, idx[j])
			n.varLabels = append(n.varLabels, variantLabel(alts[j], j))
		}
		if nullAt >= 0 {
			n.variants = append(n.variants, &node{widget: WidgetNull})
			n.varIdx = append(n.varIdx, nullAt)
			n.varLabels = append(n.varLabels, "null")
		}
		return n, nil
	}

	if v, ok := m["const"]; ok {
		n.widget, n.constVal = WidgetConst, clean(v)
		return n, nil
	}

	types, err := typeList(m, at)
	if err != nil {
		return nil, err
	}
	if len(types) > 1 {
		nonNull := types[:0:0]
		for _, t := range types {
			if t == "null" {
				n.nullable = true
			} else {
				nonNull = append(nonNull, t)
			}
		}
		types = nonNull
	}
	if e, ok := m["enum"].([]any); ok {
		n.widget = WidgetSelect
		for _, v := range e {
			if v == nil {
				n.nullable = true
				continue
			}
			n.enum = append(n.enum, clean(v))
		}
		if len(n.enum) == 0 {
			n.widget = WidgetNull
		}
		return n, nil
	}
	if len(types) > 1 {
		n.widget, n.varKw = WidgetVariant, "type"
		for j, t := range types {
			sub, err := c.compile(merge(m, map[string]any{"type": t}), at, depth+1)
			if err != nil {
				return nil, err
			}
			n.variants = append(n.variants, sub)
			n.varIdx = append(n.varIdx, j)
			n.varLabels = append(n.varLabels, t)
		}
		return n, nil
	}
	t := ""
	if len(types) == 1 {
		t = types[0]
	} else {
		switch {
		case m["properties"] != nil || m["additionalProperties"] != nil || m["required"] != nil:
			t = "object"
		case m["items"] != nil:
			t = "array"
		}
	}
	switch t {
	case "object":
		return c.object(n, m, at, depth)
	case "array":
		n.widget = WidgetArray
		items, _ := m["items"].(map[string]any)
		if items == nil {
			items = map[string]any{}
		}
		sub, err := c.compile(items, at+"/items", depth+1)
		if err != nil {
			return nil, err
		}
		n.items = sub
	case "string":
		n.widget = WidgetText
		if multiline(m) {
			n.widget = WidgetTextArea
		}
	case "number":
		n.widget = WidgetNumber
	case "integer":
		n.widget = WidgetInteger
	case "boolean":
		n.widget = WidgetBoolean
	case "null":
		n.widget = WidgetNull
	case "":
		n.widget, n.fallback = WidgetJSON, "the schema allows any JSON value"
	default:
		return nil, fmt.Errorf("schemaform: %s: unknown type %q", at, t)
	}
	return n, nil
}

func (c *compiler) object(n *node, m map[string]any, at string, depth int) (*node, error) {
	n.widget = WidgetObject
	req := map[string]bool{}
	if r, ok := m["required"].([]any); ok {
		for _, v := range r {
			if s, ok := v.(string); ok {
				req[s] = true
			}
		}
	}
	props, _ := m["properties"].(map[string]any)
	for _, name := range order(m, props) {
		sm, ok := props[name].(map[string]any)
		if !ok {
			if b, ok := props[name].(bool); ok && !b {
				continue // a property that must not be present
			}
			sm = map[string]any{}
		}
		sub, err := c.compile(sm, at+"/properties/"+escape(name), depth+1)
		if err != nil {
			return nil, err
		}
		n.props = append(n.props, prop{name: name, n: sub, required: req[name]})
	}
	// A required property the schema does not describe still gets a field.
	var extraReq []string
	for name := range req {
		if props == nil || props[name] == nil {
			extraReq = append(extraReq, name)
		}
	}
	sort.Strings(extraReq)
	for _, name := range extraReq {
		n.props = append(n.props, prop{name: name, required: true,
			n: &node{widget: WidgetJSON, fallback: "the schema requires this property without describing it"}})
	}
	// Free entries are offered when the schema asks for them explicitly,
	// or when it names no properties at all. JSON Schema allows extra
	// properties by default, but offering them beside every declared
	// property list would only be noise.
	switch ap := m["additionalProperties"].(type) {
	case bool:
		if ap {
			n.extraOK, n.extra = true, &node{widget: WidgetJSON, fallback: "any JSON value"}
		}
	case map[string]any:
		sub, err := c.compile(ap, at+"/additionalProperties", depth+1)
		if err != nil {
			return nil, err
		}
		n.extraOK, n.extra = true, sub
	case nil:
		if _, declared := m["properties"]; !declared && len(n.props) == 0 {
			n.extraOK, n.extra = true, &node{widget: WidgetJSON, fallback: "any JSON value"}
		}
	}
	return n, nil
}

// order lists property names in document order as decode recorded it,
// else sorted, so the form is deterministic either way.
func order(m map[string]any, props map[string]any) []string {
	names := make([]string, 0, len(props))
	for k := range props {
		if k != orderKey {
			names = append(names, k)
		}
	}
	if ord, ok := m[orderKey].([]string); ok && len(ord) == len(names) {
		return ord
	}
	sort.Strings(names)
	return names
}

// orderKey is where decode records the document order of "properties".
// It cannot collide with a schema keyword: decoded JSON text never holds
// a []string value.
const orderKey = "\x00order"

// flatten resolves $ref and allOf into one schema object: the referenced
// or combined schemas merged, with the schema's own keywords on top.
func (c *compiler) flatten(m map[string]any, at string, depth int) (map[string]any, error) {
	if depth > maxMerge {
		return nil, fmt.Errorf("schemaform: %s: $ref/allOf nest more than %d deep", at, maxMerge)
	}
	out := m
	if ref, ok := m["$ref"].(string); ok {
		target, err := c.resolve(ref, at)
		if err != nil {
			return nil, err
		}
		t, err := c.flatten(target, ref, depth+1)
		if err != nil {
			return nil, err
		}
		out = merge(t, without(m, "$ref"))
	}
	if all, ok := out["allOf"].([]any); ok {
		acc := without(out, "allOf")
		for i, s := range all {
			sm, ok := s.(map[string]any)
			if !ok {
				continue
			}
			f, err := c.flatten(sm, fmt.Sprintf("%s/allOf/%d", at, i), depth+1)
			if err != nil {
				return nil, err
			}
			acc = merge(acc, f)
		}
		out = acc
	}
	return out, nil
}

// resolve finds a local reference: "#", "#/json/pointer" or "#anchor".
func (c *compiler) resolve(ref, at string) (map[string]any, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("schemaform: %s: $ref %q is not local to the schema; only \"#…\" references are followed", at, ref)
	}
	var cur any = c.root
	if frag != "" && !strings.HasPrefix(frag, "/") {
		if found := findAnchor(c.root, frag); found != nil {
			return found, nil
		}
		return nil, fmt.Errorf("schemaform: %s: $ref %q: no such anchor", at, ref)
	}
	if frag != "" {
		for _, tok := range strings.Split(frag[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch v := cur.(type) {
			case map[string]any:
				cur = v[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(v) {
					return nil, fmt.Errorf("schemaform: %s: $ref %q does not resolve", at, ref)
				}
				cur = v[i]
			default:
				cur = nil
			}
			if cur == nil {
				return nil, fmt.Errorf("schemaform: %s: $ref %q does not resolve", at, ref)
			}
		}
	}
	switch v := cur.(type) {
	case map[string]any:
		return v, nil
	case bool:
		if v {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	}
	return nil, fmt.Errorf("schemaform: %s: $ref %q is not a schema", at, ref)
}

func findAnchor(v any, name string) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		if a, _ := v["$anchor"].(string); a == name {
			return v
		}
		for _, sub := range v {
			if f := findAnchor(sub, name); f != nil {
				return f
			}
		}
	case []any:
		for _, sub := range v {
			if f := findAnchor(sub, name); f != nil {
				return f
			}
		}
	}
	return nil
}

// merge combines two schema objects: properties are combined (a property
// in both gets both schemas through allOf), required lists are joined,
// and for other keywords b wins. The property order is a's, then b's new
// names.
func merge(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		switch k {
		case "properties", orderKey:
		case "required":
			ar, _ := out[k].([]any)
			br, _ := v.([]any)
			out[k] = append(append([]any{}, ar...), br...)
		default:
			out[k] = v
		}
	}
	ap, _ := a["properties"].(map[string]any)
	bp, _ := b["properties"].(map[string]any)
	if bp == nil {
		return out
	}
	if ap == nil {
		out["properties"] = bp
		if o, ok := b[orderKey]; ok {
			out[orderKey] = o
		}
		return out
	}
	mp := make(map[string]any, len(ap)+len(bp))
	for pk, pv := range ap {
		mp[pk] = pv
	}
	ord := order(a, ap)
	for _, pk := range order(b, bp) {
		pv := bp[pk]
		if old, ok := mp[pk]; ok {
			mp[pk] = map[string]any{"allOf": []any{old, pv}}
		} else {
			mp[pk] = pv
			ord = append(ord, pk)
		}
	}
	out["properties"] = mp
	out[orderKey] = ord
	return out
}

// clean removes decode's order records from a value used as JSON (a
// default, a const, an enum member).
func clean(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k != orderKey {
				out[k] = clean(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = clean(x)
		}
		return out
	}
	return v
}

func without(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// annotate keeps the outer schema's title, description and default on a
// nullable field made from an inner branch.
func annotate(n *node, outer map[string]any) {
	if t, ok := outer["title"].(string); ok {
		n.title = t
	}
	if d, ok := outer["description"].(string); ok {
		n.desc = d
	}
	if v, ok := outer["default"]; ok {
		n.def, n.hasDef = clean(v), true
	}
}

func isNull(m map[string]any) bool {
	if t, ok := m["type"].(string); ok && t == "null" {
		return true
	}
	if v, ok := m["const"]; ok && v == nil {
		return true
	}
	return false
}

func typeList(m map[string]any, at string) ([]string, error) {
	switch t := m["type"].(type) {
	case nil:
		return nil, nil
	case string:
		return []string{t}, nil
	case []any:
		var out []string
		for _, v := range t {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("schemaform: %s/type: %v is not a type name", at, v)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("schemaform: %s/type: want a string or an array of strings", at)
}

// alternative compiles one branch of a oneOf/anyOf. When the schema
// around the branches only describes them, the branch compiles as it is
// written, so a branch that is a $ref reaches that ref's one node (and a
// recursive one stays recursive rather than unrolling); otherwise the
// surrounding keywords are merged into the branch.
func (c *compiler) alternative(base, raw, flat map[string]any, at string, depth int) (*node, error) {
	if annotationsOnly(base) {
		return c.compile(raw, at, depth+1)
	}
	return c.compile(merge(base, flat), at, depth+1)
}

func annotationsOnly(m map[string]any) bool {
	for k := range m {
		switch k {
		case "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly",
			"$schema", "$id", "$defs", "definitions", orderKey:
		default:
			return false
		}
	}
	return true
}

// variantLabel names a variant for the chooser: its title, else its
// const discriminator ("kind: circle"), its const, its type, or its
// position.
func variantLabel(alt map[string]any, i int) string {
	if t, ok := alt["title"].(string); ok && t != "" {
		return t
	}
	if props, ok := alt["properties"].(map[string]any); ok {
		for _, name := range order(alt, props) {
			if p, ok := props[name].(map[string]any); ok {
				if s, ok := p["const"].(string); ok {
					return name + ": " + s
				}
			}
		}
	}
	if v, ok := alt["const"]; ok {
		return FieldText(clean(v))
	}
	switch t := alt["type"].(type) {
	case string:
		return t
	case []any:
		var names []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
		return strings.Join(names, " or ")
	}
	switch {
	case alt["properties"] != nil:
		return "object"
	case alt["items"] != nil:
		return "array"
	case alt["enum"] != nil:
		return "choice"
	}
	return "option " + strconv.Itoa(i+1)
}

func multiline(m map[string]any) bool {
	if _, ok := m["contentMediaType"]; ok {
		return true
	}
	if ml, ok := num(m["maxLength"]); ok && ml > 500 {
		return true
	}
	return false
}

func constraints(m map[string]any) Constraints {
	var c Constraints
	c.Format, _ = m["format"].(string)
	c.Pattern, _ = m["pattern"].(string)
	c.UniqueItems, _ = m["uniqueItems"].(bool)
	fp := func(k string) *float64 {
		if f, ok := num(m[k]); ok {
			return &f
		}
		return nil
	}
	ip := func(k string) *int {
		if f, ok := num(m[k]); ok {
			i := int(f)
			return &i
		}
		return nil
	}
	c.Minimum, c.Maximum, c.MultipleOf = fp("minimum"), fp("maximum"), fp("multipleOf")
	c.ExclusiveMinimum, c.ExclusiveMaximum = fp("exclusiveMinimum"), fp("exclusiveMaximum")
	// Draft 4 wrote exclusive bounds as booleans beside minimum/maximum.
	if b, _ := m["exclusiveMinimum"].(bool); b && c.Minimum != nil {
		c.ExclusiveMinimum, c.Minimum = c.Minimum, nil
	}
	if b, _ := m["exclusiveMaximum"].(bool); b && c.Maximum != nil {
		c.ExclusiveMaximum, c.Maximum = c.Maximum, nil
	}
	c.MinLength, c.MaxLength = ip("minLength"), ip("maxLength")
	c.MinItems, c.MaxItems = ip("minItems"), ip("maxItems")
	return c
}

func num(v any) (float64, bool) {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	}
	return 0, false
}
