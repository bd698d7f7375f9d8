// Package render turns untrusted text — model output, strings from an
// imported bundle — into HTML that is safe to put in the page.
//
// The workbench shows such text either as plain text (the UI framework
// escapes it) or through Markdown here; never as raw HTML (spec §7.5:
// never eval, never innerHTML-render assistant content).
//
// Guarantees of Renderer.Markdown's output, whatever the input:
//
//   - no script, style, iframe, object, embed, form, input, img, svg, math
//     or any other element outside a small set of text elements (p, br,
//     headings, emphasis, code, pre, blockquote, lists, tables, hr, del, a);
//   - no attributes but href on links (and the rel/target the sanitizer
//     adds), so no event handlers, no style and no class — text from a
//     bundle cannot dress itself up as one of the workbench's own badges;
//   - links only to http, https and mailto URLs, opened in a new tab with
//     rel="nofollow noreferrer noopener"; anything else (javascript:,
//     data:, vbscript:, relative paths) loses its href;
//   - nothing that makes the browser fetch by itself: images are dropped
//     (their alt text stays), so a bundle cannot make the page call a URL.
//
// Markdown is parsed by goldmark without its unsafe mode (raw HTML in the
// input is omitted) and the result is sanitized by bluemonday with the
// policy above, so a flaw in one layer is caught by the other.
package render

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// MaxMarkdownBytes caps the input of Markdown. Larger text is refused; the
// caller shows it as plain text.
const MaxMarkdownBytes = 1 << 20

// TooLargeError is returned for input beyond MaxMarkdownBytes.
type TooLargeError struct{ Size int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("render: %d bytes of Markdown is more than the %d the workbench renders; showing it as text", e.Size, MaxMarkdownBytes)
}

// Renderer renders Markdown safely. It is immutable after New and safe for
// concurrent use.
type Renderer struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

// New returns a Renderer.
func New() *Renderer {
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "del",
		"code", "pre", "blockquote", "ul", "ol", "li", "hr",
		"table", "thead", "tbody", "tr", "th", "td")
	p.AllowAttrs("href").OnElements("a")
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireParseableURLs(true)
	p.AllowRelativeURLs(false)
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	// An <a> that lost its href is kept as plain text.
	p.AllowElements("a")
	return &Renderer{
		md:     goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)),
		policy: p,
	}
}

// images matches what goldmark renders for an image, to keep its alt text.
var images = regexp.MustCompile(`<img [^>]*?alt="([^"]*)"[^>]*>`)

// Markdown renders src as sanitized HTML. An error means src was not
// rendered (too large); show it as text instead.
func (r *Renderer) Markdown(src string) (string, error) {
	if len(src) > MaxMarkdownBytes {
		return "", &TooLargeError{Size: len(src)}
	}
	var buf bytes.Buffer
	if err := r.md.Convert([]byte(src), &buf); err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	// goldmark escapes the alt text, so it stays escaped text here.
	html := images.ReplaceAll(buf.Bytes(), []byte("$1"))
	return string(r.policy.SanitizeBytes(html)), nil
}
