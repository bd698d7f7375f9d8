package schemas_test

import (
	"encoding/json"
	"testing"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/schemas"
)

func hashOf(t *testing.T, v any) string {
	t.Helper()
	h, err := skill.HashValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func ptr[T any](v T) *T { return &v }

// typedBundle builds a bundle the way the workbench's own code does, from
// pkg/skill's types, with every member filled: one demonstrated browser
// edge, one replay that ran clean, and the proof over both.
func typedBundle(t *testing.T) *skill.Bundle {
	t.Helper()
	at := time.Date(2026, 5, 25, 12, 34, 56, 0, time.UTC)
	ts := func(d time.Duration) string { return skill.Timestamp(at.Add(d)) }
	skillID, traceID, bundleID, replayID := skill.NewID(), skill.NewID(), skill.NewID(), skill.NewID()
	otelTrace := skill.OTelTraceID(traceID)

	manifest := skill.Manifest{
		Schema:             skill.ManifestSchemaURI,
		SkillID:            skillID,
		Name:               "Summarize a project page",
		Slug:               skill.Slugify("Summarize a project page"),
		Description:        "Opens a project page, follows its README and returns the first paragraph.",
		Version:            1,
		DerivedFromTraceID: traceID,
		BodyChoice:         body.KindSimulator,
		Inputs: []skill.InputSpec{
			{Name: "repo_url", Type: "url", Required: true, Description: "the project page"},
		},
		Outputs:       []skill.OutputSpec{{Name: "summary", Type: "string"}},
		Preconditions: []string{"OpenRouter key present"},
		Binding:       "model_family_bound",
		ValidatedAgainst: []skill.Validation{
			{Model: "anthropic/claude-opus-4-6", Fidelity: 1, Level: skill.LevelExact, TS: ts(time.Hour)},
		},
		RegressionProbes:     []any{},
		FallbackBehavior:     skill.FallbackHalt,
		CapabilitiesRequired: []string{skill.CapabilityBrowser},
		DelegaticPolicyID:    skill.DefaultPolicyID,
		CreatedAt:            ts(0),
		UpdatedAt:            ts(0),
	}

	before := map[string]any{"url": "about:blank", "title": ""}
	after := map[string]any{"url": "https://git.workbench.test/acme/widget", "title": "widget"}
	shape := map[string]any{"url": "string", "title": "string"}
	args := map[string]any{"url": "https://git.workbench.test/acme/widget"}
	auth := &skill.Authorization{
		BlockID:    skill.NewID(),
		PolicyID:   skill.DefaultPolicyID,
		Decision:   skill.DecisionAllow,
		Capability: skill.CapabilityBrowser,
		ActionType: "navigate",
		Reason:     "browser reads are allowed",
		DecidedAt:  ts(time.Second),
		Authorizer: "local-policy",
		Strength:   "advisory",
	}
	edge := skill.Edge{
		EdgeID:      skill.NewID(),
		Index:       0,
		StateBefore: hashOf(t, before),
		TypedAction: skill.TypedAction{
			Type:            "navigate",
			Target:          "https://git.workbench.test/acme/widget",
			SemanticLocator: &skill.SemanticLocator{Role: "link", Name: "widget"},
			Params:          args,
			Preconditions:   []string{"page loaded"},
		},
		StateAfter:      hashOf(t, after),
		LatencyMS:       12.5,
		OutcomeStatus:   skill.OutcomeOK,
		ObservedOutcome: map[string]any{"title": "widget"},
		Authorization:   auth,
		Provenance:      skill.Provenance{Timestamp: ts(time.Second), Capability: skill.CapabilityBrowser, Operation: "navigate"},
		Tool:            skill.ToolCall{Server: "simulator", Name: "browser_navigate", Arguments: args},
		Capability:      skill.CapabilityBrowser,
		ShapeBefore:     hashOf(t, shape),
		ShapeAfter:      hashOf(t, shape),
		ParamSources:    map[string]string{"url": skill.SourceInputPrefix + "repo_url"},
		Extra:           map[string]json.RawMessage{"screenshot_ref": json.RawMessage(`"blob:1"`)},
	}
	trace := skill.Trace{
		TraceID:     traceID,
		BodySubtype: string(body.KindSimulator),
		Provider:    "workbench",
		AgentID:     "workbench",
		StartedAt:   ts(0),
		EndedAt:     ts(2 * time.Second),
		Environment: skill.Environment{OSFamily: "simulated", BrowserFamily: "simulated", Viewport: "1280x800", InitialURL: "about:blank"},
		Edges:       []skill.Edge{edge},
		Goal:        "Summarize the project page at {repo_url}",
		Outcome:     "success",
	}

	report := skill.ReplayReport{
		ReplayID:        replayID,
		SkillID:         skillID,
		SkillVersion:    1,
		Input:           map[string]any{"repo_url": "https://git.workbench.test/acme/widget"},
		StartedAt:       ts(time.Hour),
		EndedAt:         ts(time.Hour + time.Second),
		EdgesAttempted:  1,
		EdgesCommitted:  1,
		Status:          skill.StatusSuccess,
		HaltedAtEdge:    nil,
		SurpriseSignals: []skill.SurpriseSignal{},
		Fidelity:        1,
		FidelityLevel:   skill.LevelExact,
		ModelUsed:       "anthropic/claude-opus-4-6",
		CostUSD:         ptr(0.0031),
		// The replay is saved as a new bundle (spec §3 step 3); this is its id.
		EvidenceBundleID: skill.NewID(),
	}
	record := skill.ReplayRecord{
		Report:        report,
		ExpectedLevel: skill.LevelExact,
		Edges: []skill.ReplayEdge{{
			Index: 0, EdgeID: edge.EdgeID, Committed: true,
			ObservedStateBefore: edge.StateBefore, ObservedStateAfter: edge.StateAfter, ObservedShapeAfter: edge.ShapeAfter,
			Match: skill.MatchExact, Authorization: auth,
		}},
	}

	gates := []skill.Gate{
		{ID: skill.GateAuthority, Verdict: skill.VerdictPass, EvidenceRef: "/interaction_trace/edges/0/authorization"},
		{ID: skill.GateTraceCompleteness, Verdict: skill.VerdictPass, EvidenceRef: "/interaction_trace/trace_id"},
		{ID: skill.GateReplayFidelity, Verdict: skill.VerdictPass, EvidenceRef: "/evidence/events/1", Level: skill.LevelExact},
		{ID: skill.GateRedactionVerify, Verdict: skill.VerdictNotApplicable, Reason: "redaction_profile=none"},
		{ID: skill.GateContentHash, Verdict: skill.VerdictPass, EvidenceRef: "/content_hash"},
		{ID: skill.GateNoHiddenCapability, Verdict: skill.VerdictPass, Reason: "all capabilities declared in manifest"},
	}
	proof := skill.ProofResult{
		Schema:          skill.ProofSchemaURI,
		VerifierVersion: skill.VerifierVersion,
		ComputedAt:      ts(time.Hour + 2*time.Second),
		OverallVerdict:  skill.VerdictPass,
		ProofGates:      gates,
		InvariantResults: []skill.InvariantResult{
			{ID: skill.InvEveryActionAuthorized, Held: true, CheckedN: ptr(1)},
			{ID: skill.InvStateHashPerEdge, Held: true, CheckedN: ptr(1)},
			{ID: skill.InvBundleHashReproducible, Held: true},
			{ID: skill.InvRedactedBundleStillVerify, Held: "n/a", Detail: "not redacted"},
		},
		AuthorityResult:  skill.AuthorityResult{Decision: skill.DecisionAllow, PolicyID: skill.DefaultPolicyID, Denials: []skill.Denial{}},
		RedactionResult:  skill.RedactionResult{Profile: skill.RedactionNone, FieldsStripped: []string{}, PostRedactionHashMatches: true},
		ReplayResult:     skill.ReplayResult{Status: skill.StatusSuccess, FidelityLevel: skill.LevelExact, EdgesAttempted: 1, EdgesCommitted: 1},
		ConformanceCheck: skill.ConformanceCheck{SpecVersion: skill.SpecVersion, FixturesPassed: []string{"skill.replay_fidelity"}, FixturesFailed: []string{}},
	}

	// Span times count from the trace's time origin (see skill.OTelTrace):
	// absolute Unix nanoseconds are beyond a double's precision.
	rootSpan := "00f067aa0ba902b7"
	spans := []skill.Span{
		{SpanID: rootSpan, Name: "act", StartUnixNano: 1_000_000, EndUnixNano: 2_000_000_000, Phase: "act"},
		{SpanID: "00f067aa0ba902b8", ParentSpanID: ptr(rootSpan), Name: "browser_navigate", StartUnixNano: 1_500_000, EndUnixNano: 14_000_000, Attributes: map[string]any{"edge_index": 0}},
	}
	text := "Summarize the project page at https://git.workbench.test/acme/widget"
	evidence := skill.Evidence{
		Scenario: skill.Scenario{
			ScenarioID: "skill.replay_fidelity",
			Source:     "fixture",
			Manifest:   map[string]any{"schema": skill.ManifestSchemaURI, "skill_id": skillID},
			Task:       &skill.Task{ID: skill.NewID(), Description: text, BodyChoice: body.KindSimulator, CreatedAt: ts(0)},
			Inputs:     map[string]any{"repo_url": "https://git.workbench.test/acme/widget"},
			Extra:      map[string]json.RawMessage{"world": json.RawMessage(`"git"`)},
		},
		System: skill.System{SystemID: "openrouter:anthropic/claude-opus-4-6", Model: "anthropic/claude-opus-4-6", Provider: "openrouter", BYOKey: true},
		CapabilitySnapshot: skill.CapabilitySnapshot{
			AmpersandVersion: skill.AmpersandVersion,
			Primitives:       []string{"&body", "&memory"},
			Subtypes:         []string{skill.CapabilityBrowser, skill.CapabilityEpisodic},
		},
		PulseManifestSnapshot: map[string]any{"loop_id": "workbench.skill-workshop", "version": "0.1.0"},
		Trace:                 skill.OTelTrace{TraceID: otelTrace, Spans: spans},
		Events: []skill.Event{
			{SpecVersion: "1.0", ID: skill.NewID(), Source: "/workbench", Type: skill.PulseTypePrefix + "TopologyContext", Time: ts(0), TraceID: otelTrace, Data: map[string]any{"trace_id": traceID}},
			{SpecVersion: "1.0", ID: skill.NewID(), Source: "/workbench", Type: skill.EventReplayExecuted, Time: ts(time.Hour + time.Second), DataContentType: "application/json", Subject: replayID, Data: record},
		},
		Transcript: []skill.Turn{
			{Turn: 0, Role: "user", Content: ptr(text)},
			{Turn: 1, Role: "assistant", Content: nil, Redacted: true},
		},
		ToolCalls: []skill.ToolCallHash{
			{SpanID: "00f067aa0ba902b8", Server: "body-browser", Tool: "browser_navigate", RequestHash: hashOf(t, args), ResponseHash: hashOf(t, after), EdgeIndex: ptr(0), Body: "simulator"},
		},
		GraphonomousRefs: []skill.GraphRef{{URI: "graphonomous://node/" + skillID, Op: "create"}},
		Authorization:    map[string]any{"block_id": auth.BlockID, "policy_id": skill.DefaultPolicyID, "decision": skill.DecisionAllow},
		Judge:            nil,
		Score:            map[string]any{"composite": 1, "derivation": "fidelity"},
		EvidenceRefs: []skill.EvidenceRef{
			{Target: "urn:uuid:" + bundleID, Selector: map[string]any{"type": "FragmentSelector", "value": "/interaction_trace/edges/0"}, Motivation: "assessing"},
		},
		RedactionProfile: skill.RedactionNone,
		Reproducibility: skill.Reproducibility{
			FlyRevisions:             map[string]string{},
			SupabaseMigrationCount:   ptr(0),
			AmpersandProtocolVersion: skill.AmpersandVersion,
			PulseVersion:             skill.PulseVersion,
			PrismVersion:             skill.PrismVersion,
			WorkbenchVersion:         skill.WorkbenchVersion,
		},
	}

	b := &skill.Bundle{
		BundleVersion:    skill.BundleVersion,
		BundleID:         bundleID,
		SkillID:          skillID,
		SkillVersion:     1,
		CreatedAt:        ts(time.Hour + 3*time.Second),
		WorkbenchVersion: skill.WorkbenchVersion,
		Manifest:         manifest,
		Trace:            trace,
		Proof:            proof,
		Evidence:         evidence,
		Signature:        json.RawMessage(`"stale"`), // Seal must clear it
	}
	if err := b.Seal(); err != nil {
		t.Fatalf("Seal: %v", err)
	}
	return b
}

// A bundle built from pkg/skill's types validates: this is where a type
// and its schema drifting apart shows up.
func TestBundleFromSkillTypesValidates(t *testing.T) {
	v := newValidator(t)
	b := typedBundle(t)
	data, err := b.Encode()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if err := v.ValidateJSON(schemas.Bundle, data); err != nil {
		t.Errorf("sealed bundle fails its schema:\n%v", err)
	}

	// The parts validate on their own too, including the replay report that
	// rides in the ReplayExecuted event.
	parts := []struct {
		schema string
		value  any
	}{
		{schemas.Manifest, b.Manifest},
		{schemas.Proof, b.Proof},
		{schemas.Evidence, b.Evidence},
		{schemas.ReplayReport, b.Evidence.Events[1].Data.(skill.ReplayRecord).Report},
	}
	for _, p := range parts {
		data, err := json.Marshal(p.value)
		if err != nil {
			t.Fatal(err)
		}
		if err := v.ValidateJSON(p.schema, data); err != nil {
			t.Errorf("%s:\n%v", p.schema, err)
		}
	}
}

// A replay that halted validates with the edge it halted at and a surprise
// signal carrying both vocabularies.
func TestHaltedReplayReportFromSkillTypesValidates(t *testing.T) {
	v := newValidator(t)
	b := typedBundle(t)
	r := b.Evidence.Events[1].Data.(skill.ReplayRecord).Report
	edge := b.Trace.Edges[0]
	r.Status = skill.StatusHalted
	r.HaltedAtEdge = ptr(0)
	r.EdgesCommitted = 0
	r.Fidelity = 0
	r.FidelityLevel = skill.LevelFailed
	r.CostUSD = nil
	r.SurpriseSignals = []skill.SurpriseSignal{{
		EdgeIndex: 0, Kind: skill.KindStateHashMismatch, Detail: "title changed",
		Token: "SurpriseSignal", Version: skill.PulseVersion, TraceID: b.Trace.TraceID, EdgeID: edge.EdgeID,
		BodySubtype: string(body.KindSimulator), ActionType: "navigate",
		PredictedStateHash: edge.StateAfter, ActualStateHash: edge.StateBefore,
		SurpriseMagnitude: 1, SurpriseKind: "unexpected_structure",
		Evidence: map[string]any{"edge": 0}, Timestamp: r.EndedAt,
	}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.ValidateJSON(schemas.ReplayReport, data); err != nil {
		t.Errorf("halted report fails its schema:\n%v", err)
	}
}
