package capability

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/openrouter"
	"workbench/pkg/openrouter/openroutertest"
	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/skill"
	"workbench/pkg/workbench"
)

// TestDemonstrateChoosesTheAuthorizer: the palette's demonstration takes
// its authorizer by the flow's rule (spec OQ-2), as the teach page does:
// delegatic-mcp when it answers, and when it cannot, nothing runs until
// the user accepts the local engine with accept_local_policy.
func TestDemonstrateChoosesTheAuthorizer(t *testing.T) {
	unreachable := func(context.Context, body.Kind, string) (delegatic.Choice, error) {
		return delegatic.Choice{Fallback: policy.Default()}, errors.New("delegatic-mcp did not answer")
	}
	answering := func(context.Context, body.Kind, string) (delegatic.Choice, error) {
		return delegatic.Choice{Authorizer: policy.Default(), Name: delegatic.Name}, nil
	}
	for _, tc := range []struct {
		name       string
		choose     workbench.AuthorizerChooser
		accept     bool
		authorizer string // "" when an error is wanted
		err        string
	}{
		{name: "no delegatic-mcp configured", authorizer: "local:" + skill.DefaultPolicyID},
		{name: "delegatic-mcp answers", choose: answering, authorizer: delegatic.Name},
		{name: "delegatic-mcp unreachable", choose: unreachable, err: "ask again with accept_local_policy"},
		{name: "local engine accepted", choose: unreachable, accept: true, authorizer: "local:" + skill.DefaultPolicyID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			or := openroutertest.New(t, openroutertest.WithScript(openroutertest.Script{Model: "example/teacher",
				Steps: []openroutertest.Step{
					openroutertest.ToolCall("browser_navigate", map[string]any{"url": "https://git.workbench.test/acme/widget"}),
					openroutertest.Answer("done"),
				}}))
			client, err := openrouter.New(or.Key, openrouter.WithBaseURL(or.APIBase()), openrouter.WithHTTPClient(http.DefaultClient))
			if err != nil {
				t.Fatal(err)
			}
			w := withFlows(&BuiltIn{Model: client}, workbench.Deps{Authorizers: tc.choose})
			in, _ := json.Marshal(map[string]any{"scenario": fixtures.ModelComparison, "model": "example/teacher", "accept_local_policy": tc.accept})
			res, err := w.demonstrate(context.Background(), in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("demonstrate = %v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]any
			if err := json.Unmarshal(res.Value, &out); err != nil {
				t.Fatal(err)
			}
			if out["authorizer"] != tc.authorizer || out["edges"] != float64(1) {
				t.Errorf("demonstration: %v; want authorizer %s and one edge", out, tc.authorizer)
			}
		})
	}
}
