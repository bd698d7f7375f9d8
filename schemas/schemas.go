// Package schemas holds the JSON Schemas (draft 2020-12) of the workbench's
// artifacts — the SkillBundle, SkillManifest, ReplayReport, ProofResult,
// EvidenceBundle, fixture scenario and simulator world — and of the
// capability workbench's HTTP contract (CapabilityIDs), and validates
// documents against them.
//
// The schemas are embedded in the binary and compiled together once by New;
// the bundle schema refers to the others by their $id, and nothing is ever
// loaded from a file or the network. Formats (uuid, date-time, uri) are
// asserted, not merely annotated.
//
// A failed validation is a *ValidationError listing only the leaf causes,
// each with the JSON pointer of the offending place and a message meant to
// be shown next to that field in a form.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"workbench/pkg/canonjson"
	"workbench/pkg/skill"
)

// The $id of each schema, which is also the URI an artifact's own "schema"
// member names where it has one.
const (
	Bundle       = skill.BundleSchemaURI
	Manifest     = skill.ManifestSchemaURI
	ReplayReport = skill.ReplaySchemaURI
	Proof        = skill.ProofSchemaURI
	Evidence     = skill.EvidenceSchemaURI
	Scenario     = skill.ScenarioSchemaURI
	// World is the simulator world's schema (fixtures/worlds, package
	// body/sim); a world names it in its "schema" member.
	World = "https://opensentience.org/spec/workbench-simulator-world/v0.1"
	// Policy is the local policy engine's policy file (package policy).
	Policy = "https://opensentience.org/spec/workbench-policy/v0.1"
)

// The capability workbench's HTTP contract (package capability/httpapi,
// docs/capabilities.md): every request and answer the client speaks, as a
// backend author should send them. The client also reads documented
// variants; these are the canonical forms.
const (
	CapabilityCatalog          = "https://opensentience.org/spec/workbench-capability-catalog/v0.1"
	CapabilityDescriptor       = "https://opensentience.org/spec/workbench-capability-descriptor/v0.1"
	CapabilityPreflightRequest = "https://opensentience.org/spec/workbench-capability-preflight-request/v0.1"
	CapabilityPreview          = "https://opensentience.org/spec/workbench-capability-preview/v0.1"
	CapabilityInvokeRequest    = "https://opensentience.org/spec/workbench-capability-invoke-request/v0.1"
	CapabilityInvokeAnswer     = "https://opensentience.org/spec/workbench-capability-invoke-answer/v0.1"
	CapabilityError            = "https://opensentience.org/spec/workbench-capability-error/v0.1"
	CapabilityApprovals        = "https://opensentience.org/spec/workbench-capability-approvals/v0.1"
	CapabilityRuns             = "https://opensentience.org/spec/workbench-capability-runs/v0.1"
	CapabilityEventsPage       = "https://opensentience.org/spec/workbench-capability-events-page/v0.1"
	CapabilityRunEvent         = "https://opensentience.org/spec/workbench-capability-run-event/v0.1"
)

// CapabilityIDs returns the $id of every schema of the capability
// workbench's HTTP contract.
func CapabilityIDs() []string {
	return []string{CapabilityCatalog, CapabilityDescriptor, CapabilityPreflightRequest, CapabilityPreview,
		CapabilityInvokeRequest, CapabilityInvokeAnswer, CapabilityError, CapabilityApprovals, CapabilityRuns,
		CapabilityEventsPage, CapabilityRunEvent}
}

// IDs returns the $id of every schema, the bundle's first.
func IDs() []string {
	return append([]string{Bundle, Manifest, ReplayReport, Proof, Evidence, Scenario, World, Policy}, CapabilityIDs()...)
}

//go:embed *.json
var files embed.FS

// ErrUnknownSchema is returned (wrapped) when a schema id names none of the
// embedded schemas.
var ErrUnknownSchema = errors.New("unknown schema")

// Validator validates documents against the compiled schemas. It is
// immutable once New returns and safe for concurrent use.
type Validator struct {
	compiled map[string]*jsonschema.Schema
	// docs holds each schema's parsed source, keyed by $id, so that an
	// error can quote the schema's own description of what was expected.
	docs map[string]any
	// edge is the bundle schema's trace edge, the part of a bundle that
	// grows with the trace, which ValidateBundle checks in parallel.
	edge *jsonschema.Schema
	// bundlePlan and edgePlan check a bundle and an edge in place, in the
	// parsed document (see plan); nil when a schema uses dynamic
	// references, which plans cannot leave to the library part by part.
	bundlePlan, edgePlan *plan
}

// New compiles every embedded schema. An error here means the embedded
// schemas themselves are broken: a build defect, not bad input.
func New() (*Validator, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})

	names, err := fs.Glob(files, "*.json")
	if err != nil {
		return nil, fmt.Errorf("schemas: list embedded files: %w", err)
	}
	docs := make(map[string]any, len(names))
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("schemas: read %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schemas: parse %s: %w", name, err)
		}
		obj, _ := doc.(map[string]any)
		id, _ := obj["$id"].(string)
		if id == "" {
			return nil, fmt.Errorf("schemas: %s has no $id", name)
		}
		if _, dup := docs[id]; dup {
			return nil, fmt.Errorf("schemas: %s repeats $id %s", name, id)
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, fmt.Errorf("schemas: add %s: %w", name, err)
		}
		docs[id] = doc
	}

	v := &Validator{compiled: make(map[string]*jsonschema.Schema, len(docs)), docs: docs}
	for _, id := range IDs() {
		if _, ok := docs[id]; !ok {
			return nil, fmt.Errorf("schemas: no embedded schema has $id %s", id)
		}
	}
	for id := range docs {
		s, err := c.Compile(id)
		if err != nil {
			return nil, fmt.Errorf("schemas: compile %s: %w", id, err)
		}
		v.compiled[id] = s
	}
	if v.edge, err = c.Compile(Bundle + edgeSchemaFragment); err != nil {
		return nil, fmt.Errorf("schemas: compile %s%s: %w", Bundle, edgeSchemaFragment, err)
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(docs)), dynamicRefs) {
		v.bundlePlan, v.edgePlan = newPlan(v.compiled[Bundle]), newPlan(v.edge)
	}
	return v, nil
}

// noLoader refuses every URL: all references must resolve to an embedded
// schema (or a metaschema, which the compiler carries itself).
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("%s is not an embedded schema", u)
}

// Validate checks instance, a JSON value as jsonschema.UnmarshalJSON
// produces it (map[string]any, []any, json.Number, string, bool, nil; Go
// numbers also work, as encoding/json decodes them into any), against the
// schema with the given $id. It returns nil, a *ValidationError, or an error
// wrapping ErrUnknownSchema.
func (v *Validator) Validate(schemaID string, instance any) error {
	s, ok := v.compiled[schemaID]
	if !ok {
		return fmt.Errorf("schemas: %w: %s", ErrUnknownSchema, schemaID)
	}
	err := s.Validate(instance)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("schemas: validate against %s: %w", schemaID, err)
	}
	out := &ValidationError{Schema: schemaID}
	v.collect(ve, &out.Errors)
	sortFields(out.Errors)
	out.Errors = slices.Compact(out.Errors)
	return out
}

// Where a bundle's trace edges are, and the schema each must satisfy.
const (
	edgesPointer       = "/interaction_trace/edges"
	edgeSchemaFragment = "#/$defs/trace_edge"
)

// edgeChunk is how many trace edges one goroutine of ValidateBundle
// validates: enough to outweigh the goroutine, few enough to spread a
// thousand-edge trace over the cores.
const edgeChunk = 128

// ValidateBundle validates a strictly parsed bundle against the Bundle
// schema. It gives exactly what Validate(Bundle, doc.Generic()) gives, but
// checks the bundle in place in the parsed document first (see plan), and
// only when that finds it invalid validates it with the library for the
// field errors: the trace edges, which dominate a large bundle, in
// parallel chunks beside the rest of the bundle, each edge checked in
// place again and handed to the library only when it is invalid.
func (v *Validator) ValidateBundle(doc *canonjson.Document) error {
	if v.bundlePlan != nil && v.bundlePlan.valid(doc.Root()) {
		return nil
	}
	return v.validateBundle(doc, edgeChunk)
}

func (v *Validator) validateBundle(doc *canonjson.Document, chunk int) error {
	list, ok := doc.At(edgesPointer)
	if !ok || list.Type() != canonjson.Array || list.Len() <= chunk && v.edgePlan == nil {
		return v.Validate(Bundle, doc.Generic())
	}
	edges := make([]canonjson.Value, 0, list.Len())
	for _, e := range list.Elements() {
		edges = append(edges, e)
	}
	// The edges array's schema is items alone ("type" is checked on the
	// array kept, empty, in the rest), so each edge validated on its own
	// against the same subschema fails exactly where it failed in place.
	chunks := (len(edges) + chunk - 1) / chunk
	fields := make([][]FieldError, chunks+1)
	errs := make([]error, chunks+1)
	var wg sync.WaitGroup
	for c := range chunks {
		wg.Go(func() {
			from := c * chunk
			for j, e := range edges[from:min(from+chunk, len(edges))] {
				if v.edgePlan != nil && v.edgePlan.valid(e) {
					continue
				}
				err := v.edge.Validate(e.Generic())
				if err == nil {
					continue
				}
				var ve *jsonschema.ValidationError
				if !errors.As(err, &ve) {
					errs[c+1] = err
					return
				}
				at := len(fields[c+1])
				v.collect(ve, &fields[c+1])
				prefix := edgesPointer + "/" + strconv.Itoa(from+j)
				for k := at; k < len(fields[c+1]); k++ {
					fields[c+1][k].Pointer = prefix + fields[c+1][k].Pointer
				}
			}
		})
	}
	if err := v.compiled[Bundle].Validate(doc.GenericWithout(edgesPointer)); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			v.collect(ve, &fields[0])
		} else {
			errs[0] = err
		}
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("schemas: validate against %s: %w", Bundle, err)
		}
	}
	out := &ValidationError{Schema: Bundle, Errors: slices.Concat(fields...)}
	if len(out.Errors) == 0 {
		return nil
	}
	sortFields(out.Errors)
	out.Errors = slices.Compact(out.Errors)
	return out
}

// ValidateJSON parses data and validates it like Validate. Data that is not
// JSON gives an error naming the byte offset. It does not enforce I-JSON
// (duplicate names, integer range): strict parsing is skill.Parse's job, and
// callers importing a file run that first.
func (v *Validator) ValidateJSON(schemaID string, data []byte) error {
	if _, ok := v.compiled[schemaID]; !ok {
		return fmt.Errorf("schemas: %w: %s", ErrUnknownSchema, schemaID)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("schemas: not JSON at byte %d: %w", se.Offset, err)
		}
		return fmt.Errorf("schemas: not JSON: %w", err)
	}
	return v.Validate(schemaID, doc)
}

// FieldError is one reason a document failed its schema.
type FieldError struct {
	// Pointer is the RFC 6901 JSON pointer of the offending value; "" is the
	// whole document. For a missing required member or a member a closed
	// object does not allow, it points at that member itself — the place a
	// form shows the error — rather than at the enclosing object.
	Pointer string
	// Keyword is the schema keyword that failed: "required", "pattern",
	// "additionalProperties", "enum", "format", "type", "minimum" …
	Keyword string
	// Message says what is wrong in words fit for a form field.
	Message string
}

// String is "pointer: message", with "(document)" for the empty pointer.
func (f FieldError) String() string {
	p := f.Pointer
	if p == "" {
		p = "(document)"
	}
	return p + ": " + f.Message
}

// ValidationError is a document that does not satisfy its schema. Errors
// holds the leaf causes only, sorted by pointer (array indices in numeric
// order), never empty.
type ValidationError struct {
	Schema string // $id of the schema the document failed
	Errors []FieldError
}

// Error lists every field error, one per line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, f := range e.Errors {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.String())
	}
	return b.String()
}

// printer formats the library's own messages, made on first use: a
// program that loads the package (the browser app, at start) but validates
// nothing invalid never pays for it.
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// collect flattens the library's error tree into leaf field errors. Every
// leaf is a requirement the value really failed: the schemas avoid anyOf and
// oneOf, whose branch causes would each be only one possible way out (a test
// holds them to that), and a failed contains is reported on the array.
func (v *Validator) collect(e *jsonschema.ValidationError, out *[]FieldError) {
	// A failed contains carries every item's mismatch as a cause; none of
	// those items was required to match, so the array itself is the leaf.
	_, contains := e.ErrorKind.(*kind.Contains)
	if len(e.Causes) > 0 && !contains {
		for _, c := range e.Causes {
			v.collect(c, out)
		}
		return
	}
	*out = append(*out, v.leaf(e)...)
}

// leaf turns one leaf cause into field errors; required and
// additionalProperties give one per member.
func (v *Validator) leaf(e *jsonschema.ValidationError) []FieldError {
	at := pointer(e.InstanceLocation)
	one := func(msg string) []FieldError {
		return []FieldError{{Pointer: at, Keyword: keyword(e.ErrorKind), Message: msg}}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		fs := make([]FieldError, 0, len(k.Missing))
		for _, m := range k.Missing {
			fs = append(fs, FieldError{Pointer: at + "/" + escape(m), Keyword: "required", Message: "is required"})
		}
		return fs
	case *kind.AdditionalProperties:
		fs := make([]FieldError, 0, len(k.Properties))
		for _, m := range k.Properties {
			fs = append(fs, FieldError{Pointer: at + "/" + escape(m), Keyword: "additionalProperties", Message: "is not an allowed member here"})
		}
		return fs
	case *kind.Type:
		return one(fmt.Sprintf("must be %s, not %s", orList(k.Want, typeName), typeName(k.Got)))
	case *kind.Enum:
		if len(k.Want) == 1 {
			return one("must be " + literal(k.Want[0]))
		}
		return one("must be one of " + orList(k.Want, literal))
	case *kind.Const:
		return one("must be " + literal(k.Want))
	case *kind.Pattern:
		return one("must match pattern " + k.Want)
	case *kind.Format:
		return one(fmt.Sprintf("must be %s: %v", formatName(k.Want), k.Err))
	case *kind.MinLength:
		if k.Want == 1 {
			return one("must not be empty")
		}
		return one(fmt.Sprintf("must be at least %d characters long", k.Want))
	case *kind.MaxLength:
		return one(fmt.Sprintf("must be at most %d characters long", k.Want))
	case *kind.Minimum:
		return one("must be at least " + ratString(k.Want))
	case *kind.Maximum:
		return one("must be at most " + ratString(k.Want))
	case *kind.ExclusiveMinimum:
		return one("must be greater than " + ratString(k.Want))
	case *kind.ExclusiveMaximum:
		return one("must be less than " + ratString(k.Want))
	case *kind.MinItems:
		if k.Want == 1 {
			return one("must not be empty")
		}
		return one(fmt.Sprintf("must have at least %d items", k.Want))
	case *kind.MaxItems:
		return one(fmt.Sprintf("must have at most %d items", k.Want))
	case *kind.UniqueItems:
		return one(fmt.Sprintf("items %d and %d are equal; each must appear once", k.Duplicates[0], k.Duplicates[1]))
	case *kind.Contains:
		if d := v.description(e.SchemaURL, "contains"); d != "" {
			return one("must contain " + d)
		}
		return one("must contain a matching item")
	case *kind.FalseSchema:
		return one("is not allowed")
	}
	return one(e.ErrorKind.LocalizedString(printer()))
}

// description returns the "description" of the subschema at keyword kw of
// the schema at schemaURL, or "" when there is none.
func (v *Validator) description(schemaURL, kw string) string {
	base, frag, _ := strings.Cut(schemaURL, "#")
	node := v.docs[base]
	var toks []string
	if frag != "" {
		for _, t := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			if u, err := url.PathUnescape(t); err == nil {
				t = u
			}
			toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
		}
	}
	for _, t := range append(toks, kw, "description") {
		switch n := node.(type) {
		case map[string]any:
			node = n[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(n) {
				return ""
			}
			node = n[i]
		default:
			return ""
		}
	}
	s, _ := node.(string)
	return s
}

func keyword(k jsonschema.ErrorKind) string {
	if p := k.KeywordPath(); len(p) > 0 {
		return p[0]
	}
	if _, ok := k.(*kind.FalseSchema); ok {
		return "false"
	}
	return ""
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}

func escape(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func typeName(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	case "null":
		return "null"
	}
	return "a " + t
}

func formatName(f string) string {
	switch f {
	case "date-time":
		return "an RFC 3339 date-time"
	case "uuid":
		return "a UUID"
	case "uri":
		return "an absolute URI"
	}
	return "a valid " + f
}

// literal writes a JSON scalar the way it appears in a document.
func literal(x any) string {
	if b, err := json.Marshal(x); err == nil {
		return string(b)
	}
	return fmt.Sprint(x)
}

func orList[T any](xs []T, str func(T) string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = str(x)
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func ratString(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// sortFields orders errors by pointer, comparing array indices as numbers
// so that /edges/2 comes before /edges/10, then by keyword and message.
func sortFields(fs []FieldError) {
	slices.SortFunc(fs, func(a, b FieldError) int {
		if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		if c := strings.Compare(a.Keyword, b.Keyword); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}

func comparePointers(a, b string) int {
	at, bt := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(at) && i < len(bt); i++ {
		if at[i] == bt[i] {
			continue
		}
		ai, aerr := strconv.Atoi(at[i])
		bi, berr := strconv.Atoi(bt[i])
		if aerr == nil && berr == nil {
			if ai < bi {
				return -1
			}
			return 1
		}
		return strings.Compare(at[i], bt[i])
	}
	return len(at) - len(bt)
}
