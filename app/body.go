package main

import (
	"context"
	"fmt"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/session"
)

// errBodyUnavailable is the answer for a body this build cannot drive yet:
// said as it is, never replaced by the simulator behind the user's back.
type errBodyUnavailable struct{ choice session.Body }

func (e errBodyUnavailable) Error() string {
	return fmt.Sprintf("the %s body is not available yet in this build; pick the simulator on the home page", e.choice)
}

// body returns what a demonstration or a replay acts through for the
// user's body choice, and whether its tool annotations are to be believed
// (DESIGN §7). world is the simulator world the task starts in; the other
// bodies ignore it. This is the one place a body is chosen, so the MCP
// bodies join here when the build has them.
func (e *env) body(ctx context.Context, choice session.Body, world []byte) (b body.Body, trusted bool, err error) {
	switch choice {
	case session.Simulator:
		s, err := sim.New(world)
		if err != nil {
			return nil, false, fmt.Errorf("loading the simulator world: %w", err)
		}
		// The simulator's annotations are its own, in this page.
		return s, true, nil
	case session.Browser, session.Host:
		return nil, false, errBodyUnavailable{choice}
	}
	return nil, false, fmt.Errorf("%q is not a body (want simulator, browser or host)", string(choice))
}
