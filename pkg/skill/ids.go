package skill

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"golang.org/x/text/unicode/norm"
)

// NewID mints a UUIDv7: unique and sortable by creation time (spec §4.4).
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// Timestamp formats t as the RFC 3339 UTC string every artifact uses.
func Timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// OTelTraceID turns a UUID into OpenTelemetry's 32 lowercase hex trace id.
func OTelTraceID(id string) string {
	return strings.ToLower(strings.ReplaceAll(id, "-", ""))
}

// SlugPattern is the kebab-case of the slugs the workbench writes: runs of
// lowercase letters and digits joined by single hyphens. It is stricter
// than spec §4's [a-z0-9-]+, which is what the manifest schema accepts
// from other producers.
const SlugPattern = `^[a-z0-9]+(-[a-z0-9]+)*$`

var slugPattern = regexp.MustCompile(SlugPattern)

// MaxSlugLen bounds a slug; another implementation's schema caps it at 80.
const MaxSlugLen = 80

// ValidSlug reports whether s is a kebab-case slug of at least two and at
// most MaxSlugLen characters.
func ValidSlug(s string) error {
	switch {
	case len(s) < 2:
		return fmt.Errorf("slug %q: must be at least 2 characters", s)
	case len(s) > MaxSlugLen:
		return fmt.Errorf("slug %q: must be at most %d characters", s, MaxSlugLen)
	case !slugPattern.MatchString(s):
		return fmt.Errorf("slug %q: must be kebab-case: lowercase letters and digits separated by single hyphens", s)
	}
	return nil
}

// Slugify derives the default slug of a skill name: accents folded, anything
// that is not a letter or digit becomes a single hyphen. A slug longer than
// MaxSlugLen is cut between words, never inside one: half a word may be
// half of something that should not be in a file name at all. A name with
// no letters or digits, or whose first word alone is too long, gives
// "skill".
func Slugify(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range norm.NFKD.String(name) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(unicode.ToLower(r))
		case unicode.Is(unicode.Mn, r):
			// combining marks left by NFKD: drop, keeping the base letter
		default:
			hyphen = true
		}
		if b.Len() > MaxSlugLen {
			break
		}
	}
	s := b.String()
	if len(s) > MaxSlugLen {
		// s[MaxSlugLen] == '-' means the cut falls between two words.
		if i := strings.LastIndexByte(s[:MaxSlugLen+1], '-'); i > 0 {
			s = s[:i]
		} else {
			s = ""
		}
	}
	if len(s) < 2 {
		return "skill"
	}
	return s
}

// ExportFilename is the file name a bundle is exported under:
// <slug>.v<n>.skill.json (spec §4.4).
func ExportFilename(slug string, version int) string {
	return fmt.Sprintf("%s.v%d.skill.json", slug, version)
}
