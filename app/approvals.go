package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
)

// approvalsPanel is the approvals surface: every approval the backend
// holds, newest first, each pending one with Grant and Deny. Nothing
// grants an approval except the user pressing Grant here. OnDecided tells
// the palette, so its pending action can offer "Resume approved action".
// The parent changes Nonce to make it read the list again (after a new
// approval was requested) and Gen when the backend changes. Withheld
// names the approvals requested from this same dialog for a destructive
// action: they get no Grant button here, because their requester cannot
// grant them (capability.RequesterMayGrant); another surface does.
//
// The list is not in the document: a backend that declares none (or whose
// declared list answers 404) is not an error, and is asked for nothing.
// Pending actions are then resumed from their form by re-submission, and
// the backend's answer says whether they were granted.
type approvalsPanel struct {
	app.Compo

	env *env
	ownContext
	Nonce     int
	Gen       int
	OnDecided func(ctx app.Context, a capability.Approval)
	Withheld  []string

	lastNonce, lastGen int
	list               []capability.Approval
	listErr            string
	noList             bool // the backend declares no approvals list
	opErr              string
	busy               string // the approval being decided
	listSeq            latest
}

func (a *approvalsPanel) OnMount(ctx app.Context) {
	a.keep(ctx)
	a.lastNonce, a.lastGen = a.Nonce, a.Gen
	a.refresh(ctx)
}

func (a *approvalsPanel) OnUpdate(ctx app.Context) {
	if a.Nonce != a.lastNonce || a.Gen != a.lastGen {
		a.lastNonce, a.lastGen = a.Nonce, a.Gen
		a.refresh(ctx)
	}
}

func (a *approvalsPanel) refresh(ctx app.Context) {
	ctx = a.own()
	seq := a.listSeq.next()
	ctx.Async(func() {
		c, cancel := context.WithTimeout(context.Background(), 30e9)
		defer cancel()
		var list []capability.Approval
		be, _, err := a.env.capabilityBackend(c)
		if err == nil {
			list, err = be.Approvals(c)
		}
		ctx.Dispatch(func(ctx app.Context) {
			if !a.listSeq.is(seq) {
				return
			}
			a.noList = httpapi.NoApprovalsList(err)
			if a.noList {
				a.list, a.listErr = nil, ""
				return
			}
			if err != nil {
				a.listErr = "The approvals could not be listed: " + describeErr(err)
				return
			}
			a.list, a.listErr = list, ""
		})
	})
}

func (a *approvalsPanel) onRefresh(ctx app.Context, e app.Event) { a.refresh(ctx) }

func (a *approvalsPanel) decide(id string, grant bool) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		ctx = a.own()
		if a.busy != "" {
			return
		}
		a.busy, a.opErr = id, ""
		ctx.Async(func() {
			c, cancel := context.WithTimeout(context.Background(), 30e9)
			defer cancel()
			var ap capability.Approval
			be, _, err := a.env.capabilityBackend(c)
			if err == nil {
				if grant {
					ap, err = be.Grant(c, id)
				} else {
					ap, err = be.Deny(c, id)
				}
			}
			ctx.Dispatch(func(ctx app.Context) {
				a.busy = ""
				if err != nil {
					verb := "denied"
					if grant {
						verb = "granted"
					}
					a.opErr = fmt.Sprintf("The approval %s could not be %s: %s", id, verb, describeErr(err))
					return
				}
				if a.OnDecided != nil {
					a.OnDecided(ctx, ap)
				}
				a.refresh(ctx)
			})
		})
	}
}

func (a *approvalsPanel) Render() app.UI {
	items := make([]app.UI, 0, len(a.list))
	for _, ap := range a.list {
		var actions app.UI = app.Span()
		if ap.State == capability.ApprovalPending {
			grant := app.UI(app.Button().Class("pal-grant").Disabled(a.busy != "").OnClick(a.decide(ap.ID, true), app.EventScope(ap.ID)).Text("Grant"))
			if slices.Contains(a.Withheld, ap.ID) {
				grant = app.Span().Class("pal-withheld muted").Text("Requested from this dialog: a destructive action is granted from another surface, not by its requester. ")
			}
			actions = app.Span().Class("pal-approval-actions").Body(
				grant,
				app.Button().Class("secondary pal-deny").Disabled(a.busy != "").OnClick(a.decide(ap.ID, false), app.EventScope(ap.ID)).Text("Deny"),
			)
		}
		items = append(items, app.Li().Class("pal-approval").DataSet("approval", ap.ID).DataSet("state", ap.State).Body(
			app.Div().Body(
				app.Strong().Text(ap.Title),
				app.Span().Class("pal-state pal-state-"+ap.State).Text(ap.State),
			),
			app.Div().Class("muted").Text(fmt.Sprintf("%s · effect %s · run %s · %s", ap.CapabilityID, ap.Effect, ap.RunID, ap.Decision.Reason)),
			app.Code().Class("pal-event-data").Text(string(ap.Input)),
			actions,
		))
	}
	body := []app.UI{
		app.Div().Class("pal-panel-head").Body(
			app.H3().ID("pal-approvals-h").Text("Approvals"),
			app.Button().Class("secondary").ID("pal-approvals-refresh").OnClick(a.onRefresh).Text("Refresh"),
		),
	}
	if a.listErr != "" {
		body = append(body, app.P().Class("pal-error").ID("pal-approvals-error").Role("alert").Text(a.listErr))
	}
	if a.opErr != "" {
		body = append(body, app.P().Class("pal-error").Role("alert").Text(a.opErr))
	}
	switch {
	case a.noList:
		body = append(body, app.P().Class("muted").ID("pal-approvals-none").Text(
			"This backend declares no approvals list. A pending action is resumed from its form: the backend's answer says whether it was granted."))
	case len(a.list) == 0 && a.listErr == "":
		body = append(body, app.P().Class("muted").Text("No approvals requested."))
	}
	body = append(body, app.Ul().Class("pal-approvals").Body(items...))
	return app.Section().Class("pal-panel pal-approvals-panel").Aria("labelledby", "pal-approvals-h").Body(body...)
}
