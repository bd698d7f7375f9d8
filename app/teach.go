package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/body"
	"workbench/pkg/openrouter"
	"workbench/pkg/pulse"
	"workbench/pkg/schemaform"
	"workbench/pkg/session"
	"workbench/pkg/skill"
	"workbench/pkg/teach"
	"workbench/pkg/workbench"
)

// teachPage is /teach (spec §2, §3 steps 1–2): the user picks a fixture
// scenario or writes a freeform task, a model demonstrates it on the body
// while the page shows the body's view and a live timeline, and the draft
// manifest crystallized from the recording is edited and saved to the
// library. Every step is a pkg/teach call; the page only arranges and
// shows what they return.
//
// The page moves through stages: the form, a running demonstration, then
// either the draft (which saving turns into a stored skill) or the reason
// there is no draft. Starting again returns to the form with its values.
type teachPage struct {
	app.Compo
	env *env

	// The session's key: its state, whether the page is checking it with
	// OpenRouter, and why that check could not answer.
	keyState    session.KeyState
	keyChecking bool
	keyErr      error
	choice      body.Kind
	bodyErr     error // the chosen body cannot be used in this deployment
	checking    bool  // asking the relay whether the chosen MCP body is configured
	mcp         mcpSettings

	// authErr is why delegatic-mcp could not authorize the last Start
	// (spec OQ-2) while this tab had not accepted the local engine.
	authErr  error
	starting bool   // the body is being connected and the authorizer chosen
	storeErr string // sessionStorage refused a read or write

	form teachForm
	run  *teachRun

	ownContext

	// checker checks the draft manifest on every keystroke
	// (workbench.CheckDraft): the tab's flows, once their verifier's
	// schemas are compiled (when the page opens); nil until then.
	checker    *workbench.Flows
	checkerErr error

	// The leave guard (teachleave.go): whether leaving would lose
	// something, read by the window listeners as the browser calls them;
	// the listeners; and the link the user was asked about.
	guarding atomic.Bool
	clickFn  app.Func
	unloadFn app.Func
	leaveTo  string
}

// teachStage is where a teaching is.
type teachStage int

const (
	stageRunning  teachStage = iota + 1 // the model is demonstrating
	stageFinished                       // the recording ended; draft or draftErr is set
	stageSaving                         // sealing and storing the bundle
)

// teachRun is one demonstration, from Start to a stored skill.
type teachRun struct {
	stage    teachStage
	plan     *teach.Plan
	modelID  string
	stop     chan struct{}
	authName string // the authorizer that decides every action of the run
	fallback bool   // the local engine decides because the user confirmed it
	authErr  error  // why delegatic-mcp did not, when fallback
	stopping bool   // Stop was pressed; the run ends at the next step
	cancel   context.CancelFunc

	steps    []workbench.TeachProgress
	reached  map[pulse.Phase]bool
	current  pulse.Phase
	cost     float64
	view     teach.View
	viewErr  error
	startErr error // the demonstration could not start
	result   *workbench.TeachResult
	taught   *workbench.Taught // the demonstration and its draft, once drafted
	events   []skill.Event     // the PULSE events the run's recorder holds

	draft      skill.Manifest
	slugEdited bool // the person wrote the slug: it no longer follows the name
	draftErr   error
	problems   workbench.DraftProblems
	checkErr   error

	summary    *teach.Summary // what the recording amounts to, once the verifier has judged the draft
	summaryErr error

	sealed  *workbench.SavedSkill // sealed once; a failed store keeps it for a retry
	sealErr error
	saveErr error
	blocked bool
}

// modelItem is the sessionStorage entry remembering the model id.
const modelItem = "workbench.model"

// defaultModel is the model the field starts with.
const defaultModel = "openai/gpt-4o-mini"

func (p *teachPage) OnMount(ctx app.Context) {
	p.keep(ctx)
	p.listenLeave()
}

func (p *teachPage) OnNav(ctx app.Context) {
	p.keep(ctx)
	ctx.Page().SetTitle("Teach · Skill Workbench")
	p.publishContext()
	p.readSession(ctx)
	if p.form.scenario == "" && !p.form.freeform {
		p.form.init(ctx)
	}
	if p.checker == nil && p.checkerErr == nil {
		ctx.Async(func() {
			_, err := p.env.verify() // compiled off the event loop, once
			ctx.Dispatch(func(app.Context) {
				if p.checkerErr = err; err == nil {
					p.checker = p.env.flows
				}
				p.check()
			})
		})
	}
}

// readSession reads the key's presence and the body choice; the key itself
// is read again when a demonstration starts and never kept on the page.
func (p *teachPage) readSession(ctx app.Context) {
	s, err := p.env.sessionStorage()
	if err != nil {
		p.storeErr = err.Error()
		return
	}
	if p.keyState, err = s.KeyState(); err != nil {
		p.storeErr = err.Error()
	}
	if p.keyState == session.KeyUnchecked && !p.keyChecking && p.keyErr == nil {
		p.checkKey(ctx)
	}
	if p.choice, err = s.Body(); err != nil {
		p.storeErr = err.Error()
	}
	p.mcp = readMCPSettings(ctx)
	p.bodyErr, p.checking = nil, false
	if p.choice != body.KindSimulator {
		// Whether the relay names the body's server, asked without
		// connecting to it: the connection is made by Start.
		p.checking = true
		choice := p.choice
		ctx.Async(func() {
			err := p.env.checkBody(ctx, choice)
			ctx.Dispatch(func(app.Context) {
				if p.choice == choice {
					p.bodyErr, p.checking = err, false
				}
			})
		})
	}
}

// checkKey checks a key kept but not yet checked (entered on the home
// page, whose check had not answered), so that Start is offered only
// with a key OpenRouter accepts, and says so when it refuses it.
func (p *teachPage) checkKey(ctx app.Context) {
	s, err := p.env.sessionStorage()
	if err != nil {
		p.storeErr = err.Error()
		return
	}
	key, ok, err := s.Key()
	if err != nil || !ok {
		return
	}
	p.keyChecking, p.keyErr = true, nil
	ui, origin := p.own(), p.env.origin()
	ui.Async(func() {
		_, err := checkSessionKey(ui, origin, s, key)
		st, serr := s.KeyState()
		ui.Dispatch(func(app.Context) {
			p.keyChecking = false
			if serr != nil {
				p.storeErr = serr.Error()
				return
			}
			p.keyState = st
			if st == session.KeyUnchecked {
				p.keyErr = err
			}
		})
	})
}

// forgetRefusedKey drops the session's key after OpenRouter refused it
// during a demonstration (revoked since it was checked), so that the next
// Start says so instead of failing again.
func (p *teachPage) forgetRefusedKey() {
	s, err := p.env.sessionStorage()
	if err != nil {
		return
	}
	if key, ok, err := s.Key(); err == nil && ok {
		if err := s.MarkKey(key, session.KeyRefused); err != nil {
			p.storeErr = err.Error()
		}
	}
	if st, err := s.KeyState(); err == nil {
		p.keyState = st
	}
}

// onCheckKey asks again after a check that could not answer.
func (p *teachPage) onCheckKey(ctx app.Context, e app.Event) {
	if !p.keyChecking {
		p.checkKey(ctx)
	}
}

func (p *teachPage) OnDismount() {
	p.guarding.Store(false)
	p.unlistenLeave()
	if p.run != nil && p.run.cancel != nil {
		p.run.cancel()
	}
}

// onStart plans the task from the form and starts the demonstration.
func (p *teachPage) onStart(ctx app.Context, e app.Event) {
	e.PreventDefault()
	ui := p.own()
	if p.starting || p.run != nil && p.run.stage == stageRunning {
		return
	}
	p.readSession(ctx)
	f := &p.form
	f.planErr = nil
	plan, err := f.plan(ctx, p.choice)
	if err != nil {
		f.planErr = err
		return
	}
	s, err := p.env.sessionStorage()
	if err != nil {
		p.storeErr = err.Error()
		return
	}
	key, ok, err := s.Key()
	if err != nil || !ok || p.keyState != session.KeyAccepted {
		return
	}
	model, err := openrouter.New(key, openrouter.WithBaseURL(p.env.origin()+openrouter.DefaultBaseURL))
	if err != nil {
		f.planErr = err
		return
	}
	if err := ctx.SessionStorage().Set(modelItem, f.modelID); err != nil {
		p.storeErr = err.Error()
	}
	// Connecting to an MCP body and to delegatic-mcp waits on the
	// network, so it happens off the event handler.
	p.starting, p.bodyErr = true, nil
	p.begin(ui, plan, f.modelID, model)
}

// begin runs the teach flow off the event loop: it opens the body and
// chooses the authorizer by the rule a replay follows (spec OQ-2, with
// the tab's standing answer), then the run shows each step and what the
// body shows after it.
func (p *teachPage) begin(ui app.Context, plan *teach.Plan, modelID string, model *openrouter.Client) {
	f := &p.form
	runCtx, cancel := context.WithCancel(withMCPSettings(context.Background(), p.mcp))
	r := &teachRun{stage: stageRunning, plan: plan, modelID: modelID, stop: make(chan struct{}), cancel: cancel,
		reached: map[pulse.Phase]bool{}}
	opts := workbench.TeachOptions{
		Model: model, ModelID: modelID,
		DestructiveMode: f.destructive, Stop: r.stop, Observe: true,
		Started: func(s workbench.TeachStart) {
			ui.Dispatch(func(app.Context) {
				p.starting, p.authErr = false, nil
				r.authName, r.fallback = s.Authority, s.Fallback
				if s.Fallback {
					r.authErr = s.Unavailable
				}
				if s.View != nil {
					r.view, r.viewErr = *s.View, s.ViewErr
				}
				p.run = r
			})
		},
		Progress: func(st workbench.TeachStep) {
			ui.Dispatch(func(ctx app.Context) {
				followTimeline(ctx)
				r.progress(st.TeachProgress)
				if st.View != nil {
					r.view, r.viewErr = *st.View, st.ViewErr
				}
			})
		},
	}
	ui.Async(func() {
		// The flow demonstrates and drafts; drafting happens here, off
		// the event loop, too.
		taught, err := p.env.flows.Teach(runCtx, plan, opts)
		ui.Dispatch(func(app.Context) {
			if p.run != r {
				// It never started: the body or the authorizer refused.
				cancel()
				p.starting = false
				var ae *workbench.AuthorizerUnavailableError
				if errors.As(err, &ae) {
					// The local engine only on the tab's explicit yes.
					p.authErr = ae.Err
				} else {
					p.bodyErr = err
				}
				return
			}
			p.finished(r, taught, err)
		})
	})
}

// progress adds one step of the running demonstration.
func (r *teachRun) progress(pr workbench.TeachProgress) {
	// The recorder opened retrieve (the task became the goal) and route
	// before the first step.
	r.reached[pulse.PhaseRetrieve] = true
	if ph := teach.PulsePhase(pr.Phase); ph != "" {
		r.reached[ph] = true
		r.current = ph
	}
	r.cost = pr.CostUSD
	r.steps = append(r.steps, pr)
}

// finished takes the end of a demonstration and its draft: t is nil when
// the demonstration could not start; err with t says why it could not be
// drafted.
func (p *teachPage) finished(r *teachRun, t *workbench.Taught, err error) {
	r.cancel()
	r.stage = stageFinished
	if t == nil {
		r.startErr = err
		return
	}
	res := t.Result
	r.result = res
	r.cost = res.CostUSD
	if errors.Is(res.Err, openrouter.ErrBadKey) {
		p.forgetRefusedKey()
	}
	if p.run == r {
		p.publishContext()
	}
	if res.Recorder != nil {
		r.events = res.Recorder.Events()
	}
	if err != nil {
		r.draftErr = err
		return
	}
	r.taught, r.draft = t, t.Draft
	r.reached[pulse.PhaseLearn] = true
	r.current = pulse.PhaseLearn
	if p.run == r {
		p.check()
	}
	p.summarize(p.own(), r)
}

// onStop ends the recording at the next step; what was recorded is kept.
func (p *teachPage) onStop(ctx app.Context, e app.Event) {
	r := p.run
	if r == nil || r.stage != stageRunning || r.stopping {
		return
	}
	r.stopping = true
	close(r.stop)
}

// onAgain returns to the form, keeping what was typed.
func (p *teachPage) onAgain(ctx app.Context, e app.Event) {
	if p.run != nil && p.run.stage == stageRunning {
		return
	}
	p.run = nil
	p.publishContext()
	p.readSession(ctx)
}

// publishContext tells the capability palette (Ctrl/Cmd+K) the trace of
// the current demonstration once there is one (the recording ended), for
// it to prefill forms with; nothing before, or after Start again. The
// shell forgets it on the next navigation.
func (p *teachPage) publishContext() {
	var c schemaform.Context
	if r := p.run; r != nil && r.result != nil {
		c.TraceID = r.result.Trace.TraceID
	}
	p.env.setPageContext(p.own(), c)
}

// modelErrorSummary says in a sentence what a failed model call means; the
// exact error is shown under it.
func modelErrorSummary(err error) string {
	var api *openrouter.APIError
	var unreadable *openrouter.UnreadableError
	var cut *openrouter.CutError
	switch {
	case errors.As(err, &cut):
		return "The model's reply was cut off on the way (the connection ended before the reply did), so the demonstration stopped there."
	case errors.As(err, &unreadable):
		return fmt.Sprintf("The model's replies could not be read (%d in a row), so the demonstration stopped.", unreadable.Replies)
	case errors.Is(err, openrouter.ErrBadKey):
		return "OpenRouter refused the key (401). Check it on the home page."
	case errors.Is(err, openrouter.ErrOutOfCredit):
		return "OpenRouter says the key is out of credit (402)."
	case errors.As(err, &api) && api.Status == 429:
		return "OpenRouter is rate limiting this key (429)."
	case errors.As(err, &api):
		return "The model call failed."
	}
	return "The demonstration stopped with an error."
}

func (p *teachPage) Render() app.UI {
	// The leave guard follows the state the page shows, so it is set
	// where that state is rendered.
	p.guarding.Store(p.unsaved())
	content := []app.UI{
		app.H1().Text("Teach a skill"),
		app.P().Class("lead").Text("Pick a task, let a model carry it out once on the body while every action is authorized and recorded, then keep the skill crystallized from the recording."),
	}
	if p.storeErr != "" {
		content = append(content, app.P().Class("status status-error").Role("alert").Body(
			app.Text("Session storage: "), app.Span().Class("error-text").Text(p.storeErr)))
	}
	running := p.run != nil && p.run.stage == stageRunning
	if p.run == nil {
		content = append(content, p.renderForm())
	} else {
		content = append(content, p.renderTask())
	}
	if p.run != nil {
		content = append(content,
			app.Div().Class("teach-live").Body(
				p.renderTimeline(),
				p.renderView(),
			),
		)
		if !running {
			content = append(content, p.renderOutcome())
		}
	}
	content = append(content, p.renderLeave())
	return frame("/teach", content...)
}
