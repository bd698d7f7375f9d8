package teach

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"workbench/pkg/assemble"
	"workbench/pkg/demonstrate"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// Summary is what a finished recording amounts to, for a person to read
// before saving it: how many actions were recorded, which of them the
// policy refused and which failed, what the model cost, and the verdict
// the verifier gives the bundle the draft would seal.
type Summary struct {
	Edges int
	// Denied and Errors are the indexes of the edges the policy did not
	// allow and of the edges whose action failed, in trace order.
	Denied []int
	Errors []int
	// CostUSD is the model's cost; CostKnown says every reply reported
	// its part of it.
	CostUSD   float64
	CostKnown bool
	// Verdict is the overall verdict the verifier derives for the bundle
	// the draft would seal, before any replay.
	Verdict string
	// Failing are the gates of that proof that fail, in the proof's order;
	// Pending those it leaves inconclusive, such as gate.replay_fidelity,
	// which only a replay decides.
	Failing []skill.Gate
	Pending []skill.Gate
}

// Summarize counts what res recorded and runs the verifier on the bundle
// that sealing manifest m would give. Assembling changes nothing it is
// given (assemble.Bundle), so the bundle is thrown away, res is unchanged
// and Seal may follow; the verdict is the one Seal's report would give for
// the same manifest.
func Summarize(v *verify.Verifier, p *Plan, res *demonstrate.Result, m skill.Manifest, modelID string, now time.Time) (Summary, error) {
	if res == nil || res.Recorder == nil {
		return Summary{}, fmt.Errorf("teach: summary: no demonstration")
	}
	s := Summary{Edges: len(res.Trace.Edges), CostUSD: res.CostUSD, CostKnown: res.CostKnown}
	for i, e := range res.Trace.Edges {
		switch Mark(e) {
		case MarkDenied:
			s.Denied = append(s.Denied, i)
		case MarkError:
			s.Errors = append(s.Errors, i)
		}
	}
	b, err := assemble.Bundle(v, assemble.Teaching{Task: p.Task, Result: res, Manifest: m, ModelID: modelID}, now, skill.NewID)
	if err != nil {
		return Summary{}, fmt.Errorf("teach: summary: %w", err)
	}
	data, err := b.Encode()
	if err != nil {
		return Summary{}, fmt.Errorf("teach: summary: %w", err)
	}
	rep, err := v.Bytes(data)
	if err != nil {
		return Summary{}, fmt.Errorf("teach: summary: the draft's bundle does not verify: %w", err)
	}
	s.Verdict = rep.Verdict
	for _, g := range rep.Derived.ProofGates {
		switch g.Verdict {
		case skill.VerdictFail:
			s.Failing = append(s.Failing, g)
		case skill.VerdictInconclusive, skill.VerdictPartial:
			s.Pending = append(s.Pending, g)
		}
	}
	return s, nil
}

// How an edge reads in a summary or a timeline (Mark).
const (
	MarkDenied = "denied" // the policy did not allow the action
	MarkError  = "error"  // the action ran and failed
)

// Mark is MarkDenied for an edge the policy did not allow (or that has no
// decision at all), MarkError for an action that failed, and "" for one
// that went through.
func Mark(e skill.Edge) string {
	switch {
	case e.Authorization == nil || e.Authorization.Decision != skill.DecisionAllow || e.OutcomeStatus == skill.OutcomeDenied:
		return MarkDenied
	case e.OutcomeStatus == skill.OutcomeError:
		return MarkError
	}
	return ""
}

// Tally says how many actions were denied and how many failed, such as
// "2 actions denied, 1 error"; "" when none was either.
func Tally(denied, errors int) string {
	var counts []string
	if denied > 0 {
		counts = append(counts, plural(denied, "action")+" denied")
	}
	if errors > 0 {
		counts = append(counts, plural(errors, "error"))
	}
	return strings.Join(counts, ", ")
}

// Headline says the summary in one line, such as "2 actions denied,
// 1 error — this skill will fail gate.authority".
func (s Summary) Headline() string {
	counts := Tally(len(s.Denied), len(s.Errors))
	if counts == "" {
		counts = plural(s.Edges, "action") + ", none denied, no errors"
	}
	return counts + " — " + s.Outlook()
}

// Outlook says what the proof will say of the skill once saved.
func (s Summary) Outlook() string {
	if len(s.Failing) > 0 {
		return "this skill will fail " + gateList(s.Failing)
	}
	if len(s.Pending) == 1 && s.Pending[0].ID == skill.GateReplayFidelity {
		return "every gate passes except " + skill.GateReplayFidelity + ", which a replay decides"
	}
	if len(s.Pending) > 0 {
		return "this skill will be " + s.Verdict + " on " + gateList(s.Pending)
	}
	return "this skill will pass every gate"
}

func gateList(gs []skill.Gate) string {
	ids := make([]string, len(gs))
	for i, g := range gs {
		ids[i] = g.ID
	}
	return strings.Join(ids, " and ")
}

// plural writes a count with its noun: "1 action", "2 actions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
