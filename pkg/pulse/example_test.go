package pulse_test

import (
	"fmt"
	"time"

	"workbench/pkg/pulse"
)

// A run records one event per phase transition plus the tokens its phases
// emit, and one span per phase and per tool call. Span times are offsets
// from the trace's time origin.
func ExampleRecorder() {
	start := time.Date(2026, 5, 25, 12, 0, 0, 0, time.UTC)
	tick := 0
	clock := func() time.Time { tick++; return start.Add(time.Duration(tick) * 10 * time.Millisecond) }

	r, err := pulse.NewRecorder("019e5f01-9602-721e-94b5-570d5f3c2da9", "simulator",
		pulse.WithClock(clock), pulse.WithTimeOrigin(start))
	if err != nil {
		panic(err)
	}
	retrieve := r.StartPhase(pulse.PhaseRetrieve)
	if _, err := r.TopologyContext(retrieve, pulse.Topology{TaskID: "019e5f01-960a-7b1b-a347-04eedb4f6f50"}); err != nil {
		panic(err)
	}
	act := r.StartPhase(pulse.PhaseAct)
	call := act.ToolCall("simulator", "browser_click", 0)
	call.End()
	learn := r.StartPhase(pulse.PhaseLearn)
	if _, err := r.OutcomeSignal(learn, pulse.Outcome{ActionID: r.TraceID(), Status: pulse.OutcomeSuccess}); err != nil {
		panic(err)
	}
	learn.End()

	for _, e := range r.Events() {
		fmt.Println(e.Time, e.Type)
	}
	tr := r.Trace()
	fmt.Println("time origin", tr.TimeOrigin)
	for _, s := range tr.Spans {
		fmt.Printf("%-19s %-6s %3dms..%3dms\n", s.Name, s.Phase, s.StartUnixNano/1e6, s.EndUnixNano/1e6)
	}
	// Output:
	// 2026-05-25T12:00:00.01Z workbench.v1.PhaseTransition
	// 2026-05-25T12:00:00.02Z org.opensentience.pulse.TopologyContext
	// 2026-05-25T12:00:00.03Z workbench.v1.PhaseTransition
	// 2026-05-25T12:00:00.06Z workbench.v1.PhaseTransition
	// 2026-05-25T12:00:00.07Z org.opensentience.pulse.OutcomeSignal
	// time origin 2026-05-25T12:00:00Z
	// phase retrieve      retrieve  10ms.. 30ms
	// phase act           act     30ms.. 60ms
	// tool browser_click  act     40ms.. 50ms
	// phase learn         learn   60ms.. 80ms
}
