package sim

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// The browser part changes on almost every call, so it is encoded and
// walked from its Go value directly rather than through encoding/json and
// canonjson: appendBrowser writes the bytes canonical(browserState{…})
// would, and appendBrowserSkeleton the bytes canonjson's AppendSkeleton
// would write for them (a test holds both to that). Member names are
// written in sorted order by hand; they are ASCII, so byte order is the
// UTF-16 order RFC 8785 asks for.

// appendBrowser appends the canonical JSON of browserState{URL: url, Page: v}.
func appendBrowser(dst []byte, url string, v *PageView) []byte {
	dst = append(dst, `{"page":`...)
	if v == nil {
		dst = append(dst, "null"...)
	} else {
		dst = appendPageView(dst, v)
	}
	dst = append(dst, `,"url":`...)
	dst = appendString(dst, url)
	return append(dst, '}')
}

func appendPageView(dst []byte, v *PageView) []byte {
	dst = append(dst, `{"blocks":`...)
	dst = openList(dst, v.Blocks == nil)
	for i, b := range v.Blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"kind":`...)
		dst = appendString(dst, b.Kind)
		dst = append(dst, `,"text":`...)
		dst = appendString(dst, b.Text)
		dst = append(dst, '}')
	}
	dst = closeList(dst, v.Blocks == nil)
	dst = append(dst, `,"forms":`...)
	dst = openList(dst, v.Forms == nil)
	for i, f := range v.Forms {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"buttons":`...)
		dst = appendStrings(dst, f.Buttons)
		dst = append(dst, `,"fields":`...)
		dst = openList(dst, f.Fields == nil)
		for j, fl := range f.Fields {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"label":`...)
			dst = appendString(dst, fl.Label)
			dst = append(dst, `,"name":`...)
			dst = appendString(dst, fl.Name)
			if len(fl.Options) > 0 { // omitempty
				dst = append(dst, `,"options":`...)
				dst = appendStrings(dst, fl.Options)
			}
			dst = append(dst, `,"required":`...)
			if fl.Required {
				dst = append(dst, "true"...)
			} else {
				dst = append(dst, "false"...)
			}
			dst = append(dst, `,"type":`...)
			dst = appendString(dst, fl.Type)
			dst = append(dst, `,"value":`...)
			dst = appendString(dst, fl.Value)
			dst = append(dst, '}')
		}
		dst = closeList(dst, f.Fields == nil)
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, f.Name)
		dst = append(dst, '}')
	}
	dst = closeList(dst, v.Forms == nil)
	dst = append(dst, `,"links":`...)
	dst = openList(dst, v.Links == nil)
	for i, l := range v.Links {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"href":`...)
		dst = appendString(dst, l.Href)
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, l.Name)
		dst = append(dst, '}')
	}
	dst = closeList(dst, v.Links == nil)
	dst = append(dst, `,"title":`...)
	dst = appendString(dst, v.Title)
	dst = append(dst, `,"url":`...)
	dst = appendString(dst, v.URL)
	return append(dst, '}')
}

// openList and closeList write the brackets of a list, or null in their
// stead for a nil one, as encoding/json does (view leaves none nil, but
// the bytes must not depend on that).
func openList(dst []byte, isNil bool) []byte {
	if isNil {
		return append(dst, "null"...)
	}
	return append(dst, '[')
}

func closeList(dst []byte, isNil bool) []byte {
	if isNil {
		return dst
	}
	return append(dst, ']')
}

func appendStrings(dst []byte, ss []string) []byte {
	dst = openList(dst, ss == nil)
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return closeList(dst, ss == nil)
}

// appendString appends s as JSON.stringify writes it. Bytes that are not
// UTF-8 become U+FFFD, as encoding/json turns them.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || n != 1 {
				i += n
				continue
			}
			dst = append(dst, s[last:i]...)
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i++
			last = i
			continue
		}
		dst = append(dst, s[last:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		last = i
	}
	dst = append(dst, s[last:]...)
	return append(dst, '"')
}

// Skeletons of the fixed-layout parts of a page (DESIGN §3): a list of
// blocks, links or strings has the one-element skeleton set when it is not
// empty.
const (
	skBlocks  = `[{"kind":"string","text":"string"}]`
	skLinks   = `[{"href":"string","name":"string"}]`
	skStrings = `["string"]`
)

// appendBrowserSkeleton appends the skeleton of browserState{Page: v}.
func appendBrowserSkeleton(dst []byte, v *PageView) []byte {
	if v == nil {
		return append(dst, `{"page":"null","url":"string"}`...)
	}
	dst = append(dst, `{"page":{"blocks":`...)
	dst = appendFixed(dst, v.Blocks == nil, len(v.Blocks), skBlocks)
	dst = append(dst, `,"forms":`...)
	var forms [][]byte
	for _, f := range v.Forms {
		forms = append(forms, formSkeleton(f))
	}
	if v.Forms == nil {
		dst = append(dst, `"null"`...)
	} else {
		dst = appendSet(dst, forms)
	}
	dst = append(dst, `,"links":`...)
	dst = appendFixed(dst, v.Links == nil, len(v.Links), skLinks)
	return append(dst, `,"title":"string","url":"string"},"url":"string"}`...)
}

func formSkeleton(f FormView) []byte {
	b := append([]byte(nil), `{"buttons":`...)
	b = appendFixed(b, f.Buttons == nil, len(f.Buttons), skStrings)
	b = append(b, `,"fields":`...)
	// A field's skeleton depends only on whether it lists options.
	const (
		plain   = `{"label":"string","name":"string","required":"boolean","type":"string","value":"string"}`
		options = `{"label":"string","name":"string","options":["string"],"required":"boolean","type":"string","value":"string"}`
	)
	var withOpts, without bool
	for _, fl := range f.Fields {
		if len(fl.Options) > 0 {
			withOpts = true
		} else {
			without = true
		}
	}
	if f.Fields == nil {
		return append(b, `"null","name":"string"}`...)
	}
	b = append(b, '[')
	if withOpts { // sorts first: "o" < "r"
		b = append(b, options...)
	}
	if withOpts && without {
		b = append(b, ',')
	}
	if without {
		b = append(b, plain...)
	}
	return append(b, `],"name":"string"}`...)
}

// appendFixed appends the skeleton of a list of n values that all have
// the skeleton set sk, or of null for a nil list.
func appendFixed(dst []byte, isNil bool, n int, sk string) []byte {
	switch {
	case isNil:
		return append(dst, `"null"`...)
	case n == 0:
		return append(dst, "[]"...)
	}
	return append(dst, sk...)
}

// appendSet appends the skeleton of a list whose elements have skeletons
// elems: the distinct ones in byte order.
func appendSet(dst []byte, elems [][]byte) []byte {
	slices.SortFunc(elems, bytes.Compare)
	elems = slices.CompactFunc(elems, bytes.Equal)
	dst = append(dst, '[')
	for i, e := range elems {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, e...)
	}
	return append(dst, ']')
}
