// Package export prepares a stored bundle for download, the flow behind the
// skill page's export dialog: Advise scans the bundle for secrets and says
// which redaction profile to start from; Prepare applies the profile the
// user chose to a copy, re-seals it, names the file <slug>.v<n>.skill.json
// after the redacted slug, and verifies the exported bytes under that name
// against the secrets of the original, so that no piece of a secret leaves
// in the document or in the file name.
//
// A bundle never leaves unredacted by default: the advised profile is
// transcript_pii, and a bundle in which secrets were found is exported
// under "none" only when the caller says the user confirmed it.
package export

import (
	"errors"
	"fmt"

	"workbench/pkg/redact"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Advice is what the export dialog opens with.
type Advice struct {
	// Profile is the redaction profile to pre-select: always
	// transcript_pii, so "none" is a choice the user makes, never a
	// default (spec §7.3).
	Profile string
	// Secrets summarizes the strings that look like credentials; when
	// Secrets.Found(), the dialog warns and lists Secrets.Kinds.
	Secrets redact.Summary
	// Findings locate each secret by JSON pointer (never its text).
	Findings []redact.Finding
}

// Advise scans b for secrets.
func Advise(b *skill.Bundle) (Advice, error) {
	fs, err := redact.Scan(b)
	if err != nil {
		return Advice{}, fmt.Errorf("export: scan for secrets: %w", err)
	}
	return Advice{Profile: skill.RedactionTranscriptPII, Secrets: redact.Summarize(fs), Findings: fs}, nil
}

// ErrSecrets is returned when a bundle holding secrets is to be exported
// under profile "none" without the user's confirmation.
var ErrSecrets = errors.New("the bundle holds strings that look like secrets; choose transcript_pii or full, or confirm exporting them")

// ErrNotRedacted is returned when the redacted copy still fails
// gate.redaction_verify: something the profile removes, or a piece of a
// secret of the original, is still in the document or its file name.
// Nothing is offered for download.
var ErrNotRedacted = errors.New("the redacted copy still fails gate.redaction_verify")

// File is a bundle ready to download.
type File struct {
	Name        string // <slug>.v<n>.skill.json
	Data        []byte // the exported (canonical) bytes
	Profile     string // the redaction profile applied
	ContentHash string // the content hash of Data, verified
	Redaction   skill.RedactionResult
	Report      *verify.Report // the verification of Data
}

// Prepare redacts a copy of b under profile, re-seals and verifies it. b is
// not changed. secretsConfirmed must be true to export a bundle holding
// secrets under "none" (ErrSecrets otherwise). A copy that does not verify,
// or whose redaction gate fails (ErrNotRedacted), is an error: nothing is
// offered for download.
//
// The secrets of b are collected before anything is redacted
// (redact.Detector.Known), and the copy is verified with them and with the
// file name it will be saved under (verify.Verifier.Export): a run of 16
// or more characters of one of them anywhere in the exported document or
// in the file name fails the gate.
func Prepare(v *verify.Verifier, b *skill.Bundle, profile string, secretsConfirmed bool) (*File, error) {
	if !redact.ValidProfile(profile) {
		return nil, fmt.Errorf("export: unknown redaction profile %q (want none, transcript_pii or full)", profile)
	}
	if profile == skill.RedactionNone && !secretsConfirmed {
		adv, err := Advise(b)
		if err != nil {
			return nil, err
		}
		if adv.Secrets.Found() {
			return nil, fmt.Errorf("export: %w (%s)", ErrSecrets, adv.Secrets)
		}
	}
	d := redact.NewDetector()
	var known *redact.Known
	if profile != skill.RedactionNone {
		var err error
		if known, err = d.Known(b); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
	}
	data, err := b.Encode()
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	cp, _, err := skill.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("export: copy the bundle: %w", err)
	}
	rr, err := d.Apply(cp, profile)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	if data, err = cp.Encode(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	name := skill.ExportFilename(cp.Manifest.Slug, cp.SkillVersion)
	rep, err := v.Export(data, name, known)
	if err != nil {
		return nil, fmt.Errorf("export: the %s bundle does not verify: %w", profile, err)
	}
	for _, g := range rep.Derived.ProofGates {
		if g.ID == skill.GateRedactionVerify && g.Verdict == skill.VerdictFail {
			return nil, fmt.Errorf("export: %w: %s", ErrNotRedacted, g.Reason)
		}
	}
	return &File{
		Name: name, Data: data, Profile: profile,
		ContentHash: cp.ContentHash, Redaction: rr, Report: rep,
	}, nil
}
