package assemble_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/redact"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/schemas"
)

var update = flag.Bool("update", false, "rewrite the fixture files in fixtures/ from a fresh run")

// epoch is the fixed instant the fixture run starts at.
var epoch = time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)

// determinism makes a run's ids and clock reproducible: a clock that moves
// a millisecond per reading, UUIDv7s whose time is that clock and whose
// random bits hash a counter, and span ids from the same counter.
type determinism struct {
	n   uint64
	now time.Time
}

func (d *determinism) clock() time.Time {
	d.now = d.now.Add(time.Millisecond)
	return d.now
}

func (d *determinism) id() string {
	d.n++
	var u uuid.UUID
	var tb [8]byte
	binary.BigEndian.PutUint64(tb[:], uint64(d.now.UnixMilli()))
	copy(u[0:6], tb[2:8])
	r := sha256.Sum256([]byte(fmt.Sprintf("workbench-fixtures/%d", d.n)))
	copy(u[6:], r[:10])
	u[6] = 0x70 | (u[6] & 0x0f)
	u[8] = 0x80 | (u[8] & 0x3f)
	return u.String()
}

func (d *determinism) spanID() string {
	d.n++
	return fmt.Sprintf("%016x", 0xa0000+d.n)
}

// fixtureRun teaches a scenario on the simulator with a scripted model,
// replays it, and returns the bundle before and after the replay and the
// replay record.
// replaySteps are the model's answers to replay's live choices, after the
// demonstration's steps.
func fixtureRun(t *testing.T, d *determinism, v *verify.Verifier, id string, steps, replaySteps []openroutertest.Step, edit func(*sim.World) error, editBefore int) (*skill.Bundle, skill.ReplayRecord) {
	t.Helper()
	ctx := context.Background()
	sc, err := fixtures.ScenarioByID(id)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, id, openroutertest.Script{Model: model, CostPerCall: 0.0012, Steps: append(steps, replaySteps...)})
	e.verifier = v
	eng := policy.Default(policy.WithClock(d.clock), policy.WithIDs(d.id))
	task := demonstrate.Task{ID: d.id(), Description: e.prompt(), BodyChoice: body.KindSimulator, Inputs: sc.ExampleInput(), ScenarioID: id}
	res, err := demonstrate.Run(ctx, task, demonstrate.Options{
		Model: e.client, ModelID: model, Body: e.body(), Authorizer: eng, Declared: sc.CapabilitiesDeclared, Offered: sc.Offered(),
		TrustedServer: true, Now: d.clock, NewID: d.id, NewSpanID: d.spanID,
	})
	if err != nil {
		t.Fatal(err)
	}
	var inputs []crystallize.Input
	for _, in := range sc.Inputs {
		inputs = append(inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: in.Name, Type: in.Type, Required: true}, Value: in.Example})
	}
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: d.id(), BodyChoice: body.KindSimulator,
		Inputs: inputs, Outputs: sc.ExpectedOutputsShape, Now: d.clock()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Bundle(v, assemble.Teaching{Task: task, Result: res, Manifest: m, ModelID: model}, d.clock(), d.id)
	if err != nil {
		t.Fatal(err)
	}
	bd := e.body()
	var chooser replay.Chooser
	if len(replaySteps) > 0 {
		chooser = replay.ModelChooser{Model: e.client, ModelID: model}
	}
	rec, err := replay.Run(ctx, b, bd, replay.Options{
		Input: sc.ExampleInput(), Deterministic: true, Now: d.clock, NewID: d.id, Chooser: chooser,
		Authorizer: replay.PolicyAuthorizer{Policy: eng, Declared: b.Manifest.CapabilitiesRequired, TrustedServer: true},
		Progress: func(re skill.ReplayEdge) {
			if edit != nil && re.Index == editBefore-1 {
				if err := bd.Mutate(edit); err != nil {
					t.Fatal(err)
				}
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b, rec
}

// TestFixtureFiles writes the spec §8.2 fixtures with -update, and
// otherwise fails when a committed file differs from a fresh run: fixtures
// are never edited by hand.
func TestFixtureFiles(t *testing.T) {
	d := &determinism{now: epoch}
	sv, err := schemas.New()
	if err != nil {
		t.Fatal(err)
	}
	all, err := fixtures.Scenarios()
	if err != nil {
		t.Fatal(err)
	}
	v := verify.New(sv, all, d.clock)

	readme := []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
		openroutertest.ToolCall("browser_click", map[string]any{"name": "README"}),
		openroutertest.Answer("The README describes acme/widget in one paragraph."),
	}
	b, rec := fixtureRun(t, d, v, fixtures.ReplayFidelity, readme, nil, nil, 0)
	valid, err := assemble.WithReplay(v, b, rec, d.clock(), d.id)
	if err != nil {
		t.Fatal(err)
	}
	validBytes := encode(t, valid)

	_, halted := fixtureRun(t, d, v, fixtures.ReplayFidelity, readme, nil, func(w *sim.World) error {
		for i := range w.Pages {
			w.Pages[i].Title += " (renamed)"
		}
		return nil
	}, 1)
	if rec.Report.Status != skill.StatusSuccess {
		t.Fatalf("the replay did not succeed: %+v", rec.Report.SurpriseSignals)
	}
	if halted.Report.Status != skill.StatusHalted {
		t.Fatalf("the changed world did not halt replay: %s", halted.Report.Status)
	}

	notes := mustScenario(t, fixtures.RedactedExport).ExampleInput()["notes"].(string)
	rb, rrec := fixtureRun(t, d, v, fixtures.RedactedExport, []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://support.workbench.test/contact"}),
		openroutertest.ToolCall("browser_type", map[string]any{"field": "Message", "text": notes}),
		openroutertest.ToolCall("browser_submit", map[string]any{"button": "Send message"}),
		openroutertest.Answer("Sent; the confirmation page shows the id."),
	}, []openroutertest.Step{
		// Replay asks again for what the model chose: the field and the button.
		openroutertest.ToolCall("browser_type", map[string]any{"field": "Message", "text": notes}),
		openroutertest.ToolCall("browser_submit", map[string]any{"button": "Send message"}),
	}, nil, 0)
	if rrec.Report.Status != skill.StatusSuccess {
		t.Fatalf("the redacted-export replay did not succeed: %+v", rrec.Report.SurpriseSignals)
	}
	red, err := assemble.WithReplay(v, rb, rrec, d.clock(), d.id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := redact.Apply(red, skill.RedactionTranscriptPII); err != nil {
		t.Fatal(err)
	}
	if err := v.SealWithProof(red); err != nil {
		t.Fatal(err)
	}

	var missing map[string]json.RawMessage
	if err := json.Unmarshal(validBytes, &missing); err != nil {
		t.Fatal(err)
	}
	delete(missing, "content_hash")
	files := map[string][]byte{
		fixtures.ValidBundleFile:           validBytes,
		fixtures.MissingContentHashFile:    mustJSON(t, missing),
		fixtures.ReplaySuccessFile:         mustJSON(t, rec.Report),
		fixtures.ReplayStateMismatchFile:   mustJSON(t, halted.Report),
		fixtures.RedactedTranscriptPIIFile: encode(t, red),
	}
	dir := filepath.Join("..", "..", "fixtures")
	for name, want := range files {
		path := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("fixtures/%s drifted from a fresh run (run `make fixtures` and review the diff)", name)
		}
	}
}

func encode(t *testing.T, b *skill.Bundle) []byte {
	t.Helper()
	data, err := b.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func mustScenario(t *testing.T, id string) fixtures.Scenario {
	t.Helper()
	sc, err := fixtures.ScenarioByID(id)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
