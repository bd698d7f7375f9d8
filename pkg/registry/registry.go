// Package registry is the signed skill registry's rules: what a registry
// accepts (Admit), what it keeps about each bundle (Entry), how a signer
// withdraws one (Withdrawal), how its index is searched (Query), what a
// link to a bundle is (Link), and a client of its HTTP API (Client).
//
// Guarantees:
//
//   - Admit accepts only what the workbench's own verifier accepts as a
//     well-formed bundle whose content hash holds, whose proof claims no
//     more than its evidence (no overclaim), which is signed with an
//     Ed25519 signature that verifies over its content hash, and which is
//     redacted as transcript_pii or full with gate.redaction_verify
//     re-derived as pass (the secret detector finds nothing), within
//     MaxBundleBytes. Every refusal is a *Refusal carrying the verifier's
//     reasons.
//   - A registry never says a signer is trusted: an Entry names the
//     signing key and the verdict the registry re-derived at publish time,
//     both labelled as the registry's. Trust is each person's pin set.
//   - A withdrawal is a signature by the bundle's own signer over a
//     message that names this registry and the content hash under a
//     context string of its own, so neither the bundle's signature nor a
//     withdrawal made for another registry or another bundle can stand
//     for it.
//   - A Link is a registry's bundle URL and nothing else: an http(s)
//     origin and /api/registry/bundles/<content_hash>, no user, query or
//     fragment. Whether its origin may be fetched is the caller's list of
//     registries (the workbench's own origin and those a person added),
//     never anything a bundle names (spec §7.6).
//
// The HTTP handler is package registry/server; the Worker stores bytes in
// R2 (registry/r2bucket) and the index in D1 (registry/d1index).
package registry

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The registry's API under the workbench's origin (docs/registry.md).
const (
	// MountPath is where the registry's handler is mounted. A GET of
	// MountPath itself is answered with a Status by every deployment,
	// one without a registry included.
	MountPath = "/api/registry/"
	// BundlesPath takes a POST of a bundle (publish); BundlesPath + "/"
	// + a content hash serves that bundle's bytes.
	BundlesPath = MountPath + "bundles"
	// SkillsPath lists and searches the index; SkillsPath + "/" + a
	// content hash is one entry.
	SkillsPath = MountPath + "skills"
	// WithdrawalsPath takes a POST of a signed Withdrawal.
	WithdrawalsPath = MountPath + "withdrawals"
)

// MaxBundleBytes caps a published bundle. A taught skill's bundle is tens
// of kilobytes; 2 MiB holds a trace of about 1,500 edges, and keeps a
// publish within the Worker's memory and CPU (docs/perf/registry.md).
const MaxBundleBytes = 2 << 20

// Entry is what the registry's index keeps about one published bundle. Its
// bytes are kept apart, under ContentHash, and never change.
type Entry struct {
	ContentHash string `json:"content_hash"`
	SkillID     string `json:"skill_id"`
	Slug        string `json:"slug"`
	Version     int    `json:"version"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// SignerKeyID and SignerPublicKey are the key that signed the bundle
	// (signature.KeyID, signature.EncodeKey): who vouched for it, not
	// whether anyone trusts them.
	SignerKeyID     string `json:"signer_key_id"`
	SignerPublicKey string `json:"signer_public_key"`
	// Verdict is the overall verdict the registry re-derived from the
	// bundle's evidence when it was published: the registry's reading,
	// which an importer derives again for itself.
	Verdict          string `json:"verdict"`
	RedactionProfile string `json:"redaction_profile"`
	// Size is the stored bytes' length.
	Size int `json:"size"`
	// PublishedAt is when the registry stored it, RFC 3339 UTC with
	// milliseconds (TimeFormat).
	PublishedAt string `json:"published_at"`
	// WithdrawnAt is when its signer withdrew it; nil while it is not
	// withdrawn. A withdrawn bundle's bytes stay served.
	WithdrawnAt *string `json:"withdrawn_at"`
}

// Status is the answer to GET MountPath: whether this deployment has a
// registry and, when it has none, why. It is answered 200 either way, so
// that a page can ask before it lists.
type Status struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// Withdrawn reports whether the entry's signer withdrew it.
func (e Entry) Withdrawn() bool { return e.WithdrawnAt != nil }

// TimeFormat is how the registry writes times: fixed width, so that their
// text sorts as they do.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// hashPrefix starts every content hash.
const hashPrefix = "sha256:"

// ValidHash reports whether s is a content hash as the workbench writes
// it: "sha256:" and 64 lowercase hex digits, nothing else. A registry
// accepts no other spelling in a path, so no encoding, case or dot
// segment can name another key.
func ValidHash(s string) bool {
	hex, ok := strings.CutPrefix(s, hashPrefix)
	if !ok || len(hex) != 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if c := hex[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Link is a link to one bundle in one registry:
// <Registry>/api/registry/bundles/<ContentHash>.
type Link struct {
	Registry    string // the registry's origin, scheme://host[:port]
	ContentHash string
}

// String is the link's URL.
func (l Link) String() string { return l.Registry + BundlesPath + "/" + l.ContentHash }

// ErrNotALink says a URL is not a registry bundle link.
var ErrNotALink = errors.New("not a registry bundle link")

// ParseLink reads a bundle link: an absolute http or https URL with no
// user, query or fragment whose path is exactly BundlesPath + "/" + a
// content hash. Errors wrap ErrNotALink and say what is wrong.
func ParseLink(s string) (Link, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return Link{}, fmt.Errorf("%w: %v", ErrNotALink, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return Link{}, fmt.Errorf("%w: want an http or https URL", ErrNotALink)
	case u.Host == "" || u.Opaque != "":
		return Link{}, fmt.Errorf("%w: the URL names no host", ErrNotALink)
	case u.User != nil:
		return Link{}, fmt.Errorf("%w: a link carries no user name or password", ErrNotALink)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(s, "#"):
		return Link{}, fmt.Errorf("%w: a link has no query or fragment", ErrNotALink)
	case u.RawPath != "":
		return Link{}, fmt.Errorf("%w: percent-encoding in the path", ErrNotALink)
	}
	hash, ok := strings.CutPrefix(u.Path, BundlesPath+"/")
	if !ok {
		return Link{}, fmt.Errorf("%w: the path is not %s/<content hash>", ErrNotALink, BundlesPath)
	}
	if !ValidHash(hash) {
		return Link{}, fmt.Errorf("%w: %q is not a content hash (sha256: and 64 lowercase hex digits)", ErrNotALink, clip(hash))
	}
	origin, err := Origin(u.Scheme + "://" + u.Host)
	if err != nil {
		return Link{}, fmt.Errorf("%w: %v", ErrNotALink, err)
	}
	return Link{Registry: origin, ContentHash: hash}, nil
}

// Origin reads a registry's origin as a person types it (a trailing slash
// and upper case allowed) and returns it serialized as a browser does:
// scheme://host[:port], lower case, no default port.
func Origin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(s), "/"))
	if err != nil {
		return "", fmt.Errorf("registry origin: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", errors.New("registry origin: want http:// or https://")
	case u.Host == "" || u.Opaque != "":
		return "", errors.New("registry origin: no host")
	case u.User != nil || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", errors.New("registry origin: want scheme://host[:port] alone, without a path, query or user")
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		host = strings.TrimSuffix(host, ":"+p)
	}
	return strings.ToLower(u.Scheme) + "://" + host, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// ImportPage is the page of the registry's own workbench that imports the
// link's bundle: <Registry>/import?from=<link>. It is the address a
// person sends instead of a file.
func (l Link) ImportPage() string {
	return l.Registry + "/import?" + url.Values{"from": {l.String()}}.Encode()
}
