package capability_test

import (
	"context"
	"encoding/json"
	"fmt"

	"workbench/fixtures"
	"workbench/pkg/body/sim"
	"workbench/pkg/capability"
	"workbench/pkg/runs"
)

// A host write from the palette needs approval under
// workbench-capabilities-v1: the first invoke answers approval_required,
// the user grants it on the approvals surface, and the exact proposal is
// resumed. The result arrives as events of the same run.
func ExampleGovernor() {
	ctx := context.Background()
	world, _ := fixtures.World("docs-and-git")
	s, _ := sim.New(world)
	cat, _ := capability.NewCatalog(&capability.Body{Body: s, Trusted: true})
	gov := capability.NewGovernor(ctx, cat, capability.GovernorOptions{})

	p := capability.Proposal{
		CapabilityID: "simulator:file_write",
		Input:        json.RawMessage(`{"path":"notes.txt","content":"hello"}`),
		Target:       "notes.txt",
		Confirmed:    true, // the effect is destructive: the user confirmed it
	}
	pv, _ := gov.Preflight(ctx, p)
	fmt.Println("preflight:", pv.Decision, pv.SideEffect)

	rc, _ := gov.Invoke(ctx, p)
	fmt.Println("invoke:", rc.Status)
	pending := capability.Pending{Proposal: p, Receipt: rc}

	gov.Grant(rc.ApprovalID)
	rc, _ = gov.Invoke(ctx, pending.Resume())
	fmt.Println("resume:", rc.Status)

	tl := runs.NewTimeline(0)
	runs.Follow(ctx, gov.Log(), rc.RunID, tl, func(e runs.Event) { fmt.Println(" ", e.Sequence, e.Type) })
	// Output:
	// preflight: approval_required destructive
	// invoke: approval_required
	// resume: running
	//   1 run_started
	//   2 policy_decision
	//   3 waiting_for_input
	//   4 approval_granted
	//   5 policy_decision
	//   6 tool_call
	//   7 tool_result
	//   8 run_completed
}

// Filtering as the user types: every word must match, best matches first.
func ExampleIndex_Filter() {
	ix := capability.NewIndex([]capability.Capability{
		{ID: "simulator:file_read", Name: "file_read", Title: "file_read", Availability: capability.Available},
		{ID: "simulator:file_write", Name: "file_write", Title: "file_write", Availability: capability.Available},
		{ID: "workbench:verify", Name: "verify", Title: "Verify skill", Availability: capability.Unavailable},
	})
	for _, i := range ix.Filter("file wr") {
		fmt.Println(ix.Capability(i).ID)
	}
	// Output:
	// simulator:file_write
}
