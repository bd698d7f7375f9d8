package capability

import (
	"errors"
	"slices"

	"workbench/pkg/policy"
)

// Pending is the client's side of an approval: the proposal that was
// answered approval_required and the answer.
type Pending struct {
	Proposal Proposal
	Receipt  Receipt
}

// Edited reports whether q differs from the pending proposal; an edited
// proposal needs its own approval.
func (p Pending) Edited(q Proposal) bool { return !p.Proposal.Same(q) }

// Resume is the exact proposal to resubmit after approval: the same
// capability, action, inputs and target, with the approval id and the run
// and session ids the answer bound.
func (p Pending) Resume() Proposal {
	q := p.Proposal
	q.ApprovalID, q.RunID, q.SessionID = p.Receipt.ApprovalID, p.Receipt.RunID, p.Receipt.SessionID
	return q
}

// ResumeOutcome reads the backend's answer to a re-submitted pending
// proposal (Pending.Resume), which is the truth about its approval when
// the backend offers no approvals list: ApprovalGranted when the action
// now runs (or ran), ApprovalPending when it still waits (an
// approval_required answer, or a refusal coded approval_pending),
// ApprovalDenied when the approval or the action was denied, and "" for
// any other answer: the pending state is gone and approval must be
// requested again (err says why).
func ResumeOutcome(rc Receipt, err error) string {
	var re *RefusedError
	switch {
	case errors.As(err, &re) && re.Code == RefusedApprovalPending:
		return ApprovalPending
	case errors.As(err, &re) && (re.Code == RefusedApprovalDenied || re.Code == RefusedDenied):
		return ApprovalDenied
	case err != nil:
		return ""
	case rc.Status == StatusApprovalRequired:
		return ApprovalPending
	case rc.Status == StatusRunning || rc.Synchronous():
		return ApprovalGranted
	}
	return ""
}

// RequesterMayGrant reports whether the user who requested an approval
// may grant it from the dialog they requested it in: not for a
// destructive action, which another surface (or another person) grants.
func RequesterMayGrant(effect policy.Effect) bool { return effect != policy.EffectDestructive }

// Requester is the requester's side of approvals, the state a UI shows
// beside a form: the approvals it requested (with the effect of their
// action, for RequesterMayGrant), and the one approval its open proposal
// waits for. It decides nothing itself: the backend's answers, and the
// decisions an approvals surface reports, move it.
//
// The transitions:
//
//   - Answered with approval_required while the form that asked is open:
//     the proposal waits (Pending); Label offers "Resume approved
//     action".
//   - Edited with another proposal: the pending approval is discarded
//     (it binds the exact proposal) and Discarded says so.
//   - Decided by an approvals surface: the state follows; a denied one
//     cannot be resumed (Blocked).
//   - Resumed: the backend's answer is the truth (ResumeOutcome): still
//     pending, denied, granted (the proposal runs: nothing waits), or
//     anything else (nothing waits; approval must be requested again).
//   - Failed, Closed: nothing waits any more. Reset forgets everything
//     (another backend).
//
// The zero value is ready to use. A Requester is not safe for concurrent
// use: a UI changes it on its one goroutine.
type Requester struct {
	requested map[string]policy.Effect
	pending   *Pending
	state     string
	discarded bool
}

// Pending is the approval the open proposal waits for, or nil.
func (r *Requester) Pending() *Pending { return r.pending }

// State is the pending approval's state as last seen (ApprovalPending,
// ApprovalGranted, ApprovalDenied); "" when nothing waits.
func (r *Requester) State() string { return r.state }

// Discarded reports whether the last edit discarded a pending approval;
// it stays true until the next request or answer.
func (r *Requester) Discarded() bool { return r.discarded }

// Answered records an accepted answer of the governed invoke for proposal
// q, whose action has effect. An approval_required answer is remembered
// as requested and, when shown (the form that asked is still the one
// open), becomes the approval it waits for; any other answer, for the
// open form, leaves nothing waiting.
func (r *Requester) Answered(effect policy.Effect, q Proposal, rc Receipt, shown bool) {
	if rc.Status == StatusApprovalRequired {
		if r.requested == nil {
			r.requested = map[string]policy.Effect{}
		}
		r.requested[rc.ApprovalID] = effect
	}
	if !shown {
		return
	}
	r.discarded = false
	if rc.Status == StatusApprovalRequired {
		r.pending, r.state = &Pending{Proposal: q, Receipt: rc}, ApprovalPending
		return
	}
	r.pending, r.state = nil, ""
}

// Edited tells the Requester the open form now proposes q. When a
// pending approval binds another proposal it is discarded, and Edited
// reports true.
func (r *Requester) Edited(q Proposal) bool {
	if r.pending == nil || !r.pending.Edited(q) {
		return false
	}
	r.pending, r.state, r.discarded = nil, "", true
	return true
}

// Decided tells the Requester an approvals surface decided a.
func (r *Requester) Decided(a Approval) {
	if r.pending != nil && r.pending.Receipt.ApprovalID == a.ID {
		r.state = a.State
	}
}

// Resume is the proposal to resubmit for the pending approval (with the
// user's confirmation, when given now), and false when nothing waits.
func (r *Requester) Resume(confirmed bool) (Proposal, bool) {
	if r.pending == nil {
		return Proposal{}, false
	}
	q := r.pending.Resume()
	q.Confirmed = q.Confirmed || confirmed
	return q, true
}

// Resumed reads the backend's answer to a resubmission (ResumeOutcome)
// and moves the state: still pending, or denied (the proposal stays, and
// cannot be resumed), or — granted, or any other answer — nothing waits
// any more. It returns the outcome for the UI to say.
func (r *Requester) Resumed(rc Receipt, err error) string {
	out := ResumeOutcome(rc, err)
	r.discarded = false
	switch out {
	case ApprovalPending, ApprovalDenied:
		r.state = out
	default:
		r.pending, r.state = nil, ""
	}
	return out
}

// Failed tells the Requester an invocation failed (not a resume the
// backend answered about its approval): a pending approval it was
// resuming is gone, and must be requested again.
func (r *Requester) Failed() { r.pending, r.state = nil, "" }

// Closed tells the Requester the form closed (another capability was
// opened): nothing waits; the approvals requested are remembered.
func (r *Requester) Closed() { r.pending, r.state, r.discarded = nil, "", false }

// Reset forgets everything: another backend.
func (r *Requester) Reset() { *r = Requester{} }

// Label names what the form's button does now: resume the pending
// approval, request one (when the preview says approval is required), or
// invoke.
func (r *Requester) Label(approvalRequired bool) string {
	switch {
	case r.pending != nil:
		return "Resume approved action"
	case approvalRequired:
		return "Request approval"
	}
	return "Invoke"
}

// Blocked says why the pending approval cannot be resumed: it was denied.
// "" when it can — resuming asks the backend, whose answer is the truth —
// or when nothing waits.
func (r *Requester) Blocked() string {
	if r.pending != nil && r.state == ApprovalDenied {
		return "The approval was denied."
	}
	return ""
}

// Withheld lists, sorted, the approvals requested here for a destructive
// action: an approvals surface beside the form offers no Grant for them
// (RequesterMayGrant).
func (r *Requester) Withheld() []string {
	var out []string
	for id, e := range r.requested {
		if !RequesterMayGrant(e) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
