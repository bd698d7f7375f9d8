package skill

// Step is what one trace edge did, read from the edge alone (and from
// the replays' surprises), so the steps of a large trace are cheap to
// list. Everything else the bundle says about the step is its
// StepDetail.
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

// Steps lists every edge of b's trace as a Step, in order.
func (b *Bundle) Steps() []Step {
	surprised := map[int]bool{}
	for _, rec := range b.ReplayRecords() {
		for _, s := range rec.Report.SurpriseSignals {
			surprised[s.EdgeIndex] = true
		}
	}
	steps := make([]Step, len(b.Trace.Edges))
	for i := range b.Trace.Edges {
		steps[i] = b.Trace.Edges[i].step()
		steps[i].Surprise = surprised[steps[i].Index]
	}
	return steps
}

func (e *Edge) step() Step {
	s := Step{
		Index: e.Index, Tool: e.Tool.Name, ActionType: e.TypedAction.Type, Outcome: e.OutcomeStatus,
		Changed: e.StateAfter != e.StateBefore, Time: e.Provenance.Timestamp,
	}
	if e.Authorization != nil {
		s.Decision = e.Authorization.Decision
	}
	return s
}

// StepDetail is everything a bundle says about one step, in the manner of
// a trace viewer: the edge (its call, the body's answer, states,
// authorization, parameter sources, latency), what the body showed
// before it, and the evidence and replays that concern it.
type StepDetail struct {
	Step
	Edge *Edge
	// Before is the edge before, whose answer is what the body showed
	// before this step; nil for the first step, of which the bundle
	// keeps the state before as a hash only.
	Before *Edge
	// ToolCalls are the hashes of the step's tool calls.
	ToolCalls []ToolCallHash
	// SpanMS is the duration of the step's tool-call span, -1 when the
	// evidence has none.
	SpanMS float64
	// Events are the evidence events that name this step: by the span of
	// its tool call, or by its edge index or edge id in their data. The
	// replays' events are not among them: each replay's part is in
	// Replays.
	Events []Event
	// Replays are what each replay the bundle carries did at this step.
	Replays []StepReplay
}

// StepReplay is one replay's record of a step.
type StepReplay struct {
	ReplayID  string
	Edge      ReplayEdge
	Surprises []SurpriseSignal
}

// StepDetail is step i (a position in the trace's edges) of b, or false
// when the trace has no such edge.
func (b *Bundle) StepDetail(i int) (StepDetail, bool) {
	if i < 0 || i >= len(b.Trace.Edges) {
		return StepDetail{}, false
	}
	e := &b.Trace.Edges[i]
	d := StepDetail{Step: e.step(), Edge: e, SpanMS: -1}
	if i > 0 {
		d.Before = &b.Trace.Edges[i-1]
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
		if ev.Type == EventReplayExecuted {
			continue
		}
		if (ev.SpanID != "" && spans[ev.SpanID]) || namesEdge(ev.Data, e.Index, e.EdgeID) {
			d.Events = append(d.Events, ev)
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

// AuthorizationAt is one authorization block and where it was decided:
// at trace edge Edge during the demonstration (Replay == ""), or during
// the replay Replay.
type AuthorizationAt struct {
	Edge   int
	Replay string
	Authorization
}

// Authorizations lists every authorization block b records: the trace's
// edges' in order, then those of each replay it carries, in the order
// recorded.
func (b *Bundle) Authorizations() []AuthorizationAt {
	var out []AuthorizationAt
	for _, e := range b.Trace.Edges {
		if e.Authorization != nil {
			out = append(out, AuthorizationAt{Edge: e.Index, Authorization: *e.Authorization})
		}
	}
	for _, rec := range b.ReplayRecords() {
		for _, e := range rec.Edges {
			if e.Authorization != nil {
				out = append(out, AuthorizationAt{Edge: e.Index, Replay: rec.Report.ReplayID, Authorization: *e.Authorization})
			}
		}
	}
	return out
}
