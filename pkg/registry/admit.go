package registry

import (
	"errors"
	"fmt"
	"net/http"

	"workbench/pkg/redact"
	"workbench/pkg/signature"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Refusal codes: the "code" of a refused publish or withdrawal, on which
// clients branch (docs/registry.md).
const (
	CodeTooLarge         = "bundle_too_large"     // 413: over MaxBundleBytes
	CodeInvalid          = "bundle_invalid"       // 422: not a well-formed bundle, or its content hash does not hold
	CodeUnsigned         = "bundle_unsigned"      // 422: no signature object
	CodeSignature        = "signature_invalid"    // 422: the signature does not verify
	CodeUnredacted       = "bundle_unredacted"    // 422: redaction profile none
	CodeRedaction        = "redaction_failed"     // 422: gate.redaction_verify re-derived as fail (a secret, content that should be stripped)
	CodeOverclaim        = "proof_overclaims"     // 422: the proof claims more than the evidence supports
	CodeWithdrawal       = "withdrawal_invalid"   // 400: not a withdrawal object
	CodeForged           = "withdrawal_forged"    // 403: not signed by the bundle's signer, or does not verify
	CodeReplayed         = "withdrawal_replayed"  // 403: made for another registry or bundle, or the bundle's own signature
	CodeAlreadyWithdrawn = "already_withdrawn"    // 409: the bundle is withdrawn already
	CodeNotPublished     = "not_published"        // 404: no such bundle in the index
	CodeUnavailable      = "registry_unavailable" // 501: the deployment has no registry
	CodeNotReady         = "registry_not_ready"   // 503: the index has no tables (migrations not applied)
	CodeStorage          = "registry_storage"     // 502: R2 or D1 failed
)

// Problem is one reason for a refusal, with its place in the bundle when
// it has one.
type Problem struct {
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
}

// Refusal is why the registry will not take a bundle or a withdrawal: a
// code, an HTTP status, a sentence, and the verifier's problems.
type Refusal struct {
	Status   int
	Code     string
	Message  string
	Problems []Problem
}

func (r *Refusal) Error() string {
	if len(r.Problems) == 0 {
		return r.Message
	}
	s := r.Message + ": " + r.Problems[0].String()
	if n := len(r.Problems) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more)", n)
	}
	return s
}

func (p Problem) String() string {
	if p.Pointer == "" {
		return p.Message
	}
	return p.Pointer + ": " + p.Message
}

// maxProblems bounds the problems a refusal lists; a hostile file can have
// millions.
const maxProblems = 20

// Admitted is a bundle the registry takes: its index entry (without
// PublishedAt, which the registry sets when it stores it) and the bytes
// to store, the bundle's canonical form (RFC 8785, signature included).
type Admitted struct {
	Entry Entry
	Data  []byte
}

// Admit decides whether a registry takes the bundle in data, with the
// workbench's own verifier v: see the package documentation. A refusal is
// a *Refusal; every rule the bundle breaks is among its problems, the
// code being the first one's.
func Admit(v *verify.Verifier, data []byte) (Admitted, error) {
	if len(data) > MaxBundleBytes {
		return Admitted{}, &Refusal{Status: http.StatusRequestEntityTooLarge, Code: CodeTooLarge,
			Message: fmt.Sprintf("the bundle is %d bytes; a registry takes at most %d", len(data), MaxBundleBytes)}
	}
	rep, sealed, err := v.File(data)
	var inv *verify.InvalidError
	switch {
	case errors.As(err, &inv):
		ref := &Refusal{Status: http.StatusUnprocessableEntity, Code: CodeInvalid, Message: "not a well-formed bundle: " + inv.Headline()}
		for _, p := range inv.Problems {
			ref.add(p.Pointer, p.Message)
		}
		return Admitted{}, ref
	case err != nil && rep != nil: // the seal does not hold
		g, _ := rep.Derived.Gate(skill.GateContentHash)
		return Admitted{}, &Refusal{Status: http.StatusUnprocessableEntity, Code: CodeInvalid,
			Message: "its content hash does not hold", Problems: []Problem{{Pointer: "/content_hash", Message: g.Reason}}}
	case err != nil:
		return Admitted{}, &Refusal{Status: http.StatusUnprocessableEntity, Code: CodeInvalid, Message: "not a well-formed bundle: " + err.Error()}
	}
	b := sealed.Bundle()
	var ref Refusal
	refuse := func(code, pointer, msg string) {
		if ref.Code == "" {
			ref.Code, ref.Message = code, msg
		}
		ref.add(pointer, msg)
	}

	var pub string
	switch rep.Signature {
	case verify.SignatureNone:
		refuse(CodeUnsigned, "/signature", "it is not signed: a registry takes only bundles signed with an Ed25519 key (workbench sign, or Sign on export)")
	case verify.SignatureInvalid:
		refuse(CodeSignature, "/signature", "its signature is invalid: "+rep.SignatureProblem)
	case verify.SignatureUnverified:
		if rep.SignatureKeyID == "" {
			refuse(CodeUnsigned, "/signature", "its signature member is a string, not a signature object: nothing can verify it")
			break
		}
		s, _, _, err := signature.Parse(b.Signature)
		if err != nil { // Check parsed it already; kept for the public key
			refuse(CodeSignature, "/signature", "its signature is invalid: "+err.Error())
			break
		}
		pub = s.PublicKey
	}

	profile := b.Evidence.RedactionProfile
	if profile != skill.RedactionTranscriptPII && profile != skill.RedactionFull {
		refuse(CodeUnredacted, "/evidence/redaction_profile",
			fmt.Sprintf("it is redacted as %q: a registry keeps only transcript_pii or full, never an unredacted transcript (export it with one of them first)", profile))
	} else if g, _ := rep.Derived.Gate(skill.GateRedactionVerify); g.Verdict != skill.VerdictPass {
		code := CodeRedaction
		ps := redact.NewDetector().Check(b)
		if len(ps) == 0 {
			refuse(code, "/proof/proof_gates", "gate.redaction_verify re-derived as "+g.Verdict+": "+g.Reason)
		}
		for _, p := range ps {
			refuse(code, p.Pointer, "the secret detector: "+p.Detail)
		}
	}

	for _, o := range rep.Overclaims {
		refuse(CodeOverclaim, "/proof", "its proof overclaims: "+o.String())
	}
	if ref.Code != "" {
		ref.Status = http.StatusUnprocessableEntity
		return Admitted{}, &ref
	}

	canonical := sealed.Document().Canonical()
	m := b.Manifest
	return Admitted{
		Entry: Entry{
			ContentHash: b.ContentHash, SkillID: b.SkillID, Slug: m.Slug, Version: b.SkillVersion,
			Name: m.Name, Description: m.Description,
			SignerKeyID: rep.SignatureKeyID, SignerPublicKey: pub,
			Verdict: rep.Verdict, RedactionProfile: profile, Size: len(canonical),
		},
		Data: canonical,
	}, nil
}

// add appends a problem, up to maxProblems.
func (r *Refusal) add(pointer, msg string) {
	if len(r.Problems) < maxProblems {
		r.Problems = append(r.Problems, Problem{Pointer: pointer, Message: msg})
	}
}
