package workbench

import (
	"context"
	"errors"
	"fmt"

	"workbench/pkg/signature"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// ErrNoVersion means the skill is stored, but not the version asked for.
var ErrNoVersion = errors.New("this skill has no such version in the library")

// Loaded is one version of a stored skill as a front-end shows it: read,
// verified from its stored bytes and its signature checked against the
// person's trusted signers.
type Loaded struct {
	Skill store.Skill
	// Versions are every stored version of the skill, oldest first.
	Versions []store.StoredBundle
	// Stored is the version asked for; Bundle is it decoded.
	Stored store.StoredBundle
	Bundle *skill.Bundle
	// Report is the verification of Stored's bytes, its signature checked
	// against the trusted signers (verify.SignatureTrusted only for a
	// pinned key).
	Report *verify.Report
}

// Load reads version of the skill id (0: the newest) from the library,
// verifies its bytes and checks its signature against the trusted
// signers (Deps.Pins; with none, a signature that verifies is
// unverified, never trusted). A version the skill does not have is
// ErrNoVersion; a skill the library does not have is the store's
// store.ErrNotFound.
func (fl *Flows) Load(ctx context.Context, id string, version int) (*Loaded, error) {
	st, err := fl.library(ctx)
	if err != nil {
		return nil, err
	}
	var l Loaded
	if l.Skill, err = st.Skill(ctx, id); err != nil {
		return nil, err
	}
	if l.Versions, err = st.Bundles(ctx, id); err != nil {
		return nil, err
	}
	want := l.Skill.BundleHash
	if version > 0 {
		want = ""
		for _, b := range l.Versions {
			if b.SkillVersion == version {
				want = b.ContentHash
			}
		}
		if want == "" {
			return nil, fmt.Errorf("skill %s version %d: %w", id, version, ErrNoVersion)
		}
	}
	for _, b := range l.Versions {
		if b.ContentHash == want {
			l.Stored = b
		}
	}
	if l.Stored.ContentHash == "" {
		if l.Stored, err = st.Bundle(ctx, want); err != nil {
			return nil, err
		}
	}
	v, err := fl.verifier(ctx)
	if err != nil {
		return nil, err
	}
	if l.Report, err = v.Bytes(l.Stored.Data); err != nil {
		return nil, err
	}
	fl.CheckSignature(ctx, l.Report)
	if l.Bundle, err = l.Stored.Decode(); err != nil {
		return nil, err
	}
	return &l, nil
}

// CheckSignature checks r's signature against the person's trusted
// signers (Deps.Pins): the one place a front-end learns whether a signer
// is trusted. Trusted signers that cannot be read are checked as none, so
// a signature is then at most unverified.
func (fl *Flows) CheckSignature(ctx context.Context, r *verify.Report) {
	var pins *signature.PinSet
	if fl.d.Pins != nil {
		pins, _ = fl.d.Pins(ctx)
	}
	r.CheckSignature(pins)
}
