package workbench

import (
	"context"
	"fmt"

	"workbench/pkg/assemble"
	"workbench/pkg/skill"
	"workbench/pkg/store"
)

// ManifestEdit is what a person may change in a stored skill's manifest:
// its name and description (spec §2.1) and its slug (§4.4).
type ManifestEdit = assemble.Edit

// EditOf is the edit that leaves m as it is: the form a person starts
// from.
func EditOf(m skill.Manifest) ManifestEdit {
	return ManifestEdit{Name: m.Name, Slug: m.Slug, Description: m.Description}
}

// SaveManifest stores b with its manifest edited as the skill's next
// version: a copy re-sealed with a re-derived proof and added to the
// library in one write. b is not changed; an edit the manifest schema
// refuses, or a failed write, stores nothing.
func (fl *Flows) SaveManifest(ctx context.Context, b *skill.Bundle, e ManifestEdit) (*skill.Bundle, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return nil, fmt.Errorf("saving a manifest: %w", err)
	}
	st, err := fl.library(ctx)
	if err != nil {
		return nil, fmt.Errorf("saving a manifest: %w", err)
	}
	nb, err := assemble.Revise(v, b, e, fl.now(), skill.NewID)
	if err != nil {
		return nil, err
	}
	f, err := store.EncodeBundle(nb)
	if err != nil {
		return nil, fmt.Errorf("encoding version %d: %w", nb.SkillVersion, err)
	}
	if _, err := st.AddBundle(ctx, f); err != nil {
		return nil, fmt.Errorf("storing version %d: %w", nb.SkillVersion, err)
	}
	return nb, nil
}
