package capability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"workbench/pkg/redact"
)

// View is a result prepared for display by the renderer registry. Exactly
// one of Table, Evidence, Graph is set when Renderer names it; JSON is
// always set, so the inspected payload is one click away.
type View struct {
	// Renderer is the renderer that accepted the payload: HintTable,
	// HintEvidence, HintGraph or HintJSON.
	Renderer string
	// Hint is the render hint asked for.
	Hint string
	// Fallback says why the payload is shown as JSON instead of as Hint;
	// empty when the hint's renderer accepted it (or the hint was JSON).
	Fallback string
	// Status is the envelope's status when a {status, result} envelope
	// was unwrapped; Payload is then its result.
	Status  string
	Payload any
	// Original is the whole response as received (masked), kept for
	// run-id detection and inspection.
	Original json.RawMessage
	// Redacted counts the secret-shaped strings masked in the response.
	Redacted int

	Table    *Table
	Evidence *Evidence
	Graph    *Graph
	JSON     string // the payload, indented
}

// Table is a payload shown as rows and columns.
type Table struct {
	Columns []string
	Rows    [][]string
}

// Evidence is a verification-like payload: a verdict and its gates.
type Evidence struct {
	Verdict string
	Gates   []EvidenceGate
	Notes   []string // overclaims, problems
}

// EvidenceGate is one gate of an Evidence.
type EvidenceGate struct{ ID, Verdict, Reason string }

// Graph is a payload of nodes and edges.
type Graph struct {
	Nodes []string
	Edges [][2]string
}

// Renderer checks a payload's shape and builds its part of the view. A
// payload of another shape is an error saying what is missing, and the
// registry falls back to JSON.
type Renderer func(payload any, v *View) error

// Registry maps render hints to renderers. The zero value is not usable;
// NewRegistry returns one holding the table, evidence, graph and JSON
// renderers. A Registry is immutable once built and safe for concurrent
// use.
type Registry struct {
	renderers map[string]Renderer
	detector  *redact.Detector
}

// NewRegistry returns the registry of the built-in renderers; extra ones
// are added (or replace a built-in) by hint.
func NewRegistry(extra map[string]Renderer) *Registry {
	r := &Registry{renderers: map[string]Renderer{
		HintTable: renderTable, HintEvidence: renderEvidence, HintGraph: renderGraph,
		HintJSON: func(any, *View) error { return nil },
	}, detector: redact.NewDetector()}
	for h, fn := range extra {
		r.renderers[h] = fn
	}
	return r
}

// Hints lists the hints the registry renders, sorted.
func (r *Registry) Hints() []string {
	out := make([]string, 0, len(r.renderers))
	for h := range r.renderers {
		out = append(out, h)
	}
	sort.Strings(out)
	return out
}

// Render prepares raw, a result as received, for display under hint.
// Secret-shaped strings are masked first, so that nothing revealed is held
// by the view. A {status, result} envelope is unwrapped for display with
// the original kept. An unknown hint, or a payload the hint's renderer
// rejects, is shown as JSON with the reason in Fallback. Text that is not
// JSON is shown as a JSON string.
func (r *Registry) Render(hint string, raw json.RawMessage) View {
	masked, n := MaskSecrets(r.detector, raw)
	v := View{Hint: hint, Original: masked, Redacted: n, Renderer: HintJSON}
	var payload any
	dec := json.NewDecoder(bytes.NewReader(masked))
	dec.UseNumber()
	if err := dec.Decode(&payload); err != nil {
		payload = string(masked)
		v.Fallback = "the result is not JSON"
	}
	if m, ok := payload.(map[string]any); ok {
		if st, ok := m["status"].(string); ok {
			if res, ok := m["result"]; ok {
				v.Status, payload = st, res
			}
		}
	}
	v.Payload = payload
	js, _ := json.MarshalIndent(payload, "", "  ")
	v.JSON = string(js)
	if v.Fallback != "" || hint == HintJSON || hint == "" {
		return v
	}
	fn, ok := r.renderers[hint]
	if !ok {
		v.Fallback = fmt.Sprintf("no renderer for the hint %q", hint)
		return v
	}
	var part View
	if err := fn(payload, &part); err != nil {
		v.Fallback = fmt.Sprintf("not a %s payload: %v", hint, err)
		return v
	}
	v.Renderer, v.Table, v.Evidence, v.Graph = hint, part.Table, part.Evidence, part.Graph
	return v
}

// MaskSecrets returns raw with every secret-shaped string (a member name
// or a string value) replaced by its redaction marker, and how many
// strings it changed. Text that is not JSON is masked as one string.
func MaskSecrets(d *redact.Detector, raw json.RawMessage) (json.RawMessage, int) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		s := d.MaskString(string(raw))
		if s == string(raw) {
			return raw, 0
		}
		return json.RawMessage(s), 1
	}
	n := 0
	v = maskValue(d, v, &n)
	if n == 0 {
		return raw, 0
	}
	out, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`"[redacted: the result could not be re-encoded]"`), n
	}
	return out, n
}

func maskValue(d *redact.Detector, v any, n *int) any {
	switch x := v.(type) {
	case string:
		if m := d.MaskString(x); m != x {
			*n++
			return m
		}
	case []any:
		for i := range x {
			x[i] = maskValue(d, x[i], n)
		}
	case map[string]any:
		for k, e := range x {
			e = maskValue(d, e, n)
			if mk := d.MaskString(k); mk != k {
				*n++
				delete(x, k)
				k = mk
			}
			x[k] = e
		}
	}
	return v
}

// rowsOf finds a table's rows: the payload itself when it is an array,
// or the array in its member "rows", "items" or "results"; and the
// columns the payload names in "columns", if any.
func rowsOf(payload any) (rows []any, columns []any, err error) {
	switch p := payload.(type) {
	case []any:
		return p, nil, nil
	case map[string]any:
		columns, _ = p["columns"].([]any)
		for _, k := range []string{"rows", "items", "results"} {
			if a, ok := p[k].([]any); ok {
				return a, columns, nil
			}
		}
		return nil, nil, fmt.Errorf("an object without a rows, items or results array")
	}
	return nil, nil, fmt.Errorf("neither an array nor an object with rows")
}

// columnName reads a column of a "columns" list: a string, or an object
// naming it (name, key, title, label or id).
func columnName(c any) (string, bool) {
	switch x := c.(type) {
	case string:
		return x, true
	case map[string]any:
		for _, k := range []string{"name", "key", "title", "label", "id"} {
			if s, ok := x[k].(string); ok && s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// renderTable draws rows that are objects (their members are the
// columns, in the order a "columns" list gives, else sorted), or rows
// that are arrays of cells under a "columns" list.
func renderTable(payload any, v *View) error {
	rows, columns, err := rowsOf(payload)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return fmt.Errorf("no rows")
	}
	t := &Table{}
	for i, c := range columns {
		name, ok := columnName(c)
		if !ok {
			return fmt.Errorf("columns/%d is neither a name nor an object with one", i)
		}
		t.Columns = append(t.Columns, name)
	}
	if _, arrays := rows[0].([]any); arrays {
		if len(t.Columns) == 0 {
			return fmt.Errorf("rows are arrays, but no columns list names their cells")
		}
		for i, r := range rows {
			cells, ok := r.([]any)
			if !ok {
				return fmt.Errorf("row %d is not an array like row 0", i)
			}
			if len(cells) != len(t.Columns) {
				return fmt.Errorf("row %d has %d cells for %d columns", i, len(cells), len(t.Columns))
			}
			out := make([]string, len(cells))
			for j, c := range cells {
				out[j] = cellText(c)
			}
			t.Rows = append(t.Rows, out)
		}
		v.Table = t
		return nil
	}
	seen := map[string]bool{}
	for _, c := range t.Columns {
		seen[c] = true
	}
	for i, r := range rows {
		m, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("row %d is not an object like row 0", i)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				t.Columns = append(t.Columns, k)
			}
		}
	}
	for _, r := range rows {
		m := r.(map[string]any)
		cells := make([]string, len(t.Columns))
		for j, c := range t.Columns {
			if x, ok := m[c]; ok {
				cells[j] = cellText(x)
			}
		}
		t.Rows = append(t.Rows, cells)
	}
	v.Table = t
	return nil
}

func cellText(x any) string {
	if s, ok := x.(string); ok {
		return s
	}
	b, _ := json.Marshal(x)
	return string(b)
}

func renderEvidence(payload any, v *View) error {
	m, ok := payload.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object")
	}
	verdict, _ := m["verdict"].(string)
	proof, _ := m["re_verified"].(map[string]any)
	if proof == nil {
		proof = m
	}
	if verdict == "" {
		verdict, _ = proof["overall_verdict"].(string)
	}
	if verdict == "" {
		return fmt.Errorf("no verdict or overall_verdict")
	}
	e := &Evidence{Verdict: verdict}
	if gates, ok := proof["proof_gates"].([]any); ok {
		for i, g := range gates {
			gm, ok := g.(map[string]any)
			id, _ := gm["id"].(string)
			gv, _ := gm["verdict"].(string)
			if !ok || id == "" || gv == "" {
				return fmt.Errorf("proof_gates/%d has no id or verdict", i)
			}
			reason, _ := gm["reason"].(string)
			e.Gates = append(e.Gates, EvidenceGate{ID: id, Verdict: gv, Reason: reason})
		}
	}
	if ocs, ok := m["overclaims"].([]any); ok {
		for _, o := range ocs {
			e.Notes = append(e.Notes, "overclaim: "+cellText(o))
		}
	}
	if ps, ok := m["problems"].([]any); ok {
		for _, p := range ps {
			e.Notes = append(e.Notes, cellText(p))
		}
	}
	v.Evidence = e
	return nil
}

func renderGraph(payload any, v *View) error {
	m, ok := payload.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object")
	}
	nodes, ok1 := m["nodes"].([]any)
	edges, ok2 := m["edges"].([]any)
	if !ok1 || !ok2 {
		return fmt.Errorf("no nodes and edges arrays")
	}
	g := &Graph{}
	known := map[string]bool{}
	for i, n := range nodes {
		id := nodeID(n)
		if id == "" {
			return fmt.Errorf("nodes/%d has no id", i)
		}
		known[id] = true
		g.Nodes = append(g.Nodes, id)
	}
	for i, e := range edges {
		em, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("edges/%d is not an object", i)
		}
		from, to := endpoint(em, "from", "source"), endpoint(em, "to", "target")
		if !known[from] || !known[to] {
			return fmt.Errorf("edges/%d joins %q to %q, not both nodes", i, from, to)
		}
		g.Edges = append(g.Edges, [2]string{from, to})
	}
	v.Graph = g
	return nil
}

func nodeID(n any) string {
	switch x := n.(type) {
	case string:
		return x
	case map[string]any:
		if id, ok := x["id"]; ok && id != nil {
			return strings.TrimSpace(cellText(id))
		}
	}
	return ""
}

func endpoint(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if x, ok := m[k]; ok {
			return cellText(x)
		}
	}
	return ""
}
