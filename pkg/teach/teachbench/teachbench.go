// Package teachbench teaches large bundles for the benchmarks of import
// and the browser app. A scripted model stands in for the LLM: it asks
// the simulator for browser_navigate on alternating pages a given number
// of times, then answers. Everything after the model — the simulator
// acting, authorization, recording, crystallizing, assembling, sealing
// and proving — is the workbench's own pipeline, as on /teach.
//
// Only benchmarks may import it: the benchmark program cmd/benchapp and
// tests. A test of this package holds every other importer out, so the
// scripted model can never answer in place of a real one.
package teachbench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"workbench/pkg/body/sim"
	"workbench/pkg/openrouter"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
)

// Scenario is the fixture scenario the bundles are taught from.
const Scenario = "skill.basic_prompt_to_manifest"

// scriptedModel asks for browser_navigate on alternating pages until it
// has asked n times, then answers.
type scriptedModel struct {
	pages []string
	n     int
	calls atomic.Int64
}

func (m *scriptedModel) Chat(ctx context.Context, req openrouter.Request) (*openrouter.Response, error) {
	i := int(m.calls.Add(1)) - 1
	cost := 0.0001
	resp := &openrouter.Response{ID: "gen-bench-" + strconv.Itoa(i), Model: req.Model, Created: 1780000000,
		Usage: openrouter.Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110, Cost: &cost}}
	if i >= m.n {
		resp.Choices = []openrouter.Choice{{Message: openrouter.Message{Role: openrouter.RoleAssistant,
			Content: "The page's main heading is \"Getting started\"."}, FinishReason: openrouter.FinishStop}}
		return resp, nil
	}
	args, _ := json.Marshal(map[string]string{"url": m.pages[i%len(m.pages)]})
	resp.Choices = []openrouter.Choice{{Message: openrouter.Message{Role: openrouter.RoleAssistant, ToolCalls: []openrouter.ToolCall{{
		ID: "call-" + strconv.Itoa(i), Type: "function",
		Function: openrouter.FunctionCall{Name: "browser_navigate", Arguments: string(args)},
	}}}, FinishReason: openrouter.FinishToolCalls}}
	return resp, nil
}

// Bundle teaches Scenario on the simulator with a demonstration of steps
// steps and returns the sealed bundle's file bytes. The bundle must be
// ready to save (teach.Ready), or Bundle fails.
func Bundle(ctx context.Context, v *verify.Verifier, steps int) ([]byte, error) {
	plan, err := teach.FromScenario(Scenario, nil)
	if err != nil {
		return nil, err
	}
	body, err := sim.New(plan.World)
	if err != nil {
		return nil, err
	}
	model := &scriptedModel{n: steps, pages: []string{
		"https://docs.workbench.test/getting-started",
		"https://git.workbench.test/acme/widget",
		"https://docs.workbench.test/",
		"https://git.workbench.test/acme/gadget",
	}}
	res, err := teach.Demonstrate(ctx, plan, teach.Options{Model: model, ModelID: "bench/scripted", Body: body,
		Authorizer: policy.Default(), TrustedServer: true, MaxSteps: steps + 1})
	if err != nil {
		return nil, fmt.Errorf("demonstrate: %w", err)
	}
	if len(res.Trace.Edges) != steps {
		return nil, fmt.Errorf("demonstrate: %d edges, want %d (stopped: %s %v)", len(res.Trace.Edges), steps, res.Stopped, res.Err)
	}
	now := time.Now().UTC()
	m, err := teach.Draft(plan, res, now)
	if err != nil {
		return nil, fmt.Errorf("draft: %w", err)
	}
	m.Name = fmt.Sprintf("Read a heading, %d times", steps)
	m.Slug = skill.Slugify(m.Name)
	b, rep, err := teach.Seal(v, plan, res, m, "bench/scripted", now)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	if !teach.Ready(rep) {
		return nil, fmt.Errorf("the taught bundle is not ready: verdict %s, overclaims %v", rep.Verdict, rep.Overclaims)
	}
	return b.Encode()
}

// BundleOfSize teaches bundles of growing length until one is at least
// want bytes, estimating the steps from the bytes per step of a first,
// shorter run. It returns the bundle and its number of steps.
func BundleOfSize(ctx context.Context, v *verify.Verifier, want int) ([]byte, int, error) {
	const probe = 50
	small, err := Bundle(ctx, v, probe)
	if err != nil {
		return nil, 0, err
	}
	base, err := Bundle(ctx, v, 1)
	if err != nil {
		return nil, 0, err
	}
	perStep := float64(len(small)-len(base)) / (probe - 1)
	steps := int(float64(want-len(base))/perStep) + 1
	for {
		data, err := Bundle(ctx, v, steps)
		if err != nil {
			return nil, 0, err
		}
		if len(data) >= want {
			return data, steps, nil
		}
		steps += int(float64(want-len(data))/perStep) + 1
	}
}
