package demonstrate_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/demonstrate"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/skill"
)

// Unreadable replies, however they are unreadable.
var (
	garbage    = openroutertest.Malformed("<html>502 Bad Gateway</html>")
	brokenJSON = openroutertest.Malformed(`{"id":"gen-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"I will open the pa"ge"}}]}`)
	oversized  = openroutertest.Malformed(`{"id":"` + strings.Repeat("x", openrouter.MaxResponseBytes) + `"}`)
	badArgs    = openroutertest.ToolCallRaw("browser_navigate", `{"url": `)
)

var navigate = openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://docs.workbench.test/getting-started"})

// demo runs a demonstration on the simulator against the stand-in with
// steps, with the step limit well above them.
func demo(t *testing.T, steps ...openroutertest.Step) (*demonstrate.Result, *openroutertest.Server) {
	t.Helper()
	world, err := fixtures.World("docs-and-git")
	if err != nil {
		t.Fatal(err)
	}
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "test/model", Steps: steps, CostPerCall: 0.001}))
	// net/http, not the default: under js/wasm the default is the
	// JavaScript fetch, which cannot reach the in-process test server.
	client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(world)
	if err != nil {
		t.Fatal(err)
	}
	res, err := demonstrate.Run(context.Background(), demonstrate.Task{ID: skill.NewID(), Description: "Find the heading."}, demonstrate.Options{
		Model: client, ModelID: "test/model", Body: s, Authorizer: policy.Default(),
		Declared: []string{skill.CapabilityBrowser}, TrustedServer: true, MaxSteps: 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, or
}

// Replies that cannot be read are asked again openrouter.UnreadableRetries
// times in a row; the next one stops the run with an error that says the
// replies were unreadable, not that the model answered without acting or
// ran out of steps.
func TestUnreadableRepliesStopTheRun(t *testing.T) {
	for _, tt := range []struct {
		name string
		bad  openroutertest.Step
		want string // in the last reply's reason
	}{
		{"garbage", garbage, "not a chat completion"},
		{"broken", brokenJSON, "not a chat completion"},
		{"oversized", oversized, "larger than"},
		{"arguments not JSON", badArgs, "not valid JSON"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			steps := []openroutertest.Step{tt.bad, tt.bad, tt.bad, navigate}
			res, or := demo(t, steps...)
			if res.Stopped != demonstrate.StopError {
				t.Fatalf("stopped %s (%v), want %s", res.Stopped, res.Err, demonstrate.StopError)
			}
			var ue *openrouter.UnreadableError
			if !errors.As(res.Err, &ue) || ue.Replies != openrouter.UnreadableRetries+1 {
				t.Fatalf("error %v, want an UnreadableError after %d replies", res.Err, openrouter.UnreadableRetries+1)
			}
			if msg := res.Err.Error(); !strings.Contains(msg, "replies were unreadable") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q does not say the replies were unreadable (%s)", msg, tt.want)
			}
			if n := len(or.ChatRequests("test/model")); n != openrouter.UnreadableRetries+1 {
				t.Errorf("%d requests, want %d", n, openrouter.UnreadableRetries+1)
			}
			if len(res.Trace.Edges) != 0 {
				t.Errorf("%d edges from unreadable replies", len(res.Trace.Edges))
			}
		})
	}
}

// A model whose replies turn readable again within the bound goes on, and
// a readable reply starts the count afresh.
func TestUnreadableRepliesWithinTheBound(t *testing.T) {
	res, _ := demo(t, garbage, oversized, navigate, brokenJSON, badArgs, openroutertest.Answer("Getting started"))
	if res.Stopped != demonstrate.StopAnswer || len(res.Trace.Edges) != 1 {
		t.Fatalf("stopped %s with %d edges (%v), want an answer after one edge", res.Stopped, len(res.Trace.Edges), res.Err)
	}
	notes := 0
	for _, turn := range res.Transcript {
		if turn.Role == "user" && strings.HasPrefix(*turn.Content, "error: your last reply could not be read") {
			notes++
		}
	}
	if notes != 4 {
		t.Errorf("the model was told of %d unreadable replies, want 4", notes)
	}
}

// A reply cut off on the way is not an unreadable one: the run stops at
// that step with the cut named, the model is not asked again, and the
// recording up to it is kept. Whether the connection broke off or the
// JSON ended early (as a host that cannot break a body off passes it on).
func TestCutReplyStopsTheRun(t *testing.T) {
	for _, tt := range []struct {
		name string
		cut  openroutertest.Step
		want string
	}{
		{"broken off", openroutertest.CutOff(openroutertest.Answer("Getting started"), 50), "the connection broke off"},
		{"ended early", openroutertest.Malformed(`{"id":"gen-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis`), "the JSON ends before its end"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, or := demo(t, navigate, tt.cut, openroutertest.Answer("asked again"))
			var ce *openrouter.CutError
			if res.Stopped != demonstrate.StopError || !errors.As(res.Err, &ce) || !strings.Contains(res.Err.Error(), tt.want) {
				t.Fatalf("stopped %s (%v), want %s with a CutError saying %q", res.Stopped, res.Err, demonstrate.StopError, tt.want)
			}
			if len(res.Trace.Edges) != 1 || res.Answer != "" {
				t.Errorf("%d edges, answer %q; want the one edge before the cut and no answer", len(res.Trace.Edges), res.Answer)
			}
			if n := len(or.ChatRequests("test/model")); n != 2 {
				t.Errorf("%d requests, want 2: the model is not asked again", n)
			}
		})
	}
}
