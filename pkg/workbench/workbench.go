// Package workbench is the flow layer: each flow the workbench offers is
// written here once, as a method of Flows, and the front-ends (the app,
// cmd/workbench and the capability palette's built-in actions) only
// arrange its inputs, show its progress and its result, and answer its
// typed errors. Each front-end makes its Flows once, with New.
//
// The flows:
//
//   - teach: PlanTeach (every check, connecting to nothing), then Teach
//     (the body and its authority, the demonstration with its progress,
//     its draft); SummarizeTaught before saving; SealTaught and
//     StoreTaught to save;
//   - replay: PrepareReplay (the checks, connecting to nothing), ModelFor,
//     Replay, and SaveReplay to store the new version;
//   - compare: Compare, and SaveComparison for a kept comparison;
//   - import: Import and ResolveImport (a collision, as the person chose);
//   - export: Export (redact, re-seal, verify);
//   - editing a manifest: CheckDraft and SaveManifest;
//   - reading a stored version: Load (verified, its signer checked
//     against the trusted signers), and CheckSignature for a report at
//     hand.
//
// A flow decides everything a person or a terminal could otherwise decide
// differently: which inputs are valid, which authorizer applies and when
// the local policy may stand in for an unavailable one, when a model is
// needed and which one, how a result is verified and stored. A flow
// writes to the library only when asked to (SaveReplay, StoreTaught,
// Compare with Keep or Save, SaveComparison, SaveManifest, Import). It
// returns domain values (skill.Bundle, verify.Report, …), reports progress
// through a callback it is given, and never renders anything.
package workbench

import (
	"context"
	"fmt"
	"time"

	"workbench/pkg/signature"
	"workbench/pkg/store"
	"workbench/pkg/verify"
)

// Flows runs the flows with the dependencies New was given. A missing
// dependency is a missing precondition: a flow that needs it returns an
// error saying so, and the flows that do not need it still run.
//
// Flows holds no state of its own between calls, so one value serves
// every page of the app, a whole CLI run, or the capability palette: each
// front-end makes it once, with New, from its own environment.
type Flows struct {
	d Deps
}

// Deps are what the flows run with. The verifier and the library are
// providers, asked when a flow needs them, so that a front-end that opens
// them lazily (the app compiles the schemas and opens IndexedDB on first
// use) builds its Flows once at start. UseVerifier and UseStore adapt a
// value at hand.
type Deps struct {
	// Verifier seals and re-derives proofs; every flow that writes or
	// judges a bundle needs it. nil, or a provider answering nil, is none.
	Verifier func(ctx context.Context) (*verify.Verifier, error)
	// Store is the local library; nil when there is none (the CLI reads
	// and writes files instead).
	Store func(ctx context.Context) (store.Store, error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Pins are the person's trusted signers; nil, or none, trusts no
	// signer (a signature that verifies is then unverified).
	Pins func(ctx context.Context) (*signature.PinSet, error)
	// Importer, when given, imports bundle files in place of the flows'
	// own verifier and library (the app's reads them in a Web Worker, so
	// the page stays responsive); Import and ResolveImport still check
	// its reports' signatures against Pins. nil imports here.
	Importer func(ctx context.Context) (Importer, error)

	// The bodies a run acts on (nil: the simulator only), spec OQ-2's
	// authorizer choice (nil: no delegatic-mcp), the model client (nil:
	// no key) and the judge (nil: none configured).
	Bodies      BodyFactory
	Authorizers AuthorizerChooser
	Models      ModelFactory
	Judges      JudgeFactory

	// AcceptsLocalPolicy is the person's standing answer to spec OQ-2
	// (the app keeps it for the tab, session.LocalPolicy; the CLI takes
	// it from a flag): true lets every run whose delegatic-mcp cannot
	// decide go on under the local policy engine, as a request's
	// AcceptLocalPolicy does for one run. nil, or false, leaves each run
	// to ask (*AuthorizerUnavailableError). Every authorization block
	// still names the engine that decided.
	AcceptsLocalPolicy func() bool
}

// New returns the flows over d. It is the only way to make a Flows.
func New(d Deps) *Flows {
	return &Flows{d: d}
}

// UseVerifier is a provider of a verifier already at hand (nil: none).
func UseVerifier(v *verify.Verifier) func(context.Context) (*verify.Verifier, error) {
	return func(context.Context) (*verify.Verifier, error) { return v, nil }
}

// UseStore is a provider of a library already open (nil: none).
func UseStore(st store.Store) func(context.Context) (store.Store, error) {
	return func(context.Context) (store.Store, error) { return st, nil }
}

// verifier asks the provider for the verifier; what has none says so.
func (fl *Flows) verifier(ctx context.Context) (*verify.Verifier, error) {
	if fl.d.Verifier == nil {
		return nil, ErrNoVerifier
	}
	v, err := fl.d.Verifier(ctx)
	if err != nil {
		return nil, fmt.Errorf("the verifier: %w", err)
	}
	if v == nil {
		return nil, ErrNoVerifier
	}
	return v, nil
}

// library asks the provider for the local library; what has none says so.
func (fl *Flows) library(ctx context.Context) (store.Store, error) {
	if fl.d.Store == nil {
		return nil, ErrNoLibrary
	}
	st, err := fl.d.Store(ctx)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, ErrNoLibrary
	}
	return st, nil
}

// acceptsLocal reports the standing answer, or one run's acceptLocal.
func (fl *Flows) acceptsLocal(acceptLocal bool) bool {
	return acceptLocal || fl.d.AcceptsLocalPolicy != nil && fl.d.AcceptsLocalPolicy()
}

// now reads the clock.
func (fl *Flows) now() time.Time {
	if fl.d.Now != nil {
		return fl.d.Now()
	}
	return time.Now()
}
