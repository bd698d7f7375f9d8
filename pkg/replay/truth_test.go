package replay_test

import (
	"context"
	"strings"
	"testing"

	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
)

// When the model chooses a parameter again on a new input, it is told the
// truth of this replay: the goal written with the new input, the input
// itself, and what the body shows now — the page the browser is on, not
// the simulated world's other pages or the values the demonstration used.
func TestReplayTellsTheModelTheTruth(t *testing.T) {
	var asked string
	var offered []string
	l := newLab(t, newestRelease, []openroutertest.Step{
		openroutertest.Func(func(r *openroutertest.ChatRequest) openroutertest.Step {
			u, _ := r.LastUser()
			asked, offered = u.Text(), r.ToolNames()
			return openroutertest.ToolCall("browser_click", map[string]any{"name": "Changelog"})
		}),
	})
	b := l.teach(newestReleaseTask, widget)
	if !b.Trace.Edges[1].ModelBound() {
		t.Fatal("the click is not the model's choice: the test proves nothing")
	}
	rec, err := replay.Run(context.Background(), b, l.body(), l.options(b, gadget))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Report.Status != skill.StatusSuccess || rec.Report.ModelUsed != replayer {
		t.Fatalf("replay %s with %s; surprises %+v", rec.Report.Status, rec.Report.ModelUsed, rec.Report.SurpriseSignals)
	}
	// The model is offered the one tool the step needs, not the body's
	// others: it chooses arguments for the recorded call, nothing else.
	if len(offered) != 1 || offered[0] != "browser_click" {
		t.Errorf("the model was offered %v; want only browser_click", offered)
	}
	for _, want := range []string{
		"Goal: Open the project page at " + gadget + " and find the newest release.",
		`Inputs of this replay: {"repo_url":"` + gadget + `"}`,
		"Step 1 calls browser_click.",
		"Arguments to choose from what the body shows now: name",
		// The page the browser is on.
		`"url":"` + gadget + `"`, "Latest release: v0.9.0",
	} {
		if !strings.Contains(asked, want) {
			t.Errorf("the model was not told %q; it was asked:\n%s", want, asked)
		}
	}
	for _, never := range []string{
		"acme/widget",               // the recorded input, and every page of it
		"Widget documentation",      // a page the browser is not on
		"CHANGELOG.md",              // the page the click leads to
		"Find a repository by name", // another page's text
	} {
		if strings.Contains(asked, never) {
			t.Errorf("the model was shown %q, which this replay's body does not show:\n%s", never, asked)
		}
	}
}

func TestGoal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		goal     string
		recorded map[string]any
		input    map[string]any
		want     string
	}{
		{"same input", "Open a.test/x.", map[string]any{"u": "a.test/x"}, map[string]any{"u": "a.test/x"}, "Open a.test/x."},
		{"new input, every occurrence", "Open a.test; then a.test again.", map[string]any{"u": "a.test"}, map[string]any{"u": "b.test"}, "Open b.test; then b.test again."},
		{"one value inside another: the longer wins", "Find Porto in Porto Alegre.",
			map[string]any{"city": "Porto", "place": "Porto Alegre"}, map[string]any{"city": "Lisbon", "place": "Recife"}, "Find Lisbon in Recife."},
		{"values swap without cascading", "From A to B.", map[string]any{"from": "A", "to": "B"}, map[string]any{"from": "B", "to": "A"}, "From B to A."},
		{"numbers are left to the listed input", "Show 3 days.", map[string]any{"days": 3.0}, map[string]any{"days": 5.0}, "Show 3 days."},
		{"an empty recorded value replaces nothing", "Say hi.", map[string]any{"x": ""}, map[string]any{"x": "yo"}, "Say hi."},
		{"an input not given keeps the recorded text", "Open a.test.", map[string]any{"u": "a.test"}, map[string]any{}, "Open a.test."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := replay.Goal(tc.goal, tc.recorded, tc.input); got != tc.want {
				t.Errorf("Goal = %q, want %q", got, tc.want)
			}
		})
	}
}
