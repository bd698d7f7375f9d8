package redact

import "strings"

// RFC 6901 JSON pointers over generic JSON trees. pkg/skill has no pointer
// helper; these are small enough to keep here.

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointerOf joins reference tokens into a JSON pointer.
func pointerOf(tokens []string) string {
	n := 0
	for _, t := range tokens {
		n += 1 + len(t)
	}
	var b strings.Builder
	b.Grow(n)
	for _, t := range tokens {
		b.WriteByte('/')
		if strings.ContainsAny(t, "~/") {
			b.WriteString(pointerEscaper.Replace(t))
		} else {
			b.WriteString(t)
		}
	}
	return b.String()
}

// path is the location of a value in a tree, as unescaped reference tokens.
type path []string

// child returns the path of the member or element tok of p's value. It
// never shares p's backing array, so siblings cannot overwrite each other.
func (p path) child(tok ...string) path {
	out := make(path, len(p), len(p)+len(tok))
	copy(out, p)
	return append(out, tok...)
}

func (p path) String() string { return pointerOf(p) }
