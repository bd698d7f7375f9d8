package library_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"workbench/pkg/body/sim"
	"workbench/pkg/library"
	"workbench/pkg/openrouter"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/store/mem"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
)

// scriptedModel stands in for the LLM of a demonstration, as cmd/benchapp's
// does: it asks for browser_navigate on alternating pages until it has
// asked n times, then answers.
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

// taughtBundle teaches fixture scenario skill.basic_prompt_to_manifest on
// the simulator with a demonstration of steps steps, as cmd/benchapp does
// for its import measurement, and returns the sealed bundle's bytes.
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

// importBundle returns a taught bundle of at least want bytes. Teaching
// 3,000 steps takes a while, under WebAssembly most of all, so the bytes
// are kept in the temporary directory between runs and taught again only
// when the kept file no longer imports (the pipeline changed).
func importBundle(b *testing.B, v *verify.Verifier, want int) []byte {
	b.Helper()
	ctx := context.Background()
	cache := filepath.Join(os.TempDir(), fmt.Sprintf("workbench-import-bench-%d.skill.json", want))
	if data, err := os.ReadFile(cache); err == nil && len(data) >= want {
		if res, err := library.Import(ctx, mem.New(), v, "cached", data); err == nil && res.Status == library.Accepted {
			return data
		}
	}
	small, err := taughtBundle(ctx, v, 50)
	if err != nil {
		b.Fatal(err)
	}
	base, err := taughtBundle(ctx, v, 1)
	if err != nil {
		b.Fatal(err)
	}
	perStep := float64(len(small)-len(base)) / 49
	steps := int(float64(want-len(base))/perStep) + 1
	for {
		data, err := taughtBundle(ctx, v, steps)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) >= want {
			if err := os.WriteFile(cache, data, 0o644); err != nil {
				b.Logf("keeping the bundle for the next run: %v", err)
			}
			return data
		}
		steps += int(float64(want-len(data))/perStep) + 1
	}
}

// BenchmarkImport is the work behind dropping a 10 MB bundle on /import,
// the browser's file read and IndexedDB aside: strict parse, schema, typed
// decode, both hash serializations, every gate, and the store's write (to
// the in-memory store).
func BenchmarkImport(b *testing.B) {
	v := verifier(b)
	data := importBundle(b, v, 10_000_000)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	// CPU time beside wall time: on a shared machine wall time stretches
	// with the load, the work does not.
	cpu0, cpuOK := cpuTime()
	for b.Loop() {
		res, err := library.Import(ctx, mem.New(), v, "big.skill.json", data)
		if err != nil {
			b.Fatal(err)
		}
		if res.Status != library.Accepted {
			b.Fatalf("%s: %v", res.Status, res.Problems)
		}
	}
	if cpu1, ok := cpuTime(); ok && cpuOK {
		b.ReportMetric((cpu1-cpu0)*1e3/float64(b.N), "cpu-ms/op")
	}
}
