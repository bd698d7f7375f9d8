package assemble_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/redact"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/schemas"
)

const model = "example/agent-a"

// env is one scenario's world, model and verifier.
type env struct {
	t        *testing.T
	scenario fixtures.Scenario
	world    []byte
	or       *openroutertest.Server
	client   *openrouter.Client
	verifier *verify.Verifier
	// sv and scenarios make other verifiers.
	sv        *schemas.Validator
	scenarios []fixtures.Scenario
}

func newEnv(t *testing.T, id string, scripts ...openroutertest.Script) *env {
	t.Helper()
	sc, err := fixtures.ScenarioByID(id)
	if err != nil {
		t.Fatal(err)
	}
	name, err := fixtures.WorldFor(id)
	if err != nil {
		t.Fatal(err)
	}
	world, err := fixtures.World(name)
	if err != nil {
		t.Fatal(err)
	}
	or := openroutertest.New(t, openroutertest.WithScript(scripts...))
	// net/http, not the default: under js/wasm the default is the
	// JavaScript fetch, which cannot reach the in-process test server.
	client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	sv, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	all, err := fixtures.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, scenario: sc, world: world, or: or, client: client, verifier: verify.New(sv, all, nil), sv: sv, scenarios: all}
}

func (e *env) body() *sim.Sim {
	e.t.Helper()
	s, err := sim.New(e.world)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// prompt is the scenario's task with its example inputs filled in.
func (e *env) prompt() string {
	p := e.scenario.TaskPrompt
	for _, in := range e.scenario.Inputs {
		p = strings.ReplaceAll(p, "{"+in.Name+"}", in.Example.(string))
	}
	return p
}

// teach demonstrates the scenario, crystallizes it and assembles the
// bundle, as the /teach route does.
func (e *env) teach() (*skill.Bundle, *demonstrate.Result) {
	e.t.Helper()
	ctx := context.Background()
	task := demonstrate.Task{ID: skill.NewID(), Description: e.prompt(), BodyChoice: body.KindSimulator,
		Inputs: e.scenario.ExampleInput(), ScenarioID: e.scenario.ID}
	res, err := demonstrate.Run(ctx, task, demonstrate.Options{
		Model: e.client, ModelID: model, Body: e.body(), Authorizer: policy.Default(),
		Declared: e.scenario.CapabilitiesDeclared, Offered: e.scenario.Offered(), TrustedServer: true,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	var inputs []crystallize.Input
	for _, in := range e.scenario.Inputs {
		inputs = append(inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: in.Name, Type: in.Type, Required: true}, Value: in.Example})
	}
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: skill.NewID(), BodyChoice: body.KindSimulator,
		Inputs: inputs, Outputs: e.scenario.ExpectedOutputsShape, Now: time.Now()})
	if err != nil {
		e.t.Fatal(err)
	}
	b, err := assemble.Bundle(e.verifier, assemble.Teaching{Task: task, Result: res, Manifest: m, ModelID: model}, time.Now(), skill.NewID)
	if err != nil {
		e.t.Fatal(err)
	}
	return b, res
}

// reverify runs the exported bytes through the full verifier.
func (e *env) reverify(b *skill.Bundle) *verify.Report {
	e.t.Helper()
	data, err := b.Encode()
	if err != nil {
		e.t.Fatal(err)
	}
	r, err := e.verifier.Bytes(data)
	if err != nil {
		e.t.Fatalf("the assembled bundle is not valid: %v", err)
	}
	if len(r.Overclaims) > 0 {
		e.t.Fatalf("the assembled bundle overclaims: %v", r.Overclaims)
	}
	return r
}

func gate(p skill.ProofResult, id string) skill.Gate {
	g, _ := p.Gate(id)
	return g
}

func TestScenarioBasicPromptToManifest(t *testing.T) {
	e := newEnv(t, fixtures.BasicPromptToManifest, openroutertest.Script{Model: model, CostPerCall: 0.001, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"}),
		openroutertest.Answer("The main heading is: Getting started"),
	}})
	b, res := e.teach()
	if res.Stopped != demonstrate.StopAnswer || len(b.Trace.Edges) != 1 {
		t.Fatalf("stopped %s with %d edges", res.Stopped, len(b.Trace.Edges))
	}
	if res.CostUSD != 0.002 || !res.CostKnown {
		t.Errorf("cost %v (known %v), want the two calls' 0.002", res.CostUSD, res.CostKnown)
	}
	if b.Trace.Edges[0].ParamSources["url"] != "input:page_url" {
		t.Errorf("url source %q, want input:page_url", b.Trace.Edges[0].ParamSources["url"])
	}
	r := e.reverify(b)
	if b.Manifest.Name == "" || b.Manifest.Description == "" || b.Manifest.DerivedFromTraceID != b.Trace.TraceID {
		t.Errorf("manifest not filled: %+v", b.Manifest)
	}
	if r.Derived.OverallVerdict != skill.VerdictInconclusive || gate(r.Derived, skill.GateReplayFidelity).Verdict != skill.VerdictInconclusive {
		t.Errorf("a bundle without a replay: overall %s", r.Derived.OverallVerdict)
	}
	if got := r.Derived.ConformanceCheck.FixturesPassed; len(got) != 1 || got[0] != fixtures.BasicPromptToManifest {
		t.Errorf("conformance passed %v failed %v", got, r.Derived.ConformanceCheck.FixturesFailed)
	}
}

func TestScenarioReplayFidelity(t *testing.T) {
	e := newEnv(t, fixtures.ReplayFidelity, openroutertest.Script{Model: model, CostPerCall: 0.001, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
		openroutertest.ToolCall("browser_click", map[string]any{"name": "README"}),
		openroutertest.Answer("The README says the widget is small."),
	}})
	b, _ := e.teach()
	// "README" is in the task itself, so the click replays as recorded and
	// the skill needs no model on replay.
	if got := b.Trace.Edges[1].ParamSources["name"]; got != skill.SourceLiteral {
		t.Fatalf("the clicked link's name has source %q, want literal", got)
	}
	rec := e.replay(b, e.scenario.ExampleInput())
	if rec.Report.Status != skill.StatusSuccess || rec.Report.FidelityLevel != skill.LevelExact || rec.Report.Fidelity != 1 {
		t.Fatalf("replay %s at %s, fidelity %v, surprises %+v", rec.Report.Status, rec.Report.FidelityLevel, rec.Report.Fidelity, rec.Report.SurpriseSignals)
	}
	nb, r := e.saveReplay(b, rec)
	if r.Verdict != skill.VerdictPass {
		t.Fatalf("verdict %s, gates %+v", r.Verdict, r.Derived.ProofGates)
	}
	if nb.SkillVersion != b.SkillVersion+1 || len(nb.Manifest.ValidatedAgainst) != 1 {
		t.Errorf("the saved replay is version %d with %d validations", nb.SkillVersion, len(nb.Manifest.ValidatedAgainst))
	}
	if got := r.Derived.ConformanceCheck.FixturesPassed; len(got) != 1 || got[0] != fixtures.ReplayFidelity {
		t.Errorf("conformance passed %v failed %v", got, r.Derived.ConformanceCheck.FixturesFailed)
	}
}

func (e *env) replay(b *skill.Bundle, input map[string]any) skill.ReplayRecord {
	e.t.Helper()
	rec, err := replay.Run(context.Background(), b, e.body(), replay.Options{
		Input: input, Deterministic: true,
		Authorizer: replay.PolicyAuthorizer{Policy: policy.Default(), Declared: b.Manifest.CapabilitiesRequired, BodyKind: body.KindSimulator, TrustedServer: true},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return rec
}

func (e *env) saveReplay(b *skill.Bundle, rec skill.ReplayRecord) (*skill.Bundle, *verify.Report) {
	e.t.Helper()
	nb, err := assemble.WithReplay(e.verifier, b, rec, time.Now(), skill.NewID)
	if err != nil {
		e.t.Fatal(err)
	}
	return nb, e.reverify(nb)
}

func TestScenarioAuthorityDenied(t *testing.T) {
	e := newEnv(t, fixtures.AuthorityDenied, openroutertest.Script{Model: model, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://status.workbench.test/"}),
		openroutertest.ToolCall("file_write", map[string]any{"path": "/home/user/incident.txt", "content": "Degraded API latency"}),
		openroutertest.Answer("I could not save the file: the action was refused."),
	}})
	b, res := e.teach()
	if len(b.Trace.Edges) != 2 {
		t.Fatalf("%d edges", len(b.Trace.Edges))
	}
	denied := b.Trace.Edges[1]
	if denied.OutcomeStatus != skill.OutcomeDenied || denied.Authorization.Decision != skill.DecisionDeny || denied.StateAfter != denied.StateBefore {
		t.Fatalf("the &body.os write was not refused before acting: %+v", denied)
	}
	if !strings.Contains(*res.Transcript[len(res.Transcript)-2].Content, "refused by policy") {
		t.Errorf("the model was not told of the refusal: %v", *res.Transcript[len(res.Transcript)-2].Content)
	}
	r := e.reverify(b)
	if r.Verdict != skill.VerdictFail || gate(r.Derived, skill.GateNoHiddenCapability).Verdict != skill.VerdictFail {
		t.Fatalf("verdict %s, no_hidden_capability %s", r.Verdict, gate(r.Derived, skill.GateNoHiddenCapability).Verdict)
	}
	if len(r.Derived.AuthorityResult.Denials) == 0 || r.Derived.AuthorityResult.Denials[0].Capability != skill.CapabilityOS {
		t.Errorf("denials %+v", r.Derived.AuthorityResult.Denials)
	}
	if got := r.Derived.ConformanceCheck.FixturesPassed; len(got) != 1 || got[0] != fixtures.AuthorityDenied {
		t.Errorf("conformance passed %v failed %v", got, r.Derived.ConformanceCheck.FixturesFailed)
	}
}

// The exported bundle of a demonstration whose task and input carry fake
// secrets: the detector finds them, transcript_pii strips them everywhere,
// and the redacted bundle still validates and verifies.
func TestScenarioRedactedExport(t *testing.T) {
	sc, err := fixtures.ScenarioByID(fixtures.RedactedExport)
	if err != nil {
		t.Fatal(err)
	}
	notes := sc.ExampleInput()["notes"].(string)
	e := newEnv(t, fixtures.RedactedExport, openroutertest.Script{Model: model, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://support.workbench.test/contact"}),
		openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
			// The model types the notes input, secret and all.
			u, _ := r.LastUser()
			if !strings.Contains(u.Text(), notes) {
				return openroutertest.Answer("I was not given the notes.")
			}
			return openroutertest.ToolCall("browser_type", map[string]any{"field": "Message", "text": notes})
		}),
		openroutertest.ToolCall("browser_submit", map[string]any{"button": "Send message"}),
		openroutertest.Answer("Sent."),
	}})
	b, _ := e.teach()
	plain, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	found, err := redact.Scan(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("the detector found no secret: the export dialog would not pre-select transcript_pii")
	}
	for _, s := range e.scenario.SeededSecrets {
		if !bytes.Contains(plain, []byte(s.Value)) {
			t.Fatalf("the demonstration did not carry the seeded %s; the test proves nothing", s.Kind)
		}
	}

	if _, err := redact.Apply(b, skill.RedactionTranscriptPII); err != nil {
		t.Fatal(err)
	}
	if err := e.verifier.SealWithProof(b); err != nil {
		t.Fatal(err)
	}
	out, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range e.scenario.SeededSecrets {
		if bytes.Contains(out, []byte(s.Value)) {
			t.Errorf("the redacted export still holds the seeded %s", s.Kind)
		}
	}
	r := e.reverify(b)
	if g := gate(r.Derived, skill.GateRedactionVerify); g.Verdict != skill.VerdictPass {
		t.Fatalf("redaction gate %s: %s", g.Verdict, g.Reason)
	}
	if g := gate(r.Derived, skill.GateContentHash); g.Verdict != skill.VerdictPass {
		t.Fatalf("content hash gate %s: %s", g.Verdict, g.Reason)
	}
	if got := r.Derived.ConformanceCheck.FixturesPassed; len(got) != 1 || got[0] != fixtures.RedactedExport {
		t.Errorf("conformance passed %v failed %v", got, r.Derived.ConformanceCheck.FixturesFailed)
	}
}
