package workbench

import (
	"context"
	"errors"
	"fmt"

	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/compare"
	"workbench/pkg/openrouter"
	"workbench/pkg/replay"
	"workbench/pkg/skill"
	"workbench/pkg/verify"
)

// ModelError is a model call that failed during a replay. The replay
// stopped there, and what it recorded is discarded: it would describe the
// network or the account, not the skill or the model's choices. It is a
// result's Err (ReplayResult.Err, a comparison cell's Err), never the
// flow's error: the other cells of a comparison still run.
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

// runReplay replays s once on bd under auth — the one place a replay
// runs, for Replay and for every cell of Compare. model re-chooses the
// parameters a model chose, through client; "" and nil when the skill
// has none (PrepareReplay, ModelFor and compareModel see to that). The
// model's calls are counted and their cost summed, the replay is timed by
// the flows' clock (sealing it is not counted), and a failed model
// call becomes the result's *ModelError with no record. The error is one
// that stops the flow: a rejected input, ctx ending.
//
// The result has no Bundle or Report yet: seal makes the next version.
func (fl *Flows) runReplay(ctx context.Context, s *ReplaySetup, bd body.Body, auth replay.Authorizer, model string, client Model, progress func(skill.ReplayEdge)) (compare.Result, error) {
	r := compare.Result{Model: model}
	mt := &meter{costKnown: true}
	ro := replay.Options{Input: s.Input, Authorizer: auth, Deterministic: s.Deterministic(),
		Now: fl.now, NewID: skill.NewID, Progress: progress}
	if model != "" && client != nil {
		mt.m = client
		ro.Chooser = replay.ModelChooser{Model: mt, ModelID: model}
	}
	start := fl.now()
	rec, err := replay.Run(ctx, s.Bundle, bd, ro)
	if err != nil {
		return r, err
	}
	r.Latency = fl.now().Sub(start)
	if err := ctx.Err(); err != nil {
		return r, err
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

// seal makes rec b's next version (assemble.WithReplay) and verifies the
// bytes that version exports — the one place a replay is saved as a
// version, for Replay (judged or not) and for every cell of Compare.
func (fl *Flows) seal(v *verify.Verifier, b *skill.Bundle, rec skill.ReplayRecord) (*skill.Bundle, *verify.Report, error) {
	nb, err := assemble.WithReplay(v, b, rec, fl.now(), skill.NewID)
	if err != nil {
		return nil, nil, err
	}
	data, err := nb.Encode()
	if err != nil {
		return nil, nil, err
	}
	rep, err := v.Bytes(data)
	if err != nil {
		return nil, nil, fmt.Errorf("the new version does not verify: %w", err)
	}
	return nb, rep, nil
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
