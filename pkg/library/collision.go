package library

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"workbench/pkg/redact"
	"workbench/pkg/skill"
	"workbench/pkg/skilldiff"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// Collision is what Import reports for a file that is another copy of a
// version already stored: the same skill and version, other content, and
// another redaction profile (an export under `full` and one under `none`
// of one version, say). Nothing was written: the library does not keep
// one copy over the other on its own. Resolve stores the file as the user
// chooses.
type Collision struct {
	SkillID string
	Version int
	// Stored is the copy in the library, Incoming the file's.
	Stored, Incoming Copy
	// Differences say what differs, in words: the profile first, then
	// what each copy has stripped and the manifest members that differ.
	Differences []string
	// Suggested is the choice the workbench suggests: Replace when the
	// file keeps more than the stored copy (a lighter profile), KeepBoth
	// otherwise, so that nothing is lost unasked.
	Suggested Choice
}

// Copy is one of the two copies of a version.
type Copy struct {
	ContentHash string
	// Profile is the redaction profile the copy was exported under
	// (evidence.redaction_profile).
	Profile string
	// Stripped counts the fields its redaction stripped
	// (proof.redaction_result.fields_stripped).
	Stripped int
}

// Choice is what to do with a file that collides with a stored version.
type Choice string

const (
	// Replace stores the file in place of the stored copy (one
	// transaction, store.Store.ReplaceBundle).
	Replace Choice = "replace"
	// KeepBoth keeps the stored copy and stores the file's content as
	// the skill's next version, re-sealed with a re-derived proof.
	KeepBoth Choice = "keep_both"
)

// profileOf is the redaction profile a bundle says it was exported under.
func profileOf(b *skill.Bundle) string {
	if p := b.Evidence.RedactionProfile; p != "" {
		return p
	}
	return b.Proof.RedactionResult.Profile
}

// Collide is the decision rule: it reports how incoming collides with
// stored, a bundle of the same skill and version with another content
// hash, or nil when the two are not copies of one version under different
// redaction profiles — then the version itself changed, which the library
// refuses (a version cannot change once stored).
func Collide(stored, incoming *skill.Bundle) *Collision {
	if stored.SkillID != incoming.SkillID || stored.SkillVersion != incoming.SkillVersion ||
		stored.ContentHash == incoming.ContentHash {
		return nil
	}
	sp, ip := profileOf(stored), profileOf(incoming)
	if sp == ip {
		return nil
	}
	c := &Collision{
		SkillID: incoming.SkillID,
		Version: incoming.SkillVersion,
		Stored:  Copy{ContentHash: stored.ContentHash, Profile: sp, Stripped: len(stored.Proof.RedactionResult.FieldsStripped)},
		Incoming: Copy{ContentHash: incoming.ContentHash, Profile: ip,
			Stripped: len(incoming.Proof.RedactionResult.FieldsStripped)},
		Suggested: KeepBoth,
	}
	if r := redact.ProfileRank(ip); r >= 0 && r < redact.ProfileRank(sp) {
		c.Suggested = Replace
	}
	c.Differences = append(c.Differences,
		fmt.Sprintf("redaction profile: the stored copy is %s, this file is %s", sp, ip),
		fmt.Sprintf("fields stripped: %s in the stored copy, %s in this file",
			plural(c.Stored.Stripped, "field"), plural(c.Incoming.Stripped, "field")))
	d, err := skilldiff.Compare(
		skilldiff.Version{Number: stored.SkillVersion, Manifest: stored.Manifest},
		skilldiff.Version{Number: incoming.SkillVersion, Manifest: incoming.Manifest})
	if err == nil && len(d.Fields) > 0 {
		names := make([]string, len(d.Fields))
		for i, f := range d.Fields {
			names[i] = f.Name
		}
		c.Differences = append(c.Differences, "manifest members that differ: "+strings.Join(names, ", "))
	}
	return c
}

// plural is "1 field", "2 fields".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// collision looks for the stored bundle of f's skill and version after
// the store refused f as a conflict, and returns how the two collide (nil
// when they are not copies under different profiles) and the stored one.
func collision(ctx context.Context, st store.Store, f store.BundleFile) (*Collision, error) {
	bs, err := st.Bundles(ctx, f.Bundle.SkillID)
	if err != nil {
		return nil, err
	}
	for _, sb := range bs {
		if sb.SkillVersion != f.Bundle.SkillVersion {
			continue
		}
		stored, err := sb.Decode()
		if err != nil {
			// A stored copy this build cannot read: the version is
			// still taken, and nothing is replaced on that ground.
			return nil, nil
		}
		return Collide(stored, f.Bundle), nil
	}
	return nil, nil
}

// Options are what Resolve needs to make a new version: the time it is
// made at and a source of new ids (skill.NewID).
type Options struct {
	Now   func() time.Time
	NewID func() string
}

// Resolve imports a file Import reported as a Collision, as the user
// chose. It reads the file again and looks at the library as it is now:
// if the stored copy is gone the file is simply imported, and if it no
// longer collides the Result says why as Import would. Replace stores the
// file in place of the stored copy; KeepBoth stores its content as the
// skill's next version (Result.Skill.Version says which). An error means
// the store failed and nothing was written.
func Resolve(ctx context.Context, st store.Store, v *verify.Verifier, name string, data []byte, choice Choice, o Options) (Result, error) {
	if choice != Replace && choice != KeepBoth {
		return Result{Name: name}, fmt.Errorf("resolve %s: unknown choice %q (want %q or %q)", name, choice, Replace, KeepBoth)
	}
	res, f, done := read(v, name, data)
	if done {
		return res, nil
	}
	c, err := collision(ctx, st, f)
	if err != nil {
		return res, fmt.Errorf("resolve %s: %w", name, err)
	}
	if c == nil {
		return store1(ctx, st, res, f)
	}
	res.Collision = c
	var sk store.Skill
	switch choice {
	case Replace:
		sk, err = st.ReplaceBundle(ctx, c.Stored.ContentHash, f)
	case KeepBoth:
		var nf store.BundleFile
		if nf, err = nextVersion(ctx, st, v, f.Bundle, o); err != nil {
			return res, fmt.Errorf("resolve %s: %w", name, err)
		}
		sk, err = st.AddBundle(ctx, nf)
	}
	switch {
	case err == nil:
		res.Status, res.Skill = Accepted, sk
		return res, nil
	case errors.Is(err, store.ErrDuplicate), errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrNotFound):
		// The library changed since the collision was found (another tab
		// stored or deleted a copy): say what it is now.
		res.Collision = nil
		return store1(ctx, st, res, f)
	}
	return res, fmt.Errorf("resolve %s: %w", name, err)
}

// nextVersion is b's content as the skill's next version: versions
// renumbered, a new bundle id and times, the proof re-derived and the
// bundle re-sealed. b is not changed.
func nextVersion(ctx context.Context, st store.Store, v *verify.Verifier, b *skill.Bundle, o Options) (store.BundleFile, error) {
	bs, err := st.Bundles(ctx, b.SkillID)
	if err != nil {
		return store.BundleFile{}, err
	}
	next := b.SkillVersion + 1
	for _, sb := range bs {
		next = max(next, sb.SkillVersion+1)
	}
	data, err := b.Encode()
	if err != nil {
		return store.BundleFile{}, err
	}
	nb, _, err := skill.Decode(data)
	if err != nil {
		return store.BundleFile{}, err
	}
	now := skill.Timestamp(o.Now())
	nb.SkillVersion, nb.Manifest.Version = next, next
	nb.Manifest.UpdatedAt, nb.CreatedAt = now, now
	nb.BundleID = o.NewID()
	if err := v.SealWithProof(nb); err != nil {
		return store.BundleFile{}, fmt.Errorf("seal version %d: %w", next, err)
	}
	return store.EncodeBundle(nb)
}
