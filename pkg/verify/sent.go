package verify

import (
	"encoding/json"
	"slices"
)

// A Report or an InvalidError crosses from one Go instance to another
// when the page's import runs in a Web Worker (package importworker): the
// worker verifies, the page shows and checks signatures. Their own JSON
// leaves out what only the verifying instance has (the signature member,
// the parsed input), so each has a sent form that carries it, or what was
// computed from it, and a Received that gives back a value which answers
// every method as the original did.

// SentReport is a Report as another Go instance receives it: its JSON
// members, and what CheckSignature and SignerPublicKey read again after the
// person pins a signer.
type SentReport struct {
	Report
	SignatureMember json.RawMessage `json:"signature_member,omitempty"`
	HashOK          bool            `json:"hash_ok"`
}

// Sent is r as another Go instance receives it.
func (r *Report) Sent() SentReport {
	return SentReport{Report: *r, SignatureMember: slices.Clone(r.sig), HashOK: r.hashOK}
}

// Received is the Report s was sent from.
func (s SentReport) Received() *Report {
	r := s.Report
	r.sig, r.hashOK = slices.Clone(s.SignatureMember), s.HashOK
	return &r
}

// SentInvalid is an InvalidError as another Go instance receives it: its
// fields, and its Headline and Groups as computed where the input was read,
// since the input itself stays there.
type SentInvalid struct {
	Stage    string         `json:"stage"`
	Artifact string         `json:"artifact,omitempty"`
	Section  string         `json:"section,omitempty"`
	Problems []Problem      `json:"problems"`
	Omitted  int            `json:"omitted,omitempty"`
	Hash     *HashCheck     `json:"hash,omitempty"`
	Foreign  *Foreign       `json:"foreign,omitempty"`
	Headline string         `json:"headline"`
	Groups   []ProblemGroup `json:"groups"`
}

// Sent is e as another Go instance receives it.
func (e *InvalidError) Sent() SentInvalid {
	return SentInvalid{
		Stage: e.Stage, Artifact: e.Artifact, Section: e.section,
		Problems: e.Problems, Omitted: e.Omitted, Hash: e.Hash, Foreign: e.Foreign,
		Headline: e.Headline(), Groups: e.Groups(),
	}
}

// Received is the InvalidError s was sent from: its Headline and Groups
// are those computed where the input was read.
func (s SentInvalid) Received() *InvalidError {
	return &InvalidError{
		Stage: s.Stage, Artifact: s.Artifact, Problems: s.Problems, Omitted: s.Omitted,
		Hash: s.Hash, Foreign: s.Foreign, section: s.Section,
		sent: &sentReading{headline: s.Headline, groups: s.Groups},
	}
}

// sentReading is what an InvalidError received from another instance
// answers for the input it has not got.
type sentReading struct {
	headline string
	groups   []ProblemGroup
}
