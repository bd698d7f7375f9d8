// Package schemas holds the JSON Schemas (draft 2020-12) of the workbench's
// artifacts — the SkillBundle, SkillManifest, ReplayReport, ProofResult,
// EvidenceBundle, fixture scenario and simulator world — of the
// capability workbench's HTTP contract (CapabilityIDs) and of the skill
// registry's API (RegistryIDs), and validates documents against them.
//
// The schemas are embedded in the binary and compiled together once per
// process, by New's first call or a part at a time by Prepare; the bundle
// schema refers to the others by their $id, and nothing is ever loaded
// from a file or the network.
// Formats (uuid, date-time, uri) are asserted, not merely annotated.
//
// A failed validation is a *ValidationError listing only the leaf causes,
// each with the JSON pointer of the offending place and a message meant to
// be shown next to that field in a form: the first MaxFieldErrors of them
// in pointer order, and the count of the rest.
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
	"unicode/utf8"

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

// The skill registry's HTTP API (docs/registry.md): the entry it keeps of a
// published bundle, a listing page, a withdrawal, an error answer and the
// status every deployment answers.
const (
	RegistryEntry      = "https://opensentience.org/spec/workbench-registry-entry/v0.1"
	RegistryPage       = "https://opensentience.org/spec/workbench-registry-page/v0.1"
	RegistryWithdrawal = "https://opensentience.org/spec/workbench-registry-withdrawal/v0.1"
	RegistryError      = "https://opensentience.org/spec/workbench-registry-error/v0.1"
	RegistryStatus     = "https://opensentience.org/spec/workbench-registry-status/v0.1"
)

// RegistryIDs returns the $id of every schema of the registry's API.
func RegistryIDs() []string {
	return []string{RegistryEntry, RegistryPage, RegistryWithdrawal, RegistryError, RegistryStatus}
}

// IDs returns the $id of every schema, the bundle's first.
func IDs() []string {
	ids := append([]string{Bundle, Manifest, ReplayReport, Proof, Evidence, Scenario, World, Policy}, CapabilityIDs()...)
	return append(ids, RegistryIDs()...)
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
	// bundlePlan checks and explains a bundle in place, in the parsed
	// document (see plan); nil when a schema uses dynamic references,
	// which plans cannot leave to the library part by part.
	bundlePlan *plan
}

// New returns every embedded schema compiled. The first call compiles
// them (or what Prepare left), once per process, and every call returns
// that Validator (it is immutable): the browser app's verifier, each
// simulator it opens and the policy check then share one compiling, a few
// hundred milliseconds of the page's main thread, instead of paying it
// each. An error here means the embedded schemas themselves are broken: a
// build defect, not bad input.
func New() (*Validator, error) {
	return shared.validator()
}

// Prepare compiles one more part of what New returns and reports whether
// parts remain: reading the files, one schema (with any it refers to that
// are not compiled yet), or the bundle's plan. A program on a browser
// page's main thread calls it once per idle period, so that no single
// task holds the page for the whole compiling; New finishes what is left.
func Prepare() (more bool) {
	return shared.prepare()
}

// shared is the process's one compiling of the embedded schemas. It is
// made on first use, by New or Prepare: a program that loads the package
// but never validates (the browser app at start) never pays for it.
var shared = compiling{fsys: files}

// compiling is a compiling of the schemas in fsys, a part per step.
type compiling struct {
	mu       sync.Mutex
	fsys     fs.FS
	c        *jsonschema.Compiler // nil until the files are read
	docs     map[string]any
	left     []string // the $ids not compiled yet, the bundle's last
	v        *Validator
	err      error
	finished bool
}

// validator finishes the compiling and returns its result.
func (p *compiling) validator() (*Validator, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.finished {
		p.step()
	}
	return p.v, p.err
}

// prepare runs the next part, if any, and reports whether parts remain.
func (p *compiling) prepare() (more bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.finished {
		p.step()
	}
	return !p.finished
}

// step runs the next part. An error ends the compiling with no Validator.
func (p *compiling) step() {
	switch {
	case p.c == nil:
		p.err = p.read()
	case len(p.left) > 0:
		id := p.left[0]
		p.left = p.left[1:]
		s, err := p.c.Compile(id)
		if err != nil {
			p.err = fmt.Errorf("schemas: compile %s: %w", id, err)
			break
		}
		p.v.compiled[id] = s
	default:
		if !slices.ContainsFunc(slices.Collect(maps.Values(p.docs)), dynamicRefs) {
			p.v.bundlePlan = newPlan(p.v.compiled[Bundle])
		}
		p.finished = true
	}
	if p.err != nil {
		p.v, p.finished = nil, true
	}
}

// read parses every file and hands it to a new compiler, and lists what is
// left to compile: the bundle's schema last, so that compiling it is not
// also compiling the schemas it refers to.
func (p *compiling) read() error {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})

	names, err := fs.Glob(p.fsys, "*.json")
	if err != nil {
		return fmt.Errorf("schemas: list embedded files: %w", err)
	}
	docs := make(map[string]any, len(names))
	for _, name := range names {
		data, err := fs.ReadFile(p.fsys, name)
		if err != nil {
			return fmt.Errorf("schemas: read %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("schemas: parse %s: %w", name, err)
		}
		obj, _ := doc.(map[string]any)
		id, _ := obj["$id"].(string)
		if id == "" {
			return fmt.Errorf("schemas: %s has no $id", name)
		}
		if _, dup := docs[id]; dup {
			return fmt.Errorf("schemas: %s repeats $id %s", name, id)
		}
		if err := c.AddResource(id, doc); err != nil {
			return fmt.Errorf("schemas: add %s: %w", name, err)
		}
		docs[id] = doc
	}
	for _, id := range IDs() {
		if _, ok := docs[id]; !ok {
			return fmt.Errorf("schemas: no embedded schema has $id %s", id)
		}
	}
	p.left = slices.DeleteFunc(slices.Sorted(maps.Keys(docs)), func(id string) bool { return id == Bundle })
	p.left = append(p.left, Bundle)
	p.c, p.docs = c, docs
	p.v = &Validator{compiled: make(map[string]*jsonschema.Schema, len(docs)), docs: docs}
	return nil
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
	x := &explainer{v: v, list: newFieldList(MaxFieldErrors)}
	x.libraryError(err)
	return x.list.result(schemaID)
}

// ValidateBundle validates a strictly parsed bundle against the Bundle
// schema. It gives what Validate(Bundle, doc.Generic()) gives, but checks
// the bundle in place in the parsed document (see plan), and explains an
// invalid one there too, in one pass whatever the number of its errors,
// building nothing for the errors beyond the MaxFieldErrors it lists.
func (v *Validator) ValidateBundle(doc *canonjson.Document) error {
	if v.bundlePlan == nil {
		return v.Validate(Bundle, doc.Generic())
	}
	return v.validatePlan(v.bundlePlan, Bundle, doc.Root(), MaxFieldErrors)
}

// validatePlan validates root against the schema of p, keeping at most
// max field errors. When the plan finds root invalid but cannot say why —
// a disagreement with the library, which tests rule out — the library
// judges the whole value.
func (v *Validator) validatePlan(p *plan, schemaID string, root canonjson.Value, max int) error {
	if p.valid(root) {
		return nil
	}
	x := &explainer{v: v, list: newFieldList(max)}
	p.explain(root, x)
	if ve := x.list.result(schemaID); ve != nil {
		return ve
	}
	return v.Validate(schemaID, root.Generic())
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
// A pointer or message longer than maxShown bytes is shortened in the
// middle, saying how much was left out: a hostile document whose one
// member name is megabytes long would otherwise print that name in full,
// once per problem.
func (f FieldError) String() string {
	p := f.Pointer
	if p == "" {
		p = "(document)"
	}
	return Abbreviate(p) + ": " + Abbreviate(f.Message)
}

// maxShown is the longest pointer or message String prints whole.
const maxShown = 512

// Abbreviate is s, or, when s is longer than 512 bytes, its start and end
// around a note of the bytes left out, cut at rune boundaries: the form in
// which a pointer or a message about a document is printed, so that no
// problem line grows with a hostile document's longest string.
func Abbreviate(s string) string {
	if len(s) <= maxShown {
		return s
	}
	head, tail := maxShown*3/4, maxShown/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return fmt.Sprintf("%s…[%d bytes]…%s", s[:head], start-head, s[start:])
}

// ValidationError is a document that does not satisfy its schema. Errors
// holds the leaf causes only, sorted by pointer (array indices in numeric
// order), never empty: the first MaxFieldErrors of them when the schemas
// package made it. Omitted counts the causes left out after those.
type ValidationError struct {
	Schema  string // $id of the schema the document failed
	Errors  []FieldError
	Omitted int
}

// Error lists every field error, one per line, and how many were left
// out.
func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, f := range e.Errors {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.String())
	}
	if e.Omitted > 0 {
		fmt.Fprintf(&b, "\n(and %d more)", e.Omitted)
	}
	return b.String()
}

// printer formats the library's own messages, made on first use: a
// program that loads the package (the browser app, at start) but validates
// nothing invalid never pays for it.
var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// message says what is wrong with a value that fails k, a kind of one
// field error (not required or additionalProperties, which make one per
// member), in words fit for a form field; schemaURL is the location of
// the failing schema.
func (v *Validator) message(schemaURL string, k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("must be %s, not %s", orList(k.Want, typeName), typeName(k.Got))
	case *kind.Enum:
		if len(k.Want) == 1 {
			return "must be " + literal(k.Want[0])
		}
		return "must be one of " + orList(k.Want, literal)
	case *kind.Const:
		return "must be " + literal(k.Want)
	case *kind.Pattern:
		return "must match pattern " + k.Want
	case *kind.Format:
		return fmt.Sprintf("must be %s: %v", formatName(k.Want), k.Err)
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %d characters long", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long", k.Want)
	case *kind.Minimum:
		return "must be at least " + ratString(k.Want)
	case *kind.Maximum:
		return "must be at most " + ratString(k.Want)
	case *kind.ExclusiveMinimum:
		return "must be greater than " + ratString(k.Want)
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratString(k.Want)
	case *kind.MinItems:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must have at least %d items", k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %d items", k.Want)
	case *kind.UniqueItems:
		return fmt.Sprintf("items %d and %d are equal; each must appear once", k.Duplicates[0], k.Duplicates[1])
	case *kind.Contains:
		if d := v.description(schemaURL, "contains"); d != "" {
			return "must contain " + d
		}
		return "must contain a matching item"
	case *kind.FalseSchema:
		return "is not allowed"
	}
	return k.LocalizedString(printer())
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

// compareFields orders field errors by pointer (see comparePointers), then
// by keyword and message.
func compareFields(a, b FieldError) int {
	if c := comparePointers(a.Pointer, b.Pointer); c != 0 {
		return c
	}
	return compareKeyMessage(a, b.Keyword, b.Message)
}

func compareKeyMessage(a FieldError, keyword, message string) int {
	if c := strings.Compare(a.Keyword, keyword); c != 0 {
		return c
	}
	return strings.Compare(a.Message, message)
}

// comparePointers orders JSON pointers token by token, a pointer before
// the pointers below it. Tokens that are array indices (digits, without
// leading zeros) come before other tokens and in numeric order, so that
// /edges/2 comes before /edges/10; other tokens are in byte order. It
// splits and allocates nothing: errors are ordered by it millions of
// times on a hostile document.
func comparePointers[A, B ~string | ~[]byte](a A, b B) int {
	for len(a) > 0 && len(b) > 0 {
		// Both start with '/': every pointer here is built that way.
		a, b = a[1:], b[1:]
		i, j := 0, 0
		for i < len(a) && a[i] != '/' {
			i++
		}
		for j < len(b) && b[j] != '/' {
			j++
		}
		if c := compareTokens(a[:i], b[:j]); c != 0 {
			return c
		}
		a, b = a[i:], b[j:]
	}
	return len(a) - len(b)
}

func compareTokens[A, B ~string | ~[]byte](a A, b B) int {
	an, bn := isIndex(a), isIndex(b)
	switch {
	case an && !bn:
		return -1
	case bn && !an:
		return 1
	case an && len(a) != len(b):
		return len(a) - len(b)
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

// isIndex reports whether a pointer token is an array index.
func isIndex[T ~string | ~[]byte](t T) bool {
	if len(t) == 0 || len(t) > 1 && t[0] == '0' {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}
