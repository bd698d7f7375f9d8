package assemble_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Sealing changes nothing it is given — not the demonstration's PULSE
// recorder, not its trace, not the manifest — and sealing the same
// teaching twice, at the same instant with the same ids (and a verifier
// whose clock dates both proofs alike), gives the same bytes, so a preview may seal before the real seal without a guard.
func TestSealIsRepeatableAndChangesNothing(t *testing.T) {
	d := &determinism{now: epoch}
	e := newEnv(t, fixtures.ReplayFidelity, openroutertest.Script{Model: model, Steps: []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
		openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"}),
		openroutertest.Answer("1.4.0"),
	}})
	sc := e.scenario
	task := demonstrate.Task{ID: d.id(), Description: e.prompt(), BodyChoice: body.KindSimulator, Inputs: sc.ExampleInput(), ScenarioID: sc.ID}
	res, err := demonstrate.Run(context.Background(), task, demonstrate.Options{
		Model: e.client, ModelID: model, Body: e.body(), Authorizer: policy.Default(policy.WithClock(d.clock), policy.WithIDs(d.id)),
		Declared: sc.CapabilitiesDeclared, Offered: sc.Offered(), TrustedServer: true, Now: d.clock, NewID: d.id, NewSpanID: d.spanID,
	})
	if err != nil {
		t.Fatal(err)
	}
	var inputs []crystallize.Input
	for _, in := range sc.Inputs {
		inputs = append(inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: in.Name, Type: in.Type, Required: true}, Value: in.Example})
	}
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: d.id(), BodyChoice: body.KindSimulator, Inputs: inputs, Now: d.clock()})
	if err != nil {
		t.Fatal(err)
	}
	teaching := assemble.Teaching{Task: task, Result: res, Manifest: m, ModelID: model}

	// What the caller holds, deep-copied as JSON before sealing.
	snap := func() string {
		spans := res.Recorder.Trace().Spans
		ids := make([]string, len(spans))
		for i, s := range spans {
			ids[i] = s.SpanID + " " + s.Name
		}
		data, err := json.Marshal(map[string]any{"events": res.Recorder.Events(), "spans": ids, "trace": res.Trace, "manifest": m, "task": task})
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	before := snap()

	// The verifier's clock dates the proof: it stands still too.
	now := d.clock()
	e.verifier = verify.New(e.sv, e.scenarios, func() time.Time { return now })
	seal := func() []byte {
		ids := &determinism{n: 1 << 20, now: now} // the same ids for each seal
		b, err := assemble.Bundle(e.verifier, teaching, now, ids.id)
		if err != nil {
			t.Fatal(err)
		}
		return encode(t, b)
	}
	first, second := seal(), seal()
	if !bytes.Equal(first, second) {
		i := 0
		for i < len(first) && first[i] == second[i] {
			i++
		}
		t.Errorf("sealing twice gave different bytes, from byte %d: %.200s vs %.200s", i, first[max(0, i-100):], second[max(0, i-100):])
	}
	if after := snap(); after != before {
		t.Errorf("sealing changed what the caller holds:\nbefore %.400s\nafter  %.400s", before, after)
	}

	// The sealed trace is bound; the caller's is as demonstrated.
	b, _, err := skill.Decode(first)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Trace.Edges[0].ParamSources["url"]; got != skill.SourceInputPrefix+"repo_url" {
		t.Errorf("the sealed navigation's url has source %q, want input:repo_url", got)
	}
	if got := b.Trace.Edges[1].ParamSources["name"]; got != skill.SourceLLM || b.Manifest.Binding != skill.BindingModelFamily {
		t.Errorf("the sealed click's name has source %q, binding %s: want llm, %s", got, b.Manifest.Binding, skill.BindingModelFamily)
	}
	if r := e.reverify(b); r.Derived.OverallVerdict != skill.VerdictInconclusive {
		t.Errorf("a sealed bundle before its replay: verdict %s", r.Derived.OverallVerdict)
	}
}
