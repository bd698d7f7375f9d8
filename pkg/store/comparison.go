package store

import (
	"fmt"
	"time"

	"workbench/pkg/skill"
)

// Comparison is one run of the compare flow kept with the skill version it
// compared, so that its results outlive the page that ran it whether or
// not they were saved as a version (docs/decisions.md, "Where unsaved
// comparison results are kept"). Its key is ID, a UUIDv7; it belongs to
// SkillID.
//
// Cells holds one cell per model and input set, models first: the cell
// of model i and input set j is Cells[i*len(Inputs)+j].
type Comparison struct {
	ID           string `json:"comparison_id"`
	SkillID      string `json:"skill_id"`
	SkillVersion int    `json:"skill_version"`
	// BundleHash is the content hash of the version compared.
	BundleHash string           `json:"bundle_hash"`
	CreatedAt  string           `json:"created_at"`
	Models     []string         `json:"models"`
	Inputs     []map[string]any `json:"inputs"`
	Cells      []ComparisonCell `json:"cells"`
	// Summary is the comparison's findings in sentences, one list per
	// input set (compare.Comparison.Summary).
	Summary [][]string `json:"summary"`
	// SavedVersion is the version that carries every cell's replay, once
	// saved; 0 before.
	SavedVersion int `json:"saved_version,omitempty"`
}

// ComparisonCell is one model's replay of one input set: what the matrix
// shows, and the replay record itself, which saving the comparison as a
// version needs. A cell whose model call failed has Error and no Record.
type ComparisonCell struct {
	Model string `json:"model"`
	// Input is the index of the input set in Comparison.Inputs.
	Input int `json:"input"`
	// Verdict is the verifier's verdict on the replay proved as the next
	// version, "error" when the cell has no replay.
	Verdict        string  `json:"verdict"`
	Status         string  `json:"status,omitempty"`
	HaltedAtEdge   *int    `json:"halted_at_edge,omitempty"`
	Fidelity       float64 `json:"fidelity"`
	FidelityLevel  string  `json:"fidelity_level,omitempty"`
	EdgesCommitted int     `json:"edges_committed"`
	EdgesAttempted int     `json:"edges_attempted"`
	// ModelUsed is the model that answered, replay.NoModel when none was
	// asked.
	ModelUsed  string  `json:"model_used,omitempty"`
	ModelCalls int     `json:"model_calls"`
	CostUSD    float64 `json:"cost_usd"`
	CostKnown  bool    `json:"cost_known"`
	// LatencyMS is how long the replay took, in milliseconds.
	LatencyMS int64               `json:"latency_ms"`
	Error     string              `json:"error,omitempty"`
	Record    *skill.ReplayRecord `json:"record,omitempty"`
}

// Latency is the cell's latency as a duration.
func (c ComparisonCell) Latency() time.Duration {
	return time.Duration(c.LatencyMS) * time.Millisecond
}

// Cell returns the cell of model i and input set j; false when there is
// none.
func (c Comparison) Cell(i, j int) (ComparisonCell, bool) {
	k := i*len(c.Inputs) + j
	if i < 0 || j < 0 || j >= len(c.Inputs) || k >= len(c.Cells) {
		return ComparisonCell{}, false
	}
	return c.Cells[k], true
}

// Check reports why c cannot be stored, as an *Error of kind ErrInvalid.
func (c Comparison) Check(op string) error {
	switch {
	case c.ID == "":
		return invalid(op, StoreComparisons, "", "comparison_id is empty")
	case c.SkillID == "":
		return invalid(op, StoreComparisons, c.ID, "skill_id is empty")
	case len(c.Cells) != len(c.Models)*len(c.Inputs):
		return invalid(op, StoreComparisons, c.ID, fmt.Sprintf("%d cells for %d models and %d input sets", len(c.Cells), len(c.Models), len(c.Inputs)))
	}
	return nil
}
