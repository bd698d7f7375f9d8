package workbench

import (
	"context"
	"fmt"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
)

// DraftProblems are the reasons a manifest being edited does not satisfy
// the manifest schema, keyed by the member each concerns ("" for the
// manifest as a whole), for a form to show beside its fields.
type DraftProblems = teach.DraftProblems

// CheckDraft checks m, a draft manifest or a stored one being edited, as
// the form stands after the user's edits: against the manifest schema of
// the flows' verifier, with a slug the workbench would write and no
// secret, e-mail address or password in the name or slug
// (teach.CheckDraft). The teach page's draft and the skill page's
// Manifest tab call it on every keystroke; it connects to nothing.
//
// The error is not nil only when m could not be checked at all, or the
// flows have no verifier.
func (fl *Flows) CheckDraft(ctx context.Context, m skill.Manifest) (DraftProblems, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return nil, fmt.Errorf("checking a manifest: %w", err)
	}
	return teach.CheckDraft(v.Schemas(), m)
}

// Rename returns the draft m with the name given and, unless the person
// has written the slug themselves (slugEdited), the slug made from that
// name as the draft's first slug was made (skill.Slugify): a draft's slug
// follows its name until it is edited. CheckDraft still judges both, so a
// secret typed into the name is said of the slug too.
func Rename(m skill.Manifest, name string, slugEdited bool) skill.Manifest {
	m.Name = name
	if !slugEdited {
		m.Slug = skill.Slugify(name)
	}
	return m
}
