package workbench_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"workbench/fixtures"
	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/compare"
	"workbench/pkg/crystallize"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/store/mem"
	"workbench/pkg/teach"
	"workbench/pkg/workbench"
)

const compareTeacher = "example/teacher"

// The model-comparison scenario taught so that the click on the
// changelog link is the model's choice, so every cell asks its model; and
// as written, with its one parameter bound to the input, so no cell does.
var (
	compareModelBound = []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
		openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"}),
		openroutertest.Answer("The newest version is 1.4.0."),
	}
	compareInputBound = []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget/changelog"}),
		openroutertest.Answer("The newest version is 1.4.0."),
	}
	// otherChangelog is a second input set: another valid changelog URL.
	otherChangelog = workbench.InputSet{Values: []teach.Value{{Name: "changelog_url", Raw: "https://git.workbench.test/acme/widget/changelog?page=2"}}}
)

// compareLab is the OpenRouter stand-in with the teacher's and the
// compared models' scripts, a client of it, and the skill the teacher
// taught, stored in a library.
type compareLab struct {
	or     *openroutertest.Server
	client *openrouter.Client
	b      *skill.Bundle
	store  *mem.Store
}

func newCompareLab(t *testing.T, demo []openroutertest.Step, models ...openroutertest.Script) *compareLab {
	t.Helper()
	scripts := append([]openroutertest.Script{{Model: compareTeacher, CostPerCall: 0.001, Steps: demo}}, models...)
	or := openroutertest.New(t, openroutertest.WithScript(scripts...))
	// net/http, not the default: under js/wasm the default is the
	// JavaScript fetch, which cannot reach the in-process test server.
	client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	l := &compareLab{or: or, client: client, store: mem.New()}
	l.b = l.teach(t)
	f, err := store.EncodeBundle(l.b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.store.AddBundle(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	return l
}

// teach demonstrates the scenario with the teacher and seals the bundle.
func (l *compareLab) teach(t *testing.T) *skill.Bundle {
	t.Helper()
	sc, err := fixtures.ScenarioByID(fixtures.ModelComparison)
	if err != nil {
		t.Fatal(err)
	}
	name, err := fixtures.WorldFor(sc.ID)
	if err != nil {
		t.Fatal(err)
	}
	world, err := fixtures.World(name)
	if err != nil {
		t.Fatal(err)
	}
	bd, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	prompt := sc.TaskPrompt
	for _, in := range sc.Inputs {
		prompt = strings.ReplaceAll(prompt, "{"+in.Name+"}", in.Example.(string))
	}
	task := demonstrate.Task{ID: skill.NewID(), Description: prompt, BodyChoice: body.KindSimulator,
		Inputs: sc.ExampleInput(), ScenarioID: sc.ID}
	res, err := demonstrate.Run(context.Background(), task, demonstrate.Options{
		Model: l.client, ModelID: compareTeacher, Body: bd, Authorizer: policy.Default(),
		Declared: sc.CapabilitiesDeclared, Offered: sc.Offered(), TrustedServer: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	var inputs []crystallize.Input
	for _, in := range sc.Inputs {
		inputs = append(inputs, crystallize.Input{InputSpec: skill.InputSpec{Name: in.Name, Type: in.Type, Required: true}, Value: in.Example})
	}
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: skill.NewID(), BodyChoice: body.KindSimulator,
		Inputs: inputs, Outputs: sc.ExpectedOutputsShape, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := assemble.Bundle(verifier(t), assemble.Teaching{Task: task, Result: res, Manifest: m, ModelID: compareTeacher}, time.Now(), skill.NewID)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// deps are the flows' dependencies over the lab's library, with the
// lab's client as every model's (nil: no key kept).
func (l *compareLab) deps(t *testing.T, withKey bool) workbench.Deps {
	d := workbench.Deps{Verifier: workbench.UseVerifier(verifier(t)), Store: workbench.UseStore(l.store)}
	if withKey {
		d.Models = func(context.Context) (workbench.Model, error) { return l.client, nil }
	}
	return d
}

// workbench is the flows over deps.
func (l *compareLab) workbench(t *testing.T, withKey bool) *workbench.Flows {
	return workbench.New(l.deps(t, withKey))
}

// clicking is a compared model that clicks the link named name, n times
// (once per input set).
func clicking(model, name string, n int) openroutertest.Script {
	steps := make([]openroutertest.Step, n)
	for i := range steps {
		steps[i] = openroutertest.ToolCall("browser_click", map[string]any{"name": name})
	}
	return openroutertest.Script{Model: model, CostPerCall: 0.002, Steps: steps}
}

func repeated(model string, step openroutertest.Step, n int) openroutertest.Script {
	steps := make([]openroutertest.Step, n)
	for i := range steps {
		steps[i] = step
	}
	return openroutertest.Script{Model: model, CostPerCall: 0.003, Steps: steps}
}

// TestCompare runs whole matrices: every cell is a verified replay, each
// input set's results are compared pair by pair, the cells with a replay
// are sealed into one next version, and the matrix is kept with the skill.
func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name    string
		demo    []openroutertest.Step
		scripts []openroutertest.Script
		models  []string
		sets    []workbench.InputSet
		withKey bool
		save    bool
		// verdicts[i][j] is the verdict of model i on input set j;
		// outcome is every set's pair outcome (two models).
		verdicts  [][]string
		outcome   string
		exercised bool
	}{
		{
			name:    "two models agree on two input sets, saved",
			demo:    compareModelBound,
			scripts: []openroutertest.Script{clicking("example/a", "Changelog", 2), clicking("example/b", "Changelog", 2)},
			models:  []string{"example/a", "example/b"}, sets: []workbench.InputSet{{}, otherChangelog},
			withKey: true, save: true,
			verdicts: [][]string{{skill.VerdictPass, skill.VerdictPass}, {skill.VerdictPass, skill.VerdictPass}},
			outcome:  compare.OutcomeAgree, exercised: true,
		},
		{
			name: "a model that refuses diverges on every input set",
			demo: compareModelBound,
			scripts: []openroutertest.Script{clicking("example/a", "Changelog", 2),
				repeated("example/b", openroutertest.Refuse("I will not click links."), 2)},
			models: []string{"example/a", "example/b"}, sets: []workbench.InputSet{{}, otherChangelog},
			withKey:  true,
			verdicts: [][]string{{skill.VerdictPass, skill.VerdictPass}, {skill.VerdictFail, skill.VerdictFail}},
			outcome:  compare.OutcomeDiverge, exercised: true,
		},
		{
			name: "a model out of credit is its cells' failure; the others run",
			demo: compareModelBound,
			scripts: []openroutertest.Script{clicking("example/a", "Changelog", 2),
				repeated("example/broke", openroutertest.Error(402, "Insufficient credits."), 2)},
			models: []string{"example/a", "example/broke"}, sets: []workbench.InputSet{{}, otherChangelog},
			withKey:  true,
			verdicts: [][]string{{skill.VerdictPass, skill.VerdictPass}, {"error", "error"}},
			outcome:  compare.OutcomeIncomparable, exercised: true,
		},
		{
			name:     "a skill bound to its input asks no model and needs no key",
			demo:     compareInputBound,
			models:   []string{"example/a", "example/b"},
			withKey:  false,
			verdicts: [][]string{{skill.VerdictPass}, {skill.VerdictPass}},
			outcome:  compare.OutcomeNotExercised, exercised: false,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newCompareLab(t, tc.demo, tc.scripts...)
			w := l.workbench(t, tc.withKey)
			edges, done := 0, 0
			req := workbench.CompareRequest{Bundle: l.b, Models: tc.models, Sets: tc.sets, Save: tc.save, Keep: true,
				Progress: func(p workbench.CompareProgress) {
					switch {
					case p.Edge != nil:
						edges++
					case p.Result != nil && p.Result.Model == p.Model:
						done++
					}
				}}
			c, err := w.Compare(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			nSets := max(len(tc.sets), 1)
			if len(c.BySet) != nSets || len(c.Inputs) != nSets || done != nSets*len(tc.models) || edges == 0 {
				t.Fatalf("%d sets, %d inputs, %d cells done, %d edges", len(c.BySet), len(c.Inputs), done, edges)
			}
			if got := c.Inputs[nSets-1]["changelog_url"]; nSets == 2 && got != "https://git.workbench.test/acme/widget/changelog?page=2" {
				t.Errorf("the second set replayed with %v", got)
			}
			newRecs := 0
			for j, set := range c.BySet {
				for i, r := range set.Results {
					if r.Model != tc.models[i] || r.Verdict() != tc.verdicts[i][j] {
						t.Errorf("cell (%d, %d): %s verdict %s, want %s; err %v", i, j, r.Model, r.Verdict(), tc.verdicts[i][j], r.Err)
					}
					if r.Record != nil {
						newRecs++
						if r.Bundle.SkillVersion != l.b.SkillVersion+1 {
							t.Errorf("cell (%d, %d) proved as v%d", i, j, r.Bundle.SkillVersion)
						}
					}
				}
				if len(set.Pairs) != 1 || set.Pairs[0].Outcome != tc.outcome || set.ModelsExercised != tc.exercised {
					t.Errorf("set %d: pairs %+v, exercised %v", j, set.Pairs, set.ModelsExercised)
				}
			}
			// One next version carries every cell's replay: no gap.
			if c.Final == nil || c.Final.SkillVersion != l.b.SkillVersion+1 || c.FinalReport == nil {
				t.Fatalf("final %v, report %v", c.Final, c.FinalReport)
			}
			if n := len(c.Final.ReplayRecords()) - len(l.b.ReplayRecords()); n != newRecs {
				t.Errorf("the final version carries %d new replays, want %d", n, newRecs)
			}
			if c.Authority != "local:"+skill.DefaultPolicyID {
				t.Errorf("authorized by %q", c.Authority)
			}
			// The matrix is kept with the skill, cell by cell.
			if c.KeepErr != nil {
				t.Fatal(c.KeepErr)
			}
			kept, err := l.store.Comparisons(context.Background(), l.b.SkillID)
			if err != nil || len(kept) != 1 || kept[0].ID != c.Kept.ID {
				t.Fatalf("kept %+v, %v", kept, err)
			}
			k := kept[0]
			if len(k.Cells) != nSets*len(tc.models) || len(k.Summary) != nSets || k.SkillVersion != l.b.SkillVersion || k.BundleHash != l.b.ContentHash {
				t.Errorf("kept %d cells, %d summaries, of v%d", len(k.Cells), len(k.Summary), k.SkillVersion)
			}
			for i := range tc.models {
				for j := 0; j < nSets; j++ {
					cell, ok := k.Cell(i, j)
					if !ok || cell.Model != tc.models[i] || cell.Input != j || cell.Verdict != tc.verdicts[i][j] {
						t.Errorf("kept cell (%d, %d): %+v", i, j, cell)
					}
					if (cell.Error == "") != (cell.Record != nil) || cell.LatencyMS < 0 {
						t.Errorf("kept cell (%d, %d): error %q, record %v, latency %d", i, j, cell.Error, cell.Record != nil, cell.LatencyMS)
					}
					if tc.exercised && cell.Record != nil && (cell.ModelCalls != 1 || !cell.CostKnown || cell.CostUSD <= 0) {
						t.Errorf("kept cell (%d, %d): %d calls costing %v", i, j, cell.ModelCalls, cell.CostUSD)
					}
				}
			}
			sk, err := l.store.Skill(context.Background(), l.b.SkillID)
			if err != nil {
				t.Fatal(err)
			}
			if tc.save {
				if k.SavedVersion != c.Final.SkillVersion || sk.Version != c.Final.SkillVersion {
					t.Errorf("saved as v%d, the library's newest is v%d, want v%d", k.SavedVersion, sk.Version, c.Final.SkillVersion)
				}
			} else if k.SavedVersion != 0 || sk.Version != l.b.SkillVersion {
				t.Errorf("not asked to save, and saved as v%d (library at v%d)", k.SavedVersion, sk.Version)
			}
		})
	}
}

// TestCompareRefuses: a request that cannot run is refused before any
// model is asked, with the error a front-end answers.
func TestCompareRefuses(t *testing.T) {
	l := newCompareLab(t, compareModelBound)
	otherPolicy := *l.b
	otherPolicy.Manifest.DelegaticPolicyID = "another-policy"
	ab := []string{"example/a", "example/b"}
	for _, tc := range []struct {
		name  string
		w     *workbench.Flows
		req   workbench.CompareRequest
		check func(t *testing.T, err error)
	}{
		{"one model", l.workbench(t, true), workbench.CompareRequest{Bundle: l.b, Models: []string{"example/a"}}, wantModelList("at least two")},
		{"a model twice", l.workbench(t, true), workbench.CompareRequest{Bundle: l.b, Models: []string{"example/a", "example/a"}}, wantModelList("given twice")},
		{"an empty model", l.workbench(t, true), workbench.CompareRequest{Bundle: l.b, Models: []string{"example/a", " "}}, wantModelList("model 2 is empty")},
		{"a bad value in the second set", l.workbench(t, true),
			workbench.CompareRequest{Bundle: l.b, Models: ab, Sets: []workbench.InputSet{{}, {Values: []teach.Value{{Name: "changelog_url", Raw: "not a url"}}}}},
			func(t *testing.T, err error) {
				var se *workbench.InputSetError
				var ie *teach.InputError
				if !errors.As(err, &se) || se.Set != 1 || !errors.As(err, &ie) || ie.Name != "changelog_url" || !strings.Contains(err.Error(), "input set 2") {
					t.Errorf("err %v, want input set 2's changelog_url", err)
				}
			}},
		{"an input the skill does not have", l.workbench(t, true),
			workbench.CompareRequest{Bundle: l.b, Models: ab, Sets: []workbench.InputSet{{Input: map[string]any{"nope": 1}}}},
			func(t *testing.T, err error) {
				var se *workbench.InputSetError
				if !errors.As(err, &se) || se.Set != 0 {
					t.Errorf("err %v, want input set 1", err)
				}
			}},
		{"a model-bound skill with no key", l.workbench(t, false), workbench.CompareRequest{Bundle: l.b, Models: ab},
			func(t *testing.T, err error) {
				var mk *workbench.MissingKeyError
				if !errors.As(err, &mk) || !strings.Contains(err.Error(), "example/a, example/b") {
					t.Errorf("err %v, want a *MissingKeyError naming the models", err)
				}
			}},
		{"another policy", l.workbench(t, true), workbench.CompareRequest{Bundle: &otherPolicy, Models: ab},
			func(t *testing.T, err error) {
				var pe *workbench.PolicyError
				if !errors.As(err, &pe) {
					t.Errorf("err %v, want a *PolicyError", err)
				}
			}},
		{"save with no library", workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(verifier(t))}), workbench.CompareRequest{Bundle: l.b, Models: ab, Save: true}, wantText("no library is open")},
		{"no verifier", workbench.New(workbench.Deps{}), workbench.CompareRequest{Bundle: l.b, Models: ab}, wantText("no verifier")},
		{"no bundle", l.workbench(t, true), workbench.CompareRequest{Models: ab}, wantText("no bundle")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flows := tc.w
			if flows == nil {
				flows = workbench.New(workbench.Deps{})
			}
			c, err := flows.Compare(context.Background(), tc.req)
			if err == nil || c != nil {
				t.Fatalf("comparison %v, err %v", c, err)
			}
			tc.check(t, err)
		})
	}
	if n := len(l.or.ChatRequests("example/a")) + len(l.or.ChatRequests("example/b")); n != 0 {
		t.Errorf("%d model calls for refused comparisons", n)
	}
	if kept, _ := l.store.Comparisons(context.Background(), l.b.SkillID); len(kept) != 0 {
		t.Errorf("refused comparisons were kept: %d", len(kept))
	}
}

func wantModelList(text string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ml *workbench.ModelListError
		if !errors.As(err, &ml) || !strings.Contains(err.Error(), text) {
			t.Errorf("err %v, want a *ModelListError saying %q", err, text)
		}
	}
}

func wantText(text string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		if !strings.Contains(err.Error(), text) {
			t.Errorf("err %v, want %q", err, text)
		}
	}
}

// TestCompareCancelled: a cancelled comparison returns no matrix and
// keeps nothing.
func TestCompareCancelled(t *testing.T) {
	l := newCompareLab(t, compareModelBound)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c, err := l.workbench(t, true).Compare(ctx, workbench.CompareRequest{Bundle: l.b, Models: []string{"example/a", "example/b"}})
	if !errors.Is(err, context.Canceled) || c != nil {
		t.Fatalf("comparison %v, err %v", c, err)
	}
	if kept, _ := l.store.Comparisons(context.Background(), l.b.SkillID); len(kept) != 0 {
		t.Errorf("a cancelled comparison was kept")
	}
}

// TestSaveComparison saves a kept comparison read back from the library,
// as a page does after a reload: one next version carrying every cell's
// replay, and the record says so; a second save, or a comparison with no
// replay, is refused.
func TestSaveComparison(t *testing.T) {
	l := newCompareLab(t, compareModelBound, clicking("example/a", "Changelog", 2),
		repeated("example/broke", openroutertest.Error(402, "Insufficient credits."), 2))
	w := l.workbench(t, true)
	ctx := context.Background()
	if _, err := w.Compare(ctx, workbench.CompareRequest{Bundle: l.b, Models: []string{"example/a", "example/broke"}, Sets: []workbench.InputSet{{}, otherChangelog}, Keep: true}); err != nil {
		t.Fatal(err)
	}
	kept, err := l.store.Comparisons(ctx, l.b.SkillID)
	if err != nil || len(kept) != 1 {
		t.Fatalf("kept %d, %v", len(kept), err)
	}
	saved, err := w.SaveComparison(ctx, kept[0])
	if err != nil {
		t.Fatal(err)
	}
	if saved.SavedVersion != l.b.SkillVersion+1 {
		t.Errorf("saved as v%d", saved.SavedVersion)
	}
	bs, err := l.store.Bundles(ctx, l.b.SkillID)
	if err != nil || len(bs) != 2 {
		t.Fatalf("%d versions stored, %v", len(bs), err)
	}
	nb, err := bs[1].Decode()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(nb.ReplayRecords()) - len(l.b.ReplayRecords()); n != 2 {
		t.Errorf("the saved version carries %d new replays, want example/a's two", n)
	}
	again, _ := l.store.Comparisons(ctx, l.b.SkillID)
	if len(again) != 1 || again[0].SavedVersion != saved.SavedVersion {
		t.Errorf("the kept record after saving: %+v", again)
	}
	if _, err := w.SaveComparison(ctx, again[0]); err == nil || !strings.Contains(err.Error(), "saved already") {
		t.Errorf("a second save: %v", err)
	}
	none := kept[0]
	none.Cells = nil
	if _, err := w.SaveComparison(ctx, none); err == nil || !strings.Contains(err.Error(), "no model has a replay") {
		t.Errorf("a comparison with no replay: %v", err)
	}
	if _, err := workbench.New(workbench.Deps{}).SaveComparison(ctx, kept[0]); err == nil {
		t.Error("saved with no library")
	}
	gone := kept[0]
	gone.BundleHash = "sha256:" + strings.Repeat("0", 64)
	if _, err := w.SaveComparison(ctx, gone); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the compared version is not stored: %v", err)
	}
}

// TestCompareKeepErr: a comparison of a skill the library does not hold
// still returns its matrix, and says it could not be kept.
func TestCompareKeepErr(t *testing.T) {
	l := newCompareLab(t, compareInputBound)
	w := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(verifier(t)), Store: workbench.UseStore(mem.New())})
	c, err := w.Compare(context.Background(), workbench.CompareRequest{Bundle: l.b, Models: []string{"example/a", "example/b"}, Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(c.KeepErr, store.ErrNotFound) || len(c.BySet) != 1 || c.Final == nil {
		t.Errorf("keep err %v, %d sets, final %v", c.KeepErr, len(c.BySet), c.Final != nil)
	}
}

// TestCompareWritesOnlyWhenAsked: a comparison that asks neither to keep
// nor to save its results leaves the library as it was.
func TestCompareWritesOnlyWhenAsked(t *testing.T) {
	l := newCompareLab(t, compareModelBound, clicking("example/a", "Changelog", 1), clicking("example/b", "Changelog", 1))
	ctx := context.Background()
	before, err := l.store.Bundles(ctx, l.b.SkillID)
	if err != nil {
		t.Fatal(err)
	}
	c, err := l.workbench(t, true).Compare(ctx, workbench.CompareRequest{Bundle: l.b, Models: []string{"example/a", "example/b"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Final == nil || len(c.BySet) != 1 {
		t.Fatalf("compared: final %v, %d sets", c.Final != nil, len(c.BySet))
	}
	kept, err := l.store.Comparisons(ctx, l.b.SkillID)
	if err != nil || len(kept) != 0 {
		t.Errorf("kept %d comparisons (%v); nothing was asked", len(kept), err)
	}
	after, err := l.store.Bundles(ctx, l.b.SkillID)
	if err != nil || len(after) != len(before) {
		t.Errorf("%d bundles after, %d before (%v)", len(after), len(before), err)
	}
}
