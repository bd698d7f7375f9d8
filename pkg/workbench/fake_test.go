package workbench_test

import (
	"context"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/workbench"
)

// fakeBodies opens every kind as a simulator in the world given, or in
// world when the run has none (an MCP body's stand-in).
func fakeBodies(world []byte) workbench.BodyFactory {
	return func(ctx context.Context, kind body.Kind, w []byte) (body.Body, bool, error) {
		if w == nil {
			w = world
		}
		s, err := sim.New(w)
		if err != nil {
			return nil, false, err
		}
		return s, true, nil
	}
}
