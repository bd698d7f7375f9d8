package main

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/body"
	"workbench/pkg/services"
	"workbench/pkg/session"
	"workbench/pkg/skill"
)

// localPolicyPanel asks the tab's one question of spec OQ-2, or shows its
// standing answer with an undo: when no delegatic-mcp is configured, may
// browser and host runs be authorized by the local policy engine? It is
// shown wherever such a run starts (the home page's body choice, /teach,
// the replay page, the Compare tab); the answer lives in the tab's
// sessionStorage (session.LocalPolicy), and every flow of the tab reads it
// from there (env.flows). A tab that has not answered is asked before its
// first run, never decided for; a simulator run never needs the answer.
type localPolicyPanel struct {
	app.Compo
	env *env

	// Kind is the body the next run acts through. Force shows the
	// question even though delegatic-mcp is configured: it could not be
	// reached for the run just tried.
	Kind  body.Kind
	Force bool
	// OnAnswer, when set, hears every change of the answer.
	OnAnswer func(ctx app.Context, a session.LocalPolicy)

	answer     session.LocalPolicy
	loaded     bool // the relay said whether delegatic-mcp is configured
	configured bool
	err        string
}

func (c *localPolicyPanel) OnMount(ctx app.Context) {
	if s, err := c.env.sessionStorage(); err != nil {
		c.err = err.Error()
	} else if c.answer, err = s.LocalPolicy(); err != nil {
		c.err = err.Error()
	}
	ctx.Async(func() {
		// Whether delegatic-mcp is configured, asked without connecting
		// to it: when it is, it decides and nothing need be asked.
		cfg, err := c.env.services(ctx)
		ctx.Dispatch(func(app.Context) {
			c.loaded = true
			c.configured = err == nil && cfg.Configured(services.RoleAuthorizer)
		})
	})
}

// asking reports whether the panel has anything to say for its body: a
// browser or host run where no delegatic-mcp is configured, or any run
// the configured one could not authorize (Force).
func (c *localPolicyPanel) asking() bool {
	if c.Force {
		return true
	}
	if c.Kind == body.KindSimulator || c.Kind == "" {
		return false
	}
	return c.loaded && !c.configured
}

func (c *localPolicyPanel) set(a session.LocalPolicy) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		s, err := c.env.sessionStorage()
		if err == nil {
			err = s.SetLocalPolicy(a)
		}
		if err != nil {
			c.err = err.Error()
			return
		}
		c.answer, c.err = a, ""
		if c.OnAnswer != nil {
			c.OnAnswer(ctx, a)
		}
	}
}

func (c *localPolicyPanel) Render() app.UI {
	if !c.asking() {
		return app.Div().ID("local-policy").Class("local-policy-none")
	}
	local := "local:" + skill.DefaultPolicyID
	// Why the question arises: none is configured (browser and host runs
	// need an authorizer), or the configured one could not decide.
	why := "No delegatic-mcp is configured here to authorize actions on a real browser or host."
	if c.configured {
		why = "The configured delegatic-mcp could not authorize the run just tried."
	}
	policy := "The workbench's own policy engine (" + skill.DefaultPolicyID + ") can decide instead: browser reads and writes allowed, host reads allowed, host writes only in destructive mode. Every authorization block then names " + local + ", so each skill shows who decided."
	var body []app.UI
	switch c.answer {
	case session.LocalPolicyAccepted:
		body = []app.UI{
			app.P().ID("local-policy-notice").Body(
				app.Strong().Text("Local policy engine in this tab. "),
				app.Text(why+" Runs in this tab that delegatic-mcp cannot authorize are decided by the workbench's own policy ("+skill.DefaultPolicyID+"); every authorization block names "+local+"."),
			),
			app.Button().Type("button").ID("local-policy-undo").Class("secondary").Text("Undo: ask before the next run").OnClick(c.set(session.LocalPolicyUnanswered)),
		}
	case session.LocalPolicyDeclined:
		body = []app.UI{
			app.P().ID("local-policy-notice").Body(
				app.Strong().Text("Runs without delegatic-mcp are off in this tab. "),
				app.Text(why+" You declined the local policy engine, so such runs do not start. Simulator runs without a configured delegatic-mcp still work."),
			),
			app.Button().Type("button").ID("local-policy-undo").Class("secondary").Text("Undo: ask again").OnClick(c.set(session.LocalPolicyUnanswered)),
		}
	default:
		body = []app.UI{
			app.P().ID("local-policy-question").Body(
				app.Strong().Text("Who authorizes the agent's actions? "),
				app.Text(why+" "+policy+" Asked once for this tab."),
			),
			app.Div().Class("field-row").Body(
				app.Button().Type("button").ID("local-policy-accept").Text("Use the local policy engine in this tab").OnClick(c.set(session.LocalPolicyAccepted)),
				app.Button().Type("button").ID("local-policy-decline").Class("secondary").Text("No").OnClick(c.set(session.LocalPolicyDeclined)),
			),
		}
	}
	if c.err != "" {
		body = append(body, app.P().Class("status status-error").Role("alert").Body(
			app.Text("Session storage: "), app.Span().Class("error-text").Text(c.err)))
	}
	cls := "status local-policy"
	if c.answer == session.LocalPolicyUnanswered {
		cls += " status-pending"
	}
	return app.Div().ID("local-policy").Class(cls).Role("region").Aria("label", "Authorization of browser and host runs").Body(body...)
}
