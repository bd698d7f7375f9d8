// Package compare sets several models' results of one skill, replayed
// with one input, side by side (spec §8.4, fixture
// skill.model_comparison): Of pairs every two models and says, for each
// pair, where their results differ; Summary says what was found in
// sentences. It runs nothing: the results come from the compare flow
// (workbench.Flows.Compare), which replays the skill once per model,
// each on a fresh body with the same input and the same authorizer, so
// the model is the only thing that changes between the results compared.
//
// Guarantees:
//   - A model with no result (its call failed: a 401, a 402, a rate
//     limit, an upstream error, a malformed reply) is compared with no
//     one: its pairs are OutcomeIncomparable, and the summary says why.
//   - Results that made no model call cannot tell models apart (a skill
//     whose parameters are all literal or bound to an input asks no model
//     on replay). The comparison says so (ModelsExercised is false, pairs
//     are OutcomeNotExercised), and never reports such results as
//     agreement.
package compare

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Result is one model's replay of the skill, as the compare flow made it.
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
	// end; proving it is not counted.
	Latency time.Duration
	// Err is why this model has no replay record: the flow's
	// *workbench.ModelError when its call failed.
	Err error
}

// Verdict is the result's verdict, or "error" when it has none.
func (r *Result) Verdict() string {
	if r.Report == nil {
		return "error"
	}
	return r.Report.Verdict
}

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
// model was exercised at all. It replays nothing; the results are the
// compare flow's, one per model, each replayed on a fresh body.
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
