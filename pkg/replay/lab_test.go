package replay_test

import (
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
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
	"workbench/schemas"
)

// The models of a lab: one teaches, one chooses again on replay.
const (
	teacher  = "example/teacher"
	replayer = "example/replayer"
)

// The projects of the simulator world docs-and-git.
const (
	widget = "https://git.workbench.test/acme/widget"
	gadget = "https://git.workbench.test/acme/gadget"
)

// lab is a simulator world, the OpenRouter stand-in playing a teacher and a
// replayer, and a verifier.
type lab struct {
	t        *testing.T
	world    []byte
	or       *openroutertest.Server
	client   *openrouter.Client
	verifier *verify.Verifier
}

// newLab starts a lab whose teacher demonstrates teach and whose replayer
// answers replay's live calls with again.
func newLab(t *testing.T, teach, again []openroutertest.Step) *lab {
	t.Helper()
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		t.Fatal(err)
	}
	or := openroutertest.New(t, openroutertest.WithScript(
		openroutertest.Script{Model: teacher, Steps: teach, CostPerCall: 0.001},
		openroutertest.Script{Model: replayer, Steps: again, CostPerCall: 0.002}))
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
	return &lab{t: t, world: world, or: or, client: client, verifier: verify.New(sv, all, nil)}
}

func (l *lab) body() *sim.Sim {
	l.t.Helper()
	s, err := sim.New(l.world)
	if err != nil {
		l.t.Fatal(err)
	}
	return s
}

// teach demonstrates the task template with repo_url set to repo,
// crystallizes and seals it, as the /teach route does.
func (l *lab) teach(template, repo string) *skill.Bundle {
	l.t.Helper()
	inputs := map[string]any{"repo_url": repo}
	task := demonstrate.Task{ID: skill.NewID(), Description: strings.ReplaceAll(template, "{repo_url}", repo),
		BodyChoice: body.KindSimulator, Inputs: inputs}
	res, err := demonstrate.Run(context.Background(), task, demonstrate.Options{
		Model: l.client, ModelID: teacher, Body: l.body(), Authorizer: policy.Default(),
		Declared: []string{skill.CapabilityBrowser}, TrustedServer: true,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	in := []crystallize.Input{{InputSpec: skill.InputSpec{Name: "repo_url", Type: "url", Required: true}, Value: repo}}
	m, err := crystallize.Draft(crystallize.Request{Trace: &res.Trace, SkillID: skill.NewID(), BodyChoice: body.KindSimulator, Inputs: in, Now: time.Now()})
	if err != nil {
		l.t.Fatal(err)
	}
	b, err := assemble.Bundle(l.verifier, assemble.Teaching{Task: task, Result: res, Manifest: m, ModelID: teacher}, time.Now(), skill.NewID)
	if err != nil {
		l.t.Fatal(err)
	}
	return b
}

// options are a replay's options under the skill's own policy, with the
// replayer as the model.
func (l *lab) options(b *skill.Bundle, repo string) replay.Options {
	return replay.Options{
		Input: map[string]any{"repo_url": repo}, Deterministic: true,
		Chooser:    replay.ModelChooser{Model: l.client, ModelID: replayer},
		Authorizer: replay.PolicyAuthorizer{Policy: policy.Default(), Declared: b.Manifest.CapabilitiesRequired, BodyKind: body.KindSimulator, TrustedServer: true},
	}
}

// save stores the replay as the next version and re-verifies its bytes.
func (l *lab) save(b *skill.Bundle, rec skill.ReplayRecord) *verify.Report {
	l.t.Helper()
	nb, err := assemble.WithReplay(l.verifier, b, rec, time.Now(), skill.NewID)
	if err != nil {
		l.t.Fatal(err)
	}
	data, err := nb.Encode()
	if err != nil {
		l.t.Fatal(err)
	}
	r, err := l.verifier.Bytes(data)
	if err != nil {
		l.t.Fatalf("the saved replay is not a valid bundle: %v", err)
	}
	if len(r.Overclaims) > 0 {
		l.t.Fatalf("the saved replay overclaims: %v", r.Overclaims)
	}
	return r
}

func gate(p skill.ProofResult, id string) skill.Gate {
	g, _ := p.Gate(id)
	return g
}

// The skills the tests replay.
var (
	// threeClicks opens the project, its README and its changelog; the
	// link names are in the task, so no parameter is the model's.
	threeClicksTask = "Open {repo_url}, then its README, then its Changelog."
	threeClicks     = []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": widget}),
		openroutertest.ToolCall("browser_click", map[string]any{"name": "README"}),
		openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"}),
		openroutertest.Answer("Done."),
	}
	// newestRelease opens the project and clicks its changelog:
	// "Changelog" is not in the task, so the click is the model's choice.
	newestReleaseTask = "Open the project page at {repo_url} and find the newest release."
	newestRelease     = []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": widget}),
		openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"}),
		openroutertest.Answer("v2.4.1"),
	}
	// openChangelog opens the changelog page under the project's URL:
	// the input's value is part of the recorded URL.
	openChangelogTask = "Open the changelog of {repo_url}."
	openChangelog     = []openroutertest.Step{
		openroutertest.ToolCall("browser_navigate", map[string]any{"url": widget + "/changelog"}),
		openroutertest.Answer("v2.4.1"),
	}
)
