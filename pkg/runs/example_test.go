package runs_test

import (
	"context"
	"fmt"

	"workbench/pkg/runs"
)

// A consumer replays what a run has retained, then follows it live until
// its terminal event.
func ExampleFollow() {
	ctx := context.Background()
	log := runs.NewLog()
	run, _ := log.Start(runs.Start{Kind: runs.KindInvocation, Title: "echo"})
	log.Emit(run.ID, runs.EventToolCall, map[string]string{"tool": "echo"})

	tl := runs.NewTimeline(runs.DefaultRetain)
	state, _ := runs.Replay(ctx, log, run.ID, tl, 100, nil)
	fmt.Println("replayed", tl.Len(), "events; the run is", state)

	go func() {
		log.Emit(run.ID, runs.EventToolResult, map[string]string{"text": "hi"})
		log.Emit(run.ID, runs.EventRunCompleted, nil)
	}()
	res, _ := runs.Follow(ctx, log, run.ID, tl, func(e runs.Event) { fmt.Println("live:", e.Sequence, e.Type) })
	fmt.Println("follow", res.Outcome)
	// Output:
	// replayed 2 events; the run is running
	// live: 3 tool_result
	// live: 4 run_completed
	// follow ended
}
