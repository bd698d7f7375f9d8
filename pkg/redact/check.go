package redact

import (
	"fmt"
	"slices"
	"strings"

	"workbench/pkg/skill"
)

// Problem kinds reported by Check.
const (
	ProblemUnknownProfile  = "unknown_profile"  // evidence.redaction_profile names no profile
	ProblemProfileMismatch = "profile_mismatch" // the proof records another profile than the evidence
	ProblemContent         = "content_remains"  // a position the profile strips still holds content
	ProblemSecret          = "secret_remains"   // a string still looks like a secret
	ProblemUnreadable      = "unreadable"       // the bundle cannot be encoded as JSON
)

// Problem is one way a bundle fails the redaction its evidence claims. It
// names the place and never quotes a secret.
type Problem struct {
	Pointer string // RFC 6901 pointer into the bundle; "" for the whole bundle
	Kind    string // one of the Problem* kinds
	Class   string // for ProblemContent: ClassPersonal or ClassInternal
	Secret  string // for ProblemSecret: the secret's kind
	Detail  string // a sentence for a person
}

func (p Problem) String() string { return displayPointer(p.Pointer) + ": " + p.Detail }

// Check checks b's redaction claim with a Detector made for the call. See
// Detector.Check.
func Check(b *skill.Bundle) []Problem {
	return NewDetector().Check(b)
}

// Check reports every way b fails the redaction profile its evidence claims
// (gate.redaction_verify): an unknown profile, a proof that records another
// profile, every position the profile strips that still holds content, and
// under transcript_pii or full every string that still looks like a secret.
// It reads the content itself and never trusts fields_stripped. The
// problems are ordered by pointer; none means the claim holds.
//
// Under none nothing is claimed stripped, so only the profile is checked.
// Check does not recompute the content hash: that is gate.content_hash's
// job, on the bytes as imported.
func (d *Detector) Check(b *skill.Bundle) []Problem {
	claimed := b.Evidence.RedactionProfile
	if !ValidProfile(claimed) {
		return []Problem{{
			Pointer: "/evidence/redaction_profile",
			Kind:    ProblemUnknownProfile,
			Detail:  fmt.Sprintf("%q is not a redaction profile (want none, transcript_pii or full)", d.masked(claimed)),
		}}
	}
	var ps []Problem
	if got := b.Proof.RedactionResult.Profile; got != claimed {
		ps = append(ps, Problem{
			Pointer: "/proof/redaction_result/profile",
			Kind:    ProblemProfileMismatch,
			Detail:  fmt.Sprintf("the proof records profile %q but the evidence claims %q", d.masked(got), claimed),
		})
	}
	if claimed == skill.RedactionNone {
		return ps
	}
	root, err := toTree(b)
	if err != nil {
		return append(ps, Problem{Kind: ProblemUnreadable, Detail: fmt.Sprintf("the bundle cannot be encoded as JSON: %v", err)})
	}
	// The class rules run first and rewrite this private tree, so a secret
	// in a position that should have been stripped is reported once, as
	// content that remains.
	r := newRedactor(d, claimed, true)
	r.run(root)
	ps = append(ps, r.problems...)
	w := walker{d: d}
	w.value(root, "")
	for _, f := range w.findings {
		ps = append(ps, secretProblem(f, claimed))
	}
	slices.SortStableFunc(ps, func(a, b Problem) int {
		if c := strings.Compare(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return ps
}

func secretProblem(f Finding, profile string) Problem {
	what := "a string"
	if f.InKey {
		what = "a member name"
	}
	return Problem{
		Pointer: f.Pointer,
		Kind:    ProblemSecret,
		Secret:  f.Kind,
		Detail:  fmt.Sprintf("%s still holds what looks like a %s (bytes %d-%d) under %s", what, f.Kind, f.Start, f.End, profile),
	}
}

// masked is s with its secrets masked, for quoting a claimed value.
func (d *Detector) masked(s string) string {
	return Mask(s, d.ScanString(s))
}
