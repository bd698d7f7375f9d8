package skillpage

import (
	"workbench/pkg/skill"
)

// EdgeRow is one recorded edge beside what its replay observed (the replay
// page's side-by-side view). The replayed members are empty until the
// replay reaches the edge (Replayed is false).
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
}

// EdgeRows sets every recorded edge of b beside the replayed edges seen so
// far (in any order; a replay in progress has a prefix) and the surprises
// raised so far.
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
		if r, ok := byIndex[e.Index]; ok {
			row.Replayed = true
			row.ObservedBefore, row.ObservedAfter = r.ObservedStateBefore, r.ObservedStateAfter
			row.Match, row.Committed = r.Match, r.Committed
			if r.Authorization != nil {
				row.Decision = r.Authorization.Decision
			}
		}
		for _, s := range surprises {
			if s.EdgeIndex == e.Index {
				row.Surprises = append(row.Surprises, s)
			}
		}
		rows = append(rows, row)
	}
	return rows
}
