// Package canonjsontest makes JSON documents for testing and measuring
// canonical JSON encoders, in the way net/http/httptest serves tests of
// net/http.
//
// Every document is a pure function of its arguments (and of the seed of a
// caller's random source), so a benchmark or a cross-implementation test
// sees the same bytes on every run and on every platform, wasm included.
// Every document is I-JSON: unique member names, finite numbers, integers
// within ±2^53, well-formed UTF-8, no lone surrogates.
package canonjsontest

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Bundle returns a skill-bundle-shaped document with the given number of
// trace edges, each carrying an accessibility snapshot of about
// snapshotBytes bytes. It is written the way encoding/json writes a Go
// struct (members in declaration order, HTML characters escaped), which is
// what a sealer reads; snapshots hold newlines, quotes and non-ASCII text so
// that escaped strings are as common as in a recorded browser trace.
func Bundle(edges, snapshotBytes int) []byte {
	r := rand.New(rand.NewPCG(uint64(edges), uint64(snapshotBytes)))
	b := bundle{
		BundleVersion:    "0.1.0",
		BundleID:         uuid(r),
		SkillID:          uuid(r),
		SkillVersion:     3,
		CreatedAt:        "2026-03-14T09:26:53Z",
		WorkbenchVersion: "0.1.0",
		Manifest: map[string]any{
			"schema":                "https://opensentience.org/spec/skill-manifest/v0.1",
			"name":                  "Book a meeting room — «Salle Élysée» 🗓",
			"slug":                  "book-a-meeting-room",
			"description":           "Opens the booking page, fills the form and confirms.\nUses the \"rooms\" <select>.",
			"version":               3,
			"capabilities_required": []string{"&body.browser", "&memory.episodic"},
			"inputs": []map[string]any{
				{"name": "room", "type": "string", "required": true},
				{"name": "date", "type": "string", "required": true},
			},
			"validated_against": []map[string]any{
				{"model": "anthropic/claude-sonnet", "fidelity": 0.9375, "ts": "2026-03-14T10:00:00Z"},
			},
		},
		ContentHash: "sha256:" + strings.Repeat("ab", 32),
	}
	b.Trace.TraceID = uuid(r)
	b.Trace.BodySubtype = "browser"
	b.Trace.Goal = "Book room \"Élysée\" for Friday 14:00 & invite the team"
	b.Trace.Outcome = "success"
	b.Trace.Edges = make([]edge, edges)
	for i := range b.Trace.Edges {
		b.Trace.Edges[i] = makeEdge(r, i, snapshotBytes)
	}
	b.Proof = map[string]any{
		"overall_verdict": "pass",
		"proof_gates": []map[string]any{
			{"id": "gate.content_hash", "verdict": "pass"},
			{"id": "gate.replay_fidelity", "verdict": "pass", "level": "exact"},
		},
	}
	b.Evidence = map[string]any{"evidence_bundle_id": uuid(r), "replays": []any{}}
	out, err := json.Marshal(&b)
	if err != nil {
		panic(err) // the types above always encode
	}
	return out
}

type bundle struct {
	BundleVersion    string         `json:"bundle_version"`
	BundleID         string         `json:"bundle_id"`
	SkillID          string         `json:"skill_id"`
	SkillVersion     int            `json:"skill_version"`
	CreatedAt        string         `json:"created_at"`
	WorkbenchVersion string         `json:"workbench_version"`
	Manifest         map[string]any `json:"manifest"`
	Trace            struct {
		TraceID     string `json:"trace_id"`
		BodySubtype string `json:"body_subtype"`
		Edges       []edge `json:"edges"`
		Goal        string `json:"goal"`
		Outcome     string `json:"outcome"`
	} `json:"interaction_trace"`
	Proof       map[string]any `json:"proof"`
	Evidence    map[string]any `json:"evidence"`
	ContentHash string         `json:"content_hash"`
	Signature   *string        `json:"signature"`
}

type edge struct {
	EdgeID      string `json:"edge_id"`
	Index       int    `json:"index"`
	StateBefore string `json:"state_before"`
	TypedAction struct {
		Type            string            `json:"type"`
		Target          string            `json:"target"`
		SemanticLocator map[string]string `json:"semantic_locator"`
		Params          map[string]any    `json:"params"`
		Preconditions   []string          `json:"preconditions"`
	} `json:"typed_action"`
	StateAfter      string            `json:"state_after"`
	LatencyMS       float64           `json:"latency_ms"`
	OutcomeStatus   string            `json:"outcome_status"`
	ObservedOutcome map[string]any    `json:"observed_outcome"`
	Authorization   map[string]string `json:"authorization"`
	Provenance      map[string]string `json:"provenance"`
	Capability      string            `json:"capability"`
	ParamSources    map[string]string `json:"param_sources"`
}

var (
	actions = []string{"navigate", "click", "type", "select", "wait_for", "read"}
	roles   = []string{"button", "link", "textbox", "combobox", "heading", "checkbox"}
	words   = []string{"Réserver", "salle", "Book", "room", "Friday", "14:00", "équipe",
		"会議室", "予約", "invite", "confirm", "Cancel", "\"Élysée\"", "<b>", "&", "🗓", "✓", "data-id=7"}
)

func makeEdge(r *rand.Rand, i, snapshotBytes int) edge {
	var e edge
	e.EdgeID = uuid(r)
	e.Index = i
	e.StateBefore = hash(r)
	e.StateAfter = hash(r)
	e.TypedAction.Type = actions[r.IntN(len(actions))]
	e.TypedAction.Target = fmt.Sprintf("e%d", r.IntN(500))
	e.TypedAction.SemanticLocator = map[string]string{
		"role": roles[r.IntN(len(roles))],
		"name": phrase(r, 3),
	}
	e.TypedAction.Params = map[string]any{
		"text":     phrase(r, 4),
		"timeout":  r.IntN(30000),
		"ratio":    math.Round(r.Float64()*1e6) / 1e3,
		"selector": fmt.Sprintf("#main > form [name=\"f%d\"]", r.IntN(90)),
	}
	e.TypedAction.Preconditions = []string{"page_loaded", "element_visible:" + e.TypedAction.Target}
	e.LatencyMS = math.Round(r.Float64()*5e6) / 1e3
	e.OutcomeStatus = "ok"
	e.ObservedOutcome = map[string]any{
		"url":      fmt.Sprintf("https://rooms.example.test/book?room=%d&day=fri", r.IntN(40)),
		"title":    phrase(r, 5),
		"snapshot": snapshot(r, snapshotBytes),
		"changed":  r.IntN(2) == 1,
	}
	e.Authorization = map[string]string{
		"block_id": uuid(r), "policy_id": "workbench-default-v1", "decision": "allow",
		"capability": "&body.browser", "action_type": e.TypedAction.Type,
		"reason": "declared capability", "decided_at": "2026-03-14T09:27:01Z",
	}
	e.Provenance = map[string]string{
		"timestamp": "2026-03-14T09:27:01.123Z", "capability": "&body.browser",
		"operation": "browser_" + e.TypedAction.Type,
	}
	e.Capability = "&body.browser"
	e.ParamSources = map[string]string{"text": "input:room", "selector": "literal"}
	return e
}

// snapshot is an accessibility tree in the YAML form that browser bodies
// return: one element a line, names in double quotes.
func snapshot(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "%s- %s \"%s\" [ref=e%d]\n", strings.Repeat("  ", r.IntN(5)),
			roles[r.IntN(len(roles))], phrase(r, 1+r.IntN(4)), r.IntN(1000))
	}
	return b.String()
}

func phrase(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[r.IntN(len(words))]
	}
	return strings.Join(ws, " ")
}

func uuid(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	s := fmt.Sprintf("%016x%016x", a, b)
	return s[0:8] + "-" + s[8:12] + "-7" + s[13:16] + "-8" + s[17:20] + "-" + s[20:32]
}

func hash(r *rand.Rand) string {
	return fmt.Sprintf("sha256:%016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())
}

// Random returns a random I-JSON document drawn from r: nested objects and
// arrays up to maxDepth deep, strings of random Unicode (astral plane
// included) written with a random mix of literal characters, short escapes
// and \u escapes (surrogate pairs for astral characters), numbers across
// the whole double range in several spellings, and random white space.
func Random(r *rand.Rand, maxDepth int) []byte {
	g := gen{r: r}
	g.value(maxDepth)
	return g.buf
}

type gen struct {
	r   *rand.Rand
	buf []byte
}

func (g *gen) space() {
	for g.r.IntN(4) == 0 {
		g.buf = append(g.buf, " \t\n\r"[g.r.IntN(4)])
	}
}

func (g *gen) value(depth int) {
	g.space()
	k := g.r.IntN(10)
	if depth <= 0 && k < 3 {
		k += 3
	}
	switch k {
	case 0, 1:
		g.object(depth - 1)
	case 2:
		g.array(depth - 1)
	case 3, 4, 5:
		g.str(g.text())
	case 6, 7, 8:
		g.number()
	default:
		g.buf = append(g.buf, []string{"true", "false", "null"}[g.r.IntN(3)]...)
	}
	g.space()
}

func (g *gen) object(depth int) {
	g.buf = append(g.buf, '{')
	seen := map[string]bool{}
	n := g.r.IntN(8)
	first := true
	for range n {
		name := g.text()
		if seen[name] {
			continue
		}
		seen[name] = true
		if !first {
			g.buf = append(g.buf, ',')
		}
		first = false
		g.space()
		g.str(name)
		g.space()
		g.buf = append(g.buf, ':')
		g.value(depth)
	}
	g.space()
	g.buf = append(g.buf, '}')
}

func (g *gen) array(depth int) {
	g.buf = append(g.buf, '[')
	n := g.r.IntN(8)
	for i := range n {
		if i > 0 {
			g.buf = append(g.buf, ',')
		}
		g.value(depth)
	}
	g.space()
	g.buf = append(g.buf, ']')
}

// text draws a short string of code points from ranges chosen to hit every
// branch of an encoder: ASCII, controls, quote and backslash, two- and
// three-byte forms, U+2028, and astral characters.
func (g *gen) text() string {
	var b strings.Builder
	n := g.r.IntN(12)
	for range n {
		var c rune
		switch g.r.IntN(10) {
		case 0:
			c = rune(g.r.IntN(0x20))
		case 1:
			c = []rune{'"', '\\', '/', 0x7f, 0x2028, 0x2029, 0xfeff, 0xfffd}[g.r.IntN(8)]
		case 2:
			c = 0x80 + rune(g.r.IntN(0x800-0x80))
		case 3:
			c = 0x800 + rune(g.r.IntN(0xd800-0x800))
		case 4:
			c = 0xe000 + rune(g.r.IntN(0x10000-0xe000))
		case 5:
			c = 0x10000 + rune(g.r.IntN(0x110000-0x10000))
		default:
			c = 0x20 + rune(g.r.IntN(0x5f))
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (g *gen) str(s string) {
	const hex = "0123456789abcdef"
	g.buf = append(g.buf, '"')
	for _, c := range s {
		escape := g.r.IntN(4) == 0
		switch {
		case c == '"' || c == '\\' || c < 0x20 || escape:
			switch {
			case c == '"':
				g.buf = append(g.buf, '\\', '"')
			case c == '\\':
				g.buf = append(g.buf, '\\', '\\')
			case c == '/' && g.r.IntN(2) == 0:
				g.buf = append(g.buf, '\\', '/')
			case c == '\n' && g.r.IntN(2) == 0:
				g.buf = append(g.buf, '\\', 'n')
			case c == '\t' && g.r.IntN(2) == 0:
				g.buf = append(g.buf, '\\', 't')
			case c >= 0x10000:
				hi, lo := (c-0x10000)>>10+0xd800, (c-0x10000)&0x3ff+0xdc00
				for _, u := range []rune{hi, lo} {
					g.buf = append(g.buf, '\\', 'u', hex[u>>12], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
				}
			default:
				digits := hex
				if g.r.IntN(2) == 0 {
					digits = "0123456789ABCDEF"
				}
				g.buf = append(g.buf, '\\', 'u', digits[c>>12], digits[c>>8&0xf], digits[c>>4&0xf], digits[c&0xf])
			}
		default:
			g.buf = append(g.buf, string(c)...)
		}
	}
	g.buf = append(g.buf, '"')
}

// number writes a finite number. Integer spellings stay within ±2^53;
// others range over every binary exponent, subnormals included.
func (g *gen) number() {
	switch g.r.IntN(6) {
	case 0: // small integer
		g.buf = strconv.AppendInt(g.buf, g.r.Int64N(2001)-1000, 10)
	case 1: // integer up to 2^53
		v := g.r.Int64N(1<<53 + 1)
		if g.r.IntN(2) == 0 {
			v = -v
		}
		g.buf = strconv.AppendInt(g.buf, v, 10)
	case 2: // any finite double, shortest form
		f := g.float()
		g.buf = strconv.AppendFloat(g.buf, f, "eEg"[g.r.IntN(3)], -1, 64)
	case 3: // any finite double, written with more digits than needed
		f := g.float()
		g.buf = strconv.AppendFloat(g.buf, f, 'e', 17+g.r.IntN(5), 64)
	case 4: // decimal fraction
		s := strconv.FormatFloat(float64(g.r.Int64N(1e12))/math.Pow10(g.r.IntN(20)), 'f', -1, 64)
		if !strings.Contains(s, ".") && g.r.IntN(2) == 0 {
			s += ".0"
		}
		g.buf = append(g.buf, s...)
	default: // integer value in exponent form, e.g. 1e2 or 25E+20
		g.buf = strconv.AppendInt(g.buf, g.r.Int64N(1000), 10)
		g.buf = append(g.buf, "eE"[g.r.IntN(2)])
		if g.r.IntN(2) == 0 {
			g.buf = append(g.buf, "+-"[g.r.IntN(2)])
		}
		g.buf = strconv.AppendInt(g.buf, int64(g.r.IntN(300)), 10)
	}
}

func (g *gen) float() float64 {
	for {
		f := math.Float64frombits(g.r.Uint64())
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
}
