package skillpage

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"workbench/pkg/skill"
	"workbench/pkg/words"
)

// Step is one line of the Audit tab's step list: what a trace edge did,
// read from the edge alone, so the list of a large trace is cheap to make.
// Everything else about the step is in its Detail, made when the step is
// selected.
type Step struct {
	Index      int
	Tool       string
	ActionType string
	// Outcome is the edge's outcome_status; Decision its authorization
	// decision, "" when the edge carries none.
	Outcome  string
	Decision string
	// Changed: the state hash after differs from the one before.
	Changed bool
	Time    string
	// Surprise: some replay the bundle carries raised a surprise here.
	Surprise bool
}

// StepsOf lists every edge of b's trace as a Step, in order.
func StepsOf(b *skill.Bundle) []Step {
	surprised := map[int]bool{}
	for _, rec := range b.ReplayRecords() {
		for _, s := range rec.Report.SurpriseSignals {
			surprised[s.EdgeIndex] = true
		}
	}
	steps := make([]Step, len(b.Trace.Edges))
	for i, e := range b.Trace.Edges {
		steps[i] = stepOf(e)
		steps[i].Surprise = surprised[e.Index]
	}
	return steps
}

func stepOf(e skill.Edge) Step {
	s := Step{
		Index: e.Index, Tool: e.Tool.Name, ActionType: e.TypedAction.Type, Outcome: e.OutcomeStatus,
		Changed: e.StateAfter != e.StateBefore, Time: e.Provenance.Timestamp,
	}
	if e.Authorization != nil {
		s.Decision = e.Authorization.Decision
	}
	return s
}

// Detail is everything the bundle says about one step (the selected one
// of the Audit tab), in the manner of a trace viewer: the call and its
// answer, what the body showed before and after, the state hashes, the
// authorization, the events and replays that concern it, its time.
type Detail struct {
	Step
	EdgeID     string
	Server     string
	Capability string
	// Request is the tool call as made ({server, name, arguments}) and
	// Response the body's answer (observed_outcome), each as indented
	// JSON with & and < as written.
	Request, Response string
	// ObservationBefore is what the body showed before the step: the
	// answer of the step before, as snapshot text. The bundle keeps no
	// observation before the first step (its state hash only), so it is
	// "" there, and BeforeFrom says where the text comes from.
	ObservationBefore string
	BeforeFrom        string
	// ObservationAfter is the body's answer to this step as snapshot
	// text: a text answer as it is, a structured one as indented lines.
	ObservationAfter string

	StateBefore, StateAfter string
	ShapeBefore, ShapeAfter string

	Authorization *skill.Authorization
	// Policy is the policy the manifest puts in scope.
	Policy string
	// ParamSources says where each parameter's value came from, sorted
	// by parameter.
	ParamSources []KeyValue
	ToolCalls    []skill.ToolCallHash
	// Events are the evidence events that name this step: by the span of
	// its tool call, or by its edge index or edge id in their data.
	Events []EventRow
	// Replays are what each replay the bundle carries did at this step.
	Replays []StepReplay
	// LatencyMS is the edge's latency_ms; SpanMS the duration of its
	// tool-call span, -1 when the evidence has none.
	LatencyMS float64
	SpanMS    float64
}

// StepReplay is one replay's record of a step.
type StepReplay struct {
	ReplayID  string
	Edge      skill.ReplayEdge
	Surprises []skill.SurpriseSignal
}

// DetailOf is step i (an edge index) of b, or false when the trace has
// no such edge.
func DetailOf(b *skill.Bundle, i int) (Detail, bool) {
	if i < 0 || i >= len(b.Trace.Edges) {
		return Detail{}, false
	}
	e := b.Trace.Edges[i]
	d := Detail{
		Step:   stepOf(e),
		EdgeID: e.EdgeID, Server: e.Tool.Server, Capability: e.Capability,
		StateBefore: e.StateBefore, StateAfter: e.StateAfter, ShapeBefore: e.ShapeBefore, ShapeAfter: e.ShapeAfter,
		Authorization: e.Authorization, Policy: b.Manifest.DelegaticPolicyID,
		LatencyMS: e.LatencyMS, SpanMS: -1,
	}
	d.Request = jsonText(e.Tool)
	d.Response = jsonText(e.ObservedOutcome)
	d.ObservationAfter = Snapshot(e.ObservedOutcome)
	if i > 0 {
		d.ObservationBefore = Snapshot(b.Trace.Edges[i-1].ObservedOutcome)
		d.BeforeFrom = "the body's answer to step " + strconv.Itoa(i-1)
	} else {
		d.BeforeFrom = "not recorded: the bundle keeps the state before the first step as a hash only"
	}
	params := make([]string, 0, len(e.ParamSources))
	for p := range e.ParamSources {
		params = append(params, p)
	}
	sort.Strings(params)
	for _, p := range params {
		d.ParamSources = append(d.ParamSources, KeyValue{Key: p, Value: e.ParamSources[p]})
	}
	spans := map[string]bool{}
	for _, tc := range b.Evidence.ToolCalls {
		if tc.EdgeIndex != nil && *tc.EdgeIndex == e.Index {
			d.ToolCalls = append(d.ToolCalls, tc)
			spans[tc.SpanID] = true
		}
	}
	for _, sp := range b.Evidence.Trace.Spans {
		if spans[sp.SpanID] {
			d.SpanMS = float64(sp.EndUnixNano-sp.StartUnixNano) / 1e6
			break
		}
	}
	for _, ev := range b.Evidence.Events {
		if ev.Type == skill.EventReplayExecuted {
			continue // its part for this step is in Replays
		}
		if (ev.SpanID != "" && spans[ev.SpanID]) || namesEdge(ev.Data, e.Index, e.EdgeID) {
			d.Events = append(d.Events, EventRowOf(ev))
		}
	}
	for _, rec := range b.ReplayRecords() {
		for _, re := range rec.Edges {
			if re.Index != e.Index {
				continue
			}
			sr := StepReplay{ReplayID: rec.Report.ReplayID, Edge: re}
			for _, s := range rec.Report.SurpriseSignals {
				if s.EdgeIndex == e.Index {
					sr.Surprises = append(sr.Surprises, s)
					d.Surprise = true
				}
			}
			d.Replays = append(d.Replays, sr)
		}
	}
	return d, true
}

// namesEdge reports whether event data names the edge: an edge_index
// member equal to index, or an edge_id member equal to id.
func namesEdge(data any, index int, id string) bool {
	m, ok := data.(map[string]any)
	if !ok {
		return false
	}
	if v, ok := m["edge_index"].(float64); ok && v == float64(index) {
		return true
	}
	if v, ok := m["edge_id"].(string); ok && id != "" && v == id {
		return true
	}
	return false
}

// EventRowOf is one event as a row: its data as compact JSON cut at
// SummaryLen, and as indented JSON, & and < as written.
func EventRowOf(e skill.Event) EventRow {
	compact, err := words.CompactJSON(e.Data)
	if err != nil {
		compact = "(data cannot be shown: " + err.Error() + ")"
	}
	return EventRow{Type: e.Type, Time: e.Time, ID: e.ID, Summary: cut(compact, SummaryLen), Full: jsonText(e.Data)}
}

// jsonText is v as indented JSON, or why it cannot be shown.
func jsonText(v any) string {
	s, err := words.JSON(v)
	if err != nil {
		return "(cannot be shown: " + err.Error() + ")"
	}
	return s
}

// Snapshot is an observation as text a person reads: a string as it is;
// an object or array as indented "key: value" lines, keys sorted, array
// items marked with "- ". A snapshot from a browser body (an accessibility
// tree as text) is already text; the simulator's pages are objects.
func Snapshot(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	var b strings.Builder
	snapshot(&b, v, 0)
	return strings.TrimSuffix(b.String(), "\n")
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
	s, err := words.CompactJSON(v)
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

// Window is the part of a list of n items that page p (from 0) of size
// items shows: [Start, End). P is p held within the pages there are.
type Window struct {
	Start, End, Page, Pages int
}

// PageOf is page p of a list of n items, size a page.
func PageOf(n, size, p int) Window {
	if size < 1 {
		size = 1
	}
	pages := (n + size - 1) / size
	if pages < 1 {
		pages = 1
	}
	p = max(0, min(p, pages-1))
	return Window{Start: p * size, End: min(n, (p+1)*size), Page: p, Pages: pages}
}
