package workbench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"workbench/pkg/assemble"
	"workbench/pkg/compare"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
)

// CompareRequest is one comparison as a front-end asks for it: a matrix
// of models × input sets, each cell one replay of Bundle.
type CompareRequest struct {
	// Bundle is the skill version to compare.
	Bundle *skill.Bundle
	// Models are the model ids compared, at least two, each once.
	Models []string
	// Sets are the input sets every model replays with, in order. None
	// means one set: the inputs the skill was taught with.
	Sets []InputSet
	// World names the simulator world every cell starts in; "" means the
	// world the recording starts in.
	World string
	// Destructive is the user's destructive-mode toggle.
	Destructive bool
	// AcceptLocalPolicy is the user's answer to an
	// *AuthorizerUnavailableError, as for Replay.
	AcceptLocalPolicy bool
	// Save stores the next version carrying every cell's replay in the
	// library (SaveComparison), once the matrix is complete.
	Save bool
	// Keep stores the matrix with the skill (store.Comparison), for the
	// skill's history to show and SaveComparison to save later. Neither
	// Keep nor Save: nothing is written.
	Keep bool
	// Progress, when set, is called after each replayed edge of each cell
	// and when each cell is complete.
	Progress func(CompareProgress)
}

// InputSet is one column of the matrix: values over the inputs the skill
// was taught with, already typed (Input, the palette's JSON) or as a
// person typed them (Values), as in ReplayRequest. The zero InputSet is
// the taught inputs.
type InputSet struct {
	Input  map[string]any
	Values []teach.Value
}

// Cell is one cell of the matrix: one model's replay of one input set,
// proved as the next version (or the model's failure, a *ModelError), with
// its cost and latency. It is the value compare.Of compares; front-ends
// read it without importing pkg/compare.
type Cell = compare.Result

// SetComparison is one input set's cells side by side, with where each
// pair of models differs and its summary in sentences.
type SetComparison = compare.Comparison

// CompareProgress is one step of a comparison: an edge of the cell of
// Model and input set Set was replayed (Edge), or the cell is complete
// (Result).
type CompareProgress struct {
	Model  string
	Set    int
	Edge   *skill.ReplayEdge
	Result *Cell
}

// Comparison is the matrix a comparison produced.
type Comparison struct {
	// Bundle is the version compared.
	Bundle *skill.Bundle
	Models []string
	// Inputs are the input sets as replayed, each typed and checked.
	Inputs []map[string]any
	// BySet holds, for each input set, the models' results side by side
	// and where each pair of models differs; BySet[j].Results[i] is the
	// cell of model i and input set j.
	BySet []*SetComparison
	// Final is the next version of Bundle carrying the replay of every
	// cell that has one, nil when none has; FinalReport is its
	// verification. Every cell's own result was proved as that same
	// version number with only its own replay, so saving Final leaves no
	// gap in the version numbers.
	Final       *skill.Bundle
	FinalReport *verify.Report
	// Authority names who authorized every cell's run.
	Authority string
	// Kept is the comparison as the library keeps it (store.Comparison):
	// stored when the request asked to Keep or Save it, so that it
	// outlives the page that ran it; Kept.SavedVersion is set when the request saved Final.
	Kept store.Comparison
	// KeepErr is why Kept could not be stored; the results above stand.
	KeepErr error
}

// ModelListError says the models given cannot be compared: fewer than
// two, one empty, or one given twice.
type ModelListError struct{ Msg string }

func (e *ModelListError) Error() string { return "compare: " + e.Msg }

// InputSetError says input set Set (0-based) has a value the skill does
// not accept; Err is the *teach.InputError naming the input.
type InputSetError struct {
	Set int
	Err error
}

func (e *InputSetError) Error() string {
	return fmt.Sprintf("input set %d: %v", e.Set+1, e.Err)
}

func (e *InputSetError) Unwrap() error { return e.Err }

// Compare replays req.Bundle once for every model and every input set,
// each cell on a fresh body, with the same authorizer for all (chosen once,
// as for Replay), proves every cell's replay as the next version and
// verifies it, and sets each input set's results side by side
// (compare.Of). The cells that have a replay are then sealed together as
// one next version (Final), stored when req.Save. With a Store, the
// matrix is stored (Kept) when req.Keep or req.Save; otherwise nothing is
// written.
//
// Every input set is checked before anything runs: a value the skill does
// not accept is an *InputSetError, bad models a *ModelListError, a
// model-bound skill with no key a *MissingKeyError; PrepareReplay's and
// the authorizer's errors are returned as they are. A model whose call fails
// is that cell's result (Cell.Err, a *ModelError), and the other cells
// run.
func (fl *Flows) Compare(ctx context.Context, req CompareRequest) (*Comparison, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	var st store.Store
	if req.Save || req.Keep {
		if st, err = fl.library(ctx); err != nil {
			return nil, fmt.Errorf("compare: keeping the results: %w", err)
		}
	}
	if err := checkModels(req.Models); err != nil {
		return nil, err
	}
	sets := req.Sets
	if len(sets) == 0 {
		sets = []InputSet{{}}
	}
	setups := make([]*ReplaySetup, len(sets))
	for j, set := range sets {
		s, err := fl.PrepareReplay(ReplayRequest{Bundle: req.Bundle, Input: set.Input, Values: set.Values, World: req.World, Destructive: req.Destructive})
		var ie *teach.InputError
		if errors.As(err, &ie) && ie.Field == teach.FieldInput {
			return nil, &InputSetError{Set: j, Err: err}
		}
		if err != nil {
			return nil, err
		}
		setups[j] = s
	}
	b := setups[0].Bundle
	client, err := fl.compareModel(ctx, setups[0], req.Models)
	if err != nil {
		return nil, err
	}
	auth, err := fl.authorize(ctx, setups[0].Kind, setups[0].Bundle.Manifest.DelegaticPolicyID, req.AcceptLocalPolicy)
	if err != nil {
		return nil, err
	}
	defer auth.Close()

	c := &Comparison{Bundle: b, Models: req.Models, Authority: auth.Name}
	var recs []skill.ReplayRecord
	for j, s := range setups {
		c.Inputs = append(c.Inputs, s.Input)
		results := make([]Cell, len(req.Models))
		for i, m := range req.Models {
			r, err := fl.cell(ctx, v, s, auth, client, m, j, req.Progress)
			if err != nil {
				return nil, err
			}
			results[i] = r
			if r.Record != nil {
				recs = append(recs, *r.Record)
			}
			if req.Progress != nil {
				req.Progress(CompareProgress{Model: m, Set: j, Result: &results[i]})
			}
		}
		c.BySet = append(c.BySet, compare.Of(b, s.Input, results))
	}
	if len(recs) > 0 {
		if c.Final, c.FinalReport, err = fl.sealAll(v, b, recs); err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
	}
	c.Kept = c.record(fl.now())
	if req.Save {
		if c.Final == nil {
			return nil, errors.New("compare: nothing to save: no model has a replay")
		}
		if err := fl.addFinal(ctx, st, c.Final); err != nil {
			return nil, err
		}
		c.Kept.SavedVersion = c.Final.SkillVersion
	}
	if st != nil {
		if err := st.SaveComparison(ctx, c.Kept); err != nil {
			c.KeepErr = fmt.Errorf("the results could not be kept with the skill: %w", err)
		}
	}
	return c, nil
}

// checkModels requires at least two models, none empty, none twice.
func checkModels(models []string) error {
	if len(models) < 2 {
		return &ModelListError{Msg: fmt.Sprintf("%d model(s) given; a comparison needs at least two", len(models))}
	}
	for i, m := range models {
		if strings.TrimSpace(m) == "" {
			return &ModelListError{Msg: fmt.Sprintf("model %d is empty", i+1)}
		}
		for _, prev := range models[:i] {
			if prev == m {
				return &ModelListError{Msg: fmt.Sprintf("model %s is given twice", m)}
			}
		}
	}
	return nil
}

// compareModel is the client every model is reached through: required
// when the skill is model-bound, and otherwise used if there is one.
func (fl *Flows) compareModel(ctx context.Context, s *ReplaySetup, models []string) (Model, error) {
	var client Model
	if fl.d.Models != nil {
		var err error
		if client, err = fl.d.Models(ctx); err != nil {
			return nil, err
		}
	}
	if client == nil && s.ModelBound {
		return nil, &MissingKeyError{Model: strings.Join(models, ", ")}
	}
	return client, nil
}

// cell replays s once with model on a fresh body (runReplay) and seals
// the replay as the next version (seal): one cell of the matrix.
func (fl *Flows) cell(ctx context.Context, v *verify.Verifier, s *ReplaySetup, auth *Authority, client Model, model string, set int, progress func(CompareProgress)) (Cell, error) {
	bd, trusted, closeBd, err := fl.openBody(ctx, s.Kind, s.World, s.WorldData)
	if err != nil {
		return Cell{}, err
	}
	defer closeBd()
	var onEdge func(skill.ReplayEdge)
	if progress != nil {
		onEdge = func(e skill.ReplayEdge) {
			progress(CompareProgress{Model: model, Set: set, Edge: &e})
		}
	}
	// A skill that is not model-bound asks no model: without a client it
	// replays as no model, and the result still belongs to this column.
	use := model
	if client == nil {
		use = ""
	}
	r, err := fl.runReplay(ctx, s, bd, auth.For(s, trusted), use, client, onEdge)
	if err != nil {
		return Cell{}, fmt.Errorf("compare %s on input set %d: %w", model, set+1, err)
	}
	r.Model = model
	if r.Record != nil {
		if r.Bundle, r.Report, err = fl.seal(v, s.Bundle, *r.Record); err != nil {
			return Cell{}, fmt.Errorf("compare %s on input set %d: saving the replay as the next version: %w", model, set+1, err)
		}
	}
	return r, nil
}

// sealAll makes recs b's next version, one version for them all
// (assemble.WithReplays), and verifies the bytes it exports.
func (fl *Flows) sealAll(v *verify.Verifier, b *skill.Bundle, recs []skill.ReplayRecord) (*skill.Bundle, *verify.Report, error) {
	nb, err := assemble.WithReplays(v, b, recs, fl.now(), skill.NewID)
	if err != nil {
		return nil, nil, fmt.Errorf("seal the comparison: %w", err)
	}
	data, err := nb.Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("seal the comparison: %w", err)
	}
	rep, err := v.Bytes(data)
	if err != nil {
		return nil, nil, fmt.Errorf("the sealed comparison does not verify: %w", err)
	}
	return nb, rep, nil
}

// addFinal stores the version that carries a comparison's replays.
func (fl *Flows) addFinal(ctx context.Context, st store.Store, final *skill.Bundle) error {
	f, err := store.EncodeBundle(final)
	if err != nil {
		return fmt.Errorf("save the comparison: %w", err)
	}
	if _, err := st.AddBundle(ctx, f); err != nil {
		return fmt.Errorf("save the comparison as v%d: %w", final.SkillVersion, err)
	}
	return nil
}

// record is c as the library keeps it.
func (c *Comparison) record(now time.Time) store.Comparison {
	k := store.Comparison{
		ID: skill.NewID(), SkillID: c.Bundle.SkillID, SkillVersion: c.Bundle.SkillVersion,
		BundleHash: c.Bundle.ContentHash, CreatedAt: now.UTC().Format(time.RFC3339Nano),
		Models: c.Models, Inputs: c.Inputs,
	}
	for i := range c.Models {
		for j := range c.Inputs {
			k.Cells = append(k.Cells, cellOf(c.BySet[j].Results[i], j))
		}
	}
	for _, s := range c.BySet {
		k.Summary = append(k.Summary, s.Summary())
	}
	return k
}

// cellOf is one result as the library keeps it.
func cellOf(r Cell, set int) store.ComparisonCell {
	cell := store.ComparisonCell{Model: r.Model, Input: set, Verdict: r.Verdict(),
		ModelCalls: r.ModelCalls, CostUSD: r.CostUSD, CostKnown: r.CostKnown, LatencyMS: r.Latency.Milliseconds()}
	if r.Err != nil {
		cell.Error = r.Err.Error()
	}
	if r.Record != nil {
		rep := r.Record.Report
		cell.Status, cell.HaltedAtEdge, cell.Fidelity, cell.FidelityLevel = rep.Status, rep.HaltedAtEdge, rep.Fidelity, rep.FidelityLevel
		cell.EdgesCommitted, cell.EdgesAttempted, cell.ModelUsed = rep.EdgesCommitted, rep.EdgesAttempted, rep.ModelUsed
		rec := *r.Record
		cell.Record = &rec
	}
	return cell
}

// SaveComparison saves a kept comparison (Comparison.Kept, or one read
// back from the library after a reload) as the next version of the
// version it compared: one version carrying every cell's replay. The
// record is kept again with its SavedVersion, and returned.
func (fl *Flows) SaveComparison(ctx context.Context, k store.Comparison) (store.Comparison, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return k, fmt.Errorf("compare: saving: %w", err)
	}
	st, err := fl.library(ctx)
	if err != nil {
		return k, fmt.Errorf("compare: saving: %w", err)
	}
	if k.SavedVersion != 0 {
		return k, fmt.Errorf("compare: this comparison is saved already, as v%d", k.SavedVersion)
	}
	var recs []skill.ReplayRecord
	for _, c := range k.Cells {
		if c.Record != nil {
			recs = append(recs, *c.Record)
		}
	}
	if len(recs) == 0 {
		return k, errors.New("compare: nothing to save: no model has a replay")
	}
	sb, err := st.Bundle(ctx, k.BundleHash)
	if err != nil {
		return k, fmt.Errorf("compare: the version compared: %w", err)
	}
	b, err := sb.Decode()
	if err != nil {
		return k, fmt.Errorf("compare: the version compared: %w", err)
	}
	final, _, err := fl.sealAll(v, b, recs)
	if err != nil {
		return k, fmt.Errorf("compare: %w", err)
	}
	if err := fl.addFinal(ctx, st, final); err != nil {
		return k, err
	}
	k.SavedVersion = final.SkillVersion
	if err := st.SaveComparison(ctx, k); err != nil {
		return k, fmt.Errorf("compare: saved as v%d, and the results could not be kept with it: %w", final.SkillVersion, err)
	}
	return k, nil
}
