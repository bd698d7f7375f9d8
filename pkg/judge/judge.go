// Package judge is the opt-in semantic judge of a replay (spec §3 step 3,
// §5.5, DESIGN §5): a judge compares what a replay produced with what the
// demonstration produced, and only its confirmation lifts a structural
// replay to fidelity level semantic. Package judge/prism implements Judge
// over a prism-eval server's observe tool.
//
// Guarantees (Apply):
//   - Only a structural replay is judged. An exact replay needs no judge;
//     a failed or inconclusive one cannot be lifted by one.
//   - semantic is assigned only when the judge says the outputs are
//     equivalent with a score at or above the threshold. A judge that
//     answers otherwise leaves the level structural, and its answer is
//     recorded.
//   - A judge that was asked for and is not configured, not reachable,
//     not speaking the contract, or refuses leaves the fidelity ratio as
//     measured and sets the level to inconclusive, as spec §5.5 requires
//     ("PRISM unavailable for semantic judging"), with the reason
//     recorded. Nothing is scored that no judge scored.
package judge

import (
	"context"
	"fmt"
	"sync"

	"workbench/pkg/body"
	"workbench/pkg/skill"
)

// Request is what a judge compares.
type Request struct {
	// Goal is the skill's task, the yardstick of equivalence.
	Goal string
	// Original is the demonstration's output and Replayed the replay's
	// (see OriginalOutput and Tap).
	Original any
	Replayed any
}

// Verdict is a judge's answer.
type Verdict struct {
	// Judge names who judged, e.g. `prism-eval (server "prism")`.
	Judge string
	// Equivalent is the judge's verdict on the two outputs.
	Equivalent bool
	// Score is the judge's confidence in [0, 1].
	Score float64
	// Rationale is the judge's reason, as given.
	Rationale string
	// Model is the model that judged, when the judge says.
	Model string
}

// Judge judges output equivalence. An error means no verdict: the judge
// could not be asked or did not answer usably.
type Judge interface {
	Judge(ctx context.Context, req Request) (Verdict, error)
}

// DefaultMinScore is the score a judge must reach for semantic.
const DefaultMinScore = 0.8

// Options configure Apply.
type Options struct {
	// MinScore is the lowest score that confirms equivalence; 0 means
	// DefaultMinScore.
	MinScore float64
}

// Outcome is a replay record after judging.
type Outcome struct {
	// Record is the replay record with the fidelity level judging
	// assigned; everything else is as replay measured it.
	Record skill.ReplayRecord
	// Judge is the evidence.judge block to record with the replay: the
	// judge's answer, or why there is none. Nil when no judging applied.
	Judge map[string]any
	// Score is the evidence.score block: the judge's score and its
	// derivation. Nil unless a judge scored.
	Score map[string]any
	// Semantic reports that the judge confirmed equivalence.
	Semantic bool
	// Reason says what happened, for the UI.
	Reason string
}

// Apply judges a replay with j. See the package comment.
func Apply(ctx context.Context, j Judge, rec skill.ReplayRecord, req Request, opt Options) Outcome {
	if opt.MinScore <= 0 {
		opt.MinScore = DefaultMinScore
	}
	level := rec.Report.FidelityLevel
	if level != skill.LevelStructural {
		return Outcome{Record: rec, Reason: fmt.Sprintf("only a structural replay is judged; this replay is %s", level)}
	}
	if j == nil {
		return Unavailable(rec, fmt.Errorf("no judge is configured"))
	}
	v, err := j.Judge(ctx, req)
	if err != nil {
		return Unavailable(rec, err)
	}
	confirmed := v.Equivalent && v.Score >= opt.MinScore
	out := Outcome{Record: rec, Semantic: confirmed}
	if confirmed {
		out.Record.Report.FidelityLevel = skill.LevelSemantic
		out.Reason = fmt.Sprintf("%s confirmed the replay's output equivalent (score %g ≥ %g): fidelity semantic", v.Judge, v.Score, opt.MinScore)
	} else {
		out.Reason = fmt.Sprintf("%s did not confirm equivalence (equivalent %t, score %g, threshold %g): fidelity stays structural", v.Judge, v.Equivalent, v.Score, opt.MinScore)
	}
	out.Judge = map[string]any{
		"judge": v.Judge, "replay_id": rec.Report.ReplayID, "available": true,
		"equivalent": v.Equivalent, "score": v.Score, "min_score": opt.MinScore, "confirmed": confirmed,
		"rationale": v.Rationale, "fidelity_level": out.Record.Report.FidelityLevel,
	}
	if v.Model != "" {
		out.Judge["model"] = v.Model
	}
	out.Score = map[string]any{"composite": v.Score,
		"derivation": fmt.Sprintf("equivalence score of replay %s against the demonstration, by %s", rec.Report.ReplayID, v.Judge)}
	return out
}

// Unavailable is the outcome of a judged replay whose judge could not
// judge: a structural replay becomes inconclusive, with why recorded.
// Other levels are left as they are.
func Unavailable(rec skill.ReplayRecord, why error) Outcome {
	if rec.Report.FidelityLevel != skill.LevelStructural {
		return Outcome{Record: rec, Reason: fmt.Sprintf("only a structural replay is judged; this replay is %s", rec.Report.FidelityLevel)}
	}
	out := Outcome{Record: rec}
	out.Record.Report.FidelityLevel = skill.LevelInconclusive
	out.Reason = fmt.Sprintf("semantic judging was asked for and no judge could judge: %v; fidelity is inconclusive", why)
	out.Judge = map[string]any{"replay_id": rec.Report.ReplayID, "available": false, "reason": why.Error(),
		"fidelity_level": skill.LevelInconclusive}
	return out
}

// OriginalOutput is the demonstration's output: what the last edge that
// acted successfully observed (its observed_outcome), nil when none did.
func OriginalOutput(t *skill.Trace) any {
	for i := len(t.Edges) - 1; i >= 0; i-- {
		if t.Edges[i].OutcomeStatus == skill.OutcomeOK {
			return t.Edges[i].ObservedOutcome
		}
	}
	return nil
}

// Tap wraps the body a replay runs on and keeps the result of its last
// successful tool call: the replay's output, in the same form as a
// recorded edge's observed_outcome (structured content when the tool gave
// any, else its text).
type Tap struct {
	body.Body
	mu   sync.Mutex
	last any
	seen bool
}

// NewTap wraps b.
func NewTap(b body.Body) *Tap { return &Tap{Body: b} }

// Call performs the call on the wrapped body and keeps its result.
func (t *Tap) Call(ctx context.Context, tool string, args map[string]any) (body.Result, error) {
	r, err := t.Body.Call(ctx, tool, args)
	if err == nil && !r.IsError {
		t.mu.Lock()
		t.last, t.seen = r.Text, true
		if r.Structured != nil {
			t.last = r.Structured
		}
		t.mu.Unlock()
	}
	return r, err
}

// StateHashes keeps the wrapped body's fast path, if it has one.
func (t *Tap) StateHashes(ctx context.Context) (hash, shape string, err error) {
	if h, ok := t.Body.(body.Hasher); ok {
		return h.StateHashes(ctx)
	}
	st, err := t.Body.State(ctx)
	if err != nil {
		return "", "", err
	}
	return skill.StateHashes(st)
}

// Output returns the last successful call's result, and false when no
// call succeeded.
func (t *Tap) Output() (any, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last, t.seen
}
