package pulse

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"workbench/pkg/skill"
)

// maxOffset is the largest span time a bundle can carry: I-JSON integers
// stop at 2^53-1 nanoseconds, a little over 104 days after time_origin.
const maxOffset = 1<<53 - 1

// Recorder collects the PULSE events and spans of one run, in the order
// they happen. Every event gets an id from the id source (UUIDv7 by
// default), a time from the clock, the source workbench://<body>, the
// interaction trace's id (data, subject, and OpenTelemetry's 32-hex form in
// the envelope) and, when given, the span it happened in.
//
// Spans count nanoseconds from the recorder's time origin, not from the
// Unix epoch (see skill.OTelTrace). A phase span is started by StartPhase,
// which also records the transition and ends the phase before it: phases of
// one iteration never overlap (OS-010 §7.1). Tool-call spans are children
// of a phase span and carry its phase, so every span has one.
//
// A Recorder is safe for concurrent use. Events are only ever appended.
type Recorder struct {
	mu        sync.Mutex
	traceID   string // the interaction trace's UUID
	otelID    string
	source    string
	origin    time.Time
	now       func() time.Time
	newID     func() string
	newSpanID func() string

	events []skill.Event
	spans  []skill.Span
	ended  []bool
	phase  *Span // the phase span last started, nil before the first
	seq    int   // phase transitions so far
}

// Option configures a Recorder.
type Option func(*Recorder)

// WithClock sets where event times and span times come from (default
// time.Now). The time origin is the clock's first reading unless
// WithTimeOrigin sets it.
func WithClock(now func() time.Time) Option { return func(r *Recorder) { r.now = now } }

// WithIDs sets where event ids come from (default skill.NewID, a UUIDv7).
func WithIDs(newID func() string) Option { return func(r *Recorder) { r.newID = newID } }

// WithSpanIDs sets where span ids come from: 16 lowercase hex, not all
// zero (default: 8 random bytes).
func WithSpanIDs(newSpanID func() string) Option {
	return func(r *Recorder) { r.newSpanID = newSpanID }
}

// WithTimeOrigin sets the instant span times count from.
func WithTimeOrigin(t time.Time) Option { return func(r *Recorder) { r.origin = t } }

var bodyName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// NewRecorder starts recording a run of the interaction trace traceID (a
// UUID) on the named body ("simulator", "browser", "host" or an MCP
// server's name).
func NewRecorder(traceID, body string, opts ...Option) (*Recorder, error) {
	u, err := uuid.Parse(traceID)
	if err != nil || u.String() != traceID {
		return nil, fmt.Errorf("pulse: trace id %q is not a lowercase hyphenated UUID", traceID)
	}
	if !bodyName.MatchString(body) {
		return nil, fmt.Errorf("pulse: body name %q: want lowercase letters, digits, '.', '_' or '-'", body)
	}
	r := &Recorder{
		traceID:   traceID,
		otelID:    skill.OTelTraceID(traceID),
		source:    SourcePrefix + body,
		now:       time.Now,
		newID:     skill.NewID,
		newSpanID: randomSpanID,
	}
	for _, o := range opts {
		o(r)
	}
	if r.origin.IsZero() {
		r.origin = r.now()
	}
	return r, nil
}

func randomSpanID() string {
	var b [8]byte
	for b == [8]byte{} {
		// crypto/rand never fails on the platforms the workbench runs on.
		_, _ = rand.Read(b[:])
	}
	return hex.EncodeToString(b[:])
}

// TraceID is the interaction trace's UUID.
func (r *Recorder) TraceID() string { return r.traceID }

// Source is the source every event carries.
func (r *Recorder) Source() string { return r.source }

// Events returns the events recorded so far, in order.
func (r *Recorder) Events() []skill.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// Trace returns the spans recorded so far as evidence.trace. A span not yet
// ended is reported as ending now, so a run stopped midway still gives a
// well-formed trace; the recorder itself is not changed.
func (r *Recorder) Trace() skill.OTelTrace {
	r.mu.Lock()
	defer r.mu.Unlock()
	spans := make([]skill.Span, len(r.spans))
	now := r.offset(r.now())
	for i, s := range r.spans {
		if !r.ended[i] {
			s.EndUnixNano = max(now, s.StartUnixNano)
		}
		s.Attributes = maps.Clone(s.Attributes)
		spans[i] = s
	}
	return skill.OTelTrace{TraceID: r.otelID, TimeOrigin: skill.Timestamp(r.origin), Spans: spans}
}

// offset turns an instant into nanoseconds from the origin, clamped to
// what a bundle can carry. Callers hold r.mu.
func (r *Recorder) offset(t time.Time) int64 {
	d := t.Sub(r.origin)
	switch {
	case d < 0:
		return 0
	case d > maxOffset:
		return maxOffset
	}
	return int64(d)
}

// Span is a handle on one recorded span.
type Span struct {
	r *Recorder
	i int
}

// ID is the span's 16-hex id.
func (s *Span) ID() string {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return s.r.spans[s.i].SpanID
}

// Phase is the phase the span belongs to.
func (s *Span) Phase() Phase {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	return Phase(s.r.spans[s.i].Phase)
}

// SetAttribute sets one OpenTelemetry attribute of the span.
func (s *Span) SetAttribute(key string, value any) {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	sp := &s.r.spans[s.i]
	if sp.Attributes == nil {
		sp.Attributes = map[string]any{}
	}
	sp.Attributes[key] = value
}

// End ends the span now. Ending it again changes nothing.
func (s *Span) End() {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	s.r.end(s.i, s.r.now())
}

// end records the end of span i once. Callers hold r.mu.
func (r *Recorder) end(i int, t time.Time) {
	if r.ended[i] {
		return
	}
	r.spans[i].EndUnixNano = max(r.offset(t), r.spans[i].StartUnixNano)
	r.ended[i] = true
}

// start records a new span. Callers hold r.mu.
func (r *Recorder) start(name string, phase Phase, parent *string, attrs map[string]any, t time.Time) *Span {
	r.spans = append(r.spans, skill.Span{
		SpanID:        r.newSpanID(),
		ParentSpanID:  parent,
		Name:          name,
		StartUnixNano: r.offset(t),
		Attributes:    attrs,
		Phase:         string(phase),
	})
	r.ended = append(r.ended, false)
	return &Span{r: r, i: len(r.spans) - 1}
}

// Child starts a span inside s, in s's phase.
func (s *Span) Child(name string, attrs map[string]any) *Span {
	s.r.mu.Lock()
	defer s.r.mu.Unlock()
	p := s.r.spans[s.i]
	parent := p.SpanID
	return s.r.start(name, Phase(p.Phase), &parent, maps.Clone(attrs), s.r.now())
}

// ToolCall starts the span of one tool call made inside s: named
// "tool <name>", with the server, the tool and the trace edge it records
// (edgeIndex < 0 for a call that records no edge, such as a perceive).
func (s *Span) ToolCall(server, tool string, edgeIndex int) *Span {
	attrs := map[string]any{"tool.server": server, "tool.name": tool}
	if edgeIndex >= 0 {
		attrs["edge.index"] = edgeIndex
	}
	return s.Child("tool "+tool, attrs)
}

// StartPhase enters phase p: it ends the phase span before it, if still
// open, starts a root span "phase <p>" and records a
// workbench.v1.PhaseTransition event inside it. p must be one of Phases;
// anything else is a programming error and panics.
func (r *Recorder) StartPhase(p Phase) *Span {
	if !p.Valid() {
		panic(fmt.Sprintf("pulse: StartPhase(%q): not a phase", p))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.now()
	var from *Phase
	if r.phase != nil {
		r.end(r.phase.i, t)
		prev := Phase(r.spans[r.phase.i].Phase)
		from = &prev
	}
	sp := r.start("phase "+string(p), p, nil, nil, t)
	r.phase = sp
	seq := r.seq
	r.seq++
	sig, err := skill.HashValue(map[string]any{
		"loop_id": LoopID, "trace_id": r.traceID, "phase_id": p, "from_phase": from, "seq": seq,
	})
	if err != nil {
		// Strings and an int always encode.
		panic("pulse: phase signature: " + err.Error())
	}
	r.emit(sp, TokenPhaseTransition, t, PhaseTransitionData{
		Header: r.header(TokenPhaseTransition, TokenVersion), LoopID: LoopID,
		PhaseID: p, PhaseKind: p, FromPhase: from, Seq: seq,
		Timestamp: skill.Timestamp(t), Signature: sig,
	})
	return sp
}

func (r *Recorder) header(token, version string) Header {
	return Header{Token: token, Version: version, TraceID: r.traceID}
}

// emit appends one envelope. Callers hold r.mu; the token is one of this
// package's, whose event type cannot fail.
func (r *Recorder) emit(at *Span, token string, t time.Time, data any) skill.Event {
	typ, err := EventType(token)
	if err != nil {
		panic(err)
	}
	e := skill.Event{
		SpecVersion:     SpecVersion,
		ID:              r.newID(),
		Source:          r.source,
		Type:            typ,
		Time:            skill.Timestamp(t),
		Subject:         "trace_id:" + r.traceID,
		DataContentType: DataContentType,
		TraceID:         r.otelID,
		Data:            data,
	}
	if at != nil {
		if at.r != r {
			panic("pulse: span of another recorder")
		}
		e.SpanID = r.spans[at.i].SpanID
	}
	r.events = append(r.events, e)
	return e
}

// TopologyContext records what the retrieve phase found for the task.
func (r *Recorder) TopologyContext(at *Span, t Topology) (skill.Event, error) {
	if t.TaskID == "" {
		return skill.Event{}, fmt.Errorf("pulse: TopologyContext: %w: task id is empty", ErrInvalid)
	}
	nodes := []TopologyNode{{ID: t.TaskID, Type: "Goal"}}
	edges := []TopologyEdge{}
	for _, id := range t.RelatedSkillIDs {
		nodes = append(nodes, TopologyNode{ID: id, Type: "Skill"})
		edges = append(edges, TopologyEdge{Src: t.TaskID, Dst: id, Type: "related"})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.emit(at, TokenTopologyContext, r.now(), TopologyContextData{
		Header: r.header(TokenTopologyContext, TokenVersion), LoopID: LoopID,
		Nodes: nodes, Edges: edges, SCCs: []any{}, SCCCount: 0, MaxKappa: 0, Routing: "fast",
	}), nil
}

// ErrInvalid is wrapped by the errors of event builders given values the
// token does not allow.
var ErrInvalid = errors.New("invalid token data")

// OutcomeSignal records the outcome of an action or of the run.
func (r *Recorder) OutcomeSignal(at *Span, o Outcome) (skill.Event, error) {
	if o.ActionID == "" {
		return skill.Event{}, fmt.Errorf("pulse: OutcomeSignal: %w: action_id is empty", ErrInvalid)
	}
	switch o.Status {
	case OutcomeSuccess, OutcomePartial, OutcomeFailure, OutcomeTimeout:
	default:
		return skill.Event{}, fmt.Errorf("pulse: OutcomeSignal: %w: status %q is not success, partial, failure or timeout", ErrInvalid, o.Status)
	}
	parents := slices.Clone(o.CausalParentIDs)
	if parents == nil {
		parents = []string{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.now()
	return r.emit(at, TokenOutcomeSignal, t, OutcomeSignalData{
		Header: r.header(TokenOutcomeSignal, TokenVersion), ActionID: o.ActionID, Status: o.Status,
		CausalParentIDs: parents, Evidence: o.Evidence, Timestamp: skill.Timestamp(t),
	}), nil
}

// SurpriseSignal records a divergence seen during replay. Token, version
// (PULSE 0.1.1, which introduced the token), trace id and timestamp are
// filled in when empty; a trace id of another trace, a magnitude outside
// [0, 1] or a surprise_kind outside OS-011 §8.2's vocabulary is an error.
func (r *Recorder) SurpriseSignal(at *Span, s skill.SurpriseSignal) (skill.Event, error) {
	switch {
	case s.Token != "" && s.Token != TokenSurpriseSignal:
		return skill.Event{}, fmt.Errorf("pulse: SurpriseSignal: %w: token %q", ErrInvalid, s.Token)
	case s.TraceID != "" && s.TraceID != r.traceID:
		return skill.Event{}, fmt.Errorf("pulse: SurpriseSignal: %w: trace %s is not this run's %s", ErrInvalid, s.TraceID, r.traceID)
	case math.IsNaN(s.SurpriseMagnitude) || s.SurpriseMagnitude < 0 || s.SurpriseMagnitude > 1:
		return skill.Event{}, fmt.Errorf("pulse: SurpriseSignal: %w: surprise_magnitude %v is not within [0, 1]", ErrInvalid, s.SurpriseMagnitude)
	case s.SurpriseKind != "" && !slices.Contains(surpriseKinds, s.SurpriseKind):
		return skill.Event{}, fmt.Errorf("pulse: SurpriseSignal: %w: surprise_kind %q is not in OS-011 §8.2's vocabulary", ErrInvalid, s.SurpriseKind)
	}
	s.Token = TokenSurpriseSignal
	if s.Version == "" {
		s.Version = skill.PulseVersion
	}
	s.TraceID = r.traceID
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.now()
	if s.Timestamp == "" {
		s.Timestamp = skill.Timestamp(t)
	}
	return r.emit(at, TokenSurpriseSignal, t, s), nil
}

// ConsolidationEvent records that the run was sealed into a bundle.
func (r *Recorder) ConsolidationEvent(at *Span, c Consolidation) (skill.Event, error) {
	if c.BundleID == "" {
		return skill.Event{}, fmt.Errorf("pulse: ConsolidationEvent: %w: bundle id is empty", ErrInvalid)
	}
	affected := []string{r.traceID}
	if c.SkillID != "" {
		affected = append(affected, c.SkillID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.emit(at, TokenConsolidationEvent, r.now(), ConsolidationEventData{
		Header: r.header(TokenConsolidationEvent, TokenVersion), Timescale: "fast",
		AffectedNodeIDs: affected, MergedIntoIDs: []string{c.BundleID}, ConvergenceStatus: "stable",
		BundleID: c.BundleID, SkillID: c.SkillID, ContentHash: c.ContentHash,
	}), nil
}

// SkillCrystallized records that the trace became the draft manifest m.
func (r *Recorder) SkillCrystallized(at *Span, m skill.Manifest) (skill.Event, error) {
	if m.SkillID == "" {
		return skill.Event{}, fmt.Errorf("pulse: SkillCrystallized: %w: skill_id is empty", ErrInvalid)
	}
	h, err := skill.HashValue(m)
	if err != nil {
		return skill.Event{}, fmt.Errorf("pulse: SkillCrystallized: hash manifest: %w", err)
	}
	caps := slices.Clone(m.CapabilitiesRequired)
	if caps == nil {
		caps = []string{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.emit(at, TokenSkillCrystallized, r.now(), SkillCrystallizedData{
		Header: r.header(TokenSkillCrystallized, TokenVersion), SkillID: m.SkillID, SkillVersion: m.Version,
		DerivedFromTraceID: m.DerivedFromTraceID, CapabilitiesRequired: caps, ManifestHash: h,
	}), nil
}

// ReplayExecuted records one replay's full record, where the verifier looks
// for it (DESIGN §12). The record is kept as given: the caller must not
// change it afterwards.
func (r *Recorder) ReplayExecuted(at *Span, rec skill.ReplayRecord) (skill.Event, error) {
	if rec.Report.ReplayID == "" {
		return skill.Event{}, fmt.Errorf("pulse: ReplayExecuted: %w: replay_id is empty", ErrInvalid)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.emit(at, TokenReplayExecuted, r.now(), ReplayExecutedData{
		Header: r.header(TokenReplayExecuted, TokenVersion), ReplayRecord: rec,
	}), nil
}

// Clone returns an independent copy of the recorder as it stands: what is
// recorded on the copy is not recorded on r, and the other way round.
// Sealing a run's bundle records its last phases on a copy, so the run's
// own record gains no phase it did not go through. The copy reads the
// same clock and id sources as r unless opts give it others (WithClock,
// WithIDs, WithSpanIDs; WithTimeOrigin is ignored: the copy's spans count
// from r's origin).
func (r *Recorder) Clone(opts ...Option) *Recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &Recorder{
		traceID: r.traceID, otelID: r.otelID, source: r.source, origin: r.origin,
		now: r.now, newID: r.newID, newSpanID: r.newSpanID,
		events: slices.Clone(r.events),
		spans:  make([]skill.Span, len(r.spans)),
		ended:  slices.Clone(r.ended),
		seq:    r.seq,
	}
	for i, s := range r.spans {
		s.Attributes = maps.Clone(s.Attributes)
		c.spans[i] = s
	}
	if r.phase != nil {
		c.phase = &Span{r: c, i: r.phase.i}
	}
	for _, o := range opts {
		o(c)
	}
	c.origin = r.origin
	return c
}
