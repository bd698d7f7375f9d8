package main

import (
	"context"

	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// newFlows is the flow layer as a command offers it, the one place the
// command line makes it: the verifier, no library (a command reads and
// writes files), the bodies the command's flags name, and the model
// client its flags reach (nil: the command asks no model).
//
// A terminal run has no delegatic-mcp (spec OQ-2). The command line's
// standing answer is acceptLocal: giving --body is the person's say-so
// for the local policy engine, which every authorization block then
// names; without --body the run is on the simulator, which the local
// engine authorizes in any case.
func newFlows(v *verify.Verifier, bodies workbench.BodyFactory, models func(context.Context) (workbench.Model, error), acceptLocal bool) *workbench.Flows {
	return workbench.New(workbench.Deps{
		Verifier:           workbench.UseVerifier(v),
		Bodies:             bodies,
		Models:             models,
		AcceptsLocalPolicy: func() bool { return acceptLocal },
	})
}

// clientOf is the model factory of the command's model flags.
func clientOf(mf modelFlags) func(context.Context) (workbench.Model, error) {
	return func(ctx context.Context) (workbench.Model, error) {
		cl, err := mf.client(ctx)
		if err != nil {
			return nil, err
		}
		return cl, nil
	}
}
