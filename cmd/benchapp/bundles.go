package main

import (
	"fmt"

	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// librarySeed returns n distinct small bundles: the fixture bundle
// (spec §8.2, written by a real run of the workbench) under n new skill
// ids and names, each re-proved and re-sealed so it verifies as it is.
func librarySeed(v *verify.Verifier, fixture []byte, n int) ([][]byte, error) {
	out := make([][]byte, 0, n)
	for i := range n {
		b, _, err := skill.Decode(fixture)
		if err != nil {
			return nil, err
		}
		id := skill.NewID()
		b.SkillID, b.Manifest.SkillID = id, id
		b.BundleID = skill.NewID()
		b.Manifest.Name = fmt.Sprintf("Skill %04d: read the main heading", i)
		b.Manifest.Slug = skill.Slugify(b.Manifest.Name)
		if err := v.SealWithProof(b); err != nil {
			return nil, fmt.Errorf("seal seed bundle %d: %w", i, err)
		}
		f, err := store.EncodeBundle(b)
		if err != nil {
			return nil, fmt.Errorf("encode seed bundle %d: %w", i, err)
		}
		out = append(out, f.Data)
	}
	return out, nil
}
