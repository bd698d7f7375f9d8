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

// TeachOptions are what a demonstration runs with.
type TeachOptions struct {
	Model           demonstrate.Model
	ModelID         string
	DestructiveMode bool
	// AcceptLocalPolicy is the person's answer to an
	// *AuthorizerUnavailableError for this demonstration, as for Replay.
	AcceptLocalPolicy bool
	// MaxSteps is how many model turns it takes at most; 0 is
	// DefaultMaxSteps.
	MaxSteps int
	// Observe looks at the body when it is open and after each action
	// (teach.Observe), for a front-end that shows what the body shows:
	// TeachStart.View and TeachStep.View.
	Observe bool
	// Started, when set, is called once the body is open and its
	// authority chosen, before the first step; a demonstration that
	// cannot start (the body, the authorizer) returns its error without
	// calling it.
	Started func(TeachStart)
	// Progress, when set, is called for each step as it happens. Both are
	// called on the demonstration's goroutine.
	Progress func(TeachStep)
	// Stop, when closed, ends the recording at the next step and keeps
	// what was recorded (the /teach page's "Stop recording").
	Stop <-chan struct{}
}

// TeachStart is a demonstration that has started: who authorizes its
// actions and, with Observe, the body's first view.
type TeachStart struct {
	// Authority names the authorizer; Fallback says the local engine
	// stands in for delegatic-mcp on the person's say-so, Unavailable why
	// delegatic-mcp could not.
	Authority   string
	Fallback    bool
	Unavailable error
	View        *teach.View
	ViewErr     error
}

// TeachStep is one step of a demonstration as it happens and, with
// Observe, after an action or at the end, what the body shows then.
type TeachStep struct {
	TeachProgress
	View    *teach.View
	ViewErr error
}

// Taught is a finished demonstration and the draft manifest made from it:
// what a person reads, edits and saves.
type Taught struct {
	Plan    *teach.Plan
	ModelID string
	// Result is what the demonstration recorded, even when it stopped
	// early.
	Result *TeachResult
	// Authority names who authorized every action; Fallback says it was
	// the local engine on the person's say-so.
	Authority string
	Fallback  bool
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

// Teach is the teach flow: it opens the body the plan's task runs on and
// chooses its authorizer (spec OQ-2, as a replay does), runs the
// demonstration with o.Model (teach.Demonstrate), reporting o.Started and
// each step to o.Progress, closes the body, and crystallizes what was
// recorded into a draft (teach.Draft, at the flows' clock). Nothing is
// stored: SealTaught and StoreTaught save. A demonstration that could not
// start (the body, or an *AuthorizerUnavailableError) is an error with a
// nil Taught. One that ran but cannot be drafted — it
// failed, was cancelled, or never acted (teach.ErrNothingDemonstrated) —
// returns the Taught with its Result, for its events, answer and cost,
// and the error.
func (fl *Flows) Teach(ctx context.Context, p *teach.Plan, o TeachOptions) (*Taught, error) {
	rig, err := fl.openTeach(ctx, p, o.AcceptLocalPolicy)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	a := rig.authority
	if o.Started != nil {
		s := TeachStart{Authority: a.Name, Fallback: a.Fallback, Unavailable: a.Unavailable}
		if o.Observe {
			v, err := teach.Observe(ctx, rig.body)
			s.View, s.ViewErr = &v, err
		}
		o.Started(s)
	}
	var progress func(TeachProgress)
	if o.Progress != nil {
		progress = func(pr TeachProgress) {
			st := TeachStep{TeachProgress: pr}
			if pr.Edge != nil {
				e := *pr.Edge // the caller may keep it
				st.Edge = &e
			}
			if o.Observe && (pr.Phase == TeachPhaseAct || pr.Phase == TeachPhaseStopped) {
				v, err := teach.Observe(ctx, rig.body)
				st.View, st.ViewErr = &v, err
			}
			o.Progress(st)
		}
	}
	res, err := teach.Demonstrate(ctx, p, teach.Options{
		Model: o.Model, ModelID: o.ModelID, DestructiveMode: o.DestructiveMode, MaxSteps: o.MaxSteps,
		Progress: progress, Stop: o.Stop,
		Body: rig.body, Authorizer: a.auth, TrustedServer: rig.trusted,
	})
	if err != nil {
		return nil, err
	}
	t := &Taught{Plan: p, ModelID: o.ModelID, Result: res, Authority: a.Name, Fallback: a.Fallback}
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
