// Package verify decides whether a SkillBundle proves what it claims.
//
// A bundle's embedded proof is only a claim. The Verifier re-derives the
// ProofResult of spec §5.4 from the bundle's own evidence — the six gates,
// the four invariants, the authority, redaction and replay results and the
// conformance check — and compares it with the claim. Every gate where the
// claim is better than the evidence is an Overclaim, and an overclaiming
// bundle fails whatever its evidence would otherwise give.
//
// Verification reads the bundle alone: it makes no network call, runs no
// code from the bundle, and gives the same answer natively and in the
// browser.
package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"workbench/fixtures"
	"workbench/pkg/canonjson"
	"workbench/pkg/redact"
	"workbench/pkg/signature"
	"workbench/pkg/skill"
	"workbench/schemas"
)

// Verifier re-derives proofs. It is safe for concurrent use.
type Verifier struct {
	schemas   *schemas.Validator
	scenarios map[string]fixtures.Scenario
	now       func() time.Time
	// buffers holds *[]byte buffers for the serializations the content
	// hash covers, a bundle's size each, kept from one verification to
	// the next rather than allocated and cleared every time.
	buffers sync.Pool
}

// New returns a Verifier that validates with v, checks conformance against
// the given fixture scenarios, and stamps proofs with now().
func New(v *schemas.Validator, scenarios []fixtures.Scenario, now func() time.Time) *Verifier {
	m := make(map[string]fixtures.Scenario, len(scenarios))
	for _, s := range scenarios {
		m[s.ID] = s
	}
	if now == nil {
		now = time.Now
	}
	return &Verifier{schemas: v, scenarios: m, now: now, buffers: sync.Pool{New: func() any { return new([]byte) }}}
}

// Schemas is the validator v checks artifacts with. A form that checks a
// manifest as it is typed uses the same one, so a draft the form accepts
// is one the verifier's schema accepts too, and the schemas are compiled
// once.
func (v *Verifier) Schemas() *schemas.Validator { return v.schemas }

// Standard returns the workbench's own Verifier, the one the app, the
// command line and the benchmarks verify with: the embedded bundle schemas
// (schemas.New), every fixture scenario (fixtures.Scenarios) and the
// wall clock. The schemas are compiled once per process (schemas.New), so
// only the first call, in a process, is dear.
func Standard() (*Verifier, error) {
	sv, err := schemas.New()
	if err != nil {
		return nil, fmt.Errorf("compiling the schemas: %w", err)
	}
	sc, err := fixtures.Scenarios()
	if err != nil {
		return nil, fmt.Errorf("loading the fixture scenarios: %w", err)
	}
	return New(sv, sc, nil), nil
}

// Problem is one reason input is not a bundle, or one thing a bundle is
// accepted despite (Report.Warnings), with its place.
type Problem struct {
	Pointer string `json:"pointer"` // JSON pointer; "" for the whole document
	Offset  int    `json:"offset"`  // byte offset, -1 when unknown
	Message string `json:"message"`
	// Keyword is the schema keyword that failed, for a schema problem.
	Keyword string `json:"keyword,omitempty"`
}

// String is the problem as one line, its pointer and message shortened
// by schemas.Abbreviate so that its length never grows with the input's.
func (p Problem) String() string {
	ptr, msg := schemas.Abbreviate(p.Pointer), schemas.Abbreviate(p.Message)
	switch {
	case p.Pointer != "" && p.Offset >= 0:
		return fmt.Sprintf("%s (byte %d): %s", ptr, p.Offset, msg)
	case p.Pointer != "":
		return ptr + ": " + msg
	case p.Offset >= 0:
		return fmt.Sprintf("byte %d: %s", p.Offset, msg)
	}
	return msg
}

// InvalidError says input is not a well-formed bundle: it failed strict
// decoding or the bundle schema, or it is another artifact of the spec.
// Nothing about its proof can be said. Headline and Groups say it to a
// person.
type InvalidError struct {
	// Stage is where reading stopped: StageNotJSON, StageNotIJSON,
	// StageNotBundle, StageSchema or StageDecode.
	Stage string
	// Artifact, at StageNotBundle, is the artifact of the spec the input
	// looks like (ArtifactReplayReport …), whose own schema Problems are
	// then against; "" when it looks like none, and Problems are against
	// the bundle schema.
	Artifact string
	// Problems are the first problems found, at most
	// schemas.MaxFieldErrors of them, in the order of their pointers.
	// None for a valid artifact other than a bundle.
	Problems []Problem
	// Omitted counts the problems found beyond Problems, which a hostile
	// file can have millions of.
	Omitted int
	// Hash is the content hash recomputed, for input that claims one,
	// even though it failed the schema; nil otherwise.
	Hash *HashCheck
	// Foreign, for a bundle in the other implementation's shape, is what
	// it claims beside what its contents support under spec v0.1; nil
	// otherwise. Such a bundle is still not a bundle the workbench keeps.
	Foreign *Foreign

	section string              // the spec's section of Artifact
	doc     *canonjson.Document // the parsed input, for Groups; nil if not JSON
	// sent, for an error received from another Go instance (Received),
	// is its Headline and Groups as computed where the input was read.
	sent *sentReading
}

// Total is the number of problems found, listed or not.
func (e *InvalidError) Total() int { return len(e.Problems) + e.Omitted }

func (e *InvalidError) Error() string {
	switch e.Total() {
	case 0:
		return "not a bundle: " + e.Headline()
	case 1:
		return "invalid bundle: " + e.Problems[0].String()
	}
	return fmt.Sprintf("invalid bundle: %s (and %d more problems)", e.Problems[0], e.Total()-1)
}

// Overclaim is one place where a bundle's claimed proof is better than what
// its evidence supports.
type Overclaim struct {
	What    string // a gate id, an invariant id, "overall_verdict", "replay_result.fidelity_level", "authority_result.decision"
	Claimed string
	Derived string
}

func (o Overclaim) String() string {
	return fmt.Sprintf("%s: claimed %s, evidence gives %s", o.What, o.Claimed, o.Derived)
}

// What a bundle's signature member amounts to, as Report.Signature says
// (package signature).
const (
	// SignatureNone: the member is null, as every v0.1 producer writes it.
	SignatureNone = string(signature.None)
	// SignatureUnverified: a signature is present but nothing could say
	// whose it is: no pin set was given, or the member is a string (the
	// advisory form of v0.1). Shown as "signature present, not verified",
	// never as signed.
	SignatureUnverified = string(signature.Unverified)
	// SignatureTrusted: the signature verifies over the content hash, the
	// content hash is the content's, and the key is pinned.
	SignatureTrusted = string(signature.Trusted)
	// SignatureUnknownKey: the signature verifies but its key is not in
	// the pin set.
	SignatureUnknownKey = string(signature.UnknownKey)
	// SignatureInvalid: the signature is malformed, does not verify, or
	// was made over a content hash that is not the content's. A failure.
	SignatureInvalid = string(signature.Invalid)
)

// SignedText is how the report's signing reads to a person.
func (r *Report) SignedText() string {
	switch r.Signature {
	case SignatureTrusted:
		return fmt.Sprintf("true (signed by %s, key %s)", r.Signer, r.SignatureKeyID)
	case SignatureUnverified:
		return "false (signature present, not verified)"
	case SignatureUnknownKey:
		return fmt.Sprintf("false (signed by an unknown key %s)", r.SignatureKeyID)
	case SignatureInvalid:
		return "false (SIGNATURE INVALID: " + r.SignatureProblem + ")"
	}
	return "false"
}

// Report is the outcome of verifying one bundle.
//
// Signed is true only for a bundle whose signature verifies against a
// pinned key (CheckSignature); Signature says what the signature member
// amounts to. Neither affects the verdict, which speaks of the proof; an
// invalid signature is a failure of its own (SignatureInvalid).
type Report struct {
	BundleID    string `json:"bundle_id"`
	SkillID     string `json:"skill_id"`
	SkillName   string `json:"skill_name"`
	Version     int    `json:"skill_version"`
	ContentHash string `json:"content_hash"`
	Signed      bool   `json:"signed"`
	Signature   string `json:"signature"`
	// SignatureKeyID is the signing key's id, when the signature object
	// is well-formed.
	SignatureKeyID string `json:"signature_key_id,omitempty"`
	// Signer is the pinned name of the key, when Signature is trusted.
	Signer string `json:"signer,omitempty"`
	// SignatureProblem says why, when Signature is invalid.
	SignatureProblem string            `json:"signature_problem,omitempty"`
	Claimed          skill.ProofResult `json:"claimed"`
	Derived          skill.ProofResult `json:"re_verified"`
	Overclaims       []Overclaim       `json:"overclaims"`
	// Verdict is the bundle's standing: the re-derived overall verdict, or
	// fail when the claim overstates the evidence.
	Verdict string `json:"verdict"`

	// Warnings are what the bundle is read despite, none of which
	// changes the verdict: numbers whose text the IEEE-754 double RFC 8785
	// reads them as does not hold (canonjson.Inexact), the first
	// canonjson.MaxInexact of them, in document order. WarningsOmitted
	// counts the others.
	Warnings        []Problem `json:"warnings,omitempty"`
	WarningsOmitted int       `json:"warnings_omitted,omitempty"`

	// sig is the bundle's signature member and hashOK whether its
	// content_hash is the content's: what CheckSignature needs.
	sig    json.RawMessage
	hashOK bool
}

// CheckSignature checks the bundle's signature against pins and sets
// Signed, Signature, SignatureKeyID, Signer and SignatureProblem. A nil
// pins means no pin set: a signature that verifies is then
// SignatureUnverified. Bytes, File and Export check with no pin set;
// callers that have one check again with it.
func (r *Report) CheckSignature(pins *signature.PinSet) {
	res := signature.Check(r.sig, r.ContentHash, pins)
	if res.State != signature.None && res.State != signature.Invalid && !r.hashOK {
		res = signature.Result{State: signature.Invalid, KeyID: res.KeyID,
			Reason: "it was made over a content_hash that is not the hash of the content"}
	}
	r.Signature, r.SignatureKeyID, r.Signer = string(res.State), res.KeyID, res.Signer
	r.SignatureProblem = ""
	if res.State == signature.Invalid {
		r.SignatureProblem = res.Reason
	}
	r.Signed = res.State == signature.Trusted
}

// SignerPublicKey returns the public key of the bundle's signature, as a
// signature object carries it (standard base64), when the object is
// well-formed; whether it verifies is Signature's. It is what a person
// pins to trust the signer.
func (r *Report) SignerPublicKey() (string, bool) {
	s, _, _, err := signature.Parse(r.sig)
	if err != nil {
		return "", false
	}
	return s.PublicKey, true
}

// Bytes verifies bundle bytes as read from a file: strict decoding, the
// bundle schema, the content hash and the re-derived proof. It returns an
// *InvalidError when data is not a well-formed bundle.
func (v *Verifier) Bytes(data []byte) (*Report, error) {
	r, _, err := v.read(data, nil)
	return r, err
}

// File verifies bundle bytes as Bytes does and also returns them as a
// skill.Sealed bundle, ready to store, from the same parse, decode and hash
// the verification made: nothing is done twice. When the bytes are a
// well-formed bundle whose seal does not hold, it returns the report and a
// *skill.SealError; when they are not a well-formed bundle, an
// *InvalidError and no report.
func (v *Verifier) File(data []byte) (*Report, skill.Sealed, error) {
	r, rd, err := v.read(data, nil)
	if err != nil {
		return nil, skill.Sealed{}, err
	}
	s, err := rd.Sealed()
	if err != nil {
		return r, skill.Sealed{}, fmt.Errorf("bundle seal: %w", err)
	}
	return r, s, nil
}

// read is Bytes, also returning the reading of data, decoded and hashed;
// ex, when not nil, is what the export flow knows about data (Export).
func (v *Verifier) read(data []byte, ex *exported) (*Report, *skill.Reading, error) {
	rd, err := skill.Read(data)
	if err != nil {
		return nil, nil, invalid(err, nil)
	}
	doc := rd.Document()
	// Another artifact of the spec is checked against its own schema.
	// Only a small one: the schema library's cost on a hostile document
	// is what the bundle's plan exists to avoid.
	if !looksLikeBundle(doc) && len(data) <= maxArtifactBytes {
		e := &InvalidError{doc: doc}
		if v.otherArtifact(doc, e); e.Artifact != "" {
			return nil, nil, e
		}
	}
	// The schema is checked first, alone: on a hostile document (two
	// million empty trace edges) the serializations, the typed decoding
	// and the gates would cost many times what the schema does. The two
	// serializations the content hash covers are then written while the
	// bundle is decoded.
	if err := v.schemas.ValidateBundle(doc); err != nil {
		return nil, nil, invalid(err, doc)
	}
	hashes := v.serialize(doc, rd)
	b, err := rd.Decode()
	if err != nil {
		hashes()
		return nil, nil, invalid(err, doc)
	}
	derived := v.prove(b, doc, hashes, ex)
	claimed := b.Proof
	r := &Report{
		BundleID: b.BundleID, SkillID: b.SkillID, SkillName: b.Manifest.Name, Version: b.SkillVersion,
		ContentHash: b.ContentHash,
		Claimed:     claimed, Derived: derived,
		Overclaims: Overclaims(claimed, derived),
		sig:        b.Signature, hashOK: gatePassed(derived, skill.GateContentHash),
	}
	r.CheckSignature(nil)
	inexact, omitted := doc.InexactNumbers()
	for _, n := range inexact {
		r.Warnings = append(r.Warnings, Problem{Pointer: n.Pointer, Offset: n.Offset, Message: n.String()})
	}
	r.WarningsOmitted = omitted
	r.Verdict = derived.OverallVerdict
	if len(r.Overclaims) > 0 {
		r.Verdict = skill.VerdictFail
	}
	return r, rd, nil
}

// gatePassed says whether proof p passes gate id.
func gatePassed(p skill.ProofResult, id string) bool {
	for _, g := range p.ProofGates {
		if g.ID == id {
			return g.Verdict == skill.VerdictPass
		}
	}
	return false
}

// maxArtifactBytes bounds the artifacts other than bundles that are
// recognised and checked against their own schema.
const maxArtifactBytes = 4 << 20

// invalid turns err, from reading data into doc (nil when it did not
// parse), into an *InvalidError.
func invalid(err error, doc *canonjson.Document) error {
	var ve *schemas.ValidationError
	if errors.As(err, &ve) {
		e := &InvalidError{Stage: StageSchema, Problems: fieldProblems(ve), Omitted: ve.Omitted, Hash: checkHash(doc), doc: doc}
		if !looksLikeBundle(doc) {
			e.Stage = StageNotBundle
		} else {
			e.Foreign = readForeign(doc, e.Hash)
		}
		return e
	}
	var de *skill.DecodeError
	if errors.As(err, &de) {
		e := &InvalidError{Stage: StageDecode, Problems: []Problem{{Pointer: de.Pointer, Offset: de.Offset, Message: de.Reason}}, doc: doc}
		var ce *canonjson.Error
		if errors.As(err, &ce) {
			// The problem carries the place; its message need not say
			// it again.
			e.Problems[0].Message = ce.Kind.String()
			if ce.Detail != "" {
				e.Problems[0].Message += ": " + ce.Detail
			}
		}
		switch {
		case ce != nil && ce.Kind == canonjson.KindSyntax:
			e.Stage = StageNotJSON
		case ce != nil:
			e.Stage = StageNotIJSON
		case doc == nil: // parsed, but the top level is not an object
			e.Stage = StageNotBundle
		}
		return e
	}
	return &InvalidError{Stage: StageDecode, Problems: []Problem{{Offset: -1, Message: err.Error()}}, doc: doc}
}

// fieldProblems are ve's field errors as problems.
func fieldProblems(ve *schemas.ValidationError) []Problem {
	ps := make([]Problem, 0, len(ve.Errors))
	for _, fe := range ve.Errors {
		ps = append(ps, Problem{Pointer: fe.Pointer, Offset: -1, Message: fe.Message, Keyword: fe.Keyword})
	}
	return ps
}

// Prove derives the proof of an in-memory bundle, as a producer does before
// embedding it. The bundle is encoded exactly as it would be exported.
func (v *Verifier) Prove(b *skill.Bundle) (skill.ProofResult, error) {
	b.Normalize()
	data, err := json.Marshal(b)
	if err != nil {
		return skill.ProofResult{}, fmt.Errorf("encode bundle: %w", err)
	}
	doc, err := skill.Parse(data)
	if err != nil {
		return skill.ProofResult{}, err
	}
	return v.prove(b, doc, v.serialize(doc, nil), nil), nil
}

// ProveDocument derives the proof of a bundle decoded from doc, without
// validating doc against the bundle schema.
func (v *Verifier) ProveDocument(b *skill.Bundle, doc *canonjson.Document) skill.ProofResult {
	return v.prove(b, doc, v.serialize(doc, nil), nil)
}

// SealWithProof seals b, derives its proof, embeds it and seals again. The
// embedded proof's content-hash gate speaks of the seal it was derived
// from; the final seal covers the proof too, and re-verification checks it.
func (v *Verifier) SealWithProof(b *skill.Bundle) error {
	if err := b.Seal(); err != nil {
		return err
	}
	p, err := v.Prove(b)
	if err != nil {
		return err
	}
	b.Proof = p
	return b.Seal()
}

// prove derives the proof of b, decoded from doc; hashes waits for the
// serializations of doc the content hash covers, and ex is what an export
// knows about b, or nil.
func (v *Verifier) prove(b *skill.Bundle, doc *canonjson.Document, hashes func() serialized, ex *exported) skill.ProofResult {
	rec, recErr := latestReplay(b, doc)
	authGate, authInv, authRes := authority(b, rec)
	traceGate, traceInv := traceCompleteness(b)
	replayGate, replayRes := replayFidelity(b, rec, recErr)
	hashGate, hashInv, hashOK := contentHash(b, hashes())
	redGate, redInv, redRes := v.redaction(b, doc, hashOK, ex)
	capGate := noHiddenCapability(b)
	gates := []skill.Gate{authGate, traceGate, replayGate, redGate, hashGate, capGate}
	p := skill.ProofResult{
		Schema:           skill.ProofSchemaURI,
		VerifierVersion:  skill.VerifierVersion,
		ComputedAt:       skill.Timestamp(v.now()),
		OverallVerdict:   overall(gates),
		ProofGates:       gates,
		InvariantResults: []skill.InvariantResult{authInv, traceInv, hashInv, redInv},
		AuthorityResult:  authRes,
		RedactionResult:  redRes,
		ReplayResult:     replayRes,
	}
	p.ConformanceCheck = v.conformance(b, &p)
	return p
}

// serialized is what the content hash gate learns from the two
// independent serializations of a bundle that its content hash covers —
// canonjson's AppendCanonical, which copies what the parser found
// canonical and follows the member order it linked, and
// AppendCanonicalAnew, which sorts members, escapes strings and formats
// numbers all over again: the hash of each.
type serialized struct {
	firstHash, secondHash string
	err                   error
}

// serialize starts writing and hashing both serializations of doc, each
// on its own goroutine, and returns a function that waits for them. Two
// equal serializations hash alike, so the second is hashed only when it
// differs. When doc is the document of reading rd, the first is written
// and hashed through rd, which keeps the hash for rd.Sealed.
func (v *Verifier) serialize(doc *canonjson.Document, rd *skill.Reading) func() serialized {
	var s serialized
	var err1, err2 error
	first, second := v.buffers.Get().(*[]byte), v.buffers.Get().(*[]byte)
	var wg sync.WaitGroup
	wg.Go(func() {
		if rd != nil {
			*first, s.firstHash, err1 = rd.AppendHashedForm((*first)[:0])
		} else if *first, err1 = skill.AppendHashedForm((*first)[:0], doc); err1 == nil {
			s.firstHash = skill.HashBytes(*first)
		}
	})
	wg.Go(func() { *second, err2 = skill.AppendHashedFormAnew((*second)[:0], doc) })
	return func() serialized {
		wg.Wait()
		if s.err = errors.Join(err1, err2); s.err == nil {
			s.secondHash = s.firstHash
			if !bytes.Equal(*first, *second) {
				s.secondHash = skill.HashBytes(*second)
			}
		}
		v.buffers.Put(first)
		v.buffers.Put(second)
		return s
	}
}

// contentHash requires the hashes of both serializations to be equal, byte
// for byte, and to equal the claimed content_hash. A difference between
// the two exposes a defect that would make hashes depend on who
// re-serialized.
func contentHash(b *skill.Bundle, s serialized) (skill.Gate, skill.InvariantResult, bool) {
	g := skill.Gate{ID: skill.GateContentHash, EvidenceRef: "content_hash"}
	inv := skill.InvariantResult{ID: skill.InvBundleHashReproducible}
	if s.err != nil {
		inv.Held = false
		g.Verdict, g.Reason = skill.VerdictFail, fmt.Sprintf("cannot recompute the hash: %v", s.err)
		return g, inv, false
	}
	first, second := s.firstHash, s.secondHash
	inv.Held = first == second
	switch {
	case first != second:
		g.Verdict, g.Reason = skill.VerdictFail, fmt.Sprintf("two serializations hash differently: %s and %s", first, second)
	case first != b.ContentHash:
		g.Verdict, g.Reason = skill.VerdictFail, fmt.Sprintf("content_hash is %s but the bundle hashes to %s", b.ContentHash, first)
	default:
		g.Verdict, g.Reason = skill.VerdictPass, "recomputed twice, byte for byte"
		return g, inv, true
	}
	return g, inv, false
}

// redaction checks gate.redaction_verify: under a profile other than none,
// the stripped classes really hold no content, no string of the whole
// document — names, slug and description included — holds a secret, an
// e-mail address or a password value, nor does the name of the file it is
// saved under (at export the name given, otherwise the one its slug
// makes), every pointer the claim lists as stripped is stripped, and the
// hash verifies. At export, a run of redact.MinFragment or more
// characters of a secret of the unredacted bundle, in the document or the
// file name, fails the gate too.
func (v *Verifier) redaction(b *skill.Bundle, doc *canonjson.Document, hashOK bool, ex *exported) (skill.Gate, skill.InvariantResult, skill.RedactionResult) {
	profile := b.Evidence.RedactionProfile
	g := skill.Gate{ID: skill.GateRedactionVerify, EvidenceRef: "evidence.redaction_profile"}
	inv := skill.InvariantResult{ID: skill.InvRedactedBundleStillVerify}
	res := skill.RedactionResult{Profile: profile, FieldsStripped: []string{}, PostRedactionHashMatches: hashOK}
	if profile == skill.RedactionNone {
		g.Verdict, g.Reason, inv.Held = skill.VerdictNotApplicable, "redaction_profile=none", skill.VerdictNotApplicable
		return g, inv, res
	}
	var problems []string
	d := redact.NewDetector()
	name, known := skill.ExportFilename(b.Manifest.Slug, b.SkillVersion), (*redact.Known)(nil)
	if ex != nil {
		name, known = ex.name, ex.known
	}
	for _, p := range d.CheckKnown(b, known) {
		problems = append(problems, p.String())
	}
	// The problem names the file name without quoting it: it is what
	// holds the secret.
	for _, p := range d.CheckText("the file name", name, profile, known) {
		problems = append(problems, p.String())
	}
	claimed := b.Proof.RedactionResult.FieldsStripped
	stripped, notStripped := checkStripped(doc, claimed)
	for _, ptr := range notStripped {
		problems = append(problems, fmt.Sprintf("%s is listed as stripped but still holds content", ptr))
	}
	res.FieldsStripped = stripped
	if !hashOK {
		problems = append(problems, "the post-redaction content hash does not verify")
	}
	inv.Held = len(problems) == 0
	if len(problems) > 0 {
		g.Verdict, g.Reason = skill.VerdictFail, joinReasons(problems)
		return g, inv, res
	}
	g.Verdict = skill.VerdictPass
	g.Reason = fmt.Sprintf("%s: %d fields stripped, no secret left, hash verifies", profile, len(stripped))
	return g, inv, res
}
