package redact

import (
	"fmt"
	"strings"

	"workbench/pkg/skill"
	"workbench/pkg/sortfunc"
)

// Problem kinds reported by Check.
const (
	ProblemUnknownProfile  = "unknown_profile"  // evidence.redaction_profile names no profile
	ProblemProfileMismatch = "profile_mismatch" // the proof records another profile than the evidence
	ProblemContent         = "content_remains"  // a position the profile strips still holds content
	ProblemSecret          = "secret_remains"   // a string still looks like a secret
	ProblemFragment        = "fragment_remains" // a string holds a run of a secret known from before redaction
	ProblemPII             = "pii_remains"      // a string still holds an e-mail address or a password
	ProblemUnreadable      = "unreadable"       // the bundle cannot be encoded as JSON
)

// Problem is one way a bundle fails the redaction its evidence claims. It
// names the place and never quotes a secret.
type Problem struct {
	Pointer string // RFC 6901 pointer into the bundle; "" for the whole bundle
	Place   string // set instead of Pointer for text that goes with the bundle (its file name)
	Kind    string // one of the Problem* kinds
	Class   string // for ProblemContent: ClassPersonal or ClassInternal
	Secret  string // for ProblemSecret, ProblemFragment and ProblemPII: the secret's or pattern's kind
	Detail  string // a sentence for a person
}

func (p Problem) String() string {
	if p.Place != "" {
		return p.Place + ": " + p.Detail
	}
	return displayPointer(p.Pointer) + ": " + p.Detail
}

// Check checks b's redaction claim with a Detector made for the call. See
// Detector.Check.
func Check(b *skill.Bundle) []Problem {
	return NewDetector().Check(b)
}

// Check reports every way b fails the redaction profile its evidence claims
// (gate.redaction_verify): an unknown profile, a proof that records another
// profile, every position the profile strips that still holds content, and
// under transcript_pii or full every string — member names, the manifest's
// name, slug and description included — that still holds a secret, an
// e-mail address or a password value. It reads the content itself and never
// trusts fields_stripped. The problems are ordered by pointer; none means
// the claim holds.
//
// Under none nothing is claimed stripped, so only the profile is checked.
// Check does not recompute the content hash: that is gate.content_hash's
// job, on the bytes as imported.
func (d *Detector) Check(b *skill.Bundle) []Problem {
	return d.CheckKnown(b, nil)
}

// CheckKnown is Check that also reports, under transcript_pii or full,
// every string holding a run of MinFragment or more bytes of a secret in
// known, the secrets of the bundle before it was redacted: a piece of a key
// is a leak even where the detector no longer sees a key's whole shape.
func (d *Detector) CheckKnown(b *skill.Bundle, known *Known) []Problem {
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
	f := finder{d: d, pii: true, known: known}
	r := newRedactor(f, claimed, true)
	r.run(root)
	ps = append(ps, r.problems...)
	w := walker{f: f}
	w.value(root, "")
	for _, fd := range w.findings {
		ps = append(ps, findingProblem(fd, subject(fd), claimed))
	}
	sortfunc.Stable(ps, func(a, b Problem) int {
		if c := strings.Compare(a.Pointer, b.Pointer); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return ps
}

// CheckText reports the secrets, e-mail addresses, password values and
// runs of known secrets in text that leaves with a bundle redacted under
// profile without being part of it, such as the name of the file it is
// saved under; place names the text in each problem. Under none it
// reports nothing. known may be nil.
func (d *Detector) CheckText(place, text, profile string, known *Known) []Problem {
	if profile == skill.RedactionNone {
		return nil
	}
	w := walker{f: finder{d: d, pii: true, known: known}}
	w.buf = w.f.find(nil, text, "")
	w.record(w.buf, text, false)
	ps := make([]Problem, 0, len(w.findings))
	for _, fd := range w.findings {
		p := findingProblem(fd, "it", profile)
		p.Pointer, p.Place = "", place
		ps = append(ps, p)
	}
	return ps
}

// subject is how a problem speaks of the string a finding is in.
func subject(f Finding) string {
	if f.InKey {
		return "a member name"
	}
	return "a string"
}

// findingProblem turns what a check found in a string, spoken of as what,
// into its problem.
func findingProblem(f Finding, what, profile string) Problem {
	p := Problem{Pointer: f.Pointer, Kind: ProblemSecret, Secret: f.Kind}
	switch {
	case f.Kind == KindEmail || f.Kind == KindPassword:
		p.Kind = ProblemPII
		p.Detail = fmt.Sprintf("%s still holds what looks like a %s (bytes %d-%d) under %s", what, piiNoun(f.Kind), f.Start, f.End, profile)
	case f.Fragment:
		p.Kind = ProblemFragment
		p.Detail = fmt.Sprintf("%s holds %d characters of a %s found before redaction (bytes %d-%d) under %s", what, f.End-f.Start, f.Kind, f.Start, f.End, profile)
	default:
		p.Detail = fmt.Sprintf("%s still holds what looks like a %s (bytes %d-%d) under %s", what, f.Kind, f.Start, f.End, profile)
	}
	return p
}

func piiNoun(kind string) string {
	if kind == KindEmail {
		return "e-mail address"
	}
	return "password"
}

// masked is s with its secrets masked, for quoting a claimed value.
func (d *Detector) masked(s string) string {
	return Mask(s, d.ScanString(s))
}
