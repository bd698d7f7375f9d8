package workbench

import (
	"context"
	"fmt"
	"slices"

	"workbench/pkg/fetch"
	"workbench/pkg/library"
	"workbench/pkg/registry"
	"workbench/pkg/signature"
	"workbench/pkg/skill"
)

// The registry flows (docs/registry.md): Publish signs bundle bytes and
// publishes them to a registry after the same admission check the
// registry runs; Withdraw signs and posts a withdrawal; ImportLink fetches
// a bundle by link from a registry the person allows and imports it
// through the same flow as a dropped file (Import).

// Published is a bundle a registry holds after Publish.
type Published struct {
	// Entry is the registry's entry for the bundle's content hash: the
	// one this publish made, or the one it already held.
	Entry registry.Entry
	// Link is the bundle's link in that registry.
	Link registry.Link
	// SignedBy is the key id the bundle was signed with here. When it is
	// not Entry.SignerKeyID, the registry already held the same content
	// signed by another key, and kept that copy.
	SignedBy string
}

// Publish signs data, bundle bytes, with s (replacing any signature the
// bundle carries), checks them with registry.Admit and the flows'
// verifier — the registry's own rules, so that a refusal is said before
// anything is sent — and publishes them with c. A refusal, here or by the
// registry, is a *registry.Refusal or a *registry.APIError carrying the
// verifier's reasons.
func (fl *Flows) Publish(ctx context.Context, c *registry.Client, s signature.Signer, data []byte) (Published, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return Published{}, fmt.Errorf("publish: %w", err)
	}
	signed, err := signature.Sign(ctx, s, data)
	if err != nil {
		return Published{}, fmt.Errorf("publish: %w", err)
	}
	adm, err := registry.Admit(v, signed)
	if err != nil {
		return Published{}, err
	}
	e, err := c.Publish(ctx, adm.Data)
	if err != nil {
		return Published{}, err
	}
	if e.ContentHash != adm.Entry.ContentHash {
		return Published{}, fmt.Errorf("publish: the registry answered with the entry of %s, not of %s", e.ContentHash, adm.Entry.ContentHash)
	}
	return Published{Entry: e, Link: registry.Link{Registry: c.Registry, ContentHash: e.ContentHash},
		SignedBy: signature.KeyID(s.Public())}, nil
}

// Withdraw signs the withdrawal of the bundle contentHash from c's
// registry with s and posts it. Only the key that signed the published
// bundle can withdraw it; the registry refuses any other.
func (fl *Flows) Withdraw(ctx context.Context, c *registry.Client, s signature.Signer, contentHash string) (registry.Entry, error) {
	wd, err := registry.SignWithdrawal(ctx, s, c.Registry, contentHash)
	if err != nil {
		return registry.Entry{}, err
	}
	return c.Withdraw(ctx, wd)
}

// NotAllowedError says a link's registry is not one the person allows:
// neither the workbench's own origin nor one they added by hand.
type NotAllowedError struct {
	Registry string
}

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("%s is not one of your registries: this workbench fetches bundles only from its own registry and from registries you add by hand", e.Registry)
}

// MismatchError says a registry served bytes that are not the bundle the
// link names: their content hash is another.
type MismatchError struct {
	Link registry.Link
	Got  string // the served bytes' content hash, or why it could not be computed
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the registry at %s served bytes whose content hashes to %s, not the %s the link names; nothing was imported", e.Link.Registry, e.Got, e.Link.ContentHash)
}

// LinkImport is a bundle imported by link.
type LinkImport struct {
	Link registry.Link
	// Entry is the registry's entry: its signer and its verdict as the
	// registry derived them, and whether the signer withdrew it.
	Entry registry.Entry
	// Result is the import flow's result for the bytes, as for a file.
	Result library.Result
	// Data is the bundle's bytes, for ResolveImport when Result is a
	// collision; nil otherwise.
	Data []byte
}

// ImportLink imports the bundle a registry link names (registry.ParseLink)
// into the library, when the link's registry is one of allowed — the
// workbench's own origin and the registries the person added; any other
// is a *NotAllowedError and nothing is fetched. The registry's entry and
// bytes are fetched through d, following no redirect; bytes whose content
// hash is not the link's are a *MismatchError; the bytes then go through
// Import, exactly as a dropped file does. A withdrawn bundle is still
// imported, and the result says it was withdrawn (Entry.Withdrawn).
func (fl *Flows) ImportLink(ctx context.Context, link string, allowed []string, d fetch.Doer) (LinkImport, error) {
	l, err := registry.ParseLink(link)
	if err != nil {
		return LinkImport{}, err
	}
	if !slices.Contains(allowed, l.Registry) {
		return LinkImport{Link: l}, &NotAllowedError{Registry: l.Registry}
	}
	name := l.ContentHash
	if _, _, err := fl.canImport(ctx, name); err != nil {
		return LinkImport{Link: l}, err
	}
	c, err := registry.NewClient(l.Registry, d)
	if err != nil {
		return LinkImport{Link: l}, err
	}
	e, err := c.Entry(ctx, l.ContentHash)
	if err != nil {
		return LinkImport{Link: l}, err
	}
	data, err := c.Bundle(ctx, l.ContentHash)
	if err != nil {
		return LinkImport{Link: l, Entry: e}, err
	}
	doc, err := skill.Parse(data)
	if err != nil {
		return LinkImport{Link: l, Entry: e}, &MismatchError{Link: l, Got: "nothing (not JSON: " + err.Error() + ")"}
	}
	if got, err := skill.DocumentHash(doc); err != nil || got != l.ContentHash {
		if err != nil {
			got = "nothing (" + err.Error() + ")"
		}
		return LinkImport{Link: l, Entry: e}, &MismatchError{Link: l, Got: got}
	}
	res, err := fl.Import(ctx, skill.ExportFilename(e.Slug, e.Version), data)
	li := LinkImport{Link: l, Entry: e, Result: res}
	if err == nil && res.Status == library.Collided {
		li.Data = data
	}
	return li, err
}
