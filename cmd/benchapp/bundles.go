package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/openrouter"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/schemas"
)

// scriptedModel stands in for the LLM of a demonstration: it asks for
// browser_navigate on alternating pages until it has asked n times, then
// answers. Everything else — the simulator acting, authorization,
// recording, crystallizing, assembling, sealing and proving — is the
// workbench's own pipeline, as on /teach.
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

// newVerifier is the verifier the app uses: the bundle schemas and the
// fixture scenarios.
func newVerifier() (*verify.Verifier, error) {
	sv, err := schemas.New()
	if err != nil {
		return nil, err
	}
	sc, err := fixtures.Scenarios()
	if err != nil {
		return nil, err
	}
	return verify.New(sv, sc, nil), nil
}

// taughtBundle teaches fixture scenario skill.basic_prompt_to_manifest
// on the simulator through package teach with a demonstration of the given
// number of steps, and returns the sealed bundle's file bytes.
func taughtBundle(ctx context.Context, v *verify.Verifier, steps int) ([]byte, error) {
	plan, err := teach.FromScenario("skill.basic_prompt_to_manifest", nil)
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

// bundleOfSize teaches bundles of growing length until one is at least
// want bytes, estimating the steps from the bytes per step of a first,
// shorter run.
func bundleOfSize(ctx context.Context, v *verify.Verifier, want int) ([]byte, int, error) {
	const probe = 50
	small, err := taughtBundle(ctx, v, probe)
	if err != nil {
		return nil, 0, err
	}
	base, err := taughtBundle(ctx, v, 1)
	if err != nil {
		return nil, 0, err
	}
	perStep := float64(len(small)-len(base)) / (probe - 1)
	steps := int(float64(want-len(base))/perStep) + 1
	for {
		data, err := taughtBundle(ctx, v, steps)
		if err != nil {
			return nil, 0, err
		}
		if len(data) >= want {
			return data, steps, nil
		}
		steps += int(float64(want-len(data))/perStep) + 1
	}
}

// librarySeed returns n distinct small bundles: the fixture bundle
// (spec §8.2, written by a real run of the workbench) under n new skill
// ids and names, each re-proved and re-sealed so it verifies as it is.
func librarySeed(v *verify.Verifier, fixture []byte, n int) ([][]byte, error) {
	out := make([][]byte, 0, n)
	for i := range n {
		b, _, err := skill.Decode(fixture)
		if err != nil {
			return nil, err
		}
		id := skill.NewID()
		b.SkillID, b.Manifest.SkillID = id, id
		b.BundleID = skill.NewID()
		b.Manifest.Name = fmt.Sprintf("Skill %04d: read the main heading", i)
		b.Manifest.Slug = skill.Slugify(b.Manifest.Name)
		if err := v.SealWithProof(b); err != nil {
			return nil, fmt.Errorf("seal seed bundle %d: %w", i, err)
		}
		f, err := store.EncodeBundle(b)
		if err != nil {
			return nil, fmt.Errorf("encode seed bundle %d: %w", i, err)
		}
		out = append(out, f.Data)
	}
	return out, nil
}
