package main

import (
	"fmt"
	"reflect"
	"strings"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/schemaform"
	"workbench/pkg/skill"
)

// formState is the capability palette's form: the capability opened, its
// refreshed descriptor, the action chosen among its actions, the form
// generated from that action's schema, the preflight preview of what the
// form proposes, the confirmation, the invocation's outcome, and the
// requester's side of approvals (capability.Requester). Its methods are
// the form's state changes; the paletteForm component does the I/O and
// shows what they leave. It holds nothing of its own making: every
// decision and result came from the backend.
type formState struct {
	id      string // the capability opened; "" when none is
	desc    *capability.Capability
	descErr string
	// seen is desc as seen through the chosen action (capability.Act):
	// its name, schema, side effect and render hint.
	seen    capability.Capability
	form    *schemaform.Form
	formCtx schemaform.Context // the page context the form was prefilled from
	formErr string
	// revision changes when the form is replaced or prefilled anew, for
	// the schemaForm component to show it.
	revision int

	preview    *capability.Preview
	previewErr string
	previewSeq int
	proposed   *capability.Proposal // the proposal the preview is for

	confirmed bool
	invoking  bool
	invokeErr string
	started   string           // what the invocation's answer says
	result    *capability.View // a synchronous answer, through the renderer registry
	reg       *capability.Registry

	req capability.Requester
}

// open starts over on the capability id ("" closes the form): its
// descriptor is to be refreshed. What this dialog requested stays known
// (the approvals panel withholds Grant on them); nothing waits any more.
func (s *formState) open(id string) {
	req, reg := s.req, s.reg
	req.Closed()
	*s = formState{id: id, req: req, reg: reg, revision: s.revision + 1}
}

// described takes the refreshed descriptor and opens its first action.
func (s *formState) described(d capability.Capability, pc schemaform.Context) {
	s.desc = &d
	s.choose(d.ActionList()[0].Name, pc)
}

// describeFailed says why the descriptor could not be refreshed.
func (s *formState) describeFailed(why string) { s.descErr = why }

// choose opens action name of the capability: a form from its schema,
// prefilled from the page context pc; its preview is to be asked for.
// Another action is another proposal: a pending approval is discarded.
func (s *formState) choose(name string, pc schemaform.Context) {
	s.clearOutcome()
	s.preview, s.previewErr, s.proposed, s.confirmed, s.form, s.formErr = nil, "", nil, false, nil, ""
	s.revision++
	seen, err := s.desc.Act(name)
	if err != nil {
		s.formErr = err.Error()
		return
	}
	s.seen = seen
	f, err := schemaform.Compile(seen.InputSchema)
	if err != nil {
		s.formErr = "No form for this input schema: " + err.Error()
		return
	}
	f.Prefill(pc)
	s.form, s.formCtx = f, pc
	if q, ok := s.proposal(); ok {
		s.req.Edited(q)
	}
}

// ready reports whether the form can propose anything.
func (s *formState) ready() bool { return s.desc != nil && s.form != nil }

// proposal is what the form proposes now. The target is the page's
// selected target (schemaform.Context.SelectedTarget of the context the
// form was prefilled from), never a value guessed from the input's field
// names; it is shown beside the form, never hidden.
func (s *formState) proposal() (capability.Proposal, bool) {
	if !s.ready() {
		return capability.Proposal{}, false
	}
	in, errs := s.form.JSON()
	if len(errs) > 0 && in == nil {
		return capability.Proposal{}, false
	}
	target, _ := s.formCtx.SelectedTarget()
	return capability.Proposal{CapabilityID: s.desc.ID, Action: s.seen.Name, Input: in, Target: target, Confirmed: s.confirmed}, true
}

// edited takes a change of the form, and reports whether it changed the
// proposal (then the preview is to be asked for again). An edit that
// changes the proposal clears the last outcome and discards a pending
// approval, which binds the exact proposal.
func (s *formState) edited() bool {
	q, ok := s.proposal()
	if ok && s.proposed != nil && s.proposed.Same(q) {
		// Nothing the backend would see changed (a blur, a re-typed
		// value): the preview and a pending approval still hold.
		return false
	}
	s.clearOutcome()
	if ok {
		s.req.Edited(q)
	}
	return true
}

func (s *formState) clearOutcome() { s.invokeErr, s.started, s.result = "", "", nil }

// previewing starts a preview of what the form proposes now: seq numbers
// it (a later one makes it moot), and q is the proposal to preview, false
// when the form proposes nothing yet.
func (s *formState) previewing() (seq int, q capability.Proposal, ok bool) {
	s.previewSeq++
	s.preview, s.previewErr, s.proposed = nil, "", nil
	if q, ok = s.proposal(); ok {
		s.proposed = &q
	}
	return s.previewSeq, q, ok
}

// previewed takes the answer to preview seq; an older one is dropped.
func (s *formState) previewed(seq int, pv capability.Preview, err error) {
	if seq != s.previewSeq {
		return
	}
	if err != nil {
		s.previewErr = "The preflight preview failed: " + describeErr(err)
		return
	}
	s.preview = &pv
}

// label names what the invoke button does now.
func (s *formState) label() string {
	return s.req.Label(s.preview != nil && s.preview.ApprovalRequired)
}

// blocked says why the invoke button is disabled, or "".
func (s *formState) blocked() string {
	pv := s.preview
	switch {
	case s.invoking:
		return "Submitting…"
	case s.desc != nil && s.desc.Availability == capability.Unavailable:
		return "Unavailable: " + strings.Join(s.desc.Reasons, "; ")
	case s.req.Blocked() != "":
		return s.req.Blocked()
	case s.req.Pending() != nil:
		// Resuming asks the backend, whose answer is the truth.
		return ""
	case !s.ready():
		return "No form to submit."
	case s.previewErr != "":
		return "The preflight failed, so nothing is submitted: change the form to ask again."
	case pv == nil:
		return "Waiting for the preflight preview."
	case len(pv.Problems) > 0:
		return "The input is invalid."
	case pv.Decision == skill.DecisionDeny:
		return "Denied: " + orWord(pv.Reason, "the backend gave no reason")
	case pv.Decision == httpapi.DecisionInvalid:
		return "Invalid: " + orWord(pv.Reason, "the backend gave no reason")
	case pv.Decision == httpapi.DecisionUnavailable:
		return "Unavailable: " + orWord(pv.Reason, "the backend gave no reason")
	case !pv.Executable:
		return "Not executable now."
	case pv.NeedsConfirmation && !s.confirmed:
		return "Confirm the " + string(pv.SideEffect) + " side effect first."
	}
	return ""
}

func orWord(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// submission is what Invoke sends: the pending approval's exact proposal
// when one waits, else the form's; ok is false when the button is
// blocked. It marks the form as submitting.
func (s *formState) submission() (q capability.Proposal, resuming, ok bool) {
	if s.blocked() != "" {
		return q, false, false
	}
	if q, ok = s.req.Resume(s.confirmed); ok {
		resuming = true
	} else if q, ok = s.proposal(); !ok {
		return q, false, false
	}
	s.invoking = true
	s.clearOutcome()
	return q, resuming, true
}

// answered takes the backend's answer to a submission of q for invoked
// (the capability as seen through its action), while the form shows
// shown (the same capability and action, or another since). It reports
// the run to select in the runs panel ("" for none).
func (s *formState) answered(invoked capability.Capability, q capability.Proposal, resuming bool, rc capability.Receipt, err error) (run string) {
	s.invoking = false
	shown := s.id == invoked.ID && s.seen.Name == invoked.Name
	if resuming && shown && s.req.Pending() != nil {
		id := s.req.Pending().Receipt.ApprovalID
		switch s.req.Resumed(rc, err) {
		case capability.ApprovalPending:
			s.started = fmt.Sprintf("Approval %s is not granted yet: the backend still waits for it.", id)
			return ""
		case capability.ApprovalDenied:
			s.invokeErr = "The approval was denied: " + describeErr(err)
			return ""
		}
	}
	if err != nil {
		if shown {
			s.invokeErr = "The invocation failed: " + describeErr(err)
			s.req.Failed()
		}
		return ""
	}
	s.req.Answered(invoked.Effect, q, rc, shown)
	if !shown {
		return string(rc.RunID)
	}
	switch {
	case rc.Status == capability.StatusApprovalRequired:
		s.started = fmt.Sprintf("Approval %s requested; run %s waits for it.", rc.ApprovalID, rc.RunID)
	case rc.Synchronous():
		if s.reg == nil {
			s.reg = capability.NewRegistry(nil)
		}
		v := s.reg.Render(invoked.RenderHint, rc.Result)
		s.result = &v
		what := "The action completed"
		if rc.Status == capability.StatusFailed {
			what = "The action ran and reported a failure"
		}
		if rc.RunID != "" {
			s.started = fmt.Sprintf("%s (run %s).", what, rc.RunID)
		} else {
			s.started = what + "; the backend bound no run."
		}
	default:
		s.started = fmt.Sprintf("Run %s started (%s).", rc.RunID, rc.Status)
	}
	return string(rc.RunID)
}

// stale reports whether the form shows a value prefilled from a page
// context other than now: it must be opened again (a value of another
// page must not stay marked as this page's). A form whose proposal waits
// for an approval is never stale: it is what will be resumed.
func (s *formState) stale(now schemaform.Context) (reopen, refill bool) {
	if s.form == nil || s.req.Pending() != nil || sameContext(s.formCtx, now) {
		return false, false
	}
	inferred := false
	s.form.Walk(func(fl *schemaform.Field) bool {
		inferred = inferred || fl.Inferred != nil
		return !inferred
	})
	return inferred, !inferred
}

// refill prefills the form in place from now, for a form with no
// prefilled value: only fields the user has not touched are filled. It
// reports whether a field was.
func (s *formState) refill(now schemaform.Context) bool {
	s.formCtx = now
	s.revision++
	return len(s.form.Prefill(now)) > 0
}

// sameContext compares two page contexts by what they select: the
// library's skills (the choices offered) are not part of it.
func sameContext(a, b schemaform.Context) bool {
	a.Skills, b.Skills = nil, nil
	return reflect.DeepEqual(a, b)
}
