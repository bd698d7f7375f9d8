package workbench

import (
	"strings"

	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/words"
)

// ReplayNeeds is what a replay of a stored skill needs, said before
// anything is typed or run: the inputs it takes, the parameters a model
// chooses again (then a model and a key are needed: the trace is
// skill.Trace.ModelBound), the body, and the policy. PrepareReplay checks
// a request against the same manifest once the values are typed.
type ReplayNeeds struct {
	// Inputs are the manifest's inputs, in its order.
	Inputs []skill.InputSpec
	// ModelChoices are the recorded parameters a model chose, which a
	// replay asks a model for again; empty for a skill that replays
	// without a model call.
	ModelChoices []ModelChoice
	// Body is the manifest's body_choice.
	Body body.Kind
	// Policy is the policy every replayed action is re-authorized under.
	Policy string
}

// ModelChoice is one recorded parameter a model chose: edge Edge's call of
// Tool, parameter Param.
type ModelChoice struct {
	Edge  int
	Tool  string
	Param string
}

// NeedsOf says what a replay of b needs. Its ModelChoices are the
// edges' skill.Edge.ModelParams, in trace order.
func NeedsOf(b *skill.Bundle) ReplayNeeds {
	n := ReplayNeeds{Inputs: b.Manifest.Inputs, Body: b.Manifest.BodyChoice, Policy: b.Manifest.DelegaticPolicyID}
	for i := range b.Trace.Edges {
		e := &b.Trace.Edges[i]
		for _, p := range e.ModelParams() {
			n.ModelChoices = append(n.ModelChoices, ModelChoice{Edge: e.Index, Tool: e.Tool.Name, Param: p})
		}
	}
	return n
}

// InputRow is one manifest input with the value the skill was taught with
// beside the value a replay would use.
type InputRow struct {
	Name, Type string
	// Recorded is the taught value as text, "" when the recording has
	// none for this input.
	Recorded string
	// New is the value typed for the replay.
	New string
	// Changed: the new value differs from the recorded one.
	Changed bool
}

// InputRows sets each input of b's manifest, recorded, beside the value
// given for it by name (raw text, as typed; an input not in given is
// taken as its recorded value). Values are compared as text with the
// surrounding space trimmed, the way the form reads them.
func InputRows(b *skill.Bundle, given map[string]string) []InputRow {
	rows := make([]InputRow, 0, len(b.Manifest.Inputs))
	for _, in := range b.Manifest.Inputs {
		row := InputRow{Name: in.Name, Type: in.Type}
		if v, ok := b.Evidence.Scenario.Inputs[in.Name]; ok {
			row.Recorded = teach.ExampleText(v)
		}
		row.New = row.Recorded
		if v, ok := given[in.Name]; ok {
			row.New = v
		}
		row.Changed = strings.TrimSpace(row.New) != strings.TrimSpace(row.Recorded)
		rows = append(rows, row)
	}
	return rows
}

// EdgeRow is one recorded edge beside what its replay observed (the
// replay page's side-by-side view). The replayed members are empty until
// the replay reaches the edge (Replayed is false).
type EdgeRow struct {
	Index      int
	Tool       string
	ActionType string
	Capability string

	RecordedBefore, RecordedAfter string

	Replayed                      bool
	ObservedBefore, ObservedAfter string
	// Match is exact, structural, mismatch or not_run (after a halt).
	Match     string
	Committed bool
	// Decision is the replay's authorization decision, "" when none was
	// made (the edge did not run that far).
	Decision string
	// Surprises are the surprise signals raised at this edge, each with
	// its predicted and actual state hashes and its kind.
	Surprises []skill.SurpriseSignal

	// What the step did and what the body answered, in words: the
	// recorded call's arguments and answer (the edge's observed_outcome
	// as words.Snapshot text), and the replayed call's, once it ran.
	RecordedArgs map[string]any
	RecordedSaw  string
	ReplayedArgs map[string]any
	Saw          string
	// Difference is what differed where the replay was surprised by the
	// state: nil on every other row.
	Difference *Difference
}

// Difference is what a replay saw beside what was recorded at the edge
// whose state diverged, and which tolerance that exceeded, in words.
type Difference struct {
	// Recorded and Observed are the two texts compared: the body's answer
	// to the recorded call and to the replayed one; before the first
	// action, Recorded is empty (the recording keeps only the hash of the
	// state it started in) and Observed is what the body showed instead.
	Recorded, Observed string
	// Lines mark, line by line, what was removed from the recorded text
	// and added in the observed one, with context; empty when the two
	// answers read alike and only the state behind them differed.
	Lines []words.DiffLine
	// Tolerance says which fidelity level was held and how it was
	// exceeded.
	Tolerance string
}

// diffContext is how many unchanged lines a Difference shows around each
// change.
const diffContext = 3

// EdgeRows sets every recorded edge of b beside the replayed edges seen
// so far (in any order; a replay in progress has a prefix, as its
// ReplayRequest.Progress reports them) and the surprises raised so far.
func EdgeRows(b *skill.Bundle, replayed []skill.ReplayEdge, surprises []skill.SurpriseSignal) []EdgeRow {
	byIndex := make(map[int]skill.ReplayEdge, len(replayed))
	for _, e := range replayed {
		byIndex[e.Index] = e
	}
	rows := make([]EdgeRow, 0, len(b.Trace.Edges))
	for _, e := range b.Trace.Edges {
		row := EdgeRow{
			Index: e.Index, Tool: e.Tool.Name, ActionType: e.TypedAction.Type, Capability: e.Capability,
			RecordedBefore: e.StateBefore, RecordedAfter: e.StateAfter,
		}
		row.RecordedArgs, row.RecordedSaw = e.Tool.Arguments, words.Snapshot(e.ObservedOutcome)
		r, ok := byIndex[e.Index]
		if ok {
			row.Replayed = true
			row.ObservedBefore, row.ObservedAfter = r.ObservedStateBefore, r.ObservedStateAfter
			row.Match, row.Committed = r.Match, r.Committed
			if r.Authorization != nil {
				row.Decision = r.Authorization.Decision
			}
			row.ReplayedArgs = r.Arguments
			if r.Outcome != nil {
				row.Saw = words.Snapshot(r.Outcome)
			}
		}
		for _, s := range surprises {
			if s.EdgeIndex == e.Index {
				row.Surprises = append(row.Surprises, s)
				if row.Difference == nil && s.Kind == skill.KindStateHashMismatch && ok {
					row.Difference = difference(row, r, s)
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// difference sets the recorded answer beside the observed one at an edge
// whose state diverged (surprise s), and names the tolerance exceeded.
func difference(row EdgeRow, r skill.ReplayEdge, s skill.SurpriseSignal) *Difference {
	d := &Difference{Recorded: row.RecordedSaw, Observed: row.Saw}
	switch {
	case r.Outcome == nil && r.Perceived != nil:
		// Halted before the first action: nothing was called.
		d.Recorded, d.Observed = "", words.Snapshot(r.Perceived)
		d.Tolerance = "The body must start where the recording started. It did not: the recording keeps only the hash of that state, and the body showed what is below instead."
		return d
	case s.SurpriseKind == "other":
		d.Tolerance = "Exact: replayed with the input it was taught with, on a body that always answers the same actions alike, the state must be the recorded one, byte for byte. Its structure matched; its content did not."
	case s.SurpriseKind == "unexpected_unchanged":
		d.Tolerance = "Structural: the state after the action must have the recorded structure. The action left the state unchanged where the recording changed it."
	default:
		d.Tolerance = "Structural: the state after the action must have the recorded structure (other text is allowed). Its structure changed."
	}
	d.Lines = words.Diff(d.Recorded, d.Observed, diffContext)
	return d
}
