package redact

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/skill"
)

// Synthetic secrets, assembled at run time so that no credential-shaped
// literal sits in the source. None of them was ever issued.
var (
	fakeOpenRouter   = "sk-or-v1-" + strings.Repeat("0123456789abcdef", 4)
	fakeOpenAI       = "sk-" + strings.Repeat("aB3dE5", 8)
	fakeOpenAIProj   = "sk-proj-" + strings.Repeat("Xy7_Qw2-", 8)
	fakeAnthropic    = "sk-ant-api03-" + strings.Repeat("Zq9-Lm4_", 12)
	fakeAWSID        = "AKIA" + "Z7QW3ERT5YUI2OPL"
	fakeAWSSessionID = "ASIA" + "Q2W3E4R5T6Y7U8I9"
	fakeAWSSecret    = strings.Repeat("Ab3/Xy9+", 5)
	fakeJWT          = jwt(`{"alg":"HS256","typ":"JWT"}`, `{"sub":"1234567890","name":"Test"}`, "c2lnbmF0dXJlLWJ5dGVzLW5vdC1yZWFs")
	fakeGitHub       = "ghp_" + strings.Repeat("A1b2C3", 6)
	fakeGitHubPAT    = "github_pat_" + strings.Repeat("K2m", 7) + "Q" + "_" + strings.Repeat("z9Y", 19) + "xy"
	fakeSlack        = "xoxb-" + "123456789012-1234567890123-" + strings.Repeat("AbCd", 6)
	fakeSlackHook    = "https://hooks.slack.com/services/" + "T0000TEST/B0000TEST/" + strings.Repeat("Xq", 12)
	fakePEM          = "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIEpAIBAAKCAQEAx9Zq", 3) + "\n" +
		strings.Repeat("b3BlbnNzaC1rZXktdjE", 3) + "==\n-----END RSA PRIVATE KEY-----"
	fakeGoogle = "AIza" + strings.Repeat("Sy9_aB-3Q", 4)[:35]
)

func jwt(header, payload, sig string) string {
	enc := base64.RawURLEncoding
	return enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload)) + "." + sig
}

func id(kind, n int) string { return fmt.Sprintf("0190a6f0-%04x-7000-8000-%012x", kind, n) }

func ts(sec int) string { return fmt.Sprintf("2026-05-25T12:%02d:%02dZ", sec/60%60, sec%60) }

func hash(s string) string { return skill.HashBytes([]byte(s)) }

func strp(s string) *string { return &s }

// seeded records, for a bundle built by newBundle, where each seeded secret
// was placed.
var seeded = []string{fakeOpenRouter, fakeJWT, fakeGitHub, fakeAWSID, fakeSlackHook, fakePEM, fakeGoogle, fakeAWSSecret}

// newBundle builds a sealed, unredacted bundle of n edges (n >= 3) from the
// skill types, with fake secrets seeded in the transcript, an input-bound
// parameter, a literal parameter, the manifest description, an extension
// member of an edge, span attributes, a member name of event data, the
// scenario inputs and a labelled AWS secret.
func newBundle(t testing.TB, n int) *skill.Bundle {
	t.Helper()
	skillID, traceID := id(1, 1), id(2, 1)
	b := &skill.Bundle{
		BundleVersion:    skill.BundleVersion,
		BundleID:         id(3, 1),
		SkillID:          skillID,
		SkillVersion:     1,
		CreatedAt:        ts(0),
		WorkbenchVersion: skill.WorkbenchVersion,
		Manifest: skill.Manifest{
			Schema:               skill.ManifestSchemaURI,
			SkillID:              skillID,
			Name:                 "Find a forecast",
			Slug:                 "find-a-forecast",
			Description:          "Searches the weather site for a city. Debug token " + fakeJWT + " (remove).",
			Version:              1,
			DerivedFromTraceID:   traceID,
			BodyChoice:           body.KindSimulator,
			Inputs:               []skill.InputSpec{{Name: "city", Type: "string", Required: true}},
			Outputs:              []skill.OutputSpec{{Name: "forecast", Type: "string"}},
			Preconditions:        []string{"weather site reachable"},
			Binding:              "model_family_bound",
			ValidatedAgainst:     []skill.Validation{{Model: "anthropic/claude-opus-4-6", Fidelity: 1, TS: ts(1)}},
			RegressionProbes:     []any{},
			FallbackBehavior:     skill.FallbackHalt,
			CapabilitiesRequired: []string{skill.CapabilityAmbient},
			DelegaticPolicyID:    skill.DefaultPolicyID,
			CreatedAt:            ts(0),
			UpdatedAt:            ts(0),
		},
		Trace: skill.Trace{
			TraceID: traceID, BodySubtype: "browser", Provider: "simulator", AgentID: "workbench",
			StartedAt: ts(0), EndedAt: ts(n + 1),
			Environment: skill.Environment{OSFamily: "linux", BrowserFamily: "simulated", Viewport: "1280x800", InitialURL: "sim://weather.example/?user=jane"},
			Goal:        "Find the forecast for Porto",
			Outcome:     "success",
		},
		Evidence: skill.Evidence{
			Scenario: skill.Scenario{
				ScenarioID: "skill.redacted_export",
				Manifest:   map[string]any{"id": "skill.redacted_export"},
				Task:       &skill.Task{ID: id(4, 1), Description: "Find the forecast for Porto", BodyChoice: body.KindSimulator, CreatedAt: ts(0)},
				Inputs:     map[string]any{"city": "Porto", "api_note": "key " + fakeOpenRouter},
			},
			System:             skill.System{SystemID: "openrouter:anthropic/claude-opus-4-6", Model: "anthropic/claude-opus-4-6", Provider: "openrouter", BYOKey: true},
			CapabilitySnapshot: skill.CapabilitySnapshot{AmpersandVersion: skill.AmpersandVersion, Primitives: []string{"&body"}, Subtypes: []string{"&body.browser"}},
			PulseManifestSnapshot: map[string]any{
				"loop_id": "workbench.skill-workshop", "version": "0.1.0",
			},
			Trace: skill.OTelTrace{TraceID: skill.OTelTraceID(traceID)},
			Transcript: []skill.Turn{
				{Turn: 0, Role: "user", Content: strp("Find the forecast for Porto. My key is " + fakeOpenRouter)},
				{Turn: 1, Role: "assistant", Content: strp("I will open the forecast page.")},
				{Turn: 2, Role: "tool", Content: strp("page text: Forecast for Porto: rain\n" + fakePEM)},
				{Turn: 3, Role: "assistant", Content: nil},
			},
			ToolCalls:        []skill.ToolCallHash{},
			GraphonomousRefs: []skill.GraphRef{},
			Authorization: map[string]any{
				"block_id": id(5, 0), "policy_id": skill.DefaultPolicyID, "decision": skill.DecisionAllow,
				"reason": "browser reads are allowed for jane@example.com",
			},
			Judge:            map[string]any{"score": 0.92, "rationale": "The output names the forecast for Porto.", "judge_model": "prism/observe"},
			Score:            map[string]any{"composite": 0.92, "derivation": "mean of judge scores"},
			EvidenceRefs:     []skill.EvidenceRef{{Target: "urn:workbench:transcript:2", Selector: map[string]any{"type": "TextQuoteSelector", "exact": "Forecast for Porto"}}},
			RedactionProfile: skill.RedactionNone,
			Reproducibility:  skill.Reproducibility{AmpersandProtocolVersion: "0.1.0", PulseVersion: "0.1.1", PrismVersion: "0.1.0", WorkbenchVersion: skill.WorkbenchVersion},
		},
	}
	var replayEdges []skill.ReplayEdge
	for i := 0; i < n; i++ {
		e := skill.Edge{
			EdgeID: id(6, i), Index: i,
			StateBefore: hash("state" + strconv.Itoa(i)), StateAfter: hash("state" + strconv.Itoa(i+1)),
			ShapeBefore: hash("shape" + strconv.Itoa(i)), ShapeAfter: hash("shape" + strconv.Itoa(i+1)),
			LatencyMS: 12.5, OutcomeStatus: skill.OutcomeOK,
			ObservedOutcome: map[string]any{"text": "Forecast page " + strconv.Itoa(i), "status": 200},
			Authorization: &skill.Authorization{
				BlockID: id(5, i+1), PolicyID: skill.DefaultPolicyID, Decision: skill.DecisionAllow,
				Capability: skill.CapabilityAmbient, ActionType: "browser_read", Reason: "reads are allowed", DecidedAt: ts(i + 1), Authorizer: "local",
			},
			Provenance: skill.Provenance{Timestamp: ts(i + 1), Capability: skill.CapabilityAmbient, Operation: "act"},
			Capability: skill.CapabilityAmbient,
		}
		var params map[string]any
		switch i % 3 {
		case 0:
			e.TypedAction = skill.TypedAction{Type: "navigate", Target: "sim://weather.example/forecast", Preconditions: []string{}}
			params = map[string]any{"url": "sim://weather.example/forecast"}
			e.ParamSources = map[string]string{"url": skill.SourceLiteral}
		case 1:
			e.TypedAction = skill.TypedAction{Type: "fill", Target: "search.city", SemanticLocator: &skill.SemanticLocator{Role: "textbox", Name: "City"}, Preconditions: []string{"form visible"}}
			params = map[string]any{"field": "search.city", "text": "Porto", "count": 3}
			e.ParamSources = map[string]string{"field": skill.SourceLiteral, "text": "input:city", "count": "input:count"}
		case 2:
			e.TypedAction = skill.TypedAction{Type: "click", Target: "search.Search", SemanticLocator: &skill.SemanticLocator{Role: "button", Name: "Search"}, Preconditions: []string{}}
			params = map[string]any{"button": "search.Search", "note": "auth " + fakeGitHub}
			e.ParamSources = map[string]string{"button": skill.SourceLLM, "note": skill.SourceLiteral}
		}
		e.TypedAction.Params = params
		args := make(map[string]any, len(params))
		for k, v := range params {
			args[k] = v
		}
		e.Tool = skill.ToolCall{Server: "simulator", Name: "browser_" + e.TypedAction.Type, Arguments: args}
		if i == 0 {
			e.Extra = map[string]json.RawMessage{"x_debug": json.RawMessage(`{"header":"Authorization: Bearer ` + fakeSlackHook + `","attempt":1}`)}
		}
		b.Trace.Edges = append(b.Trace.Edges, e)
		b.Evidence.Trace.Spans = append(b.Evidence.Trace.Spans, skill.Span{
			SpanID: fmt.Sprintf("%016x", 0xa000+i), Name: "tool " + e.Tool.Name,
			StartUnixNano: int64(1000 * i), EndUnixNano: int64(1000*i + 500),
			Attributes: map[string]any{"tool.name": e.Tool.Name, "edge.index": i, "http.request.header": "x-goog-api-key: " + fakeGoogle},
			Phase:      "act",
		})
		b.Evidence.ToolCalls = append(b.Evidence.ToolCalls, skill.ToolCallHash{
			SpanID: fmt.Sprintf("%016x", 0xa000+i), Server: "body-browser", Tool: e.Tool.Name,
			RequestHash: hash("req" + strconv.Itoa(i)), ResponseHash: hash("resp" + strconv.Itoa(i)),
		})
		replayEdges = append(replayEdges, skill.ReplayEdge{
			Index: i, EdgeID: e.EdgeID, Committed: true,
			ObservedStateBefore: hash("replay" + strconv.Itoa(i)), ObservedStateAfter: hash("replay" + strconv.Itoa(i+1)),
			ObservedShapeAfter: e.ShapeAfter, Match: skill.MatchStructural,
			Authorization: &skill.Authorization{BlockID: id(7, i), PolicyID: skill.DefaultPolicyID, Decision: skill.DecisionAllow, Reason: "reads are allowed", DecidedAt: ts(i + 1)},
		})
	}
	b.Evidence.Events = []skill.Event{
		{
			SpecVersion: "1.0", ID: id(8, 1), Source: "workbench", Type: skill.EventSkillCrystallized, Time: ts(n + 1),
			Data: map[string]any{"skill_id": skillID, "notes": map[string]any{fakeAWSID: "pasted by mistake"}, "aws_secret_access_key": fakeAWSSecret},
		},
		{
			SpecVersion: "1.0", ID: id(8, 2), Source: "workbench", Type: skill.EventReplayExecuted, Time: ts(n + 2),
			Data: skill.ReplayRecord{
				Report: skill.ReplayReport{
					ReplayID: id(9, 1), SkillID: skillID, SkillVersion: 1,
					Input:     map[string]any{"city": "Lisbon", "count": 2},
					StartedAt: ts(n + 2), EndedAt: ts(n + 3), EdgesAttempted: n, EdgesCommitted: n,
					Status: skill.StatusCompletedWithSurprises,
					SurpriseSignals: []skill.SurpriseSignal{{
						EdgeIndex: 1, Kind: skill.KindStateHashMismatch, Detail: "text differs", Token: "SurpriseSignal", Version: "0.1.1",
						TraceID: traceID, EdgeID: id(6, 1), BodySubtype: "browser", ActionType: "fill",
						PredictedStateHash: hash("state2"), ActualStateHash: hash("replay2"), SurpriseMagnitude: 0.2,
						SurpriseKind: "unexpected_structure", Evidence: map[string]any{"diff": "Porto -> Lisbon"}, Timestamp: ts(n + 2),
					}},
					Fidelity: 1, FidelityLevel: skill.LevelStructural, ModelUsed: "anthropic/claude-opus-4-6", EvidenceBundleID: id(3, 1),
				},
				ExpectedLevel: skill.LevelStructural,
				Edges:         replayEdges,
			},
		},
	}
	b.Proof = skill.ProofResult{
		Schema: skill.ProofSchemaURI, VerifierVersion: skill.VerifierVersion, ComputedAt: ts(n + 4), OverallVerdict: skill.VerdictPass,
		ProofGates: []skill.Gate{
			{ID: skill.GateAuthority, Verdict: skill.VerdictPass},
			{ID: skill.GateTraceCompleteness, Verdict: skill.VerdictPass},
			{ID: skill.GateReplayFidelity, Verdict: skill.VerdictPass, Level: skill.LevelStructural},
			{ID: skill.GateRedactionVerify, Verdict: skill.VerdictNotApplicable, Reason: "redaction_profile=none"},
			{ID: skill.GateContentHash, Verdict: skill.VerdictPass, EvidenceRef: "content_hash"},
			{ID: skill.GateNoHiddenCapability, Verdict: skill.VerdictPass},
		},
		InvariantResults: []skill.InvariantResult{{ID: skill.InvBundleHashReproducible, Held: true}},
		AuthorityResult:  skill.AuthorityResult{Decision: skill.DecisionAllow, PolicyID: skill.DefaultPolicyID, Denials: []skill.Denial{}},
		RedactionResult:  skill.RedactionResult{Profile: skill.RedactionNone, FieldsStripped: []string{}, PostRedactionHashMatches: true},
		ReplayResult:     skill.ReplayResult{Status: skill.StatusCompletedWithSurprises, FidelityLevel: skill.LevelStructural, EdgesAttempted: n, EdgesCommitted: n},
		ConformanceCheck: skill.ConformanceCheck{SpecVersion: skill.SpecVersion, FixturesPassed: []string{}, FixturesFailed: []string{}},
	}
	if err := b.Seal(); err != nil {
		t.Fatal(err)
	}
	return b
}

// clone deep-copies a bundle through its JSON form.
func clone(t testing.TB, b *skill.Bundle) *skill.Bundle {
	t.Helper()
	data, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var c skill.Bundle
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func encode(t testing.TB, b *skill.Bundle) []byte {
	t.Helper()
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// resolve follows a JSON pointer through a generic JSON value.
func resolve(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}
