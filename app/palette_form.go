package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/capability"
	"workbench/pkg/schemaform"
)

// paletteForm is the capability palette's form: the opened capability's
// refreshed descriptor, its actions (each its own form, preflight and
// confirmation), the form generated from the chosen action's schema and
// prefilled from the page, the preflight preview, the confirmation, and
// the invoke button with the requester's side of approvals. Each part
// fails on its own, in its own place.
//
// The palette opens a capability by changing Open and OpenSeq (Focus:
// move the focus to it once shown), asks for the prefill to be brought up
// to date with the page (Path) by changing Refresh, and re-renders it by
// changing Version after changing st itself. st and answered are the
// palette's, set when it first renders the component and kept.
type paletteForm struct {
	app.Compo
	ownContext

	env *env
	st  *formState
	// answered tells the palette an invocation was answered: the run to
	// select ("" for none), and that the approvals may have changed.
	answered func(run string)

	Open    string
	OpenSeq int
	Focus   bool
	Path    string
	Gen     int
	Refresh int
	Version int

	lastOpenSeq, lastRefresh int
}

func (c *paletteForm) OnMount(ctx app.Context) {
	c.keep(ctx)
	c.lastOpenSeq, c.lastRefresh = c.OpenSeq, c.Refresh
	if c.Open != "" {
		c.openCap(c.Open, c.Focus)
	}
}

func (c *paletteForm) OnUpdate(ctx app.Context) {
	if c.OpenSeq != c.lastOpenSeq {
		c.lastOpenSeq = c.OpenSeq
		c.openCap(c.Open, c.Focus)
	}
	if c.Refresh != c.lastRefresh {
		c.lastRefresh = c.Refresh
		c.refreshPrefill()
	}
}

var routeSkill = regexp.MustCompile(`^/skills/([0-9a-f-]{36})(/replay)?$`)

// pageContext is the page context for the palette's path: the route in
// its pattern form and the skill id a skill route names, merged with what
// the page itself published (env.setPageContext), and the library's
// skills for a skill id field to offer.
func (c *paletteForm) pageContext(cx context.Context) schemaform.Context {
	route, skillID := c.Path, ""
	if m := routeSkill.FindStringSubmatch(c.Path); m != nil {
		route, skillID = "/skills/{id}"+m[2], m[1]
	}
	pc := c.env.pageContext(route)
	if pc.SkillID == "" {
		pc.SkillID = skillID
	}
	pc.Skills = c.env.skillChoices(cx)
	return pc
}

// openCap refreshes the descriptor (GET /api/capabilities/{id} on an
// HTTP backend), builds the form of its first action, prefills it from
// the page context and asks for a preview. The user's choice (focus)
// moves the focus to the form once shown; a refresh the palette makes on
// its own leaves the focus where it is.
func (c *paletteForm) openCap(id string, focus bool) {
	ctx := c.own()
	c.st.open(id)
	if id == "" {
		return
	}
	gen := c.Gen
	ctx.Async(func() {
		cx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		pc := c.pageContext(cx)
		var d capability.Capability
		be, _, err := c.env.capabilityBackend(cx)
		if err == nil {
			d, err = be.Describe(cx, id)
		}
		ctx.Dispatch(func(ctx app.Context) {
			if gen != c.Gen || c.st.id != id {
				return
			}
			if err != nil {
				c.st.describeFailed("The descriptor could not be refreshed: " + describeErr(err))
				return
			}
			c.st.described(d, pc)
			c.schedulePreflight(0)
			if focus {
				ctx.Defer(func(app.Context) { focusID("pal-detail-h") })
			}
		})
	})
}

// refreshPrefill brings the form up to date with the page context when it
// has changed since the form was prefilled (another page, another
// selected edge, a demonstration that ended): a form showing a value of
// another page is opened again (what was typed into it is not kept), one
// without is prefilled in place (only fields the user has not touched).
func (c *paletteForm) refreshPrefill() {
	ctx := c.own()
	if c.st.form == nil || c.st.id == "" {
		return
	}
	id, gen := c.st.id, c.Gen
	ctx.Async(func() {
		now := c.pageContext(context.Background())
		ctx.Dispatch(func(app.Context) {
			if gen != c.Gen || c.st.id != id {
				return
			}
			switch reopen, refill := c.st.stale(now); {
			case reopen:
				c.openCap(id, false)
			case refill && c.st.refill(now):
				c.onFormChange(ctx, c.st.form)
			}
		})
	})
}

func (c *paletteForm) onFormChange(_ app.Context, f *schemaform.Form) {
	if c.st.edited() {
		c.schedulePreflight(250 * time.Millisecond)
	}
	// The schemaForm's handler renders that form; the preview and the
	// button beside it are this component's.
	c.own().Dispatch(func(app.Context) {})
}

func (c *paletteForm) onAction(ctx app.Context, e app.Event) {
	c.st.choose(recordTyped(ctx), c.st.formCtx)
	c.schedulePreflight(0)
}

func (c *paletteForm) onConfirm(ctx app.Context, e app.Event) {
	c.st.confirmed = ctx.JSSrc().Get("checked").Bool()
}

// schedulePreflight asks for a preview after delay; an edit in between
// makes the earlier request moot.
func (c *paletteForm) schedulePreflight(delay time.Duration) {
	ctx := c.own()
	seq, q, ok := c.st.previewing()
	if !ok {
		return
	}
	gen := c.Gen
	ctx.After(delay, func(ctx app.Context) {
		if seq != c.st.previewSeq || gen != c.Gen {
			return
		}
		ctx.Async(func() {
			cx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var pv capability.Preview
			be, _, err := c.env.capabilityBackend(cx)
			if err == nil {
				// Preflight takes the action, the inputs and the target only.
				pv, err = be.Preflight(cx, capability.Proposal{CapabilityID: q.CapabilityID, Action: q.Action, Input: q.Input, Target: q.Target})
			}
			ctx.Dispatch(func(app.Context) {
				if gen == c.Gen {
					c.st.previewed(seq, pv, err)
				}
			})
		})
	})
}

func (c *paletteForm) onInvoke(ctx app.Context, e app.Event) {
	ctx = c.own()
	e.PreventDefault()
	q, resuming, ok := c.st.submission()
	if !ok {
		return
	}
	invoked, gen := c.st.seen, c.Gen
	ctx.Async(func() {
		cx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var rc capability.Receipt
		be, _, err := c.env.capabilityBackend(cx)
		if err == nil {
			rc, err = be.Invoke(cx, q)
		}
		ctx.Dispatch(func(ctx app.Context) {
			if gen != c.Gen {
				// Another backend: the button waits no more.
				c.st.invoking = false
				return
			}
			run := c.st.answered(invoked, q, resuming, rc, err)
			c.answered(run)
			// Once rendered, the answer is scrolled into view: on a phone,
			// or after a long form, it is below the fold of the dialog.
			ctx.Defer(revealOutcome)
		})
	})
}

// revealOutcome scrolls the dialog (and the form pane inside it) so that
// the invocation's outcome — the result, else the error or the status
// line — is in view.
func revealOutcome(app.Context) {
	for _, sel := range []string{"#pal-result", "#pal-invoke-error", "#pal-started"} {
		if revealNearest(sel) {
			return
		}
	}
}

func (c *paletteForm) Render() app.UI {
	s := c.st
	if s.id == "" {
		return app.Div().Class("pal-detail").Body(app.P().Class("muted").Text("Choose a capability: type to search, arrows to move, Enter to open."))
	}
	head := app.H3().ID("pal-detail-h").TabIndex(-1).Text(s.id)
	if s.descErr != "" {
		return app.Div().Class("pal-detail").Body(head, app.P().Class("pal-error").ID("pal-describe-error").Role("alert").Text(s.descErr))
	}
	if s.desc == nil {
		return app.Div().Class("pal-detail").Body(head, app.P().Class("muted").Text("Refreshing the descriptor…"))
	}
	d := s.desc
	facts := []app.UI{
		app.Dt().Text("Id"), app.Dd().ID("pal-desc-id").Text(d.ID),
		app.Dt().Text("Availability"), app.Dd().Body(availabilityBadge(d.Availability)),
		app.Dt().Text("Side effect"), app.Dd().ID("pal-desc-effect").Text(string(s.seen.Effect)),
		app.Dt().Text("Render hint"), app.Dd().ID("pal-desc-hint").Text(s.seen.RenderHint),
		app.Dt().Text("Policy capability"), app.Dd().Text(d.PolicyCapability),
	}
	if len(d.Reasons) > 0 {
		facts = append(facts, app.Dt().Text("Reasons"), app.Dd().Class("pal-why").Text(strings.Join(d.Reasons, "; ")))
	}
	if len(d.Missing) > 0 {
		facts = append(facts, app.Dt().Text("Missing"), app.Dd().Class("pal-why").Text(strings.Join(d.Missing, ", ")))
	}
	body := []app.UI{
		app.H3().ID("pal-detail-h").TabIndex(-1).Text(d.Title),
		app.If(s.seen.Description != "", func() app.UI { return app.P().ID("pal-desc-text").Text(s.seen.Description) }),
		app.Dl().Class("pal-facts").Body(facts...),
	}
	if len(d.Actions) > 1 {
		body = append(body, c.renderActions())
	}
	if s.formErr != "" {
		body = append(body, app.P().Class("pal-error").ID("pal-form-error").Role("alert").Text(s.formErr))
	}
	if s.form != nil {
		body = append(body, app.Div().Class("pal-form").ID("pal-form").Body(
			&schemaForm{Form: s.form, OnChange: c.onFormChange, IDPrefix: "pal", Revision: s.revision},
		))
		target, source := s.formCtx.SelectedTarget()
		if target == "" {
			body = append(body, app.P().ID("pal-target").Class("muted").Text("Target: none (nothing is selected on this page)."))
		} else {
			body = append(body, app.P().ID("pal-target").Body(app.Text("Target: "), app.Code().Text(target), app.Text(" ("+source+")")))
		}
	}
	body = append(body, c.renderPreview(), c.renderInvoke())
	return app.Div().Class("pal-detail").Body(body...)
}

// renderActions offers every action of a capability that has several:
// choosing one opens its own form.
func (c *paletteForm) renderActions() app.UI {
	opts := []app.UI{app.Legend().Text("Action")}
	for _, a := range c.st.desc.Actions {
		id := "pal-action-" + a.Name
		label := orWord(a.Title, a.Name) + " — " + string(a.Effect)
		opts = append(opts, app.Div().Class("choice").Body(
			app.Input().Type("radio").Name("pal-action").ID(id).Value(a.Name).
				Checked(a.Name == c.st.seen.Name).OnChange(c.onAction, app.EventScope(a.Name)),
			app.Label().For(id).Text(label),
		))
	}
	return app.FieldSet().Class("pal-actions").ID("pal-actions").Body(opts...)
}

func (c *paletteForm) renderPreview() app.UI {
	s := c.st
	if s.previewErr != "" {
		return app.P().Class("pal-error").ID("pal-preflight-error").Role("alert").Text(s.previewErr)
	}
	pv := s.preview
	if pv == nil {
		if !s.ready() {
			return app.Text("")
		}
		return app.P().Class("muted").ID("pal-preview").Text("Preflight preview pending…")
	}
	items := []app.UI{
		app.Dt().Text("Decision"), app.Dd().ID("pal-pv-decision").Text(pv.Decision),
		app.Dt().Text("Reason"), app.Dd().ID("pal-pv-reason").Text(pv.Reason),
		app.Dt().Text("Approval required"), app.Dd().ID("pal-pv-approval").Text(fmt.Sprint(pv.ApprovalRequired)),
		app.Dt().Text("Side effect"), app.Dd().ID("pal-pv-effect").Text(string(pv.SideEffect)),
	}
	if pv.Rule != "" {
		items = append(items, app.Dt().Text("Rule"), app.Dd().Text(pv.Rule))
	}
	if len(pv.Problems) > 0 {
		items = append(items, app.Dt().Text("Input problems"), app.Dd().ID("pal-pv-problems").Class("pal-why").Text(strings.Join(pv.Problems, "; ")))
	}
	if pv.SchemaError != "" {
		items = append(items, app.Dt().Text("Schema"), app.Dd().Text("not checked here: "+pv.SchemaError))
	}
	return app.Section().Class("pal-preview").ID("pal-preview").Aria("label", "Preflight preview").Body(
		app.P().Class("muted").Text("Preflight is a non-authoritative preview: the policy decides again when the action is submitted."),
		app.Dl().Class("pal-facts").Body(items...),
	)
}

func (c *paletteForm) renderInvoke() app.UI {
	s := c.st
	var body []app.UI
	if pv := s.preview; pv != nil && pv.NeedsConfirmation {
		body = append(body, app.Div().Class("pal-confirm").Body(
			app.Input().Type("checkbox").ID("pal-confirm").Checked(s.confirmed).OnChange(c.onConfirm),
			app.Label().For("pal-confirm").Text("I confirm this action: its side effect is "+string(pv.SideEffect)+"."),
		))
	}
	if p := s.req.Pending(); p != nil {
		body = append(body, app.P().Class("pal-pending").ID("pal-pending").Role("status").DataSet("approval", p.Receipt.ApprovalID).Text(
			fmt.Sprintf("Pending approval %s (%s). Once it is granted, resume: the backend's answer says whether it was; editing the form discards it.", p.Receipt.ApprovalID, s.req.State())))
	}
	if s.req.Discarded() {
		body = append(body, app.P().Class("pal-pending").ID("pal-discarded").Role("status").Text("The form changed: the pending approval was discarded. Request approval again."))
	}
	blocked := s.blocked()
	body = append(body,
		app.Button().ID("pal-invoke").Disabled(blocked != "").Aria("describedby", "pal-invoke-why").OnClick(c.onInvoke).Text(s.label()),
		app.Span().ID("pal-invoke-why").Class("muted").Text(" "+blocked),
	)
	if s.invokeErr != "" {
		body = append(body, app.P().Class("pal-error").ID("pal-invoke-error").Role("alert").Text(s.invokeErr))
	}
	if s.started != "" {
		body = append(body, app.P().ID("pal-started").Role("status").Text(s.started))
	}
	if s.result != nil {
		body = append(body, app.Div().ID("pal-result").Body(renderResult(*s.result)))
	}
	return app.Div().Class("pal-invoke").Body(body...)
}
