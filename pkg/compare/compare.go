// Package compare is the engine of a model comparison (spec §8.4, fixture
// skill.model_comparison): Replay replays one skill once, with one model,
// and proves the replay as the skill's next version (the replay record,
// that version, the proof the verifier derives from it, what the model's
// calls cost and how long the replay took); Of sets several models'
// results for one input side by side, and for each pair of models says
// where their results differ.
//
// Which models and which inputs are compared, on which bodies and under
// which authorizer, and which version is saved, is the compare flow's
// business (workbench.Workbench.Compare): it gives every model a fresh
// body, the same input and the same authorizer, so the model is the only
// thing that changes between the results Of compares.
//
// Guarantees:
//   - A model whose call fails (a 401, a 402, a rate limit, an upstream
//     error, a malformed reply) has that failure as its result, with no
//     replay record, bundle or proof made up for it.
//   - A skill whose parameters are all literal or bound to an input makes
//     no model call on replay, so its results cannot tell models apart. The
//     comparison says so (ModelsExercised is false, pairs are
//     OutcomeNotExercised), and never reports such results as agreement.
package compare

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/openrouter"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Model is the chat API the models are reached through; *openrouter.Client
// is one.
type Model interface {
	Chat(ctx context.Context, req openrouter.Request) (*openrouter.Response, error)
}

// Options configure a replay.
type Options struct {
	// Model answers the model's chat calls. It may be nil only when the
	// skill has no parameter a model chooses.
	Model Model
	// Authorizer decides every replayed action.
	Authorizer replay.Authorizer
	// Input is what the skill replays with; nil means the inputs the
	// demonstration ran with (evidence.scenario.inputs).
	Input map[string]any
	// Deterministic says the body answers the same actions with the same
	// states (the simulator); see replay.Options.
	Deterministic bool
	Now           func() time.Time
	NewID         func() string
	// Progress, when set, is called after each replayed edge.
	Progress func(model string, edge skill.ReplayEdge)
	// Finished, when set, is called when the result is complete.
	Finished func(r *Result)
}

// Result is one model's run.
//
// Invariant: exactly one of Err and Record is set. When Record is set, so
// are Bundle and Report.
type Result struct {
	// Model is the model id the replay asked for.
	Model string
	// Record is the replay: its report and what it observed at every edge.
	// Its model_used is the model that answered (OpenRouter may route to
	// another), or replay.NoModel when no model call was made.
	Record *skill.ReplayRecord
	// Bundle is the saved version that carries this replay.
	Bundle *skill.Bundle
	// Report is the verification of Bundle's exported bytes: the derived
	// proof (Report.Derived) and the verdict (Report.Verdict).
	Report *verify.Report
	// ModelCalls is how many chat calls the replay made; 0 means the model
	// was not exercised.
	ModelCalls int
	// CostUSD is what those calls cost, and CostKnown whether every reply
	// (and every failed call) that cost something said so.
	CostUSD   float64
	CostKnown bool
	// Latency is how long the replay took, from its first action to its
	// end, by Options.Now; proving it is not counted.
	Latency time.Duration
	// Err is why this model has no replay record: a *ModelError when its
	// call failed.
	Err error
}

// Verdict is the result's verdict, or "error" when it has none.
func (r *Result) Verdict() string {
	if r.Report == nil {
		return "error"
	}
	return r.Report.Verdict
}

// ModelError is a model call that failed during a replay. The replay
// stopped there, and what it recorded is discarded: it would describe the
// network or the account, not the skill or the model's choices.
type ModelError struct {
	Model string
	Edge  int // the edge whose parameters the model was asked for; -1 if unknown
	Err   error
}

func (e *ModelError) Error() string {
	if e.Edge >= 0 {
		return fmt.Sprintf("model %s failed at edge %d: %v", e.Model, e.Edge, e.Err)
	}
	return fmt.Sprintf("model %s failed: %v", e.Model, e.Err)
}

// Unwrap returns the client's error, so errors.Is(err,
// openrouter.ErrOutOfCredit) and errors.As(err, **openrouter.APIError) work.
func (e *ModelError) Unwrap() error { return e.Err }

// Pair outcomes.
const (
	// OutcomeAgree: both models were asked and every compared field is equal.
	OutcomeAgree = "agree"
	// OutcomeDiverge: both ran and some field differs.
	OutcomeDiverge = "diverge"
	// OutcomeNotExercised: neither replay made a model call, so equal
	// results say nothing about the models, and unequal ones come from the
	// body.
	OutcomeNotExercised = "not_exercised"
	// OutcomeIncomparable: at least one of the models has no result.
	OutcomeIncomparable = "incomparable"
)

// Pair compares the results of two models.
type Pair struct {
	A, B        string // model ids, in the order they were given
	Outcome     string
	Differences []Difference // empty when the results agree or are incomparable
	Reason      string       // why an incomparable or not-exercised pair is so
}

// Difference is one field on which two results differ.
type Difference struct {
	What string // "status", "fidelity level", "edge 1 surprises", "gate gate.replay_fidelity", …
	A, B string
}

// Comparison is the models' results for one input, side by side (Of).
type Comparison struct {
	SkillID      string
	SkillVersion int // the version that was replayed
	Input        map[string]any
	Results      []Result // in the order the models were given
	Pairs        []Pair   // every pair (i < j), in order
	// ModelsExercised reports whether any replay made a model call.
	ModelsExercised bool
	// ModelBound reports whether the skill has any parameter a model
	// chooses on replay.
	ModelBound bool
}

// Of sets the results of the models that replayed b with input side by
// side: every pair of them (i < j, in the order given) and whether any
// model was exercised at all. It replays nothing; the results come from
// Replay, one per model, each on a fresh body.
func Of(b *skill.Bundle, input map[string]any, results []Result) *Comparison {
	c := &Comparison{SkillID: b.SkillID, SkillVersion: b.SkillVersion, Input: input, Results: results, ModelBound: b.Trace.ModelBound()}
	for i := range c.Results {
		if c.Results[i].ModelCalls > 0 {
			c.ModelsExercised = true
		}
		for j := i + 1; j < len(c.Results); j++ {
			c.Pairs = append(c.Pairs, pair(&c.Results[i], &c.Results[j]))
		}
	}
	return c
}

// Replay replays b once on bd with model (or with no model when model is
// ""), saves the replay as a new version of b and verifies it. It returns
// an error only when the replay cannot run at all: bad arguments, an
// input the skill rejects, a bundle that cannot be saved, or ctx ending.
// A failed model call is in the Result.
func Replay(ctx context.Context, v *verify.Verifier, b *skill.Bundle, bd body.Body, model string, opt Options) (Result, error) {
	if v == nil || b == nil || bd == nil {
		return Result{}, errors.New("compare: a verifier, a bundle and a body are required")
	}
	opt = defaults(b, opt)
	if model != "" && opt.Model == nil {
		return Result{}, fmt.Errorf("compare: model %s named, and no model client is configured", model)
	}
	if model == "" && b.Trace.ModelBound() {
		return Result{}, errors.New("compare: the skill has parameters a model chooses on replay; name a model")
	}
	r, err := replayOne(ctx, b, bd, model, opt)
	if err != nil {
		return Result{}, err
	}
	if r.Record != nil {
		if err := r.save(v, b, opt); err != nil {
			return Result{}, err
		}
	}
	if opt.Finished != nil {
		opt.Finished(&r)
	}
	return r, nil
}

func defaults(b *skill.Bundle, opt Options) Options {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.NewID == nil {
		opt.NewID = skill.NewID
	}
	if opt.Input == nil {
		opt.Input = b.Evidence.Scenario.Inputs
	}
	return opt
}

// replayOne runs one replay. Its error is one that would stop every model
// alike: bad options, a rejected input, ctx ending.
func replayOne(ctx context.Context, b *skill.Bundle, bd body.Body, model string, opt Options) (Result, error) {
	r := Result{Model: model}
	mt := &meter{costKnown: true}
	ro := replay.Options{
		Input: opt.Input, Authorizer: opt.Authorizer, Deterministic: opt.Deterministic,
		Now: opt.Now, NewID: opt.NewID,
	}
	if model != "" && opt.Model != nil {
		mt.m = opt.Model
		ro.Chooser = replay.ModelChooser{Model: mt, ModelID: model}
	}
	if opt.Progress != nil {
		ro.Progress = func(e skill.ReplayEdge) { opt.Progress(model, e) }
	}
	start := opt.Now()
	rec, err := replay.Run(ctx, b, bd, ro)
	if err != nil {
		return r, fmt.Errorf("compare: %w", err)
	}
	r.Latency = opt.Now().Sub(start)
	if err := ctx.Err(); err != nil {
		return r, fmt.Errorf("compare: %w", err)
	}
	r.ModelCalls, r.CostUSD, r.CostKnown = mt.calls, mt.cost, mt.costKnown
	if mt.err != nil {
		edge := -1
		if rec.Report.HaltedAtEdge != nil {
			edge = *rec.Report.HaltedAtEdge
		}
		r.Err = &ModelError{Model: model, Edge: edge, Err: mt.err}
		return r, nil
	}
	r.Record = &rec
	return r, nil
}

// save stores r's replay as a new version of onto and verifies its bytes.
func (r *Result) save(v *verify.Verifier, onto *skill.Bundle, opt Options) error {
	nb, err := assemble.WithReplay(v, onto, *r.Record, opt.Now(), opt.NewID)
	if err != nil {
		return fmt.Errorf("compare: save the replay of %s: %w", r.Model, err)
	}
	data, err := nb.Encode()
	if err != nil {
		return fmt.Errorf("compare: save the replay of %s: %w", r.Model, err)
	}
	rep, err := v.Bytes(data)
	if err != nil {
		return fmt.Errorf("compare: the saved replay of %s does not verify: %w", r.Model, err)
	}
	r.Bundle, r.Report = nb, rep
	return nil
}

// meter stands between the replay and the model client: it counts the
// calls and their cost, and keeps the error of a call that failed, which
// the replay itself would report only as a halt.
type meter struct {
	m         Model
	calls     int
	cost      float64
	costKnown bool
	err       error
}

func (mt *meter) Chat(ctx context.Context, req openrouter.Request) (*openrouter.Response, error) {
	mt.calls++
	resp, err := mt.m.Chat(ctx, req)
	if err != nil {
		mt.err = err
		// A generation that failed part way may have been billed.
		var ae *openrouter.APIError
		if errors.As(err, &ae) && ae.Usage != nil && ae.Usage.Cost != nil {
			mt.cost += *ae.Usage.Cost
		}
		return nil, err
	}
	if c, ok := resp.Cost(); ok {
		mt.cost += c
	} else {
		mt.costKnown = false
	}
	return resp, nil
}

func pair(a, b *Result) Pair {
	p := Pair{A: a.Model, B: b.Model}
	switch {
	case a.Err != nil && b.Err != nil:
		p.Outcome, p.Reason = OutcomeIncomparable, "neither model has a result"
		return p
	case a.Err != nil:
		p.Outcome, p.Reason = OutcomeIncomparable, a.Model+" has no result"
		return p
	case b.Err != nil:
		p.Outcome, p.Reason = OutcomeIncomparable, b.Model+" has no result"
		return p
	}
	p.Differences = differences(a, b)
	switch {
	case a.ModelCalls == 0 && b.ModelCalls == 0:
		p.Outcome = OutcomeNotExercised
		p.Reason = "neither replay made a model call"
	case len(p.Differences) == 0:
		p.Outcome = OutcomeAgree
	default:
		p.Outcome = OutcomeDiverge
	}
	return p
}

// differences lists the fields on which two complete results differ:
// the replay's status, halt, fidelity and level; at every edge the match,
// the state reached and the kinds of surprise; the overall verdict and
// every gate's verdict.
func differences(a, b *Result) []Difference {
	var ds []Difference
	add := func(what, x, y string) {
		if x != y {
			ds = append(ds, Difference{What: what, A: x, B: y})
		}
	}
	ra, rb := a.Record.Report, b.Record.Report
	add("status", ra.Status, rb.Status)
	add("halted at edge", edgeOrNone(ra.HaltedAtEdge), edgeOrNone(rb.HaltedAtEdge))
	add("fidelity level", ra.FidelityLevel, rb.FidelityLevel)
	add("fidelity", strconv.FormatFloat(ra.Fidelity, 'g', -1, 64), strconv.FormatFloat(rb.Fidelity, 'g', -1, 64))

	ea, eb := edgesByIndex(a.Record), edgesByIndex(b.Record)
	sa, sb := surprisesByEdge(ra), surprisesByEdge(rb)
	for _, i := range indices(ea, eb, sa, sb) {
		x, y := ea[i], eb[i]
		add(fmt.Sprintf("edge %d match", i), matchOf(x), matchOf(y))
		if matchOf(x) == matchOf(y) {
			add(fmt.Sprintf("edge %d state after", i), orNone(x.ObservedStateAfter), orNone(y.ObservedStateAfter))
		}
		add(fmt.Sprintf("edge %d surprises", i), kinds(sa[i]), kinds(sb[i]))
	}

	add("overall verdict", a.Report.Verdict, b.Report.Verdict)
	ga, gb := gates(a.Report.Derived), gates(b.Report.Derived)
	ids := make([]string, 0, len(ga))
	for _, g := range a.Report.Derived.ProofGates {
		ids = append(ids, g.ID)
	}
	for _, g := range b.Report.Derived.ProofGates {
		if _, ok := ga[g.ID]; !ok {
			ids = append(ids, g.ID)
		}
	}
	for _, id := range ids {
		add("gate "+id, orNone(ga[id]), orNone(gb[id]))
	}
	return ds
}

func edgesByIndex(rec *skill.ReplayRecord) map[int]skill.ReplayEdge {
	m := make(map[int]skill.ReplayEdge, len(rec.Edges))
	for _, e := range rec.Edges {
		m[e.Index] = e
	}
	return m
}

func surprisesByEdge(r skill.ReplayReport) map[int][]string {
	m := map[int][]string{}
	for _, s := range r.SurpriseSignals {
		m[s.EdgeIndex] = append(m[s.EdgeIndex], string(s.Kind))
	}
	return m
}

// indices is every edge index either result says something about, sorted.
func indices(ea, eb map[int]skill.ReplayEdge, sa, sb map[int][]string) []int {
	set := map[int]bool{}
	for i := range ea {
		set[i] = true
	}
	for i := range eb {
		set[i] = true
	}
	for i := range sa {
		set[i] = true
	}
	for i := range sb {
		set[i] = true
	}
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

func matchOf(e skill.ReplayEdge) string { return orNone(e.Match) }

func kinds(ks []string) string {
	if len(ks) == 0 {
		return "none"
	}
	s := slices.Clone(ks)
	slices.Sort(s)
	return strings.Join(s, ", ")
}

func gates(p skill.ProofResult) map[string]string {
	m := make(map[string]string, len(p.ProofGates))
	for _, g := range p.ProofGates {
		m[g.ID] = g.Verdict
	}
	return m
}

func edgeOrNone(p *int) string {
	if p == nil {
		return "none"
	}
	return strconv.Itoa(*p)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
