package capability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"workbench/pkg/canonjson"
	"workbench/pkg/policy"
	"workbench/pkg/redact"
	"workbench/pkg/runs"
	"workbench/pkg/skill"
)

// Proposal is one request to run a capability: the capability, the
// action (its name; empty for a capability's only action), its inputs and
// the selected target. Confirmed is the user's explicit confirmation of a
// mutating or unknown-effect action. ApprovalID, RunID and SessionID are
// set only when resuming an approved action, to the values the
// approval_required answer bound (see Pending).
type Proposal struct {
	CapabilityID string          `json:"capability_id"`
	Action       string          `json:"action,omitempty"`
	Input        json.RawMessage `json:"inputs,omitempty"`
	Target       string          `json:"target,omitempty"`
	Confirmed    bool            `json:"confirmed,omitempty"`
	ApprovalID   string          `json:"approval_id,omitempty"`
	RunID        runs.RunID      `json:"run_id,omitempty"`
	SessionID    runs.SessionID  `json:"session_id,omitempty"`
}

// Same reports whether q proposes exactly what p does: the same
// capability and action, the same inputs (compared in canonical form, so
// member order and spacing do not matter) and the same target.
// Confirmation and the resume fields are not compared.
func (p Proposal) Same(q Proposal) bool {
	if p.CapabilityID != q.CapabilityID || p.Action != q.Action || p.Target != q.Target {
		return false
	}
	a, errA := canonical(p.Input)
	b, errB := canonical(q.Input)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

func canonical(input json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	doc, err := canonjson.Parse(input, canonjson.DefaultLimits())
	if err != nil {
		return nil, err
	}
	return doc.Canonical(), nil
}

// Receipt statuses: the answers of an accepted Invoke.
const (
	StatusRunning          = "running"
	StatusApprovalRequired = "approval_required"
	// StatusCompleted and StatusFailed are synchronous answers: the
	// backend ran the action before answering and Result holds what it
	// answered. The Governor never answers them; an HTTP backend may.
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// Receipt is Invoke's answer. Status is StatusRunning (the action was
// dispatched; follow RunID for its events), StatusApprovalRequired (it
// waits for the approval ApprovalID; the run is waiting_for_input), or a
// synchronous StatusCompleted or StatusFailed with the answer in Result
// (and RunID when the backend bound a run).
type Receipt struct {
	Status     string              `json:"status"`
	RunID      runs.RunID          `json:"run_id"`
	SessionID  runs.SessionID      `json:"session_id"`
	ApprovalID string              `json:"approval_id,omitempty"`
	Decision   skill.Authorization `json:"decision"`
	// Result is a synchronous answer as the backend sent it, typically a
	// {status, result} envelope; Registry.Render unwraps it for display
	// and keeps the original.
	Result json.RawMessage `json:"result,omitempty"`
}

// Synchronous reports whether the receipt is a synchronous answer that
// carries its result.
func (r Receipt) Synchronous() bool {
	return r.Status == StatusCompleted || r.Status == StatusFailed
}

// Refusal codes of a *RefusedError.
const (
	RefusedUnavailable          = "unavailable"
	RefusedInvalid              = "invalid"
	RefusedConfirmationRequired = "confirmation_required"
	RefusedDenied               = "denied"
	RefusedApprovalUnknown      = "approval_unknown"
	RefusedApprovalPending      = "approval_pending"
	RefusedApprovalDenied       = "approval_denied"
	RefusedApprovalMismatch     = "approval_mismatch"
)

// RefusedError is an invocation the Governor did not dispatch, and why.
type RefusedError struct {
	Code         string
	CapabilityID string
	Reason       string
	// Problems are the input's problems (RefusedInvalid), each with a
	// JSON pointer.
	Problems []string
	// Decision is the policy's decision, when one was made.
	Decision *skill.Authorization
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("capability %s refused (%s): %s", e.CapabilityID, e.Code, e.Reason)
}

// Approval states.
const (
	ApprovalPending   = "pending"
	ApprovalGranted   = "granted"
	ApprovalDenied    = "denied"
	ApprovalUsed      = "used"
	ApprovalDiscarded = "discarded"
)

// Approval is an action the policy would run only with the user's
// explicit approval. It binds the exact proposal: a resume must carry the
// same action, inputs, target, approval id, run id and session id, and
// any other proposal discards it.
type Approval struct {
	ID           string              `json:"approval_id"`
	CapabilityID string              `json:"capability_id"`
	Action       string              `json:"action,omitempty"`
	Title        string              `json:"title"`
	Effect       policy.Effect       `json:"side_effect"`
	Input        json.RawMessage     `json:"inputs"`
	Target       string              `json:"target,omitempty"`
	RunID        runs.RunID          `json:"run_id"`
	SessionID    runs.SessionID      `json:"session_id"`
	Decision     skill.Authorization `json:"decision"`
	State        string              `json:"state"`
	RequestedAt  string              `json:"requested_at"`
	DecidedAt    string              `json:"decided_at,omitempty"`
}

// Event types the Governor emits besides those of package runs.
const (
	EventApprovalGranted = "approval_granted"
	EventApprovalDenied  = "approval_denied"
)

// GovernorOptions configure a Governor. The zero value is usable.
type GovernorOptions struct {
	// Engine is the local policy engine; Preflight previews with it, and
	// it authorizes when Authorizer is nil. Nil means
	// policy.Capabilities().
	Engine *policy.Engine
	// Authorizer makes the binding decision (a delegatic-mcp client, say);
	// nil means Engine.
	Authorizer policy.Authorizer
	// Log records the runs; nil means a new runs.Log.
	Log *runs.Log
	// DestructiveMode reads the user's destructive-mode toggle at each
	// decision; nil means off.
	DestructiveMode func() bool
	// AgentID names the agent in authorization requests.
	AgentID string
	// NewID makes approval and session ids; nil means skill.NewID.
	NewID func() string
	// Now stamps approvals; nil means time.Now.
	Now func() time.Time
	// OnApprovals, when set, is called after the approvals change. It
	// must not block (a UI dispatches from it).
	OnApprovals func()
}

// Governor is the one governed boundary through which capabilities run.
// It is safe for concurrent use.
type Governor struct {
	catalog *Catalog
	engine  *policy.Engine
	auth    policy.Authorizer
	log     *runs.Log
	opt     GovernorOptions
	base    context.Context
	secrets *redact.Detector

	mu        sync.Mutex
	approvals map[string]*Approval
	order     []string
	cancels   map[runs.RunID]context.CancelFunc
	files     map[runs.RunID]File // the files the newest runs made (keptFiles of them)
	fileOrder []runs.RunID
	wg        sync.WaitGroup
}

// keptFiles bounds the files a Governor keeps for the UI to fetch: those
// of the newest runs that made one.
const keptFiles = 8

// NewGovernor returns a Governor over the catalog. Dispatched actions run
// under ctx: ending it cancels them.
func NewGovernor(ctx context.Context, c *Catalog, o GovernorOptions) *Governor {
	if o.Engine == nil {
		o.Engine = policy.Capabilities()
	}
	var auth policy.Authorizer = o.Engine
	if o.Authorizer != nil {
		auth = o.Authorizer
	}
	if o.Log == nil {
		o.Log = runs.NewLog()
	}
	if o.NewID == nil {
		o.NewID = skill.NewID
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Governor{catalog: c, engine: o.Engine, auth: auth, log: o.Log, opt: o, base: ctx, secrets: redact.NewDetector(),
		approvals: map[string]*Approval{}, cancels: map[runs.RunID]context.CancelFunc{}, files: map[runs.RunID]File{}}
}

// Catalog is the governed catalog.
func (g *Governor) Catalog() *Catalog { return g.catalog }

// Log is where the Governor records runs.
func (g *Governor) Log() *runs.Log { return g.log }

func (g *Governor) destructive() bool {
	return g.opt.DestructiveMode != nil && g.opt.DestructiveMode()
}

func (g *Governor) request(c Capability) policy.Request {
	return policy.Request{
		Capability: c.PolicyCapability, ActionType: c.ActionType(), Tool: c.Name,
		Annotations: c.Annotations, TrustedServer: c.Trusted,
		// The user invoking the action declares it.
		Declared:        []string{c.PolicyCapability},
		DestructiveMode: g.destructive(), AgentID: g.opt.AgentID,
	}
}

// Preview is Preflight's answer: what would happen if the proposal were
// invoked now. It is not a decision; Invoke decides again.
type Preview struct {
	Capability Capability `json:"capability"`
	// Decision, Reason, Rule and Strength are the policy engine's
	// preview; ApprovalRequired says Decision is approval_required.
	Decision         string `json:"decision"`
	Reason           string `json:"reason"`
	Rule             string `json:"rule,omitempty"`
	Strength         string `json:"strength,omitempty"`
	ApprovalRequired bool   `json:"approval_required"`
	// SideEffect is the effect the policy assumes, and NeedsConfirmation
	// whether invoking needs the user's explicit confirmation.
	SideEffect        policy.Effect `json:"side_effect"`
	NeedsConfirmation bool          `json:"needs_confirmation"`
	// Problems are the input's problems against the schema; SchemaError
	// says the schema itself could not be used to check the input.
	Problems    []string `json:"problems,omitempty"`
	SchemaError string   `json:"schema_error,omitempty"`
	// Executable says the action may be submitted: available, a valid
	// input, not denied. (An approval_required action is submitted to
	// request approval.)
	Executable bool `json:"executable"`
	// Authorization is the preview block (no block id; authorizer
	// prefixed "preview:"), never a grant.
	Authorization skill.Authorization `json:"authorization"`
	// NonAuthoritative is always true: identity and policy are evaluated
	// again at execution.
	NonAuthoritative bool `json:"non_authoritative"`
}

// Preflight previews the proposal with the local policy engine: the
// refreshed descriptor, the decision and its reason, whether approval is
// required, the side effect, and the input's problems. It takes only the
// action, the inputs and the target; there is no identity in it. An
// action the capability does not have is refused (*RefusedError,
// invalid).
func (g *Governor) Preflight(ctx context.Context, p Proposal) (Preview, error) {
	c, err := g.describe(ctx, p)
	if err != nil {
		return Preview{}, fmt.Errorf("preflight %s: %w", p.CapabilityID, err)
	}
	pf := g.engine.Preview(g.request(c))
	pv := Preview{
		Capability: c, Decision: pf.Authorization.Decision, Reason: pf.Authorization.Reason,
		Rule: pf.Rule, Strength: pf.Authorization.Strength,
		ApprovalRequired:  pf.Authorization.Decision == skill.DecisionApprovalRequired,
		SideEffect:        c.Effect,
		NeedsConfirmation: c.NeedsConfirmation(),
		Authorization:     pf.Authorization, NonAuthoritative: true,
	}
	var ie *InputError
	switch err := CheckInput(c, p.Input); {
	case errors.As(err, &ie):
		pv.Problems = ie.Problems
	case err != nil:
		pv.SchemaError = err.Error()
	}
	pv.Executable = c.Availability != Unavailable && len(pv.Problems) == 0 && pv.Decision != skill.DecisionDeny
	return pv, nil
}

// Invoke is the governed boundary. It refreshes the descriptor, refuses
// an unavailable capability, an invalid input and an unconfirmed
// mutating or unknown-effect action (*RefusedError, no run); then it
// starts a run (or continues the approved one), re-authorizes, records
// the decision as a policy_decision event, and:
//
//   - deny: ends the run as failed and refuses (*RefusedError, denied);
//   - approval_required, not resuming: records a pending approval, puts
//     the run in waiting_for_input and answers StatusApprovalRequired;
//   - allow, or approval_required resuming a granted approval of exactly
//     this proposal: dispatches on its own goroutine and answers
//     StatusRunning at once. The result arrives as a tool_result event,
//     then run_completed, run_failed or run_cancelled.
//
// A resume whose proposal differs from the approved one in any way
// discards the approval (its run is cancelled) and is refused.
func (g *Governor) Invoke(ctx context.Context, p Proposal) (Receipt, error) {
	c, err := g.describe(ctx, p)
	if err != nil {
		return Receipt{}, fmt.Errorf("invoke %s: %w", p.CapabilityID, err)
	}
	refuse := func(code, reason string) (Receipt, error) {
		return Receipt{}, &RefusedError{Code: code, CapabilityID: c.ID, Reason: reason}
	}
	if c.Availability == Unavailable {
		return refuse(RefusedUnavailable, "unavailable: "+strings.Join(c.Reasons, "; "))
	}
	var ie *InputError
	if err := CheckInput(c, p.Input); errors.As(err, &ie) {
		return Receipt{}, &RefusedError{Code: RefusedInvalid, CapabilityID: c.ID,
			Reason: "the input does not fit the schema", Problems: ie.Problems}
	}
	if c.NeedsConfirmation() && !p.Confirmed {
		return refuse(RefusedConfirmationRequired, fmt.Sprintf("a %s action runs only when the user confirms it", c.Effect))
	}
	var approval *Approval
	if p.ApprovalID != "" {
		if approval, err = g.claim(p); err != nil {
			return Receipt{}, err
		}
	} else if p.RunID != "" {
		return refuse(RefusedInvalid, "a run id is resubmitted only with the approval that bound it")
	}

	var run runs.Run
	if approval != nil {
		if run, err = g.log.Run(approval.RunID); err != nil {
			return Receipt{}, fmt.Errorf("invoke %s: %w", c.ID, err)
		}
	} else {
		session := p.SessionID
		if session == "" {
			session = runs.SessionID(g.opt.NewID())
		}
		run, err = g.log.Start(runs.Start{Session: session, Kind: kindOf(c),
			Title: c.Title, Capability: c.ID, Data: map[string]any{"target": p.Target}})
		if err != nil {
			return Receipt{}, fmt.Errorf("invoke %s: %w", c.ID, err)
		}
	}
	rc := Receipt{RunID: run.ID, SessionID: run.SessionID}

	a, err := g.auth.Authorize(ctx, g.request(c))
	if err != nil {
		g.log.Fail(run.ID, fmt.Errorf("no decision: %w", err))
		g.release(approval)
		return rc, fmt.Errorf("invoke %s: authorize: %w", c.ID, err)
	}
	rc.Decision = a
	decided := map[string]any{"authorization": a}
	if approval != nil {
		decided["approval_id"] = approval.ID
	}
	g.log.Emit(run.ID, runs.EventDecision, decided)

	switch {
	case a.Decision == skill.DecisionAllow,
		a.Decision == skill.DecisionApprovalRequired && approval != nil:
		g.use(approval)
		rc.Status = StatusRunning
		g.dispatch(run.ID, c, p)
		return rc, nil
	case a.Decision == skill.DecisionApprovalRequired:
		ap := g.pend(c, p, run, a)
		rc.Status, rc.ApprovalID = StatusApprovalRequired, ap.ID
		return rc, nil
	default:
		g.log.Fail(run.ID, fmt.Errorf("denied: %s", a.Reason))
		g.release(approval)
		return rc, &RefusedError{Code: RefusedDenied, CapabilityID: c.ID, Reason: a.Reason, Decision: &a}
	}
}

// describe refreshes the proposal's capability as seen through its
// action; an action it does not have is refused as invalid.
func (g *Governor) describe(ctx context.Context, p Proposal) (Capability, error) {
	c, err := g.catalog.Describe(ctx, p.CapabilityID)
	if err != nil {
		return Capability{}, err
	}
	c, err = c.Act(p.Action)
	var ae *ActionError
	if errors.As(err, &ae) {
		return Capability{}, &RefusedError{Code: RefusedInvalid, CapabilityID: c.ID, Reason: ae.Error()}
	}
	return c, err
}

// claim checks a resume against its approval. Only a granted approval of
// exactly this proposal passes; any difference discards the approval.
func (g *Governor) claim(p Proposal) (*Approval, error) {
	discarded := false
	g.mu.Lock()
	defer func() {
		g.mu.Unlock()
		if discarded {
			g.changed()
		}
	}()
	ap, ok := g.approvals[p.ApprovalID]
	refuse := func(code, reason string) error {
		return &RefusedError{Code: code, CapabilityID: p.CapabilityID, Reason: reason}
	}
	if !ok {
		return nil, refuse(RefusedApprovalUnknown, fmt.Sprintf("no approval %q", p.ApprovalID))
	}
	bound := Proposal{CapabilityID: ap.CapabilityID, Action: ap.Action, Input: ap.Input, Target: ap.Target}
	if !bound.Same(p) || p.RunID != ap.RunID || p.SessionID != ap.SessionID {
		if ap.State == ApprovalPending || ap.State == ApprovalGranted {
			ap.State, ap.DecidedAt = ApprovalDiscarded, skill.Timestamp(g.opt.Now())
			g.log.Emit(ap.RunID, runs.EventRunCancelled, map[string]any{
				"reason": "the proposal was edited after approval was requested; its approval is discarded", "approval_id": ap.ID})
			discarded = true
		}
		return nil, refuse(RefusedApprovalMismatch, "the proposal differs from the one approval "+ap.ID+" binds (action, inputs, target, run or session); request approval again")
	}
	switch ap.State {
	case ApprovalGranted:
		ap.State = ApprovalUsed // single use; release discards it if the resume does not run
		return ap, nil
	case ApprovalPending:
		return nil, refuse(RefusedApprovalPending, "approval "+ap.ID+" has not been granted yet")
	case ApprovalDenied:
		return nil, refuse(RefusedApprovalDenied, "approval "+ap.ID+" was denied")
	}
	return nil, refuse(RefusedApprovalUnknown, "approval "+ap.ID+" is "+ap.State)
}

// use marks a claimed approval as spent.
func (g *Governor) use(ap *Approval) {
	if ap == nil {
		return
	}
	g.mu.Lock()
	ap.DecidedAt = skill.Timestamp(g.opt.Now())
	g.mu.Unlock()
	g.changed()
}

// release returns a claimed approval that was not used (the decision
// changed or failed) to the discarded state: its run has ended.
func (g *Governor) release(ap *Approval) {
	if ap == nil {
		return
	}
	g.mu.Lock()
	ap.State = ApprovalDiscarded
	g.mu.Unlock()
	g.changed()
}

func (g *Governor) pend(c Capability, p Proposal, run runs.Run, a skill.Authorization) Approval {
	in, err := canonical(p.Input)
	if err != nil {
		in = p.Input
	}
	g.mu.Lock()
	ap := &Approval{
		ID: g.opt.NewID(), CapabilityID: c.ID, Action: p.Action, Title: c.Title, Effect: c.Effect,
		Input: in, Target: p.Target, RunID: run.ID, SessionID: run.SessionID,
		Decision: a, State: ApprovalPending, RequestedAt: skill.Timestamp(g.opt.Now()),
	}
	g.approvals[ap.ID] = ap
	g.order = append(g.order, ap.ID)
	out := *ap
	g.mu.Unlock()
	g.log.Emit(run.ID, runs.EventWaitingForInput, map[string]any{
		"approval_id": ap.ID, "reason": a.Reason, "awaiting": "approval"})
	g.changed()
	return out
}

func (g *Governor) changed() {
	if g.opt.OnApprovals != nil {
		g.opt.OnApprovals()
	}
}

// Approvals lists the approvals newest first; with states given, only
// those in one of them (ApprovalPending for the approvals surface).
func (g *Governor) Approvals(states ...string) []Approval {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Approval
	for i := len(g.order) - 1; i >= 0; i-- {
		ap := g.approvals[g.order[i]]
		if len(states) == 0 || slices.Contains(states, ap.State) {
			out = append(out, *ap)
		}
	}
	return out
}

// Grant approves a pending approval: the exact proposal it binds may now
// be resumed once.
func (g *Governor) Grant(id string) (Approval, error) {
	return g.decide(id, ApprovalGranted)
}

// Deny refuses a pending approval; its run is cancelled.
func (g *Governor) Deny(id string) (Approval, error) {
	return g.decide(id, ApprovalDenied)
}

func (g *Governor) decide(id, state string) (Approval, error) {
	g.mu.Lock()
	ap, ok := g.approvals[id]
	if !ok {
		g.mu.Unlock()
		return Approval{}, fmt.Errorf("approval %q not found", id)
	}
	if ap.State != ApprovalPending {
		g.mu.Unlock()
		return Approval{}, fmt.Errorf("approval %s is %s, not pending", id, ap.State)
	}
	ap.State, ap.DecidedAt = state, skill.Timestamp(g.opt.Now())
	out := *ap
	g.mu.Unlock()
	if state == ApprovalGranted {
		g.log.Emit(out.RunID, EventApprovalGranted, map[string]any{"approval_id": id})
	} else {
		g.log.Emit(out.RunID, EventApprovalDenied, map[string]any{"approval_id": id})
		g.log.Emit(out.RunID, runs.EventRunCancelled, map[string]any{"reason": "approval denied", "approval_id": id})
	}
	g.changed()
	return out, nil
}

// Cancel cancels a dispatched run. It reports whether the run was still
// running.
func (g *Governor) Cancel(run runs.RunID) bool {
	g.mu.Lock()
	cancel, ok := g.cancels[run]
	g.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// Wait blocks until every dispatched action has finished.
func (g *Governor) Wait() { g.wg.Wait() }

// dispatch runs the action on its own goroutine and records its events.
func (g *Governor) dispatch(run runs.RunID, c Capability, p Proposal) {
	ctx, cancel := context.WithCancel(g.base)
	ctx = WithProgress(ctx, func(data any) {
		raw, err := json.Marshal(data)
		if err != nil {
			return
		}
		shown, _ := MaskSecrets(g.secrets, raw)
		g.log.Emit(run, runs.EventProgress, shown)
	})
	g.mu.Lock()
	g.cancels[run] = cancel
	g.mu.Unlock()
	input := p.Input
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	// Run events are kept and shown: nothing secret-shaped goes in.
	shown, _ := MaskSecrets(g.secrets, input)
	g.log.Emit(run, runs.EventToolCall, map[string]any{
		"capability_id": c.ID, "inputs": shown, "target": p.Target})
	g.wg.Go(func() {
		defer func() {
			g.mu.Lock()
			delete(g.cancels, run)
			g.mu.Unlock()
			cancel()
		}()
		res, err := g.catalog.invoke(ctx, c.ID, input)
		switch {
		case ctx.Err() != nil:
			g.log.Emit(run, runs.EventRunCancelled, map[string]any{"reason": ctx.Err().Error()})
		case err != nil:
			msg := g.secrets.MaskString(err.Error())
			g.log.Emit(run, runs.EventToolResult, map[string]any{
				"status": "error", "error": msg, "render_hint": HintJSON})
			g.log.Fail(run, errors.New(msg))
		default:
			status := "ok"
			if res.IsError {
				status = "error"
			}
			value, _ := MaskSecrets(g.secrets, res.Value)
			text := g.secrets.MaskString(res.Text)
			if len(value) == 0 {
				value = json.RawMessage("null")
			}
			data := map[string]any{"status": status, "result": value, "text": text, "render_hint": c.RenderHint}
			if f := res.File; f != nil {
				// The file is kept for the UI to fetch; the event names it.
				g.keepFile(run, *f)
				data["file"] = map[string]any{"name": f.Name, "media_type": f.MediaType, "bytes": len(f.Data)}
			}
			g.log.Emit(run, runs.EventToolResult, data)
			if res.IsError {
				g.log.Fail(run, errors.New("the action reported an error: "+firstLine(text)))
			} else {
				g.log.Emit(run, runs.EventRunCompleted, nil)
			}
		}
	})
}

// keepFile keeps the file a run made, dropping the oldest kept one
// beyond keptFiles.
func (g *Governor) keepFile(run runs.RunID, f File) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.files[run]; !ok {
		g.fileOrder = append(g.fileOrder, run)
	}
	g.files[run] = f
	for len(g.fileOrder) > keptFiles {
		delete(g.files, g.fileOrder[0])
		g.fileOrder = g.fileOrder[1:]
	}
}

// File returns the file the run made (its tool_result event names it),
// while it is one of the newest keptFiles; an older one is gone, and so
// is the file of a run that made none: *FileGoneError.
func (g *Governor) File(ctx context.Context, run runs.RunID) (File, error) {
	if err := ctx.Err(); err != nil {
		return File{}, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	f, ok := g.files[run]
	if !ok {
		return File{}, &FileGoneError{Run: run}
	}
	return f, nil
}

// FileGoneError is a run whose file is not kept: it made none, or newer
// runs' files took its place.
type FileGoneError struct{ Run runs.RunID }

func (e *FileGoneError) Error() string {
	return fmt.Sprintf("run %s: its file is no longer kept (only the newest %d runs' files are); run the action again", e.Run, keptFiles)
}

// kindOf is the kind of run an invocation of c is: the workbench's
// demonstrate, replay and compare actions are demonstrations and replays,
// anything else an invocation.
func kindOf(c Capability) runs.Kind {
	if c.Source == SourceWorkbench {
		switch c.Name {
		case ActionDemonstrate:
			return runs.KindDemonstration
		case ActionReplay, ActionCompare:
			return runs.KindReplay
		}
	}
	return runs.KindInvocation
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
