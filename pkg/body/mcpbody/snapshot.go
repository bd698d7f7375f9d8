package mcpbody

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Playwright MCP page observation is Markdown-like text in sections:
//
//	### Page
//	- Page URL: http://…
//	- Page Title: Home
//	- Console: 1 errors, 0 warnings
//	### Snapshot
//	```yaml
//	- generic [active] [ref=e1]:
//	  - heading "Welcome" [level=1] [ref=e2]
//	  - link "About us" [ref=e4] [cursor=pointer]:
//	    - /url: /about.html
//	```
//
// parsePage keeps what describes the page and drops what differs between
// identical visits: the console counts (a favicon's 404 is counted on the
// first visit only), the code Playwright ran, event logs and the names of
// files it wrote. Element references are renumbered in document order.

// pageView is one observed page.
type pageView struct {
	// state is the encoded state: {"url", "title", "page": [nodes…]} and,
	// when present, "tabs" and "modal" (lists of lines).
	state map[string]any
	// refs maps between the server's references and the body's.
	refs refMap
	// text is the page for a model to read: URL, title and the YAML tree
	// with the body's references.
	text string
}

// refMap pairs the server's element references with the body's.
type refMap struct {
	toLive map[string]string // body's → server's
	toNorm map[string]string // server's → body's
}

// errNoSnapshot means a text shows no page.
var errNoSnapshot = errors.New("no inline ### Snapshot YAML block")

// sections splits text at its "### " headings; text before the first
// heading is dropped.
func sections(text string) (titles []string, bodies []string) {
	cur := -1
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if t, ok := strings.CutPrefix(line, "### "); ok {
			if cur >= 0 {
				bodies = append(bodies, b.String())
			}
			b.Reset()
			titles = append(titles, strings.TrimSpace(t))
			cur++
			continue
		}
		if cur >= 0 {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	if cur >= 0 {
		bodies = append(bodies, b.String())
	}
	return titles, bodies
}

// yamlBlock returns the content of the first ```yaml fenced block.
func yamlBlock(s string) (string, bool) {
	_, rest, ok := strings.Cut(s, "```yaml\n")
	if !ok {
		return "", false
	}
	// An empty page has its closing fence right away.
	if strings.HasPrefix(rest, "```") {
		return "", true
	}
	block, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		return "", false
	}
	return block, true
}

// parsePage parses a page observation.
func parsePage(text string) (pageView, error) {
	titles, bodies := sections(text)
	v := pageView{state: map[string]any{"url": "", "title": "", "page": []any{}}}
	var yml string
	found := false
	head := []string{"### Page"}
	var extra []string
	for i, t := range titles {
		switch t {
		case "Page":
			for _, line := range strings.Split(bodies[i], "\n") {
				key, val, ok := strings.Cut(strings.TrimPrefix(line, "- "), ": ")
				if !ok {
					continue
				}
				switch key {
				case "Page URL":
					v.state["url"] = val
					head = append(head, line)
				case "Page Title":
					v.state["title"] = val
					head = append(head, line)
				}
			}
		case "Snapshot":
			if found {
				continue
			}
			if yml, found = yamlBlock(bodies[i]); !found && strings.Contains(bodies[i], "](") {
				return pageView{}, errors.New("the snapshot was written to a file rather than shown; the perceive tool must return it inline")
			}
		case "Open tabs", "Modal state":
			var lines []any
			for _, line := range strings.Split(strings.TrimSpace(bodies[i]), "\n") {
				if line = strings.TrimSpace(line); line != "" {
					lines = append(lines, line)
				}
			}
			v.state[map[string]string{"Open tabs": "tabs", "Modal state": "modal"}[t]] = lines
			extra = append(extra, "### "+t, strings.TrimRight(bodies[i], "\n"))
		}
	}
	if !found {
		return pageView{}, errNoSnapshot
	}
	w := &walker{refs: refMap{toLive: map[string]string{}, toNorm: map[string]string{}}}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(yml), &doc); err != nil {
		return pageView{}, fmt.Errorf("snapshot YAML: %w", err)
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		root := doc.Content[0]
		if root.Kind != yaml.SequenceNode {
			return pageView{}, fmt.Errorf("snapshot YAML line %d: the tree is not a sequence", root.Line)
		}
		top := map[string]any{}
		nodes, err := w.seq(root, top)
		if err != nil {
			return pageView{}, err
		}
		keys := make([]string, 0, len(top))
		for k := range top {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys { // properties at the top level become nodes
			nodes = append(nodes, map[string]any{k: top[k]})
		}
		v.state["page"] = nodes
	}
	v.refs = w.refs
	head = append(append(head, extra...), "### Snapshot", "```yaml", rewriteRefs(yml, w.refs.toNorm), "```")
	v.text = strings.Join(head, "\n") + "\n"
	return v, nil
}

// walker converts the YAML tree, numbering references in document order.
type walker struct {
	refs refMap
	n    int
}

// seq converts a sequence of children of parent. Properties ("/url: …")
// are set on parent; "text: …" entries are text nodes.
func (w *walker) seq(seq *yaml.Node, parent map[string]any) ([]any, error) {
	out := []any{}
	for _, item := range seq.Content {
		switch item.Kind {
		case yaml.ScalarNode:
			n, err := w.node(item)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		case yaml.MappingNode:
			for i := 0; i+1 < len(item.Content); i += 2 {
				k, val := item.Content[i], item.Content[i+1]
				if k.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("snapshot YAML line %d: a key that is not a string", k.Line)
				}
				switch {
				case k.Value == "text":
					if val.Kind != yaml.ScalarNode {
						return nil, fmt.Errorf("snapshot YAML line %d: text that is not a string", val.Line)
					}
					out = append(out, map[string]any{"text": val.Value})
				case strings.HasPrefix(k.Value, "/"):
					if val.Kind != yaml.ScalarNode {
						return nil, fmt.Errorf("snapshot YAML line %d: property %s that is not a string", val.Line, k.Value)
					}
					parent[k.Value] = val.Value
				default:
					n, err := w.node(k)
					if err != nil {
						return nil, err
					}
					switch val.Kind {
					case yaml.ScalarNode:
						n["children"] = []any{map[string]any{"text": val.Value}}
					case yaml.SequenceNode:
						kids, err := w.seq(val, n)
						if err != nil {
							return nil, err
						}
						if len(kids) > 0 { // a list of properties only
							n["children"] = kids
						}
					default:
						return nil, fmt.Errorf("snapshot YAML line %d: %s has children that are neither text nor a list", val.Line, k.Value)
					}
					out = append(out, n)
				}
			}
		default:
			return nil, fmt.Errorf("snapshot YAML line %d: an item that is neither an element nor a mapping", item.Line)
		}
	}
	return out, nil
}

// node converts one element key: role "name" [attr] [attr=value]….
// The element is an object whose member named after its role holds its
// name, so that a link and a heading have different shapes.
func (w *walker) node(k *yaml.Node) (map[string]any, error) {
	role, name, attrs, err := parseKey(k.Value)
	if err != nil {
		return nil, fmt.Errorf("snapshot YAML line %d: element %q: %w", k.Line, k.Value, err)
	}
	n := map[string]any{role: name}
	for _, a := range attrs {
		switch {
		case a[0] == "ref":
			norm, ok := w.refs.toNorm[a[1]]
			if !ok {
				w.n++
				norm = "e" + strconv.Itoa(w.n)
				w.refs.toNorm[a[1]] = norm
				w.refs.toLive[norm] = a[1]
			}
			n["ref"] = norm
		case a[1] == "":
			n[a[0]] = true
		default:
			n[a[0]] = a[1]
		}
	}
	return n, nil
}

// parseKey reads an element key as Playwright's own parser does: a role
// of letters, an optional double-quoted name with backslash escapes, then
// bracketed attributes.
func parseKey(s string) (role, name string, attrs [][2]string, err error) {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == 0 {
		return "", "", nil, errors.New("no role")
	}
	role = s[:i]
	skip := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	skip()
	if i < len(s) && s[i] == '"' {
		j := i + 1
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' {
				j++
			}
		}
		if j >= len(s) {
			return "", "", nil, errors.New("unterminated name")
		}
		if err := json.Unmarshal([]byte(s[i:j+1]), &name); err != nil {
			// Not a JSON escape: take the characters as Playwright does.
			name = unescape(s[i+1 : j])
		}
		i = j + 1
	}
	for {
		skip()
		if i >= len(s) {
			return role, name, attrs, nil
		}
		if s[i] != '[' {
			return "", "", nil, fmt.Errorf("unexpected %q at %d", s[i:], i)
		}
		end := strings.IndexByte(s[i:], ']')
		if end < 0 {
			return "", "", nil, errors.New("unterminated attribute")
		}
		k, v, _ := strings.Cut(strings.TrimSpace(s[i+1:i+end]), "=")
		attrs = append(attrs, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		i += end + 1
	}
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

var refAttr = regexp.MustCompile(`\[ref=([^\]\s]+)\]`)

// rewriteRefs replaces the references of a text that m knows.
func rewriteRefs(text string, m map[string]string) string {
	return refAttr.ReplaceAllStringFunc(text, func(s string) string {
		if n, ok := m[s[5:len(s)-1]]; ok {
			return "[ref=" + n + "]"
		}
		return s
	})
}

// hasRefArg reports whether args carry a string under one of keys.
func hasRefArg(v any, keys []string) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if _, ok := e.(string); ok && slices.Contains(keys, k) {
				return true
			}
			if hasRefArg(e, keys) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasRefArg(e, keys) {
				return true
			}
		}
	}
	return false
}

// translateArgs returns a copy of v in which every string under one of
// keys that m knows is replaced by its translation. Selectors and
// references m does not know pass unchanged.
func translateArgs(v any, keys []string, m map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && slices.Contains(keys, k) {
				if live, ok := m[s]; ok {
					out[k] = live
					continue
				}
			}
			out[k] = translateArgs(e, keys, m)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = translateArgs(e, keys, m)
		}
		return out
	}
	return v
}
