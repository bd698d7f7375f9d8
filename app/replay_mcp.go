package main

import (
	"context"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/body"
	"workbench/pkg/judge"
	"workbench/pkg/judge/prism"
	"workbench/pkg/mcp"
	"workbench/pkg/services"
	"workbench/pkg/session"
	"workbench/pkg/store"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// newFlows is the flow layer as this tab offers it, made once (newEnv)
// and shared by every page and the capability palette: the verifier and
// the library, each opened on first use; the import worker, which imports
// files off the page's thread; the bodies of body.go with the
// MCP settings the calling page put in the context (withMCPSettings; the
// defaults otherwise); spec OQ-2's authorizer choice with the tab's
// standing answer (localPolicyPanel); the tab's OpenRouter key; and
// prism-eval as the judge.
func (e *env) newFlows() *workbench.Flows {
	return workbench.New(workbench.Deps{
		Verifier: func(context.Context) (*verify.Verifier, error) { return e.verify() },
		Store:    func(ctx context.Context) (store.Store, error) { return e.store(ctx, nil) },
		Pins:     e.trustedSigners,
		Importer: e.importer,
		Bodies: func(ctx context.Context, kind body.Kind, world []byte) (body.Body, bool, error) {
			return e.body(ctx, kind, world, mcpSettingsOf(ctx))
		},
		Authorizers: e.authorizer,
		Models: func(context.Context) (workbench.Model, error) {
			cl, err := e.openRouterClient()
			if err != nil || cl == nil {
				return nil, err // no key is no client
			}
			return cl, nil
		},
		Judges:             e.judge,
		AcceptsLocalPolicy: e.acceptsLocalPolicy,
	})
}

// mcpSettingsKey is the context key of the MCP settings a flow's body
// opens with.
type mcpSettingsKey struct{}

// withMCPSettings is ctx carrying the page's MCP settings, for the body
// a flow opens under it.
func withMCPSettings(ctx context.Context, s mcpSettings) context.Context {
	return context.WithValue(ctx, mcpSettingsKey{}, s)
}

// mcpSettingsOf is the settings ctx carries; with none (the capability
// palette has no page to read them from), it trusts no server's
// annotations and the host perceives by the default call.
func mcpSettingsOf(ctx context.Context) mcpSettings {
	if s, ok := ctx.Value(mcpSettingsKey{}).(mcpSettings); ok {
		return s
	}
	return mcpSettings{Perceive: defaultHostPerceive, PerceiveArgs: defaultHostPerceiveArgs}
}

// acceptsLocalPolicy reads the tab's answer to spec OQ-2 at the moment a
// run asks: only a yes given in this tab lets the local engine stand in.
func (e *env) acceptsLocalPolicy() bool {
	s, err := e.sessionStorage()
	if err != nil {
		return false
	}
	a, err := s.LocalPolicy()
	return err == nil && a == session.LocalPolicyAccepted
}

// judge connects to prism-eval on the relay.
func (e *env) judge(ctx context.Context) (judge.Judge, func(), error) {
	cfg, err := e.services(ctx)
	if err != nil {
		return nil, nil, err
	}
	j, err := prism.Connect(ctx, cfg, &mcp.Options{Timeout: 60 * time.Second, Revisions: &e.mcpRevisions})
	if err != nil {
		return nil, nil, err
	}
	return j, func() { _ = j.Close(context.Background()) }, nil
}

// replayOutcome is one replay as the page shows it: the result and, when
// delegatic-mcp could not authorize it, why (then, with no result, the
// run did not start and the local engine is offered).
type replayOutcome struct {
	result  *workbench.ReplayResult
	authErr error
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

// renderAuthFallback shows why delegatic-mcp could not authorize the
// replay; the panel under it asks the tab's question (spec OQ-2).
func (p *replayPage) renderAuthFallback() app.UI {
	return app.Div().ID("replay-auth-error").Class("status status-error").Role("alert").Body(
		app.P().Text("delegatic-mcp cannot authorize this replay, and this tab has not accepted the local policy engine, so it did not run."),
		app.P().Class("error-text").ID("replay-auth-error-text").Text(p.outcome.authErr.Error()),
	)
}

// onPolicyAnswer clears the refusal an answer settles: with a yes, Run
// replay runs.
func (p *replayPage) onPolicyAnswer(ctx app.Context, a session.LocalPolicy) {
	if a == session.LocalPolicyAccepted {
		p.outcome.authErr = nil
	}
}
