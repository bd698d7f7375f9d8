package workbench

import (
	"context"
	"errors"
	"fmt"

	"workbench/pkg/redact"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// The export flow prepares a bundle for download: AdviseExport scans it
// for secrets and says which redaction profile to start from and which
// are offered; Export applies the profile the user chose to a copy,
// re-seals it, names the file <slug>.v<n>.skill.json after the redacted
// slug, and verifies the exported bytes under that name against the
// secrets of the original, so that no piece of a secret leaves in the
// document or in the file name.
//
// A bundle never leaves unredacted by default: the advised profile is
// transcript_pii (or the bundle's own profile when that is stricter), and
// a bundle in which secrets were found is exported under "none" only when
// the caller says the user confirmed it.

// ExportAdvice is what the export dialog, or the command line before it
// writes a file, starts from.
type ExportAdvice struct {
	// Profile is the redaction profile to pre-select: transcript_pii, or
	// Floor when that strips more, so "none" is a choice the user makes,
	// never a default (spec §7.3).
	Profile string
	// Floor is the profile the bundle was already redacted under
	// (evidence.redaction_profile): what that stripped cannot be put
	// back, so no weaker profile is offered.
	Floor string
	// Secrets summarizes the strings that look like credentials; when
	// Secrets.Found(), the dialog warns and lists Secrets.Kinds.
	Secrets redact.Summary
	// Findings locate each secret by JSON pointer (never its text).
	Findings []redact.Finding
	// RemovedBy lists the profiles that remove every secret found, from
	// the one that keeps most; empty when none was found. (Every secret
	// pattern is masked wherever it is under transcript_pii and full.)
	RemovedBy []string
}

// Offered reports whether profile may be chosen for this bundle: it names
// a profile and strips at least what the bundle's own profile stripped.
func (a ExportAdvice) Offered(profile string) bool {
	return redact.ProfileRank(profile) >= 0 && redact.ProfileRank(profile) >= redact.ProfileRank(a.Floor)
}

// NeedsConfirm reports whether exporting under profile needs the user's
// explicit yes: the secrets found would leave verbatim.
func (a ExportAdvice) NeedsConfirm(profile string) bool {
	return profile == skill.RedactionNone && a.Secrets.Found()
}

// AdviseExport scans b for secrets and says which profile to start from
// and which are offered. It needs none of the flows' dependencies:
// the skill page calls it when it loads a bundle.
func AdviseExport(b *skill.Bundle) (ExportAdvice, error) {
	fs, err := redact.Scan(b)
	if err != nil {
		return ExportAdvice{}, fmt.Errorf("export: scan for secrets: %w", err)
	}
	a := ExportAdvice{Profile: skill.RedactionTranscriptPII, Floor: b.Evidence.RedactionProfile,
		Secrets: redact.Summarize(fs), Findings: fs}
	if redact.ProfileRank(a.Floor) > redact.ProfileRank(a.Profile) {
		a.Profile = a.Floor
	}
	if a.Secrets.Found() {
		a.RemovedBy = []string{skill.RedactionTranscriptPII, skill.RedactionFull}
	}
	return a, nil
}

// ErrSecrets is returned when a bundle holding secrets is to be exported
// under profile "none" without the user's confirmation.
var ErrSecrets = errors.New("the bundle holds strings that look like secrets; choose transcript_pii or full, or confirm exporting them")

// ErrNotRedacted is returned when the redacted copy still fails
// gate.redaction_verify: something the profile removes, or a piece of a
// secret of the original, is still in the document or its file name.
// Nothing is offered for download.
var ErrNotRedacted = errors.New("the redacted copy still fails gate.redaction_verify")

// ProfileError is returned for a profile that is not one of none,
// transcript_pii and full, or that is weaker than the profile the bundle
// was already redacted under (Floor): what was stripped cannot be put
// back, and a file claiming less redaction than it had would mislead.
type ProfileError struct {
	Profile string
	Floor   string // empty when Profile names no profile
}

func (e *ProfileError) Error() string {
	if e.Floor == "" {
		return fmt.Sprintf("unknown redaction profile %q (want none, transcript_pii or full)", e.Profile)
	}
	return fmt.Sprintf("redaction profile %s is weaker than the bundle's own %s: what %s stripped cannot be put back (choose %s or stricter)",
		e.Profile, e.Floor, e.Floor, e.Floor)
}

// ExportFile is a bundle ready to download.
type ExportFile struct {
	Name        string // <slug>.v<n>.skill.json, after the redacted slug
	Data        []byte // the exported (canonical) bytes
	Profile     string // the redaction profile applied
	ContentHash string // the content hash of Data, verified
	Redaction   skill.RedactionResult
	Report      *verify.Report // the verification of Data
}

// Export redacts a copy of b under profile, re-seals and verifies it. b is
// not changed. secretsConfirmed must be true to export a bundle holding
// secrets under "none" (ErrSecrets otherwise). A profile weaker than b's
// own is a *ProfileError. A copy that does not verify, or whose redaction
// gate fails (ErrNotRedacted), is an error: nothing is offered for
// download.
//
// The secrets of b are collected before anything is redacted
// (redact.Detector.Known), and the copy is verified with them and with the
// file name it will be saved under (verify.Verifier.Export): a run of 16
// or more characters of one of them anywhere in the exported document or
// in the file name fails the gate.
func (fl *Flows) Export(ctx context.Context, b *skill.Bundle, profile string, secretsConfirmed bool) (*ExportFile, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	adv, err := AdviseExport(b)
	if err != nil {
		return nil, err
	}
	if !adv.Offered(profile) {
		pe := &ProfileError{Profile: profile}
		if redact.ProfileRank(profile) >= 0 {
			pe.Floor = adv.Floor
		}
		return nil, fmt.Errorf("export: %w", pe)
	}
	if adv.NeedsConfirm(profile) && !secretsConfirmed {
		return nil, fmt.Errorf("export: %w (%s)", ErrSecrets, adv.Secrets)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	d := redact.NewDetector()
	var known *redact.Known
	if profile != skill.RedactionNone {
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
	return &ExportFile{
		Name: name, Data: data, Profile: profile,
		ContentHash: cp.ContentHash, Redaction: rr, Report: rep,
	}, nil
}
