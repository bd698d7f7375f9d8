// Package replay re-runs a skill's recorded edges against a live body on a
// new input and reports, edge by edge, whether the world behaved as
// recorded (spec §3 step 3, OS-011 §5.4, DESIGN §5).
//
// Replay never reads from a cache: every edge is re-afforded, re-bound,
// re-authorized and re-executed on the body it is given, and every
// parameter the model chose during the demonstration is chosen again by a
// live model call. It fails fast: the first divergence the skill's
// fallback behaviour does not tolerate halts the run with a SurpriseSignal
// that carries the predicted and actual state hashes.
//
// The result is a skill.ReplayRecord — the ReplayReport of spec §5.3 plus
// what was observed at every edge — which a caller stores as the data of a
// workbench.v1.ReplayExecuted event; package verify re-derives the replay
// gate from it.
package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/pkg/sortfunc"
)

// Authorizer decides whether one replayed action may run. It is the same
// policy the demonstration ran under (spec §3 step 3).
type Authorizer interface {
	Authorize(ctx context.Context, e skill.Edge, tool body.Tool, args map[string]any) (skill.Authorization, error)
}

// Chooser asks a model, live, for the parameters of an edge whose
// parameters the model chose during the demonstration, and returns the
// tool call the model makes, with its cost.
type Chooser interface {
	Choose(ctx context.Context, s Step) (Choice, error)
}

// Step is what a Chooser is told about one edge: the truth of this
// replay, not of the demonstration. The goal and the arguments already
// bound carry the new input's values, and the observation is what the
// body shows now.
type Step struct {
	// Edge is the edge as recorded.
	Edge skill.Edge
	// Goal is the skill's goal written for this replay: the recorded goal
	// with each recorded string input's value replaced by the new one.
	Goal string
	// Input is the new input, by manifest input name.
	Input map[string]any
	// Bound are the arguments replay has fixed already: literals as
	// recorded, inputs from the new input.
	Bound map[string]any
	// Choose names the parameters the model chooses again, sorted.
	Choose []string
	// Tools are the tools the model is offered: the one tool the step
	// needs, as the body describes it now. The model chooses arguments
	// for the recorded call, never another action (DESIGN §4: only what
	// the skill declares is offered).
	Tools []body.Tool
	// Observation is what the body shows now (body.Perceive): for the
	// simulator its page and working directory, not its whole world.
	Observation any
}

// Choice is a model's tool call during replay.
type Choice struct {
	Tool      string
	Arguments map[string]any
	CostUSD   float64
	Model     string
}

// NoModel is the model_used of a replay that made no model call.
const NoModel = skill.NoModel

// ErrRefused is returned (wrapped) by a Chooser whose model answered
// without calling a tool.
var ErrRefused = errors.New("the model did not call a tool")

// Options configure one replay.
type Options struct {
	Input      map[string]any // the new input, by manifest input name
	Authorizer Authorizer
	Chooser    Chooser // needed when an edge has a parameter bound to llm
	Model      string  // recorded as model_used when no Chooser answers
	Now        func() time.Time
	NewID      func() string
	// Deterministic says the body always answers the same actions with the
	// same states (the simulator); with an unchanged input replay then
	// expects exact state hashes, otherwise shapes (DESIGN §5).
	Deterministic bool
	// Progress, when set, is called after each edge.
	Progress func(edge skill.ReplayEdge)
}

// Run replays b's trace on bd. An error means replay could not run at all
// (bad options, missing input); every divergence of the world is reported
// in the record, not as an error. Cancelling ctx stops before the next
// edge and reports the replay as halted there.
func Run(ctx context.Context, b *skill.Bundle, bd body.Body, opt Options) (skill.ReplayRecord, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.NewID == nil {
		opt.NewID = skill.NewID
	}
	if opt.Authorizer == nil {
		return skill.ReplayRecord{}, errors.New("replay: no authorizer: no action runs without a decision in scope")
	}
	recorded := b.Evidence.Scenario.Inputs
	for _, in := range b.Manifest.Inputs {
		if _, ok := opt.Input[in.Name]; !ok && in.Required {
			return skill.ReplayRecord{}, fmt.Errorf("replay: input %q is required", in.Name)
		}
	}
	r := &run{b: b, bd: bd, opt: opt, recorded: recorded}
	r.expected = skill.LevelStructural
	if opt.Deterministic && sameInput(recorded, opt.Input) && !b.Trace.ModelBound() {
		r.expected = skill.LevelExact
	}
	return r.run(ctx), nil
}

type run struct {
	b        *skill.Bundle
	bd       body.Body
	opt      Options
	recorded map[string]any // the inputs the demonstration ran with (evidence.scenario.inputs)
	expected string

	report   skill.ReplayReport
	edges    []skill.ReplayEdge
	cost     float64
	model    string
	surprise bool
}

func (r *run) run(ctx context.Context) skill.ReplayRecord {
	b := r.b
	r.report = skill.ReplayReport{
		ReplayID: r.opt.NewID(), SkillID: b.SkillID, SkillVersion: b.SkillVersion,
		Input: r.opt.Input, StartedAt: skill.Timestamp(r.opt.Now()),
		SurpriseSignals: []skill.SurpriseSignal{}, EvidenceBundleID: b.BundleID,
	}
	r.model = r.opt.Model
	halted := -1
	for i, e := range b.Trace.Edges {
		if halted >= 0 {
			r.edges = append(r.edges, skill.ReplayEdge{Index: i, EdgeID: e.EdgeID, Match: skill.MatchNotRun})
			continue
		}
		re, stop := r.edge(ctx, i, e)
		r.edges = append(r.edges, re)
		if r.opt.Progress != nil {
			r.opt.Progress(re)
		}
		if stop {
			halted = i
		}
	}
	rep := &r.report
	rep.EndedAt = skill.Timestamp(r.opt.Now())
	if rep.EdgesAttempted > 0 {
		rep.Fidelity = float64(rep.EdgesCommitted) / float64(rep.EdgesAttempted)
	}
	switch {
	case halted >= 0:
		rep.Status, rep.FidelityLevel, rep.HaltedAtEdge = skill.StatusHalted, skill.LevelFailed, &halted
	case r.surprise:
		rep.Status, rep.FidelityLevel = skill.StatusCompletedWithSurprises, skill.LevelStructural
	default:
		rep.Status, rep.FidelityLevel = skill.StatusSuccess, r.expected
	}
	rep.ModelUsed = r.model
	if rep.ModelUsed == "" {
		// Every parameter was bound from the recording or the input: no
		// model took part, and the report says so rather than naming one.
		rep.ModelUsed = NoModel
	}
	if r.cost > 0 {
		c := r.cost
		rep.CostUSD = &c
	}
	rep.Normalize()
	return skill.ReplayRecord{Report: *rep, ExpectedLevel: r.expected, Edges: r.edges}
}

// edge replays one edge; stop reports that replay must halt here.
func (r *run) edge(ctx context.Context, i int, e skill.Edge) (re skill.ReplayEdge, stop bool) {
	re = skill.ReplayEdge{Index: i, EdgeID: e.EdgeID, Match: skill.MatchMismatch}
	r.report.EdgesAttempted++
	predicted := e.StateAfter
	halt := func(kind skill.SurpriseKind, osKind, detail, actual string, magnitude float64) (skill.ReplayEdge, bool) {
		r.signal(e, kind, osKind, detail, predicted, actual, magnitude)
		return re, true
	}
	if err := ctx.Err(); err != nil {
		return halt(skill.KindOther, "other", "replay was cancelled: "+err.Error(), "", 0)
	}

	// 1. The recorded action must be afforded now.
	tools, err := r.bd.Tools(ctx)
	if err != nil {
		return halt(skill.KindOther, "unexpected_error", "the body could not list its tools: "+err.Error(), "", 1)
	}
	tool, ok := findTool(tools, e.Tool.Name)
	if !ok {
		return halt(skill.KindAffordanceDrift, "unexpected_structure",
			fmt.Sprintf("the body no longer offers the tool %q", e.Tool.Name), "", 1)
	}

	// 2. The world must start where the recording started.
	before, beforeShape, err := r.observe(ctx)
	if err != nil {
		return halt(skill.KindOther, "unexpected_error", "the body could not report its state: "+err.Error(), "", 1)
	}
	re.ObservedStateBefore = before
	if i == 0 && before != e.StateBefore {
		// What the body shows instead, for a person to read: the
		// recording keeps only the hash of where it started.
		if seen, err := body.Perceive(ctx, r.bd); err == nil {
			re.Perceived = seen
		}
		switch {
		case beforeShape != e.ShapeBefore:
			predicted = e.StateBefore
			return halt(skill.KindStateHashMismatch, "unexpected_structure",
				"the state before the first action differs from the recording", before, 1)
		case r.expected == skill.LevelExact:
			// Same shape, other content, where exact was expected.
			r.signal(e, skill.KindStateHashMismatch, "other",
				"the state before the first action has the recorded shape but other content", e.StateBefore, before, 0.5)
			if r.b.Manifest.FallbackBehavior != skill.FallbackContinue {
				return re, true
			}
			r.surprise = true
		}
	}

	// 3. Bind the parameters.
	args, err := r.bind(ctx, e, tool)
	var drift *driftError
	switch {
	case err == nil:
	case errors.Is(err, ErrRefused):
		return halt(skill.KindModelRefusal, "other", err.Error(), "", 1)
	case errors.As(err, &drift):
		return halt(skill.KindAffordanceDrift, "other", err.Error(), "", 1)
	default: // the model could not be asked: not drift, an error
		return halt(skill.KindOther, "unexpected_error", err.Error(), "", 1)
	}

	// 4. Re-authorize under the same policy.
	auth, err := r.opt.Authorizer.Authorize(ctx, e, tool, args)
	if err != nil {
		return halt(skill.KindPolicyDeny, "unexpected_permission", "authorization failed: "+err.Error(), "", 1)
	}
	re.Authorization = &auth
	if auth.Decision != skill.DecisionAllow {
		return halt(skill.KindPolicyDeny, "unexpected_permission",
			fmt.Sprintf("the policy said %s: %s", auth.Decision, auth.Reason), "", 1)
	}

	// 5. Act, then compare the state after.
	re.Arguments = args
	res, err := r.bd.Call(ctx, e.Tool.Name, args)
	if err != nil {
		return halt(skill.KindOther, "unexpected_error", "the tool call failed: "+err.Error(), "", 1)
	}
	re.Outcome = res.Observed()
	if res.IsError && e.OutcomeStatus == skill.OutcomeOK {
		return halt(skill.KindOther, "unexpected_error", "the tool reported an error: "+truncate(res.Text, 200), "", 1)
	}
	after, afterShape, err := r.observe(ctx)
	if err != nil {
		return halt(skill.KindOther, "unexpected_error", "the body could not report its state: "+err.Error(), "", 1)
	}
	re.ObservedStateAfter, re.ObservedShapeAfter = after, afterShape
	switch {
	case after == e.StateAfter:
		re.Match = skill.MatchExact
	case afterShape == e.ShapeAfter:
		re.Match = skill.MatchStructural
	default:
		if before == after {
			return halt(skill.KindStateHashMismatch, "unexpected_unchanged",
				"the action left the state unchanged where the recording changed it", after, 1)
		}
		return halt(skill.KindStateHashMismatch, "unexpected_structure",
			"the state after the action matches neither the recorded hash nor its shape", after, 1)
	}
	if re.Match == skill.MatchStructural && r.expected == skill.LevelExact {
		// Same shape, other content, where exact was expected: a minor
		// surprise the skill may tolerate.
		r.signal(e, skill.KindStateHashMismatch, "other", "the state after the action has the recorded shape but other content", e.StateAfter, after, 0.5)
		if r.b.Manifest.FallbackBehavior != skill.FallbackContinue {
			return re, true
		}
		r.surprise = true
	}
	re.Committed = true
	r.report.EdgesCommitted++
	return re, false
}

func (r *run) observe(ctx context.Context) (hash, shape string, err error) {
	if h, ok := r.bd.(body.Hasher); ok {
		return h.StateHashes(ctx)
	}
	st, err := r.bd.State(ctx)
	if err != nil {
		return "", "", err
	}
	return skill.StateHashes(st)
}

// bind computes the arguments of a replayed call from the recorded ones.
func (r *run) bind(ctx context.Context, e skill.Edge, tool body.Tool) (map[string]any, error) {
	args := make(map[string]any, len(e.Tool.Arguments))
	var choose []string
	for name, v := range e.Tool.Arguments {
		src := e.ParamSources[name]
		switch {
		case strings.HasPrefix(src, skill.SourceInputPrefix):
			in := strings.TrimPrefix(src, skill.SourceInputPrefix)
			args[name] = substitute(v, r.recorded[in], r.opt.Input[in])
		case src == skill.SourceLLM:
			choose = append(choose, name)
		default: // literal, or a producer that recorded no source
			args[name] = v
		}
	}
	if len(choose) == 0 {
		return args, nil
	}
	if r.opt.Chooser == nil {
		return nil, fmt.Errorf("edge %d has parameters the model chose, and no model is configured", e.Index)
	}
	obs, err := body.Perceive(ctx, r.bd)
	if err != nil {
		return nil, fmt.Errorf("the body could not show what it perceives: %w", err)
	}
	slices.Sort(choose)
	c, err := r.opt.Chooser.Choose(ctx, Step{
		Edge: e, Goal: Goal(r.b.Trace.Goal, r.recorded, r.opt.Input), Input: r.opt.Input,
		Bound: maps.Clone(args), Choose: choose, Tools: []body.Tool{tool}, Observation: obs,
	})
	// A refused or failed call may still have been billed and answered by
	// a named model: keep both whatever happened.
	r.cost += c.CostUSD
	if c.Model != "" {
		r.model = c.Model
	}
	if err != nil {
		return nil, err
	}
	if c.Tool != e.Tool.Name {
		return nil, &driftError{fmt.Sprintf("the model called %q where the recording called %q", c.Tool, e.Tool.Name)}
	}
	for _, name := range choose {
		v, ok := c.Arguments[name]
		if !ok {
			return nil, &driftError{fmt.Sprintf("the model's call to %q lacks the argument %q", c.Tool, name)}
		}
		args[name] = v
	}
	return args, nil
}

// Goal is a skill's recorded goal written for a replay on input: each
// occurrence of a recorded input's value is replaced by the new input's
// value, longer values first so that one value inside another is not cut.
// Only string values are replaced (a number's digits may stand anywhere in
// the text); a model is given the input itself beside the goal.
func Goal(goal string, recorded, input map[string]any) string {
	type pair struct{ old, new string }
	var pairs []pair
	for name, rv := range recorded {
		old, ok1 := rv.(string)
		nv, ok2 := input[name].(string)
		if ok1 && ok2 && old != "" && old != nv {
			pairs = append(pairs, pair{old, nv})
		}
	}
	if len(pairs) == 0 {
		return goal
	}
	sortfunc.Sort(pairs, func(a, b pair) int {
		return cmp.Or(cmp.Compare(len(b.old), len(a.old)), strings.Compare(a.old, b.old))
	})
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, p.new)
	}
	return strings.NewReplacer(args...).Replace(goal)
}

// driftError says the live model's call no longer fits the recorded action.
type driftError struct{ msg string }

func (e *driftError) Error() string { return e.msg }

// substitute puts the new input's value where the recorded input's value
// was: the whole value, or its occurrences inside a string.
func substitute(recordedParam, recordedInput, newInput any) any {
	rs, rok := recordedInput.(string)
	ps, pok := recordedParam.(string)
	ns, nok := newInput.(string)
	if rok && pok && nok && rs != "" && ps != rs {
		return strings.ReplaceAll(ps, rs, ns)
	}
	return newInput
}

func (r *run) signal(e skill.Edge, kind skill.SurpriseKind, osKind, detail, predicted, actual string, magnitude float64) {
	r.report.SurpriseSignals = append(r.report.SurpriseSignals, skill.SurpriseSignal{
		EdgeIndex: e.Index, Kind: kind, Detail: detail,
		Token: "SurpriseSignal", Version: skill.PulseVersion,
		TraceID: r.b.Trace.TraceID, EdgeID: e.EdgeID, BodySubtype: r.b.Trace.BodySubtype,
		ActionType: e.TypedAction.Type, PredictedStateHash: predicted, ActualStateHash: actual,
		SurpriseMagnitude: magnitude, SurpriseKind: osKind,
		Timestamp: skill.Timestamp(r.opt.Now()),
	})
}

func findTool(tools []body.Tool, name string) (body.Tool, bool) {
	for _, t := range tools {
		if t.Name == name {
			return t, true
		}
	}
	return body.Tool{}, false
}

func sameInput(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if fmt.Sprint(b[k]) != fmt.Sprint(v) {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
