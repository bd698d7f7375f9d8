package workbench

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"workbench/fixtures"
	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/judge"
	"workbench/pkg/openrouter"
	"workbench/pkg/policy"
	"workbench/pkg/policy/delegatic"
	"workbench/pkg/replay"
	"workbench/pkg/services"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
)

// BodyFactory opens a fresh body of kind (simulator, browser or host) for
// one run; world is the simulator world the run starts in, which the MCP
// bodies ignore. trusted says whether the body's tool annotations are to
// be believed (DESIGN §7). A body with a Close(context.Context) error
// method is closed by the flow when the run ends.
type BodyFactory func(ctx context.Context, kind body.Kind, world []byte) (b body.Body, trusted bool, err error)

// AuthorizerChooser applies spec OQ-2 for a run on a body of kind under
// the policy policyID, as delegatic.Choose does: the Choice's Authorizer
// when one applies, else an error saying why and the local engine as the
// Choice's Fallback.
type AuthorizerChooser func(ctx context.Context, kind body.Kind, policyID string) (delegatic.Choice, error)

// Model is the chat API a model is reached through; *openrouter.Client is
// one.
type Model interface {
	Chat(ctx context.Context, req openrouter.Request) (*openrouter.Response, error)
}

// ModelFactory returns the chat client that re-chooses a model's
// parameters. A nil client with a nil error means no key is kept.
type ModelFactory func(ctx context.Context) (Model, error)

// JudgeFactory connects to the judge of output equivalence; done ends its
// session.
type JudgeFactory func(ctx context.Context) (j judge.Judge, done func(), err error)

// ReplayRequest is one replay of a skill as a front-end asks for it.
type ReplayRequest struct {
	// Bundle is the skill version to replay.
	Bundle *skill.Bundle
	// Input holds values already typed (the palette's JSON); Values the
	// values as a person typed them, typed here by the manifest. Both
	// override the inputs the skill was taught with; Values wins.
	Input  map[string]any
	Values []teach.Value
	// World names the simulator world to replay in; "" means the world
	// the recording starts in. Only for a simulator skill.
	World string
	// Model re-chooses the parameters a model chose; "" means the model
	// that taught the skill. Unused when the skill is not model-bound.
	Model string
	// Destructive is the user's destructive-mode toggle: the policy then
	// allows host writes.
	Destructive bool
	// AcceptLocalPolicy is the user's answer to an
	// *AuthorizerUnavailableError: the local policy engine decides this
	// run in delegatic-mcp's place, and every block names it.
	AcceptLocalPolicy bool
	// Judge asks the judge whether the replay's output is equivalent to
	// the demonstration's (spec §5.5, opt-in per replay).
	Judge bool
	// Progress, when set, is called after each replayed edge.
	Progress func(skill.ReplayEdge)
}

// ReplaySetup is what one replay of a skill runs with, checked against
// its manifest before anything is connected. The Compare flow replays
// every cell with the same setup.
type ReplaySetup struct {
	Bundle *skill.Bundle
	// Kind is the body kind the skill was taught on, and replays on.
	Kind body.Kind
	// Input is the new input: the taught inputs overridden by the values
	// given, each typed and checked as the manifest declares.
	Input map[string]any
	// World and WorldData are the simulator world the replay starts in;
	// empty for an MCP body.
	World     string
	WorldData []byte
	// ModelBound says a model must choose some parameters again, so a
	// replay needs a model and a key.
	ModelBound bool
	// Destructive is the request's destructive mode.
	Destructive bool
}

// Deterministic reports whether the body answers the same actions with
// the same states by construction (the simulator); an MCP body is held to
// shapes.
func (s *ReplaySetup) Deterministic() bool { return s.Kind == body.KindSimulator }

// PolicyError says the skill names a policy this build cannot apply.
type PolicyError struct{ PolicyID string }

func (e *PolicyError) Error() string {
	return fmt.Sprintf("the skill names the policy %q; only %s is available here", e.PolicyID, skill.DefaultPolicyID)
}

// BodyUnavailableError says the skill's body kind cannot be opened by
// this workbench: no body factory was given for an MCP body, or the
// manifest names no body this workbench replays on.
type BodyUnavailableError struct {
	Kind body.Kind
	Why  string
}

func (e *BodyUnavailableError) Error() string {
	return fmt.Sprintf("the skill was taught on a %s body, and %s", e.Kind, e.Why)
}

// AuthorizerUnavailableError says delegatic-mcp, which spec OQ-2 requires
// for the body, cannot authorize the run, so it did not start. A
// front-end asks the user and, on their say-so, calls again with
// ReplayRequest.AcceptLocalPolicy (a replay) or TeachOptions.AcceptLocalPolicy
// (a demonstration).
type AuthorizerUnavailableError struct {
	Kind body.Kind
	// Local is the name the local engine records in every block, e.g.
	// "local:default".
	Local string
	Err   error
}

func (e *AuthorizerUnavailableError) Error() string {
	return fmt.Sprintf("delegatic-mcp cannot authorize this run on the %s body: %v", e.Kind, e.Err)
}

func (e *AuthorizerUnavailableError) Unwrap() error { return e.Err }

// MissingModelError says the skill has parameters a model chooses on
// replay, and no model was named nor recorded.
type MissingModelError struct{}

func (e *MissingModelError) Error() string {
	return "the skill has parameters a model chooses on replay: name a model"
}

// MissingKeyError says the skill needs Model on replay, and no OpenRouter
// key is kept.
type MissingKeyError struct{ Model string }

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("the skill has parameters a model chooses on replay (model %s), and no OpenRouter key is set", e.Model)
}

// PrepareReplay checks req against its bundle's manifest and finds the
// world and body a replay runs on. It connects to nothing.
//
// A value the manifest does not accept is a *teach.InputError naming the
// input (field input), a world that cannot be found one of field world; a
// policy other than the default is a *PolicyError; an MCP body with no
// BodyFactory is a *BodyUnavailableError.
func (fl *Flows) PrepareReplay(req ReplayRequest) (*ReplaySetup, error) {
	b := req.Bundle
	if b == nil {
		return nil, errors.New("workbench: replay: no bundle")
	}
	s := &ReplaySetup{Bundle: b, Kind: b.Manifest.BodyChoice, ModelBound: b.Trace.ModelBound(), Destructive: req.Destructive}
	switch s.Kind {
	case body.KindSimulator:
	case body.KindBrowser, body.KindHost:
		if req.World != "" {
			return nil, &teach.InputError{Field: teach.FieldWorld, Name: req.World, Msg: "a world is the simulator's, and this skill replays on a " + string(s.Kind) + " body"}
		}
		if fl.d.Bodies == nil {
			return nil, &BodyUnavailableError{Kind: s.Kind, Why: "this front-end has no way to open one"}
		}
	default:
		return nil, &BodyUnavailableError{Kind: s.Kind, Why: "that is not a body this workbench replays on (simulator, browser or host)"}
	}
	input, err := inputs(b, req.Input, req.Values)
	if err != nil {
		return nil, err
	}
	s.Input = input
	if s.Kind == body.KindSimulator {
		if s.World, s.WorldData, err = worldOf(b, req.World); err != nil {
			return nil, err
		}
	}
	if id := b.Manifest.DelegaticPolicyID; id != skill.DefaultPolicyID {
		return nil, &PolicyError{PolicyID: id}
	}
	return s, nil
}

// inputs is the new input of a replay of b: the inputs the skill was
// taught with, overridden by typed, then by the values as typed, each
// checked as the manifest declares it.
func inputs(b *skill.Bundle, typed map[string]any, given []teach.Value) (map[string]any, error) {
	declared := map[string]string{}
	var names []string
	for _, s := range b.Manifest.Inputs {
		declared[s.Name] = s.Type
		names = append(names, s.Name)
	}
	unknown := func(name string) error {
		list := "none"
		if len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		return &teach.InputError{Field: teach.FieldInput, Name: name, Msg: fmt.Sprintf("the skill has no input %q (its inputs: %s)", name, list)}
	}
	out := map[string]any{}
	for k, v := range b.Evidence.Scenario.Inputs {
		out[k] = v
	}
	for k, v := range typed {
		if _, ok := declared[k]; !ok {
			return nil, unknown(k)
		}
		out[k] = v
	}
	seen := map[string]bool{}
	for _, g := range given {
		if seen[g.Name] {
			return nil, &teach.InputError{Field: teach.FieldInput, Name: g.Name, Msg: "given more than once"}
		}
		seen[g.Name] = true
		typ, ok := declared[g.Name]
		if !ok {
			return nil, unknown(g.Name)
		}
		v, err := teach.Typed(g.Name, typ, g.Raw)
		if err != nil {
			return nil, err
		}
		out[g.Name] = v
	}
	for _, s := range b.Manifest.Inputs {
		v, ok := out[s.Name]
		if !ok {
			if s.Required {
				return nil, &teach.InputError{Field: teach.FieldInput, Name: s.Name, Msg: "required, and no value was given"}
			}
			continue
		}
		if s.Type == "url" {
			if err := checkURL(s.Name, v); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// checkURL requires an input declared as a url to be an absolute http or
// https URL: a replay would only fail later, at the navigation.
func checkURL(name string, v any) error {
	s, _ := v.(string)
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &teach.InputError{Field: teach.FieldInput, Name: name, Msg: fmt.Sprintf("%q is not an absolute http or https URL", s)}
	}
	return nil
}

// worldOf finds the simulator world b was taught in: the world named,
// else the world of its fixture scenario, else the world whose initial
// state is the state its recording starts from.
func worldOf(b *skill.Bundle, named string) (string, []byte, error) {
	if named != "" {
		data, err := teach.World(named)
		return named, data, err
	}
	if name, err := fixtures.WorldFor(b.Evidence.Scenario.ScenarioID); err == nil {
		data, err := teach.World(name)
		return name, data, err
	}
	if len(b.Trace.Edges) > 0 {
		for _, name := range fixtures.Worlds() {
			data, err := fixtures.World(name)
			if err != nil {
				continue
			}
			s, err := sim.New(data)
			if err != nil {
				continue
			}
			if h, err := s.StateHash(); err == nil && h == b.Trace.Edges[0].StateBefore {
				return name, data, nil
			}
		}
	}
	return "", nil, &teach.InputError{Field: teach.FieldWorld, Msg: "no simulator world starts where this skill's recording starts (worlds: " + strings.Join(fixtures.Worlds(), ", ") + ")"}
}

// openBody opens a fresh body of kind, the simulator in the world named
// world with the bytes data, for one run of a replay or a demonstration.
func (fl *Flows) openBody(ctx context.Context, kind body.Kind, world string, data []byte) (bd body.Body, trusted bool, close func(), err error) {
	if fl.d.Bodies != nil {
		bd, trusted, err = fl.d.Bodies(ctx, kind, data)
	} else if kind == body.KindSimulator {
		// The simulator's annotations are its own.
		bd, trusted = nil, true
		var sb *sim.Sim
		if sb, err = sim.New(data); err == nil {
			bd = sb
		}
	} else {
		err = &BodyUnavailableError{Kind: kind, Why: "this front-end has no way to open one"}
	}
	if err != nil {
		if kind == body.KindSimulator {
			err = fmt.Errorf("the simulator world %s: %w", world, err)
		}
		return nil, false, nil, err
	}
	return bd, trusted, func() { closeBody(bd) }, nil
}

// closeBody ends an MCP body's session; the simulator has none.
func closeBody(b body.Body) {
	c, ok := b.(interface{ Close(context.Context) error })
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.Close(ctx) // the run is over; a failed close changes nothing recorded
}

// Authority is the authorizer a run proceeds under.
type Authority struct {
	// Name is what every authorization block records: "delegatic-mcp" or
	// "local:<policy id>".
	Name string
	// Fallback says the local engine decides in delegatic-mcp's place, on
	// the user's say-so.
	Fallback bool
	// Why explains the choice in one sentence.
	Why string
	// Unavailable is why delegatic-mcp could not decide, with Fallback.
	Unavailable error

	auth  policy.Authorizer
	close func()
}

// Close ends the delegatic-mcp session the choice opened, if any.
func (a *Authority) Close() {
	if a.close != nil {
		a.close()
	}
}

// For is the authorizer of one replay of s on a body whose annotations
// are trusted or not: a's decisions under the skill's declared
// capabilities and s's destructive mode.
func (a *Authority) For(s *ReplaySetup, trusted bool) replay.PolicyAuthorizer {
	return replay.PolicyAuthorizer{Policy: a.auth, Declared: s.Bundle.Manifest.CapabilitiesRequired,
		BodyKind: s.Kind, TrustedServer: trusted, DestructiveMode: s.Destructive}
}

// authorize applies spec OQ-2 to a run on a body of kind under the
// policy policyID, for a replay, a comparison or a demonstration
// (Teach): one rule for all. delegatic-mcp when configured (for every
// body), the local engine for the simulator otherwise. When delegatic-mcp
// cannot decide, the run may go on under the local engine only when
// acceptLocal, or the standing answer, says the user accepted it;
// otherwise the error is an *AuthorizerUnavailableError. The caller
// closes the Authority.
func (fl *Flows) authorize(ctx context.Context, kind body.Kind, policyID string, acceptLocal bool) (*Authority, error) {
	choose := fl.d.Authorizers
	if choose == nil {
		// No services: the rule still applies, with none configured.
		choose = func(ctx context.Context, kind body.Kind, policyID string) (delegatic.Choice, error) {
			return delegatic.Choose(ctx, kind, services.Config{}, policy.Default(), nil, delegatic.Options{PolicyID: policyID})
		}
	}
	ch, err := choose(ctx, kind, policyID)
	a := &Authority{Name: ch.Name, Why: ch.Why, auth: ch.Authorizer}
	if ch.Delegatic != nil {
		d := ch.Delegatic
		a.close = func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = d.Close(ctx) // the run is over; a failed close changes nothing recorded
		}
	}
	if err == nil && ch.Authorizer != nil {
		return a, nil
	}
	a.Close()
	if err == nil {
		err = errors.New("no authorizer was chosen")
	}
	if ch.Fallback == nil || ctx.Err() != nil {
		return nil, fmt.Errorf("choosing the authorizer: %w", err)
	}
	local := "local:" + skill.DefaultPolicyID
	if e, ok := ch.Fallback.(interface{ Authorizer() string }); ok {
		local = e.Authorizer()
	}
	if !fl.acceptsLocal(acceptLocal) {
		return nil, &AuthorizerUnavailableError{Kind: kind, Local: local, Err: err}
	}
	return &Authority{Name: local, Fallback: true, Unavailable: err, auth: ch.Fallback,
		Why: fmt.Sprintf("delegatic-mcp cannot authorize this run (%v); the local engine decides on the user's say-so", err)}, nil
}

// ModelFor returns the model that re-chooses s's model-chosen parameters
// and the client that reaches it: named, or else the model that taught the
// skill. A skill that is not model-bound needs neither ("", nil, nil).
func (fl *Flows) ModelFor(ctx context.Context, s *ReplaySetup, named string) (string, Model, error) {
	if !s.ModelBound {
		return "", nil, nil
	}
	model := strings.TrimSpace(named)
	if model == "" {
		model = s.Bundle.Evidence.System.Model
	}
	if model == "" {
		return "", nil, &MissingModelError{}
	}
	if fl.d.Models == nil {
		return "", nil, &MissingKeyError{Model: model}
	}
	cl, err := fl.d.Models(ctx)
	if err != nil {
		return "", nil, err
	}
	if cl == nil {
		return "", nil, &MissingKeyError{Model: model}
	}
	return model, cl, nil
}

// ReplayResult is one replay: the new version it was saved in and its
// verification, who authorized it, and what the judge said.
//
// Exactly one of Err and Record is set; with Record come Bundle and
// Report.
type ReplayResult struct {
	Setup *ReplaySetup
	// Model is the model that re-chose parameters; "" when none did.
	Model string
	// Record is the replay (after judging, when judged).
	Record *skill.ReplayRecord
	// Bundle is the skill's next version, carrying Record; Report is the
	// verification of its exported bytes.
	Bundle *skill.Bundle
	Report *verify.Report
	// ModelCalls, CostUSD and CostKnown are what the model's calls cost.
	ModelCalls int
	CostUSD    float64
	CostKnown  bool
	// Err is why the replay has no record: a *ModelError when the model's
	// call failed.
	Err error
	// Authority names who authorized the run.
	Authority string
	// Fallback says the local engine decided on the user's say-so, and
	// Unavailable why delegatic-mcp could not.
	Fallback    bool
	Unavailable error
	// Judged says the judge step ran; JudgeNote says what it did, in a
	// sentence.
	Judged    bool
	JudgeNote string
}

// Verdict is the new version's verdict, or "error" when the replay has
// none.
func (r *ReplayResult) Verdict() string {
	if r.Report == nil {
		return "error"
	}
	return r.Report.Verdict
}

// Replay replays req.Bundle on the body it was taught on, under the
// authorizer spec OQ-2 names, halting at the first divergence the skill
// does not tolerate (runReplay); when req.Judge, asks the judge whether
// the output is equivalent; and seals the replay, with the judge's
// answer, as the skill's next version and verifies it (seal). Nothing is
// stored: SaveReplay stores the result.
//
// Besides PrepareReplay's errors: a model-bound skill with no model is a
// *MissingModelError, with no key a *MissingKeyError; delegatic-mcp
// unavailable without req.AcceptLocalPolicy is an
// *AuthorizerUnavailableError. A model call that fails is the result's
// Err, not an error.
func (fl *Flows) Replay(ctx context.Context, req ReplayRequest) (*ReplayResult, error) {
	v, err := fl.verifier(ctx)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	s, err := fl.PrepareReplay(req)
	if err != nil {
		return nil, err
	}
	model, client, err := fl.ModelFor(ctx, s, req.Model)
	if err != nil {
		return nil, err
	}
	auth, err := fl.authorize(ctx, s.Kind, s.Bundle.Manifest.DelegaticPolicyID, req.AcceptLocalPolicy)
	if err != nil {
		return nil, err
	}
	defer auth.Close()
	bd, trusted, closeBd, err := fl.openBody(ctx, s.Kind, s.World, s.WorldData)
	if err != nil {
		return nil, err
	}
	defer closeBd()
	var on body.Body = bd
	var tap *judge.Tap
	if req.Judge {
		tap = judge.NewTap(bd)
		on = tap
	}
	r, err := fl.runReplay(ctx, s, on, auth.For(s, trusted), model, client, req.Progress)
	if err != nil {
		return nil, err
	}
	out := &ReplayResult{Setup: s, Model: model, Record: r.Record,
		ModelCalls: r.ModelCalls, CostUSD: r.CostUSD, CostKnown: r.CostKnown, Err: r.Err,
		Authority: auth.Name, Fallback: auth.Fallback, Unavailable: auth.Unavailable}
	if out.Record == nil {
		return out, nil
	}
	onto := s.Bundle
	if req.Judge {
		onto = fl.judge(ctx, s.Bundle, tap, out)
	}
	if out.Bundle, out.Report, err = fl.seal(v, onto, *out.Record); err != nil {
		return nil, fmt.Errorf("saving the replay as the next version: %w", err)
	}
	return out, nil
}

// judge is the judge step: it asks the judge whether r's output is
// equivalent to the demonstration's and, when judging changed anything,
// puts the judged record in r and returns b with the judge's answer (or
// why there is none) in its evidence.judge and evidence.score, for the
// replay to be sealed onto: the level becomes semantic only on a
// confirmed equivalence, inconclusive when no judge could judge
// (judge.Apply). When judging changed nothing (an exact or failed
// replay), r keeps its record and b is returned as it is.
func (fl *Flows) judge(ctx context.Context, b *skill.Bundle, tap *judge.Tap, r *ReplayResult) *skill.Bundle {
	r.Judged = true
	var o judge.Outcome
	var j judge.Judge
	err := errors.New("no judge is configured")
	if fl.d.Judges != nil {
		var done func()
		if j, done, err = fl.d.Judges(ctx); err == nil && done != nil {
			defer done()
		}
	}
	if err != nil {
		o = judge.Unavailable(*r.Record, err)
	} else {
		replayed, _ := tap.Output()
		o = judge.Apply(ctx, j, *r.Record, judge.Request{Goal: b.Trace.Goal, Original: judge.OriginalOutput(&b.Trace), Replayed: replayed}, judge.Options{})
	}
	r.JudgeNote = o.Reason
	if o.Judge == nil && o.Score == nil && o.Record.Report.FidelityLevel == r.Record.Report.FidelityLevel {
		return b // nothing to judge (an exact or failed replay)
	}
	onto := *b
	onto.Evidence.Judge, onto.Evidence.Score = o.Judge, o.Score
	rec := o.Record
	r.Record = &rec
	return &onto
}

// SaveReplay stores r's new version and its replay in the library.
func (fl *Flows) SaveReplay(ctx context.Context, r *ReplayResult) (store.Skill, error) {
	st, err := fl.library(ctx)
	if err != nil {
		return store.Skill{}, fmt.Errorf("saving the replay: %w", err)
	}
	if r == nil || r.Record == nil || r.Bundle == nil {
		return store.Skill{}, errors.New("workbench: nothing to save: the replay has no record")
	}
	f, err := store.EncodeBundle(r.Bundle)
	if err != nil {
		return store.Skill{}, fmt.Errorf("saving the replay: %w", err)
	}
	sk, err := st.SaveReplay(ctx, store.Replay{Record: *r.Record}, &f)
	if err != nil {
		return store.Skill{}, fmt.Errorf("saving the replay: %w", err)
	}
	return sk, nil
}
