// Package workbench is the flow layer: each flow the workbench offers —
// teach, replay, compare, judge, import, export and saving an edited
// manifest — is written here once, as a method of Workbench, and the
// front-ends (the app, cmd/workbench and the capability workbench in
// pkg/capability) only arrange its inputs, show its progress and its
// result, and answer its typed errors.
//
// A flow decides everything a person or a terminal could otherwise decide
// differently: which inputs are valid, which authorizer applies and when
// the local policy may stand in for an unavailable one, when a model is
// needed, how a result is verified and stored. A flow returns domain
// values (skill.Bundle, verify.Report, …), reports progress through a
// callback it is given, and never renders anything.
package workbench

import (
	"time"

	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// Workbench runs the flows with the dependencies in its fields. A nil
// dependency is a missing precondition: a flow that needs it returns an
// error saying so, and the flows that do not need it still run.
//
// A Workbench holds no state of its own between calls, so one value may
// serve every page of the app, a whole CLI run, or the palette.
type Workbench struct {
	// Verifier seals and re-derives proofs; every flow that writes or
	// judges a bundle needs it.
	Verifier *verify.Verifier
	// Store is the local library; nil when none is open (the CLI reads
	// and writes files instead).
	Store store.Store
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// Replay (replay.go): the bodies a replay runs on (nil: the simulator
	// only), spec OQ-2's authorizer choice (nil: no delegatic-mcp), the
	// model client (nil: no key) and the judge (nil: none configured).
	Bodies      BodyFactory
	Authorizers AuthorizerChooser
	Models      ModelFactory
	Judges      JudgeFactory

	// AcceptsLocalPolicy is the person's standing answer to spec OQ-2
	// (the app keeps it for the tab, session.LocalPolicy): true lets
	// every run whose delegatic-mcp cannot decide go on under the local
	// policy engine, as a request's AcceptLocalPolicy does for one run.
	// nil, or false, leaves each run to ask (*AuthorizerUnavailableError).
	// Every authorization block still names the engine that decided.
	AcceptsLocalPolicy func() bool
}

// acceptsLocal reports the standing answer, or one run's acceptLocal.
func (w *Workbench) acceptsLocal(acceptLocal bool) bool {
	return acceptLocal || w.AcceptsLocalPolicy != nil && w.AcceptsLocalPolicy()
}

// now reads the Workbench's clock.
func (w *Workbench) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}
