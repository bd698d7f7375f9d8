package main

import (
	"context"
	"fmt"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/assemble"
	"workbench/pkg/body"
	"workbench/pkg/compare"
	"workbench/pkg/judge"
	"workbench/pkg/judge/prism"
	"workbench/pkg/mcp"
	"workbench/pkg/replay"
	"workbench/pkg/services"
	"workbench/pkg/session"
	"workbench/pkg/skill"
	"workbench/pkg/skillpage"
	"workbench/pkg/teach"
	"workbench/pkg/verify"
)

// prepareReplay checks the user's values for a replay of b on the body
// the skill was taught on. A simulator skill needs its world
// (skillpage.Prepare); a skill taught on a browser or a host replays on
// that kind of MCP body, which has no world, and is held to shapes.
func prepareReplay(b *skill.Bundle, given []teach.Value) (*skillpage.Setup, error) {
	kind := b.Manifest.BodyChoice
	if kind == skill.BodySimulator {
		return skillpage.Prepare(b, given, false)
	}
	if kind != body.KindBrowser && kind != body.KindHost {
		return nil, fmt.Errorf("the skill's body_choice %q is not a body this workbench replays on", kind)
	}
	input, err := teach.ReplayInputs(b, given)
	if err != nil {
		return nil, err
	}
	if id := b.Manifest.DelegaticPolicyID; id != skill.DefaultPolicyID {
		return nil, &skillpage.PolicyError{PolicyID: id}
	}
	return &skillpage.Setup{
		Input:      input,
		Authorizer: replay.PolicyAuthorizer{Declared: b.Manifest.CapabilitiesRequired, BodyKind: kind},
		ModelBound: skillpage.ModelBound(b),
	}, nil
}

// replayOutcome is one replay as the page shows it: the result, who
// authorized it, and what the judge said when judging was asked for.
type replayOutcome struct {
	result   *compare.Result
	authName string
	fallback bool  // the local engine decided on the user's confirmation
	authErr  error // why delegatic-mcp did not decide; with no result, the run did not start
	judged   bool
	judge    string // what judging did, in a sentence
}

// runReplay replays b on the body it was taught on, under the authorizer
// spec OQ-2 names (the local engine in its place only when useLocal), and,
// when judged, asks prism-eval whether the output is equivalent. It
// waits on the network: call it off the event loop.
func (e *env) runReplay(ctx context.Context, v *verify.Verifier, b *skill.Bundle, setup *skillpage.Setup,
	model string, opt compare.Options, set mcpSettings, useLocal, judged bool) (replayOutcome, error) {
	var out replayOutcome
	kind := b.Manifest.BodyChoice
	bd, trusted, err := e.body(ctx, session.Body(kind), setup.WorldData, set)
	if err != nil {
		if kind == skill.BodySimulator {
			err = fmt.Errorf("the simulator world %s: %w", setup.World, err)
		}
		return out, err
	}
	defer closeBody(bd)
	choice, authErr := e.authorizer(ctx, kind, b.Manifest.DelegaticPolicyID)
	defer closeChoice(choice)
	out.authName = choice.Name
	authorizer := choice.Authorizer
	if authErr != nil {
		out.authErr = authErr
		if !useLocal || choice.Fallback == nil {
			return out, nil // the user has not confirmed the local engine
		}
		authorizer, out.fallback, out.authName = choice.Fallback, true, "local:"+skill.DefaultPolicyID
	}
	pa := setup.Authorizer
	pa.Policy, pa.TrustedServer = authorizer, trusted
	opt.Authorizer = pa
	// Only the simulator answers the same actions with the same states
	// by construction; an MCP body is held to shapes.
	opt.Deterministic = kind == skill.BodySimulator

	var on body.Body = bd
	var tap *judge.Tap
	if judged {
		tap = judge.NewTap(bd)
		on = tap
	}
	r, err := compare.Replay(ctx, v, b, on, model, opt)
	if err != nil {
		return out, err
	}
	out.result = &r
	if judged && r.Record != nil {
		out.judged = true
		out.judge, err = e.judgeReplay(ctx, v, b, tap, &r)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// judgeReplay asks prism-eval whether the replay's output is equivalent to
// the demonstration's and saves the judged replay in place of the
// unjudged one: the judge's answer (or why there is none) goes into the
// new version's evidence.judge and evidence.score before assembly, and
// the level becomes semantic only on a confirmed equivalence, inconclusive
// when no judge could judge (judge.Apply).
func (e *env) judgeReplay(ctx context.Context, v *verify.Verifier, b *skill.Bundle, tap *judge.Tap, r *compare.Result) (string, error) {
	var o judge.Outcome
	cfg, err := e.services(ctx)
	var j *prism.Judge
	if err == nil {
		j, err = prism.Connect(ctx, cfg, &mcp.Options{Timeout: 60 * time.Second, Revisions: &e.mcpRevisions})
	}
	if err != nil {
		o = judge.Unavailable(*r.Record, err)
	} else {
		defer j.Close(context.WithoutCancel(ctx))
		replayed, _ := tap.Output()
		o = judge.Apply(ctx, j, *r.Record, judge.Request{Goal: b.Trace.Goal, Original: judge.OriginalOutput(&b.Trace), Replayed: replayed}, judge.Options{})
	}
	if o.Judge == nil && o.Score == nil && o.Record.Report.FidelityLevel == r.Record.Report.FidelityLevel {
		return o.Reason, nil // nothing to judge (an exact or failed replay)
	}
	onto := *b
	onto.Evidence.Judge, onto.Evidence.Score = o.Judge, o.Score
	nb, err := assemble.WithReplay(v, &onto, o.Record, time.Now(), skill.NewID)
	if err != nil {
		return "", fmt.Errorf("saving the judged replay: %w", err)
	}
	data, err := nb.Encode()
	if err != nil {
		return "", fmt.Errorf("saving the judged replay: %w", err)
	}
	rep, err := v.Bytes(data)
	if err != nil {
		return "", fmt.Errorf("the judged replay does not verify: %w", err)
	}
	rec := o.Record
	r.Record, r.Bundle, r.Report = &rec, nb, rep
	return o.Reason, nil
}

// prismConfigured reports whether the relay names prism-eval; nothing is
// connected.
func (e *env) prismConfigured(ctx context.Context) (bool, error) {
	cfg, err := e.services(ctx)
	if err != nil {
		return false, err
	}
	return cfg.Configured(services.RoleJudge), nil
}

// renderJudgeChoice is the opt-in "judge with PRISM" switch, offered when
// the relay names prism-eval (spec §5.5: judging is per replay, opt-in).
func (p *replayPage) renderJudgeChoice() app.UI {
	switch {
	case p.prismErr != nil:
		return app.P().Class("muted").ID("replay-judge-status").Body(
			app.Text("Whether prism-eval is configured could not be asked: "), app.Span().Class("error-text").Text(p.prismErr.Error()))
	case !p.prism:
		return app.P().Class("muted").ID("replay-judge-status").Text("prism-eval is not configured on this workbench's MCP relay, so a replay is not judged for semantic fidelity.")
	}
	return app.Div().Class("choice").Body(
		app.Input().Type("checkbox").ID("replay-judge-prism").Checked(p.judgeWanted).
			Aria("describedby", "replay-judge-prism-note").OnChange(p.onJudge),
		app.Label().For("replay-judge-prism").Text("Judge with PRISM"),
		app.Span().ID("replay-judge-prism-note").Class("choice-note").Text("A structural replay becomes semantic only if prism-eval confirms the output is equivalent; if it cannot judge, the level is inconclusive."),
	)
}

func (p *replayPage) onJudge(ctx app.Context, e app.Event) {
	p.judgeWanted = ctx.JSSrc().Get("checked").Bool()
}

// renderAuthFallback shows why delegatic-mcp cannot authorize the replay
// and offers the local engine behind an explicit confirmation (spec OQ-2).
func (p *replayPage) renderAuthFallback() app.UI {
	return app.Div().ID("replay-auth-error").Class("status status-error").Role("alert").Body(
		app.P().Text("delegatic-mcp cannot authorize this replay, so it did not run."),
		app.P().Class("error-text").ID("replay-auth-error-text").Text(p.outcome.authErr.Error()),
		app.Div().Class("choice").Body(
			app.Input().Type("checkbox").ID("replay-use-local").Checked(p.useLocal).
				Aria("describedby", "replay-use-local-note").OnChange(p.onUseLocal),
			app.Label().For("replay-use-local").Text("Use the local policy engine for this run"),
			app.Span().ID("replay-use-local-note").Class("choice-note").Text("Every authorization block will name local:"+skill.DefaultPolicyID+" as the authorizer. Press Run replay again to run."),
		),
	)
}

func (p *replayPage) onUseLocal(ctx app.Context, e app.Event) {
	p.useLocal = ctx.JSSrc().Get("checked").Bool()
}
