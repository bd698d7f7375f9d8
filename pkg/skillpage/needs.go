package skillpage

import (
	"sort"
	"strings"

	"workbench/pkg/body"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
)

// Needs is what a replay of a stored skill needs, said before it runs: the
// inputs it takes, and whether a model must choose parameters again (then
// a model id and the tab's OpenRouter key), and where.
type Needs struct {
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

// ModelBound reports whether the replay needs a model (and so a key).
func (n Needs) ModelBound() bool { return len(n.ModelChoices) > 0 }

// NeedsOf says what a replay of b needs.
func NeedsOf(b *skill.Bundle) Needs {
	n := Needs{Inputs: b.Manifest.Inputs, Body: b.Manifest.BodyChoice, Policy: b.Manifest.DelegaticPolicyID}
	for _, e := range b.Trace.Edges {
		params := make([]string, 0, len(e.ParamSources))
		for p, s := range e.ParamSources {
			if s == skill.SourceLLM {
				params = append(params, p)
			}
		}
		sort.Strings(params)
		for _, p := range params {
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
