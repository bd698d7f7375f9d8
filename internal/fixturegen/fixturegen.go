// Package fixturegen writes the spec's fixture files (spec §8.2) from a
// fixed, explicit run, so that no hash in them is ever typed by hand.
//
// The run is a three-edge skill on a small web world: open the forecast
// page, type a city into the search form, press the button the model chose.
// Every state the body passed through is spelled out below; state and shape
// hashes, tool-call hashes, the content hash and the proof are all computed
// from those states by the same code the workbench uses. Identifiers and
// clocks come from a fixed seed, so the output is byte-for-byte stable and a
// test regenerates it to catch drift.
package fixturegen

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"workbench/fixtures"
	"workbench/pkg/redact"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/schemas"
)

// File names of the spec §8.2 fixtures.
const (
	ValidBundle           = "valid-skill-bundle.v0.json"
	MissingContentHash    = "invalid-missing-content-hash.v0.json"
	ReplaySuccess         = "replay-success.v0.json"
	ReplayStateMismatch   = "replay-state-hash-mismatch.v0.json"
	RedactedTranscriptPII = "redacted-transcript_pii.v0.json"
)

// Epoch is the fixed clock every fixture starts from.
var epoch = time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)

// gen mints deterministic ids and times.
type gen struct {
	n    uint64
	seed string
}

// id returns a valid UUIDv7 whose time is the epoch plus n milliseconds and
// whose random bits come from a hash of the seed and n.
func (g *gen) id() string {
	g.n++
	var u uuid.UUID
	ms := uint64(epoch.UnixMilli()) + g.n
	var tb [8]byte
	binary.BigEndian.PutUint64(tb[:], ms)
	copy(u[0:6], tb[2:8])
	r := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", g.seed, g.n)))
	copy(u[6:], r[:10])
	u[6] = 0x70 | (u[6] & 0x0f) // version 7
	u[8] = 0x80 | (u[8] & 0x3f) // RFC 4122 variant
	return u.String()
}

func at(ms int) time.Time { return epoch.Add(time.Duration(ms) * time.Millisecond) }

func ts(ms int) string { return skill.Timestamp(at(ms)) }

// nanos is a span time: nanoseconds from the trace's time origin.
func nanos(ms int) int64 { return int64(ms) * int64(time.Millisecond) }

func spanID(n int) string { return fmt.Sprintf("%016x", 0xa000+n) }

func str(s string) *string { return &s }

// page is a state of the simulated web body.
func page(url, title string, fields map[string]any, text []string) map[string]any {
	links := []any{map[string]any{"text": "Forecast", "href": "/forecast"}, map[string]any{"text": "About", "href": "/about"}}
	return map[string]any{
		"url":   url,
		"title": title,
		"links": links,
		"forms": []any{map[string]any{"id": "search", "fields": fields, "buttons": []any{"Search", "Clear"}}},
		"text":  toAny(text),
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// states are the four states of a run for one city: start, forecast page,
// form filled, results shown.
func states(city, forecast string) []map[string]any {
	return []map[string]any{
		page("sim://weather.example/", "Home", map[string]any{"city": ""}, []string{"Welcome"}),
		page("sim://weather.example/forecast", "Forecast", map[string]any{"city": ""}, []string{"Search a city"}),
		page("sim://weather.example/forecast", "Forecast", map[string]any{"city": city}, []string{"Search a city"}),
		page("sim://weather.example/forecast?city="+city, "Forecast for "+city, map[string]any{"city": city}, []string{forecast}),
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

type action struct {
	typ, target, tool string
	role, name        string
	params            map[string]any
	sources           map[string]string
}

var actions = []action{
	{typ: "navigate", target: "sim://weather.example/forecast", tool: "browser_navigate",
		params: map[string]any{"url": "sim://weather.example/forecast"}, sources: map[string]string{"url": skill.SourceLiteral}},
	{typ: "fill", target: "search.city", tool: "browser_type", role: "textbox", name: "City",
		params: map[string]any{"field": "search.city", "text": "Porto"}, sources: map[string]string{"field": skill.SourceLiteral, "text": "input:city"}},
	{typ: "click", target: "search.Search", tool: "browser_click", role: "button", name: "Search",
		params: map[string]any{"button": "search.Search"}, sources: map[string]string{"button": skill.SourceLLM}},
}

// Verifier returns the verifier fixtures are proven with: the real one,
// with the clock fixed so that computed_at is stable.
func Verifier() (*verify.Verifier, error) {
	sv, err := schemas.New()
	if err != nil {
		return nil, err
	}
	sc, err := fixtures.Scenarios()
	if err != nil {
		return nil, err
	}
	return verify.New(sv, sc, func() time.Time { return epoch.Add(time.Hour) }), nil
}

// Build returns every fixture file by name. v derives the embedded proofs.
func Build(v *verify.Verifier) (map[string][]byte, error) {
	g := &gen{seed: "workbench-fixtures-v0"}
	b := baseBundle(g, "skill.replay_fidelity", "Find the forecast for Porto on the weather site.")

	// Replay on a new input: every edge commits; the texts differ, the
	// shapes do not, so the level is structural.
	success, successRec := replayRun(g, b, "Lisbon", "Sunny, 24°C", -1)
	addReplay(g, b, successRec)
	if err := v.SealWithProof(b); err != nil {
		return nil, err
	}
	valid, err := b.Encode()
	if err != nil {
		return nil, err
	}

	missing, err := withoutMember(valid, "content_hash")
	if err != nil {
		return nil, err
	}

	// A replay whose world changed under edge 1: the form has a new field,
	// so the state after typing matches neither hash nor shape.
	halted, _ := replayRun(g, b, "Lisbon", "Sunny, 24°C", 1)

	red := baseBundle(g, "skill.redacted_export",
		"Find the forecast for Porto. My OpenRouter key is sk-or-v1-0000000000000000000000000000000000000000000000000000000000000000 (a fake one).")
	_, redRec := replayRun(g, red, "Lisbon", "Sunny, 24°C", -1)
	addReplay(g, red, redRec)
	if err := v.SealWithProof(red); err != nil {
		return nil, err
	}
	if _, err := redact.Apply(red, skill.RedactionTranscriptPII); err != nil {
		return nil, err
	}
	if err := v.SealWithProof(red); err != nil {
		return nil, err
	}
	redacted, err := red.Encode()
	if err != nil {
		return nil, err
	}

	out := map[string][]byte{
		ValidBundle:           valid,
		MissingContentHash:    missing,
		RedactedTranscriptPII: redacted,
	}
	for name, r := range map[string]skill.ReplayReport{ReplaySuccess: success, ReplayStateMismatch: halted} {
		data, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}

func withoutMember(data []byte, name string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	delete(m, name)
	return json.Marshal(m)
}

// baseBundle is the demonstrated run, crystallized, not yet replayed.
func baseBundle(g *gen, scenario, goal string) *skill.Bundle {
	skillID, traceID, bundleID := g.id(), g.id(), g.id()
	st := states("Porto", "Rain, 17°C")
	otelTrace := skill.OTelTraceID(traceID)

	var edges []skill.Edge
	var toolCalls []skill.ToolCallHash
	spans := []skill.Span{{SpanID: spanID(0), Name: "demonstrate", StartUnixNano: nanos(0), EndUnixNano: nanos(900), Phase: "act"}}
	for i, a := range actions {
		params := map[string]any{}
		for k, v := range a.params {
			params[k] = v
		}
		var loc *skill.SemanticLocator
		if a.role != "" {
			loc = &skill.SemanticLocator{Role: a.role, Name: a.name}
		}
		call := skill.ToolCall{Server: "simulator", Name: a.tool, Arguments: params}
		start := 100 + 200*i
		sid := spanID(i + 1)
		parent := spanID(0)
		edges = append(edges, skill.Edge{
			EdgeID:          g.id(),
			Index:           i,
			StateBefore:     must(skill.StateHash(st[i])),
			TypedAction:     skill.TypedAction{Type: a.typ, Target: a.target, SemanticLocator: loc, Params: params, Preconditions: []string{}},
			StateAfter:      must(skill.StateHash(st[i+1])),
			LatencyMS:       12,
			OutcomeStatus:   skill.OutcomeOK,
			ObservedOutcome: map[string]any{"title": st[i+1]["title"], "text": st[i+1]["text"]},
			Authorization: &skill.Authorization{
				BlockID: g.id(), PolicyID: skill.DefaultPolicyID, Decision: skill.DecisionAllow,
				Capability: skill.CapabilityBrowser, ActionType: "browser." + a.typ,
				Reason: "browser actions are allowed (writes at advisory strength)", DecidedAt: ts(start - 1),
				Authorizer: "local:" + skill.DefaultPolicyID, Strength: "advisory",
			},
			Provenance:   skill.Provenance{Timestamp: ts(start), Capability: skill.CapabilityBrowser, Operation: a.tool},
			Tool:         call,
			Capability:   skill.CapabilityBrowser,
			ShapeBefore:  must(skill.ShapeHash(st[i])),
			ShapeAfter:   must(skill.ShapeHash(st[i+1])),
			ParamSources: a.sources,
		})
		spans = append(spans, skill.Span{SpanID: sid, ParentSpanID: &parent, Name: "tool " + a.tool,
			StartUnixNano: nanos(start), EndUnixNano: nanos(start + 12), Phase: "act",
			Attributes: map[string]any{"edge.index": i}})
		toolCalls = append(toolCalls, skill.ToolCallHash{SpanID: sid, Server: "body-browser", Tool: a.tool,
			RequestHash: must(skill.HashValue(call)), ResponseHash: must(skill.HashValue(st[i+1])),
			EdgeIndex: ptr(i), Body: skill.BodySimulator})
	}

	m := skill.Manifest{
		Schema: skill.ManifestSchemaURI, SkillID: skillID, Name: "Weather lookup", Slug: "weather-lookup",
		Description: "Opens the forecast page, searches a city and returns the forecast shown.",
		Version:     1, DerivedFromTraceID: traceID, BodyChoice: skill.BodySimulator,
		Inputs:        []skill.InputSpec{{Name: "city", Type: "string", Required: true, Description: "city to look up"}},
		Outputs:       []skill.OutputSpec{{Name: "forecast", Type: "string"}},
		Preconditions: []string{"OpenRouter key present", "simulator world weather loaded"},
		Binding:       "model_family_bound", ValidatedAgainst: []skill.Validation{}, RegressionProbes: []any{},
		FallbackBehavior: skill.FallbackHalt, CapabilitiesRequired: []string{skill.CapabilityBrowser},
		DelegaticPolicyID: skill.DefaultPolicyID, CreatedAt: ts(1000), UpdatedAt: ts(1000),
	}
	task := &skill.Task{ID: g.id(), Description: goal, BodyChoice: skill.BodySimulator, CreatedAt: ts(0)}
	manifestMap := map[string]any{}
	must(0, json.Unmarshal(must(json.Marshal(m)), &manifestMap))
	event := func(name string, ms int, data any) skill.Event {
		return skill.Event{SpecVersion: "1.0", ID: g.id(), Source: "workbench://simulator", Type: name,
			Time: ts(ms), TraceID: otelTrace, Data: data}
	}
	events := []skill.Event{
		event(skill.PulseTypePrefix+"TopologyContext", 0, map[string]any{"loop_id": "workbench.skill-workshop", "trace_id": traceID}),
		event(skill.PulseTypePrefix+"PhaseRetrieve", 10, map[string]any{"phase": "retrieve"}),
		event(skill.PulseTypePrefix+"PhaseRoute", 20, map[string]any{"phase": "route"}),
		event(skill.PulseTypePrefix+"PhaseAct", 90, map[string]any{"phase": "act", "edges": len(edges)}),
		event(skill.PulseTypePrefix+"OutcomeSignal", 900, map[string]any{"outcome": "success"}),
		event(skill.PulseTypePrefix+"PhaseLearn", 950, map[string]any{"phase": "learn"}),
		event(skill.EventSkillCrystallized, 1000, map[string]any{"skill_id": skillID, "trace_id": traceID}),
		event(skill.PulseTypePrefix+"PhaseConsolidate", 1010, map[string]any{"phase": "consolidate"}),
		event(skill.PulseTypePrefix+"ConsolidationEvent", 1020, map[string]any{"bundle_id": bundleID}),
	}
	transcript := []skill.Turn{
		{Turn: 0, Role: "system", Content: str("You act through the tools of a web browser. Finish with a short answer.")},
		{Turn: 1, Role: "user", Content: str(goal)},
		{Turn: 2, Role: "assistant", Content: str("I will open the forecast page, search for Porto and read the result.")},
		{Turn: 3, Role: "assistant", Content: str("The forecast for Porto is: Rain, 17°C.")},
	}
	return &skill.Bundle{
		BundleVersion: skill.BundleVersion, BundleID: bundleID, SkillID: skillID, SkillVersion: 1,
		CreatedAt: ts(1030), WorkbenchVersion: skill.WorkbenchVersion,
		Manifest: m,
		Trace: skill.Trace{
			TraceID: traceID, BodySubtype: "simulator.web", Provider: "openrouter", AgentID: "openrouter:example/model-a",
			StartedAt: ts(0), EndedAt: ts(900),
			Environment: skill.Environment{OSFamily: "simulator", BrowserFamily: "simulator", Viewport: "1280x800", InitialURL: "sim://weather.example/"},
			Edges:       edges, Goal: goal, Outcome: "success",
		},
		Evidence: skill.Evidence{
			Scenario: skill.Scenario{ScenarioID: scenario, Source: "fixtures/scenarios/" + scenario + ".json",
				Manifest: manifestMap, Task: task, Inputs: map[string]any{"city": "Porto"}},
			System:                skill.System{SystemID: "openrouter:example/model-a", Model: "example/model-a", Provider: "openrouter", BYOKey: true},
			CapabilitySnapshot:    skill.CapabilitySnapshot{AmpersandVersion: skill.AmpersandVersion, Primitives: []string{"&body", "&govern"}, Subtypes: []string{skill.CapabilityBrowser}},
			PulseManifestSnapshot: map[string]any{"loop_id": "workbench.skill-workshop", "version": "0.1.0"},
			Trace:                 skill.OTelTrace{TraceID: otelTrace, TimeOrigin: ts(0), Spans: spans},
			Events:                events,
			Transcript:            transcript,
			ToolCalls:             toolCalls,
			GraphonomousRefs:      []skill.GraphRef{},
			Authorization:         map[string]any{"policy_id": skill.DefaultPolicyID, "approved_by": "local-user"},
			EvidenceRefs:          []skill.EvidenceRef{},
			RedactionProfile:      skill.RedactionNone,
			Reproducibility: skill.Reproducibility{AmpersandProtocolVersion: skill.AmpersandVersion, PulseVersion: skill.PulseVersion,
				PrismVersion: skill.PrismVersion, WorkbenchVersion: skill.WorkbenchVersion},
		},
		Proof: skill.ProofResult{Schema: skill.ProofSchemaURI},
	}
}

// replayRun replays b's edges on input city against the states a body
// reports for that city. If changeAt ≥ 0, the world changed just before
// that edge: a new form field appears, so the state diverges in shape.
func replayRun(g *gen, b *skill.Bundle, city, forecast string, changeAt int) (skill.ReplayReport, skill.ReplayRecord) {
	st := states(city, forecast)
	if changeAt >= 0 {
		for i := changeAt + 1; i < len(st); i++ {
			st[i]["forms"] = []any{map[string]any{"id": "search", "fields": map[string]any{"city": city, "country": ""}, "buttons": []any{"Search"}}}
		}
	}
	edges := b.Trace.Edges
	rec := skill.ReplayRecord{ExpectedLevel: skill.LevelStructural}
	report := skill.ReplayReport{
		ReplayID: g.id(), SkillID: b.SkillID, SkillVersion: b.SkillVersion, Input: map[string]any{"city": city},
		StartedAt: ts(5000), SurpriseSignals: []skill.SurpriseSignal{}, ModelUsed: "example/model-a",
		EvidenceBundleID: b.BundleID, CostUSD: ptr(0.0012),
	}
	halted := false
	for i, e := range edges {
		re := skill.ReplayEdge{Index: i, EdgeID: e.EdgeID, Match: skill.MatchNotRun}
		if halted {
			rec.Edges = append(rec.Edges, re)
			continue
		}
		report.EdgesAttempted++
		re.ObservedStateBefore = must(skill.StateHash(st[i]))
		re.ObservedStateAfter = must(skill.StateHash(st[i+1]))
		re.ObservedShapeAfter = must(skill.ShapeHash(st[i+1]))
		re.Authorization = &skill.Authorization{BlockID: g.id(), PolicyID: skill.DefaultPolicyID, Decision: skill.DecisionAllow,
			Capability: skill.CapabilityBrowser, ActionType: e.Authorization.ActionType, Reason: e.Authorization.Reason,
			DecidedAt: ts(5000 + 100*i), Authorizer: e.Authorization.Authorizer, Strength: "advisory"}
		switch {
		case re.ObservedStateAfter == e.StateAfter:
			re.Match = skill.MatchExact
		case re.ObservedShapeAfter == e.ShapeAfter:
			re.Match = skill.MatchStructural
		default:
			re.Match = skill.MatchMismatch
		}
		if re.Match == skill.MatchMismatch {
			halted = true
			report.HaltedAtEdge = ptr(i)
			report.SurpriseSignals = append(report.SurpriseSignals, skill.SurpriseSignal{
				EdgeIndex: i, Kind: skill.KindStateHashMismatch,
				Detail: "the state after the action matches neither the recorded hash nor its shape",
				Token:  "SurpriseSignal", Version: "0.1.1", TraceID: b.Trace.TraceID, EdgeID: e.EdgeID,
				BodySubtype: b.Trace.BodySubtype, ActionType: e.TypedAction.Type,
				PredictedStateHash: e.StateAfter, ActualStateHash: re.ObservedStateAfter,
				SurpriseMagnitude: 1, SurpriseKind: "unexpected_structure",
				Evidence:  map[string]any{"predicted_shape": e.ShapeAfter, "actual_shape": re.ObservedShapeAfter},
				Timestamp: ts(5000 + 100*i + 12),
			})
		} else {
			re.Committed = true
			report.EdgesCommitted++
		}
		rec.Edges = append(rec.Edges, re)
	}
	report.EndedAt = ts(5000 + 100*len(edges))
	report.Fidelity = float64(report.EdgesCommitted) / float64(report.EdgesAttempted)
	switch {
	case halted:
		report.Status, report.FidelityLevel = skill.StatusHalted, skill.LevelFailed
	default:
		report.Status, report.FidelityLevel = skill.StatusSuccess, skill.LevelStructural
	}
	rec.Report = report
	return report, rec
}

func ptr[T any](v T) *T { return &v }

func addReplay(g *gen, b *skill.Bundle, rec skill.ReplayRecord) {
	b.Evidence.Events = append(b.Evidence.Events, skill.Event{
		SpecVersion: "1.0", ID: g.id(), Source: "workbench://simulator", Type: skill.EventReplayExecuted,
		Time: rec.Report.EndedAt, TraceID: b.Evidence.Trace.TraceID, Data: rec,
	})
	b.Manifest.ValidatedAgainst = append(b.Manifest.ValidatedAgainst, skill.Validation{
		Model: rec.Report.ModelUsed, Fidelity: rec.Report.Fidelity, Level: rec.Report.FidelityLevel, TS: rec.Report.EndedAt})
}
