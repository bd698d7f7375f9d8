package verify

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"workbench/pkg/canonjson"
	"workbench/pkg/skill"
	"workbench/pkg/sortfunc"
	"workbench/schemas"
)

// What an input that is not a well-formed bundle was found to be, as
// InvalidError.Stage says.
const (
	// StageNotJSON: the bytes are not JSON at all.
	StageNotJSON = "not_json"
	// StageNotIJSON: JSON that strict reading refuses (a duplicate member
	// name, a lone surrogate, a number that overflows, a limit).
	StageNotIJSON = "not_i_json"
	// StageNotBundle: I-JSON that is not a bundle; Artifact says what it
	// looks like instead, if anything.
	StageNotBundle = "not_bundle"
	// StageSchema: it looks like a bundle but fails the bundle schema.
	StageSchema = "schema"
	// StageDecode: it passes the schema but cannot be decoded.
	StageDecode = "decode"
)

// The spec's artifacts, as InvalidError.Artifact names them.
const (
	ArtifactBundle       = "SkillBundle"
	ArtifactManifest     = "SkillManifest"
	ArtifactReplayReport = "ReplayReport"
	ArtifactProof        = "ProofResult"
	ArtifactEvidence     = "EvidenceBundle"
)

// artifacts are the spec's artifacts other than the bundle, each with its
// schema, its section of the spec and the top-level members that give it
// away when its "schema" member does not.
var artifacts = []struct {
	name, schemaID, section string
	members                 []string
}{
	{ArtifactReplayReport, schemas.ReplayReport, "§5.3", []string{"replay_id"}},
	{ArtifactProof, schemas.Proof, "§5.4", []string{"proof_gates", "overall_verdict"}},
	{ArtifactManifest, schemas.Manifest, "§5.2", []string{"capabilities_required", "derived_from_trace_id"}},
	{ArtifactEvidence, schemas.Evidence, "§6", []string{"capability_snapshot", "pulse_manifest_snapshot"}},
}

// HashCheck is the content hash recomputed for a document that claims one,
// whether or not the document is a well-formed bundle: a stale hash and an
// intact one never read the same.
type HashCheck struct {
	Claimed  string `json:"claimed"`
	Computed string `json:"computed"`
	Intact   bool   `json:"intact"`
}

func (h HashCheck) String() string {
	if h.Intact {
		return "content_hash intact (" + h.Claimed + ")"
	}
	return fmt.Sprintf("content_hash STALE: claimed %s, the content hashes to %s", schemas.Abbreviate(h.Claimed), h.Computed)
}

// checkHash recomputes the content hash of doc when it is an object with a
// string content_hash member; nil otherwise.
func checkHash(doc *canonjson.Document) *HashCheck {
	if doc == nil || !doc.IsObject() {
		return nil
	}
	v, ok := doc.At("/content_hash")
	if !ok || v.Type() != canonjson.String {
		return nil
	}
	form, err := skill.AppendHashedForm(nil, doc)
	if err != nil {
		return nil
	}
	h := &HashCheck{Claimed: v.Text(), Computed: skill.HashBytes(form)}
	h.Intact = h.Claimed == h.Computed
	return h
}

// looksLikeBundle reports whether doc's top level has the members only a
// bundle has.
func looksLikeBundle(doc *canonjson.Document) bool {
	for _, m := range []string{"bundle_version", "interaction_trace", "content_hash"} {
		if _, ok := doc.At("/" + m); ok {
			return true
		}
	}
	return false
}

// otherArtifact validates doc, which is not a bundle, against the schema of
// the artifact it looks like, and fills in e.
func (v *Verifier) otherArtifact(doc *canonjson.Document, e *InvalidError) {
	e.Stage = StageNotBundle
	schema := ""
	if s, ok := doc.At("/schema"); ok {
		schema = s.Text()
	}
	for _, a := range artifacts {
		match := schema == a.schemaID
		for _, m := range a.members {
			if _, ok := doc.At("/" + m); ok {
				match = true
			}
		}
		if !match {
			continue
		}
		e.Artifact, e.section = a.name, a.section
		err := v.schemas.Validate(a.schemaID, doc.Generic())
		var ve *schemas.ValidationError
		if errors.As(err, &ve) {
			e.Problems, e.Omitted = fieldProblems(ve), ve.Omitted
		}
		return
	}
}

// Headline is the one line a person reads first about an input that is
// not a well-formed bundle: what it is, and what is wrong.
func (e *InvalidError) Headline() string {
	if e.sent != nil {
		return e.sent.headline
	}
	n := e.Total()
	switch e.Stage {
	case StageNotJSON:
		return "not JSON: " + e.Problems[0].String()
	case StageNotIJSON:
		return "JSON, but not I-JSON, which bundles must be: " + e.Problems[0].String()
	case StageNotBundle:
		switch {
		case e.Artifact == "" && e.doc == nil && len(e.Problems) > 0:
			return "JSON, but not a bundle, nor any other artifact of the spec: " + e.Problems[0].Message
		case e.Artifact == "":
			return "JSON, but not a bundle, nor any other artifact of the spec"
		case n == 0:
			return fmt.Sprintf("not a bundle: a valid %s (spec %s), checked against its own schema", e.Artifact, e.section)
		}
		return fmt.Sprintf("not a bundle: it looks like a %s (spec %s), with %s against that schema", e.Artifact, e.section, count(n, "problem"))
	case StageDecode:
		return "a bundle that cannot be read: " + e.Problems[0].String()
	}
	if e.Foreign != nil {
		return e.Foreign.Headline(e.Hash) + "; " + count(n, "problem") + " against the bundle schema"
	}
	h := fmt.Sprintf("a bundle with %s against the bundle schema", count(n, "problem"))
	if e.Hash != nil {
		if e.Hash.Intact {
			h += "; content hash intact"
		} else {
			h += "; content hash STALE"
		}
	}
	return h
}

// HeadlineSays reports whether a file that stopped at stage has its one
// problem in the headline already (not JSON, not I-JSON, not decodable):
// a list of problems or causes under it would say the same thing again.
func HeadlineSays(stage string) bool {
	return stage == StageNotJSON || stage == StageNotIJSON || stage == StageDecode
}

// Headline is the one line a person reads first about a well-formed
// bundle: its verdict and its content hash.
func (r *Report) Headline() string {
	hash := "content hash intact"
	for _, g := range r.Derived.ProofGates {
		if g.ID == skill.GateContentHash && g.Verdict != skill.VerdictPass {
			hash = "content hash STALE"
		}
	}
	h := fmt.Sprintf("bundle %q v%d: verdict %s; %s", r.SkillName, r.Version, strings.ToUpper(r.Verdict), hash)
	if n := len(r.Overclaims); n > 0 {
		h += "; " + count(n, "overclaim")
	}
	if n := len(r.Warnings) + r.WarningsOmitted; n > 0 {
		h += "; " + count(n, "warning")
	}
	// An invalid signature is a failure of its own, beside the verdict:
	// the headline must not read as clean when the signature is broken.
	if r.Signature == SignatureInvalid {
		h += "; SIGNATURE INVALID"
	}
	return h
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// ProblemGroup is the problems of one cause: the same keyword failing at
// the same place up to array indexes (Pattern, where each index is *). A
// missing required member and a member the spec does not define are
// grouped by the object they concern, and Names lists which.
type ProblemGroup struct {
	Pattern string   `json:"pattern"`
	Keyword string   `json:"keyword"`
	Count   int      `json:"count"`
	Names   []string `json:"names,omitempty"`
	// Sentence says the cause plainly.
	Sentence string `json:"sentence"`
	// Examples are the group's first MaxExamples problems.
	Examples []Problem `json:"examples"`
}

// MaxExamples is how many problems a ProblemGroup shows, and how many
// names it lists.
const MaxExamples = 3

// Groups sorts the listed problems by cause, the largest group first.
// Edges that carry OS-011's single state_hash where the bundle schema asks
// for state_before and state_after are one cause, counted once per edge.
func (e *InvalidError) Groups() []ProblemGroup {
	if e.sent != nil {
		return slices.Clone(e.sent.groups)
	}
	var groups []ProblemGroup
	index := map[string]int{}
	seen := map[string]bool{} // edges already counted under the state_hash cause
	for _, p := range e.Problems {
		pattern, keyword, name := indexPattern(p.Pointer), p.Keyword, ""
		if keyword == "required" || keyword == "additionalProperties" {
			var parent string
			parent, name = splitPointer(p.Pointer)
			pattern = indexPattern(parent)
			if keyword == "required" && (name == "state_before" || name == "state_after") &&
				pattern == "/interaction_trace/edges/*" && e.doc != nil {
				if _, ok := e.doc.At(parent + "/state_hash"); ok {
					keyword, name = "state_hash", ""
					if seen[parent] {
						continue
					}
					seen[parent] = true
				}
			}
		}
		key := pattern + "\x00" + keyword
		i, ok := index[key]
		if !ok {
			i = len(groups)
			index[key] = i
			groups = append(groups, ProblemGroup{Pattern: pattern, Keyword: keyword})
		}
		g := &groups[i]
		g.Count++
		if len(g.Examples) < MaxExamples {
			g.Examples = append(g.Examples, p)
		}
		if name != "" && !slices.Contains(g.Names, name) && len(g.Names) < MaxExamples {
			g.Names = append(g.Names, name)
		}
	}
	for i := range groups {
		groups[i].Sentence = sentence(&groups[i])
	}
	sortfunc.Stable(groups, func(a, b ProblemGroup) int { return b.Count - a.Count })
	return groups
}

// sentence says a group's cause in words.
func sentence(g *ProblemGroup) string {
	names := make([]string, len(g.Names))
	for i, n := range g.Names {
		names[i] = "`" + schemas.Abbreviate(n) + "`"
	}
	list := strings.Join(names, ", ")
	if g.Count > len(g.Names) && len(g.Names) == MaxExamples {
		list += ", …"
	}
	where := "`" + g.Pattern + "`"
	if g.Pattern == "" {
		where = "the top level"
	}
	_, coll := splitPointer(strings.TrimSuffix(g.Pattern, "/*"))
	many := strings.HasSuffix(g.Pattern, "/*") && coll != ""
	switch g.Keyword {
	case "state_hash":
		return fmt.Sprintf("%s carry one `state_hash` instead of `state_before`/`state_after` (OS-011 §4)", count(g.Count, "edge"))
	case "required":
		if many {
			return fmt.Sprintf("%s missing from the `%s`: %s", count(g.Count, "required member"), coll, list)
		}
		return fmt.Sprintf("%s lacks %s: %s", where, count(g.Count, "required member"), list)
	case "additionalProperties":
		if many {
			return fmt.Sprintf("%s the spec does not define in the `%s`: %s", count(g.Count, "member"), coll, list)
		}
		return fmt.Sprintf("%s has %s the spec does not define there: %s", where, count(g.Count, "member"), list)
	}
	msg := ""
	if len(g.Examples) > 0 {
		msg = " (" + schemas.Abbreviate(g.Examples[0].Message) + ")"
	}
	return fmt.Sprintf("%s at `%s` failing %s%s", count(g.Count, "value"), g.Pattern, g.Keyword, msg)
}

// indexPattern writes each array index of a JSON pointer as *.
func indexPattern(ptr string) string {
	if ptr == "" {
		return ""
	}
	tokens := strings.Split(ptr[1:], "/")
	for i, t := range tokens {
		if t != "" && strings.Trim(t, "0123456789") == "" {
			tokens[i] = "*"
		}
	}
	return "/" + strings.Join(tokens, "/")
}

// splitPointer splits a JSON pointer into its parent and its last token,
// unescaped.
func splitPointer(ptr string) (parent, name string) {
	i := strings.LastIndexByte(ptr, '/')
	if i < 0 {
		return "", ptr
	}
	name = strings.ReplaceAll(strings.ReplaceAll(ptr[i+1:], "~1", "/"), "~0", "~")
	return ptr[:i], name
}
