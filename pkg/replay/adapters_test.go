package replay_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"workbench/pkg/body"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
)

// choose asks ModelChooser, backed by the stand-in playing steps, for the
// parameters of a recorded browser_navigate.
func choose(t *testing.T, steps ...openroutertest.Step) (replay.Choice, error, *openroutertest.Server) {
	t.Helper()
	or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "test/model", Steps: steps, CostPerCall: 0.001}))
	client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	m := replay.ModelChooser{Model: client, ModelID: "test/model"}
	e := skill.Edge{Index: 0, Tool: skill.ToolCall{Name: "browser_navigate", Arguments: map[string]any{"url": "https://a.test/"}}}
	tools := []body.Tool{{Name: "browser_navigate", Description: "Go to a URL.", InputSchema: []byte(`{"type":"object","properties":{"url":{"type":"string"}}}`)}}
	c, err := m.Choose(context.Background(), replay.Step{Edge: e, Goal: "Open the page.", Choose: []string{"url"}, Tools: tools, Observation: map[string]any{"page": "a"}})
	return c, err, or
}

var navigate = openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://b.test/"})

// A reply cut off on the way fails the choice at once, naming the cut:
// the model is not asked again about a reply it never got to finish.
func TestChooseCutReply(t *testing.T) {
	_, err, or := choose(t, openroutertest.CutOff(navigate, 40), navigate)
	var ce *openrouter.CutError
	if !errors.As(err, &ce) || errors.Is(err, replay.ErrRefused) {
		t.Fatalf("error %v, want a CutError", err)
	}
	if n := or.Remaining("test/model"); n != 1 {
		t.Errorf("%d steps left, want 1: no second request", n)
	}
}

// Unreadable replies are asked again openrouter.UnreadableRetries times in
// a row; then the choice fails with an error that says the replies were
// unreadable.
func TestChooseUnreadableReplies(t *testing.T) {
	garbage := openroutertest.Malformed("garbage")
	broken := openroutertest.Malformed(`{"id":"gen-1","choices":[{"index":0,"message":{"role":"assis"tant"}}]}`)
	oversized := openroutertest.Malformed(`"` + strings.Repeat("x", openrouter.MaxResponseBytes) + `"`)
	for _, tt := range []struct {
		name string
		bad  openroutertest.Step
	}{{"garbage", garbage}, {"broken", broken}, {"oversized", oversized}} {
		t.Run(tt.name, func(t *testing.T) {
			_, err, or := choose(t, tt.bad, tt.bad, tt.bad, navigate)
			var ue *openrouter.UnreadableError
			if !errors.As(err, &ue) || ue.Replies != openrouter.UnreadableRetries+1 || !strings.Contains(err.Error(), "replies were unreadable") {
				t.Fatalf("error %v, want an UnreadableError after %d replies", err, openrouter.UnreadableRetries+1)
			}
			if errors.Is(err, replay.ErrRefused) {
				t.Error("unreadable replies read as a refusal")
			}
			if n := or.Remaining("test/model"); n != 1 {
				t.Errorf("%d steps left, want 1: the retries are bounded", n)
			}
		})
	}
	t.Run("readable within the bound", func(t *testing.T) {
		c, err, or := choose(t, garbage, broken, navigate)
		if err != nil || c.Tool != "browser_navigate" || c.Arguments["url"] != "https://b.test/" {
			t.Fatalf("choice %+v, %v", c, err)
		}
		reqs := or.ChatRequests("test/model")
		if last, ok := reqs[len(reqs)-1].LastUser(); !ok || !strings.Contains(last.Text(), "could not be read") {
			t.Errorf("the model was not told its reply could not be read: %q", last.Text())
		}
	})
}
