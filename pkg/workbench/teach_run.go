package workbench

import (
	"context"
	"errors"
	"fmt"

	"workbench/pkg/demonstrate"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
)

// DefaultMaxSteps is how many model turns a demonstration takes at most
// unless told otherwise.
const DefaultMaxSteps = demonstrate.DefaultMaxSteps

// TeachProgress is one step of a demonstration as it happens, for a
// front-end to show.
type TeachProgress = demonstrate.Progress

// TeachPhase is what a demonstration step is doing when it reports
// progress (TeachProgress.Phase).
type TeachPhase = demonstrate.StepPhase

// The phases a demonstration step reports.
const (
	TeachPhaseModel     = demonstrate.PhaseModel     // asking the model, or what its reply was not
	TeachPhasePerceive  = demonstrate.PhasePerceive  // observing the body before acting
	TeachPhaseAuthorize = demonstrate.PhaseAuthorize // asking the authorizer
	TeachPhaseAct       = demonstrate.PhaseAct       // the action ran, was refused or failed; Edge is set
	TeachPhaseAnswer    = demonstrate.PhaseAnswer    // the model gave its final answer
	TeachPhaseStopped   = demonstrate.PhaseStopped   // the demonstration ended; Detail is why
)

// TeachResult is what a demonstration recorded: the trace, the model's
// answer, the cost, the PULSE recorder, and why it stopped.
type TeachResult = demonstrate.Result

// Why a demonstration stopped (TeachResult.Stopped).
const (
	TeachStopAnswer    = demonstrate.StopAnswer    // the model gave its final answer
	TeachStopUser      = demonstrate.StopUser      // the person stopped the recording
	TeachStopStepLimit = demonstrate.StopStepLimit // the model ran out of turns
	TeachStopCancelled = demonstrate.StopCancelled // the context ended
	TeachStopError     = demonstrate.StopError     // the model or the body failed
)

// TeachOptions are what a demonstration runs with besides its rig.
type TeachOptions struct {
	Model           demonstrate.Model
	ModelID         string
	DestructiveMode bool
	// MaxSteps is how many model turns it takes at most; 0 is
	// DefaultMaxSteps.
	MaxSteps int
	// Progress, when set, is called for each step as it happens, on the
	// demonstration's goroutine.
	Progress func(TeachProgress)
	// Stop, when closed, ends the recording at the next step and keeps
	// what was recorded (the /teach page's "Stop recording").
	Stop <-chan struct{}
}

// Taught is a finished demonstration and the draft manifest made from it:
// what a person reads, edits and saves.
type Taught struct {
	Plan    *teach.Plan
	ModelID string
	// Result is what the demonstration recorded, even when it stopped
	// early.
	Result *TeachResult
	// Draft is the crystallized manifest with its default name and slug,
	// made from the goal after its secrets were masked; zero when Teach
	// returned an error with the result.
	Draft skill.Manifest
}

// StepLimited reports whether the model did not finish within its turns:
// the draft holds what it did.
func (t *Taught) StepLimited() bool {
	return t.Result != nil && t.Result.Stopped == TeachStopStepLimit
}

// Teach runs the plan's demonstration with o.Model on the rig's body
// under the rig's authority (teach.Demonstrate) and crystallizes what it recorded into a
// draft (teach.Draft, at the flows' clock). The caller opened the
// rig (OpenTeach) and closes it. A demonstration that could not start is
// an error with a nil Taught. One that ran but cannot be drafted — it
// failed, was cancelled, or never acted (teach.ErrNothingDemonstrated) —
// returns the Taught with its Result, for its events, answer and cost,
// and the error.
func (fl *Flows) Teach(ctx context.Context, p *teach.Plan, rig *TeachRig, o TeachOptions) (*Taught, error) {
	if p == nil {
		return nil, errors.New("teach: no plan")
	}
	if rig == nil || rig.Authority == nil {
		return nil, errors.New("teach: no body nor authorizer: open them with OpenTeach")
	}
	res, err := teach.Demonstrate(ctx, p, teach.Options{
		Model: o.Model, ModelID: o.ModelID, DestructiveMode: o.DestructiveMode, MaxSteps: o.MaxSteps,
		Progress: o.Progress, Stop: o.Stop,
		Body: rig.Body, Authorizer: rig.Authority.auth, TrustedServer: rig.Trusted,
	})
	if err != nil {
		return nil, err
	}
	t := &Taught{Plan: p, ModelID: o.ModelID, Result: res}
	if t.Draft, err = teach.Draft(p, res, fl.now()); err != nil {
		return t, err
	}
	return t, nil
}

// SummarizeTaught is the summary a person reads before saving: the edges
// the policy refused and those that failed, the cost, and the verdict the
// bundle sealed with manifest m would get (teach.Summarize). Nothing is
// sealed or stored.
func (fl *Flows) SummarizeTaught(ctx context.Context, t *Taught, m skill.Manifest) (teach.Summary, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return teach.Summary{}, fmt.Errorf("teach: summary: %w", err)
	}
	return teach.Summarize(v, t.Plan, t.Result, m, t.ModelID, fl.now())
}

// SavedSkill is a taught skill sealed, verified and, with a library,
// stored.
type SavedSkill struct {
	Bundle *skill.Bundle
	// Report is the verification of the bundle's exported bytes.
	Report *verify.Report
	// Ready says the bundle is as good as a bundle can be before its
	// first replay (teach.Ready): no overclaim, every gate passes but
	// gate.replay_fidelity.
	Ready bool
	// Skill is the library's record once StoreTaught stored it; zero
	// before (the command line writes a file instead).
	Skill store.Skill
}

// SealTaught seals the demonstration with manifest m and verifies the
// exported bytes; a bundle that does not verify is an error. Sealing
// changes nothing it is given, so it may be tried again.
func (fl *Flows) SealTaught(ctx context.Context, t *Taught, m skill.Manifest) (*SavedSkill, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return nil, fmt.Errorf("teach: seal: %w", err)
	}
	if t == nil || t.Result == nil {
		return nil, errors.New("teach: seal: no demonstration")
	}
	b, rep, err := teach.Seal(v, t.Plan, t.Result, m, t.ModelID, fl.now())
	if err != nil {
		return nil, fmt.Errorf("teach: seal: %w", err)
	}
	return &SavedSkill{Bundle: b, Report: rep, Ready: teach.Ready(rep)}, nil
}

// StoreTaught stores a sealed skill in the library, in one transaction,
// and sets s.Skill to the library's record. A front-end that keeps the
// sealed skill after a failed store (the browser's storage was full, a
// tab blocked the database) stores the same bundle on the next try. An
// error means nothing was stored.
func (fl *Flows) StoreTaught(ctx context.Context, s *SavedSkill) error {
	st, err := fl.library(ctx)
	if err != nil {
		return fmt.Errorf("teach: save: %w", err)
	}
	f, err := store.EncodeBundle(s.Bundle)
	if err != nil {
		return fmt.Errorf("teach: save: %w", err)
	}
	sk, err := st.AddBundle(ctx, f)
	if err != nil {
		return fmt.Errorf("teach: save: %w", err)
	}
	s.Skill = sk
	return nil
}
