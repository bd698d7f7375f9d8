package words

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// Snapshot is an observation as text a person reads: a string as it is;
// an object or array as indented "key: value" lines, keys sorted, array
// items marked with "- ". A snapshot from a browser body (an accessibility
// tree as text) is already text; the simulator's pages are objects.
func Snapshot(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	snapshot(&b, plain(v), 0)
	return strings.TrimSuffix(b.String(), "\n")
}

// plain is v as the JSON values a bundle decodes to (maps, slices,
// strings, numbers, booleans, null): a typed value, such as a body's
// structured answer before it is recorded, reads as its JSON encoding, so
// that it snapshots exactly as the same answer read back from a bundle.
func plain(v any) any {
	switch v.(type) {
	case nil, map[string]any, []any, string, float64, bool:
		return v
	}
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}

func snapshot(b *strings.Builder, v any, depth int) {
	indent := strings.Repeat("  ", depth)
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			b.WriteString(indent + "{}\n")
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if scalar(x[k]) {
				b.WriteString(indent + k + ": " + scalarText(x[k]) + "\n")
				continue
			}
			b.WriteString(indent + k + ":\n")
			snapshot(b, x[k], depth+1)
		}
	case []any:
		if len(x) == 0 {
			b.WriteString(indent + "(none)\n")
			return
		}
		for _, item := range x {
			if scalar(item) {
				b.WriteString(indent + "- " + scalarText(item) + "\n")
				continue
			}
			// An object item: its first line after the dash, the rest
			// under it.
			var sub strings.Builder
			snapshot(&sub, item, depth+1)
			s := sub.String()
			b.WriteString(indent + "- " + strings.TrimPrefix(s, indent+"  "))
		}
	default:
		b.WriteString(indent + scalarText(x) + "\n")
	}
}

func scalar(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return false
	case []any:
		return len(x) == 0
	}
	return true
}

func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case []any:
		return "(none)"
	}
	s, err := CompactJSON(v)
	if err != nil {
		return "?"
	}
	return s
}

// Clip shortens text for a collapsed view: at most maxLines lines and
// maxChars characters, cut at a line end where it can be. It reports
// whether anything was left out, for a "show all" control.
func Clip(text string, maxLines, maxChars int) (string, bool) {
	clipped := false
	if n := lineEnd(text, maxLines); n < len(text) {
		text, clipped = text[:n], true
	}
	if utf8.RuneCountInString(text) > maxChars {
		r := []rune(text)[:maxChars]
		s := string(r)
		if i := strings.LastIndexByte(s, '\n'); i > len(s)/2 {
			s = s[:i]
		}
		text, clipped = s, true
	}
	return strings.TrimSuffix(text, "\n"), clipped
}

// lineEnd is the byte offset just before the newline ending line n (n
// lines kept), or len(s) when s has no more than n lines.
func lineEnd(s string, n int) int {
	off := 0
	for i := 0; i < n; i++ {
		j := strings.IndexByte(s[off:], '\n')
		if j < 0 {
			return len(s)
		}
		off += j + 1
	}
	if off >= len(s) {
		return len(s)
	}
	return off - 1
}
