package compare

import (
	"fmt"
	"strings"
)

// Summary says in plain sentences what the comparison found: first
// whether the models were exercised at all and which failed, then, for
// every pair, whether they agree, where they diverge, or why they cannot
// be compared.
func (c *Comparison) Summary() []string {
	var lines []string
	ran := 0
	for _, r := range c.Results {
		if r.Err == nil {
			ran++
		}
	}
	if ran > 0 && !c.ModelsExercised {
		why := "every parameter of this skill is literal or bound to an input"
		if c.ModelBound {
			why = "every replay stopped before the first edge whose parameters a model chooses"
		}
		lines = append(lines, fmt.Sprintf("The models were not exercised: %s, so replay made no model call. "+
			"The %d replays ran the same recorded calls and say nothing about how the models compare.", why, ran))
	}
	for _, r := range c.Results {
		if r.Err != nil {
			lines = append(lines, fmt.Sprintf("%s has no result: %v", r.Model, r.Err))
		}
	}
	for _, p := range c.Pairs {
		lines = append(lines, p.Sentence())
	}
	return lines
}

// Sentence describes the pair in one line.
func (p Pair) Sentence() string {
	switch p.Outcome {
	case OutcomeAgree:
		return fmt.Sprintf("%s and %s agree: same status, fidelity, surprises, state after every edge, verdict and gates.", p.A, p.B)
	case OutcomeDiverge:
		return fmt.Sprintf("%s and %s diverge: %s.", p.A, p.B, describe(p.Differences))
	case OutcomeNotExercised:
		if len(p.Differences) == 0 {
			return fmt.Sprintf("%s and %s: not compared, %s; their results are identical because no model took part.", p.A, p.B, p.Reason)
		}
		return fmt.Sprintf("%s and %s: not compared, %s; their results differ all the same, so the body did not behave the same: %s.",
			p.A, p.B, p.Reason, describe(p.Differences))
	case OutcomeIncomparable:
		return fmt.Sprintf("%s and %s: not compared, %s.", p.A, p.B, p.Reason)
	}
	return fmt.Sprintf("%s and %s: %s", p.A, p.B, p.Outcome)
}

func describe(ds []Difference) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%s %s vs %s", d.What, short(d.A), short(d.B))
	}
	return strings.Join(parts, "; ")
}

// short abbreviates a state hash, which is too long to read in a sentence
// and identifies a state by its first dozen digits as well.
func short(s string) string {
	const prefix = "sha256:"
	if strings.HasPrefix(s, prefix) && len(s) > len(prefix)+12 {
		return s[:len(prefix)+12] + "…"
	}
	return s
}
