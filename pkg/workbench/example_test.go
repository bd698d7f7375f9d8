package workbench_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// A front-end builds the Workbench from what it has — here only the
// verifier, so skills replay on the simulator under the local policy
// engine — and replays a skill with a new input. An error it can answer
// comes typed: an input the manifest refuses names the input, and
// delegatic-mcp unavailable for an MCP body is answered by asking the
// user and calling again with AcceptLocalPolicy.
func ExampleFlows_Replay() {
	data, err := os.ReadFile("../../fixtures/valid-skill-bundle.v0.json")
	if err != nil {
		panic(err)
	}
	b, _, err := skill.Decode(data)
	if err != nil {
		panic(err)
	}
	v, err := verify.Standard()
	if err != nil {
		panic(err)
	}
	w := workbench.New(workbench.Deps{Verifier: workbench.UseVerifier(v)})

	_, err = w.Replay(context.Background(), workbench.ReplayRequest{Bundle: b,
		Values: []teach.Value{{Name: "repo_url", Raw: "git.workbench.test/acme"}}})
	var ie *teach.InputError
	if errors.As(err, &ie) {
		fmt.Printf("input %s: %s\n", ie.Name, ie.Msg)
	}

	r, err := w.Replay(context.Background(), workbench.ReplayRequest{Bundle: b})
	if err != nil {
		panic(err)
	}
	fmt.Printf("v%d → v%d, %s, fidelity %s, authorized by %s, verdict %s\n",
		b.SkillVersion, r.Bundle.SkillVersion, r.Record.Report.Status, r.Record.Report.FidelityLevel, r.Authority, r.Verdict())
	// Output:
	// input repo_url: "git.workbench.test/acme" is not an absolute http or https URL
	// v2 → v3, success, fidelity exact, authorized by local:workbench-default-v1, verdict pass
}
