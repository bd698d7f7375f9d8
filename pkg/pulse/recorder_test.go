package pulse_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"workbench/pkg/canonjson"
	"workbench/pkg/pulse"
	"workbench/pkg/skill"
	"workbench/schemas"
)

const traceID = "019e5f01-9602-721e-94b5-570d5f3c2da9"

var base = time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)

// sources are deterministic clock, event id and span id sources: the clock
// advances 1ms at every reading.
type sources struct {
	mu              sync.Mutex
	ticks, ids, sps int
}

func (s *sources) now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ticks++
	return base.Add(time.Duration(s.ticks) * time.Millisecond)
}

func (s *sources) id() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("019e5f01-9700-7000-8000-%012d", s.ids)
}

func (s *sources) spanID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sps++
	return fmt.Sprintf("%016x", 0xa000+s.sps)
}

func newRecorder(t testing.TB) *pulse.Recorder {
	t.Helper()
	s := &sources{}
	r, err := pulse.NewRecorder(traceID, "simulator",
		pulse.WithClock(s.now), pulse.WithIDs(s.id), pulse.WithSpanIDs(s.spanID), pulse.WithTimeOrigin(base))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var replayRecord = skill.ReplayRecord{
	Report: skill.ReplayReport{
		ReplayID: "019e5f01-9800-7000-8000-000000000001", SkillID: "019e5f01-9601-78bb-b37c-c3822cdead48",
		SkillVersion: 1, Input: map[string]any{"city": "Lisbon"},
		StartedAt: "2026-05-25T12:00:05Z", EndedAt: "2026-05-25T12:00:06Z",
		EdgesAttempted: 2, EdgesCommitted: 2, Status: skill.StatusSuccess,
		SurpriseSignals: []skill.SurpriseSignal{}, Fidelity: 1, FidelityLevel: skill.LevelStructural,
		ModelUsed: "example/model-a", EvidenceBundleID: "019e5f01-9603-73aa-9732-17f8c1a637f0",
	},
	ExpectedLevel: skill.LevelStructural,
	Edges: []skill.ReplayEdge{
		{Index: 0, EdgeID: "019e5f01-9604-77f8-b4c5-b6163056c2e6", Committed: true, Match: skill.MatchExact},
		{Index: 1, EdgeID: "019e5f01-9606-7913-998e-c35a7172e4e9", Committed: true, Match: skill.MatchStructural},
	},
}

// script records a whole teach-and-replay run, every kind of event and
// span, and returns the spans it used by name.
func script(r *pulse.Recorder) map[string]*pulse.Span {
	sp := map[string]*pulse.Span{}
	sp["retrieve"] = r.StartPhase(pulse.PhaseRetrieve)
	must(r.TopologyContext(sp["retrieve"], pulse.Topology{TaskID: "019e5f01-960a-7b1b-a347-04eedb4f6f50",
		RelatedSkillIDs: []string{"019e5f01-9601-78bb-b37c-c3822cdead48"}}))
	sp["route"] = r.StartPhase(pulse.PhaseRoute)
	sp["act"] = r.StartPhase(pulse.PhaseAct)
	sp["tool0"] = sp["act"].ToolCall("simulator", "browser_navigate", 0)
	sp["tool0"].End()
	sp["perceive"] = sp["act"].ToolCall("simulator", "browser_snapshot", -1)
	sp["perceive"].End()
	sp["tool1"] = sp["act"].ToolCall("simulator", "browser_click", 1)
	sp["tool1"].SetAttribute("tool.outcome", "ok")
	sp["tool1"].End()
	must(r.SurpriseSignal(sp["tool1"], skill.SurpriseSignal{
		EdgeIndex: 1, Kind: skill.KindStateHashMismatch, EdgeID: "019e5f01-9606-7913-998e-c35a7172e4e9",
		BodySubtype: "browser", ActionType: "browser.click",
		PredictedStateHash: "sha256:" + strings.Repeat("a", 64), ActualStateHash: "sha256:" + strings.Repeat("b", 64),
		SurpriseMagnitude: 0.5, SurpriseKind: "unexpected_structure",
	}))
	must(r.ReplayExecuted(sp["act"], replayRecord))
	sp["learn"] = r.StartPhase(pulse.PhaseLearn)
	must(r.OutcomeSignal(sp["learn"], pulse.Outcome{ActionID: traceID, Status: pulse.OutcomeSuccess,
		CausalParentIDs: []string{"019e5f01-9604-77f8-b4c5-b6163056c2e6", "019e5f01-9606-7913-998e-c35a7172e4e9"}}))
	must(r.SkillCrystallized(sp["learn"], skill.Manifest{Schema: skill.ManifestSchemaURI,
		SkillID: "019e5f01-9601-78bb-b37c-c3822cdead48", Version: 1, DerivedFromTraceID: traceID,
		CapabilitiesRequired: []string{skill.CapabilityBrowser}}))
	sp["consolidate"] = r.StartPhase(pulse.PhaseConsolidate)
	must(r.ConsolidationEvent(sp["consolidate"], pulse.Consolidation{BundleID: "019e5f01-9603-73aa-9732-17f8c1a637f0",
		SkillID: "019e5f01-9601-78bb-b37c-c3822cdead48", ContentHash: "sha256:" + strings.Repeat("c", 64)}))
	sp["consolidate"].End()
	return sp
}

func TestRecorderRun(t *testing.T) {
	r := newRecorder(t)
	sp := script(r)
	events := r.Events()

	wantTypes := []string{
		"workbench.v1.PhaseTransition", "org.opensentience.pulse.TopologyContext",
		"workbench.v1.PhaseTransition", "workbench.v1.PhaseTransition",
		"org.opensentience.pulse.SurpriseSignal", "workbench.v1.ReplayExecuted",
		"workbench.v1.PhaseTransition", "org.opensentience.pulse.OutcomeSignal", "workbench.v1.SkillCrystallized",
		"workbench.v1.PhaseTransition", "org.opensentience.pulse.ConsolidationEvent",
	}
	var gotTypes []string
	for _, e := range events {
		gotTypes = append(gotTypes, e.Type)
	}
	if !slices.Equal(gotTypes, wantTypes) {
		t.Fatalf("event types\n got %v\nwant %v", gotTypes, wantTypes)
	}
	wantSpans := []string{"retrieve", "retrieve", "route", "act", "tool1", "act", "learn", "learn", "learn", "consolidate", "consolidate"}
	var prev time.Time
	for i, e := range events {
		if want := fmt.Sprintf("019e5f01-9700-7000-8000-%012d", i+1); e.ID != want {
			t.Errorf("event %d: id %s, want the id source's %s", i, e.ID, want)
		}
		at, err := time.Parse(time.RFC3339Nano, e.Time)
		if err != nil || !at.After(prev) {
			t.Errorf("event %d: time %s not after %s (%v)", i, e.Time, prev, err)
		}
		prev = at
		if e.SpecVersion != "1.0" || e.Source != "workbench://simulator" || e.DataContentType != "application/json" ||
			e.TraceID != "019e5f019602721e94b5570d5f3c2da9" || e.Subject != "trace_id:"+traceID {
			t.Errorf("event %d envelope: %+v", i, e)
		}
		if e.SpanID != sp[wantSpans[i]].ID() {
			t.Errorf("event %d (%s): span %s, want %s's %s", i, e.Type, e.SpanID, wantSpans[i], sp[wantSpans[i]].ID())
		}
		data := generic(t, e.Data).(map[string]any)
		tok, ok := pulse.TokenOf(e.Type)
		if !ok || data["token"] != tok || data["trace_id"] != traceID || data["version"] == nil {
			t.Errorf("event %d data header: token %v (type says %s), trace %v, version %v", i, data["token"], tok, data["trace_id"], data["version"])
		}
	}

	// Phase transitions chain from one phase to the next, numbered, signed.
	var from any
	sigs := map[any]bool{}
	for i, e := range events {
		if e.Type != pulse.TokenPhaseTransition {
			continue
		}
		d := generic(t, e.Data).(map[string]any)
		if d["from_phase"] != from || d["phase_id"] != d["phase_kind"] || d["loop_id"] != pulse.LoopID || d["timestamp"] != e.Time {
			t.Errorf("transition %d: %v", i, d)
		}
		if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(d["signature"].(string)) || sigs[d["signature"]] {
			t.Errorf("transition %d: signature %v missing or repeated", i, d["signature"])
		}
		sigs[d["signature"]] = true
		from = d["phase_id"]
	}

	// The replay record reads back as the verifier reads it.
	var ev skill.Event
	for _, e := range events {
		if e.Type == skill.EventReplayExecuted {
			ev = e
		}
	}
	doc, err := canonjson.Parse(must(json.Marshal(ev)), canonjson.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var rec skill.ReplayRecord
	if ok, err := doc.DecodeAt("/data", &rec); !ok || err != nil {
		t.Fatalf("replay record does not decode: %v", err)
	}
	if !reflect.DeepEqual(rec.Edges, replayRecord.Edges) ||
		rec.Report.ReplayID != replayRecord.Report.ReplayID || rec.ExpectedLevel != replayRecord.ExpectedLevel {
		t.Errorf("replay record changed: %+v", rec)
	}

	// Spans: phase spans are roots and follow one another; tool spans are
	// children of the act phase; times are offsets from the origin.
	tr := r.Trace()
	if tr.TraceID != "019e5f019602721e94b5570d5f3c2da9" || tr.TimeOrigin != "2026-05-25T12:00:00Z" {
		t.Errorf("trace %s from %s", tr.TraceID, tr.TimeOrigin)
	}
	wantNames := []string{"phase retrieve", "phase route", "phase act", "tool browser_navigate", "tool browser_snapshot",
		"tool browser_click", "phase learn", "phase consolidate"}
	var names []string
	var lastPhaseEnd int64
	for _, s := range tr.Spans {
		names = append(names, s.Name)
		if s.StartUnixNano > s.EndUnixNano || s.EndUnixNano > int64(time.Minute) {
			t.Errorf("span %s: %d..%d is not an offset range within the run", s.Name, s.StartUnixNano, s.EndUnixNano)
		}
		if strings.HasPrefix(s.Name, "phase ") {
			if s.ParentSpanID != nil || s.Phase != strings.TrimPrefix(s.Name, "phase ") || s.StartUnixNano < lastPhaseEnd {
				t.Errorf("phase span %+v overlaps or misplaced", s)
			}
			lastPhaseEnd = s.EndUnixNano
		} else if s.ParentSpanID == nil || *s.ParentSpanID != sp["act"].ID() || s.Phase != "act" {
			t.Errorf("tool span %+v is not a child of the act phase", s)
		}
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("spans %v, want %v", names, wantNames)
	}
	if a := tr.Spans[5].Attributes; a["tool.name"] != "browser_click" || a["edge.index"] != 1 || a["tool.outcome"] != "ok" {
		t.Errorf("tool span attributes %v", a)
	}
	if _, ok := tr.Spans[4].Attributes["edge.index"]; ok {
		t.Error("a perceive call records no edge, yet its span names one")
	}
}

// The same run with the same sources records the same bytes.
func TestRecorderDeterministic(t *testing.T) {
	encode := func() string {
		r := newRecorder(t)
		script(r)
		return string(must(json.Marshal(struct {
			E []skill.Event
			T skill.OTelTrace
		}{r.Events(), r.Trace()})))
	}
	a, b := encode(), encode()
	if a != b {
		t.Errorf("two identical runs recorded differently:\n%s\n%s", a, b)
	}
}

// The events and spans are what the evidence bundle schema takes.
func TestEvidenceValidates(t *testing.T) {
	r := newRecorder(t)
	script(r)
	snapshot, err := pulse.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	ev := skill.Evidence{
		Scenario:              skill.Scenario{ScenarioID: "freeform", Manifest: map[string]any{}},
		System:                skill.System{SystemID: "openrouter:example/model-a", Model: "example/model-a", Provider: "openrouter"},
		CapabilitySnapshot:    skill.CapabilitySnapshot{AmpersandVersion: skill.AmpersandVersion, Primitives: []string{}, Subtypes: []string{}},
		PulseManifestSnapshot: snapshot,
		Trace:                 r.Trace(),
		Events:                r.Events(),
		Transcript:            []skill.Turn{},
		ToolCalls:             []skill.ToolCallHash{},
		GraphonomousRefs:      []skill.GraphRef{},
		Authorization:         map[string]any{"policy_id": skill.DefaultPolicyID},
		EvidenceRefs:          []skill.EvidenceRef{},
		RedactionProfile:      skill.RedactionNone,
		Reproducibility:       skill.Reproducibility{WorkbenchVersion: skill.WorkbenchVersion, PulseVersion: skill.PulseVersion},
	}
	v, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Validate(schemas.Evidence, generic(t, ev)); err != nil {
		t.Errorf("evidence rejected:\n%v", err)
	}
	// The check has teeth: a span time in absolute Unix nanoseconds fails.
	ev.Trace.Spans[0].EndUnixNano = base.UnixNano()
	if err := v.Validate(schemas.Evidence, generic(t, ev)); err == nil {
		t.Error("an absolute Unix-nano span time passed")
	}
}

func TestRecorderDefaults(t *testing.T) {
	before := time.Now()
	r, err := pulse.NewRecorder(traceID, "browser")
	if err != nil {
		t.Fatal(err)
	}
	sp := r.StartPhase(pulse.PhaseRetrieve)
	tool := sp.ToolCall("playwright", "browser_snapshot", -1)
	tool.End()
	e := r.Events()[0]
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(e.ID) {
		t.Errorf("event id %s is not a UUIDv7", e.ID)
	}
	at, err := time.Parse(time.RFC3339Nano, e.Time)
	if err != nil || at.Before(before.Add(-time.Second)) || time.Since(at) > time.Minute {
		t.Errorf("event time %s is not now", e.Time)
	}
	spanID := regexp.MustCompile(`^[0-9a-f]{16}$`)
	for _, s := range r.Trace().Spans {
		if !spanID.MatchString(s.SpanID) || s.SpanID == strings.Repeat("0", 16) {
			t.Errorf("span id %q", s.SpanID)
		}
	}
	if sp.ID() == tool.ID() {
		t.Error("two spans share an id")
	}
	if r.Source() != "workbench://browser" || r.TraceID() != traceID {
		t.Errorf("source %s trace %s", r.Source(), r.TraceID())
	}
}

func TestNewRecorderRejects(t *testing.T) {
	for _, c := range []struct{ trace, body string }{
		{"019E5F01-9602-721E-94B5-570D5F3C2DA9", "simulator"},
		{"019e5f019602721e94b5570d5f3c2da9", "simulator"},
		{"trace-1", "simulator"},
		{"", "simulator"},
		{traceID, ""},
		{traceID, "Simulator"},
		{traceID, "sim/../x"},
	} {
		if _, err := pulse.NewRecorder(c.trace, c.body); err == nil || !strings.HasPrefix(err.Error(), "pulse: ") {
			t.Errorf("NewRecorder(%q, %q): err = %v", c.trace, c.body, err)
		}
	}
}

func TestBuildersReject(t *testing.T) {
	r := newRecorder(t)
	good := skill.SurpriseSignal{Kind: skill.KindOther, SurpriseMagnitude: 1, SurpriseKind: "other"}
	cases := []struct {
		name string
		emit func() error
		want string
	}{
		{"topology without task", func() error {
			_, err := r.TopologyContext(nil, pulse.Topology{})
			return err
		}, "task id is empty"},
		{"consolidation without bundle", func() error {
			_, err := r.ConsolidationEvent(nil, pulse.Consolidation{SkillID: "s"})
			return err
		}, "bundle id is empty"},
		{"crystallized without skill", func() error {
			_, err := r.SkillCrystallized(nil, skill.Manifest{})
			return err
		}, "skill_id is empty"},
		{"replay without id", func() error {
			_, err := r.ReplayExecuted(nil, skill.ReplayRecord{})
			return err
		}, "replay_id is empty"},
		{"outcome without action", func() error {
			_, err := r.OutcomeSignal(nil, pulse.Outcome{Status: pulse.OutcomeSuccess})
			return err
		}, "action_id is empty"},
		{"outcome status", func() error {
			_, err := r.OutcomeSignal(nil, pulse.Outcome{ActionID: "a", Status: "aborted"})
			return err
		}, `status "aborted"`},
		{"surprise kind", func() error {
			s := good
			s.SurpriseKind = "state_hash_mismatch"
			_, err := r.SurpriseSignal(nil, s)
			return err
		}, `surprise_kind "state_hash_mismatch"`},
		{"surprise magnitude", func() error {
			s := good
			s.SurpriseMagnitude = 1.5
			_, err := r.SurpriseSignal(nil, s)
			return err
		}, "surprise_magnitude 1.5"},
		{"surprise NaN", func() error {
			s := good
			s.SurpriseMagnitude = math.NaN()
			_, err := r.SurpriseSignal(nil, s)
			return err
		}, "surprise_magnitude NaN"},
		{"surprise of another trace", func() error {
			s := good
			s.TraceID = "019e5f01-0000-7000-8000-000000000000"
			_, err := r.SurpriseSignal(nil, s)
			return err
		}, "is not this run's"},
		{"surprise with another token", func() error {
			s := good
			s.Token = "OutcomeSignal"
			_, err := r.SurpriseSignal(nil, s)
			return err
		}, `token "OutcomeSignal"`},
	}
	for _, c := range cases {
		err := c.emit()
		if !errors.Is(err, pulse.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrInvalid mentioning %q", c.name, err, c.want)
		}
	}
	if n := len(r.Events()); n != 0 {
		t.Errorf("rejected events were recorded: %d", n)
	}
	// The filled-in fields of an accepted surprise.
	e, err := r.SurpriseSignal(nil, good)
	if err != nil {
		t.Fatal(err)
	}
	d := e.Data.(skill.SurpriseSignal)
	if d.Token != "SurpriseSignal" || d.Version != skill.PulseVersion || d.TraceID != traceID || d.Timestamp != e.Time || e.SpanID != "" {
		t.Errorf("surprise data %+v in %+v", d, e)
	}
}

// A phase left open is reported as ending when the trace is read, without
// being ended; StartPhase ends the phase before it; End is idempotent;
// times before the origin are clamped to it.
func TestSpanLifecycle(t *testing.T) {
	s := &sources{}
	r, err := pulse.NewRecorder(traceID, "simulator", pulse.WithClock(s.now), pulse.WithSpanIDs(s.spanID),
		pulse.WithTimeOrigin(base.Add(2*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	retrieve := r.StartPhase(pulse.PhaseRetrieve) // clock 1ms: before the origin
	first := r.Trace()                            // clock 2ms
	second := r.Trace()                           // clock 3ms
	if first.Spans[0].StartUnixNano != 0 || first.Spans[0].EndUnixNano != 0 || second.Spans[0].EndUnixNano != int64(time.Millisecond) {
		t.Errorf("open span reported %+v then %+v", first.Spans[0], second.Spans[0])
	}
	r.StartPhase(pulse.PhaseRoute) // clock 4ms ends retrieve at 2ms after origin
	retrieve.End()                 // already ended: no change, no clock reading
	tr := r.Trace()
	if got := tr.Spans[0].EndUnixNano; got != int64(2*time.Millisecond) {
		t.Errorf("retrieve ended at %d, want when route started", got)
	}
	if tr.Spans[1].StartUnixNano != tr.Spans[0].EndUnixNano {
		t.Errorf("route starts at %d, retrieve ends at %d", tr.Spans[1].StartUnixNano, tr.Spans[0].EndUnixNano)
	}
	if retrieve.Phase() != pulse.PhaseRetrieve {
		t.Errorf("phase %s", retrieve.Phase())
	}
}

func TestStartPhaseInvalid(t *testing.T) {
	r := newRecorder(t)
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), `"perceive"`) {
			t.Errorf("recover() = %v", p)
		}
	}()
	r.StartPhase("perceive")
}

// Events recorded from several goroutines are all kept, each once, and the
// recorder stays consistent (run with -race).
func TestRecorderConcurrent(t *testing.T) {
	r := newRecorder(t)
	act := r.StartPhase(pulse.PhaseAct)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 25 {
				s := act.ToolCall("simulator", "browser_click", i*100+j)
				if _, err := r.OutcomeSignal(s, pulse.Outcome{ActionID: fmt.Sprint(i, j), Status: pulse.OutcomeSuccess}); err != nil {
					t.Error(err)
				}
				s.End()
			}
		})
	}
	wg.Wait()
	ids := map[string]bool{}
	for _, e := range r.Events() {
		ids[e.ID] = true
	}
	if len(ids) != 1+8*25 || len(r.Trace().Spans) != 1+8*25 {
		t.Errorf("%d distinct events, %d spans", len(ids), len(r.Trace().Spans))
	}
}

// generic turns v into the values a JSON decoder gives (numbers as
// json.Number), the form the schema validator takes.
func generic(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The cost of recording one edge during replay: a tool-call span and one
// event, with the default id sources.
func BenchmarkRecordEdge(b *testing.B) {
	r, err := pulse.NewRecorder(traceID, "simulator")
	if err != nil {
		b.Fatal(err)
	}
	act := r.StartPhase(pulse.PhaseAct)
	for i := 0; b.Loop(); i++ {
		s := act.ToolCall("simulator", "browser_click", i)
		if _, err := r.OutcomeSignal(s, pulse.Outcome{ActionID: "edge", Status: pulse.OutcomeSuccess}); err != nil {
			b.Fatal(err)
		}
		s.End()
	}
}

// What is recorded on a clone stays on the clone: the original keeps its
// events, spans and open phase, and goes on recording as before.
func TestRecorderClone(t *testing.T) {
	r, err := pulse.NewRecorder(traceID, "simulator")
	if err != nil {
		t.Fatal(err)
	}
	act := r.StartPhase(pulse.PhaseAct)
	act.Child("tool x", map[string]any{"k": 1})
	before, spans := len(r.Events()), len(r.Trace().Spans)

	c := r.Clone()
	learn := c.StartPhase(pulse.PhaseLearn)
	learn.SetAttribute("only", "clone")
	c.StartPhase(pulse.PhaseConsolidate).End()
	if len(c.Events()) != before+2 || len(c.Trace().Spans) != spans+2 {
		t.Errorf("the clone has %d events and %d spans, want %d and %d", len(c.Events()), len(c.Trace().Spans), before+2, spans+2)
	}
	if len(r.Events()) != before || len(r.Trace().Spans) != spans {
		t.Errorf("recording on the clone changed the original: %d events, %d spans", len(r.Events()), len(r.Trace().Spans))
	}
	// The original's open phase is still its own: the next phase ends it.
	r.StartPhase(pulse.PhaseLearn)
	ev := r.Events()
	if len(ev) != before+1 {
		t.Fatalf("the original recorded %d events after one phase, want %d", len(ev), before+1)
	}
	if d, ok := ev[len(ev)-1].Data.(pulse.PhaseTransitionData); !ok || d.FromPhase == nil || *d.FromPhase != pulse.PhaseAct || d.Seq != 1 {
		t.Errorf("the original's next transition is %+v, want from act with seq 1", ev[len(ev)-1].Data)
	}
	for _, s := range r.Trace().Spans {
		if s.Attributes["only"] != nil {
			t.Error("an attribute set on the clone's span shows on the original")
		}
	}
}

// A clone given its own clock and id sources records with them; the
// original's sources are not called, and the clone's spans still count
// from the original's time origin.
func TestRecorderCloneWithSources(t *testing.T) {
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	origCalls := 0
	r, err := pulse.NewRecorder(traceID, "simulator",
		pulse.WithClock(func() time.Time { origCalls++; return origin }),
		pulse.WithIDs(func() string { origCalls++; return "0190d5b0-0000-7000-8000-000000000001" }),
		pulse.WithSpanIDs(func() string { origCalls++; return "00000000000000a1" }))
	if err != nil {
		t.Fatal(err)
	}
	r.StartPhase(pulse.PhaseAct)
	calls := origCalls

	later := origin.Add(time.Second)
	c := r.Clone(pulse.WithClock(func() time.Time { return later }),
		pulse.WithIDs(func() string { return "0190d5b0-0000-7000-8000-0000000000c1" }),
		pulse.WithSpanIDs(func() string { return "00000000000000c1" }),
		pulse.WithTimeOrigin(later))
	c.StartPhase(pulse.PhaseLearn)
	if origCalls != calls {
		t.Errorf("the clone called the original's sources %d times", origCalls-calls)
	}
	ev := c.Events()
	last := ev[len(ev)-1]
	if last.ID != "0190d5b0-0000-7000-8000-0000000000c1" || last.Time != skill.Timestamp(later) || last.SpanID != "00000000000000c1" {
		t.Errorf("the clone's event: id %s, time %s, span %s", last.ID, last.Time, last.SpanID)
	}
	tr := c.Trace()
	if tr.TimeOrigin != skill.Timestamp(origin) || tr.Spans[len(tr.Spans)-1].StartUnixNano != int64(time.Second) {
		t.Errorf("the clone's origin %s, last span starts at %d: want the original's origin", tr.TimeOrigin, tr.Spans[len(tr.Spans)-1].StartUnixNano)
	}
}
