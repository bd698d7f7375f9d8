package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/capability"
	"workbench/pkg/capability/httpapi"
	"workbench/pkg/policy"
	"workbench/pkg/schemaform"
	"workbench/pkg/skill"
)

// paletteShown bounds the entries the list renders at once; the search
// narrows the rest (the count says how many match).
const paletteShown = 50

// palette is the capability workbench (spec/capability-workbench.txt,
// DESIGN §8), mounted beside every page by the shell. Ctrl/Cmd+K opens it
// as a modal dialog without navigating; Esc closes it and gives focus back
// to where it was; Tab stays inside while it is open.
//
// Its parts each fail on their own: the catalog, the selected
// capability's descriptor, the preflight preview and the invocation show
// their own error in their own place, and the approvals and runs panels
// (their own components) theirs. It holds no result of its own making:
// every decision, run and result it shows came from the backend.
type palette struct {
	app.Compo

	env *env
	ownContext

	open        bool
	panels      bool // the approvals and runs panels are mounted (after the opened dialog was painted)
	returnFocus app.Value
	keyFn       app.Func
	path        string

	// The backend: gen changes when the user switches, so that answers
	// for the previous backend are dropped.
	gen         int
	backendName string
	backendURL  string
	backendErr  string

	// The catalog.
	caps      []capability.Capability
	index     *capability.Index
	failures  []*capability.SourceError
	unusable  []*capability.EntryError // catalog entries the client cannot use, each with its reason
	catErr    string
	catLoad   bool
	query     string
	results   []int
	active    int
	loadedGen int
	// catVersion changes with every change the palette makes to the
	// catalog state above (a reading started or answered, a backend
	// switch): it is what makes go-app render the catalog component
	// again. Keystrokes change the query, results and active entry from
	// inside that component, which renders itself.
	catVersion int

	// The selected capability.
	selID      string
	desc       *capability.Capability
	descErr    string
	form       *schemaform.Form
	formCtx    schemaform.Context // the page context the form was prefilled from
	formErr    string
	preview    *capability.Preview
	previewErr string
	previewSeq int
	proposed   *capability.Proposal // the proposal the preview is for
	confirmed  bool
	invokeErr  string
	invoking   bool
	started    string           // "run … started"
	result     *capability.View // a synchronous answer, through the renderer registry
	reg        *capability.Registry
	pending    *capability.Pending
	pendState  string // the pending approval's state as last seen
	discarded  bool   // an edit discarded the pending approval
	// requested holds the approvals requested from this dialog, by id,
	// with the effect of their action: the requester cannot grant their
	// own destructive action here (capability.RequesterMayGrant).
	requested map[string]policy.Effect

	runSelect      string
	approvalsNonce int
}

var routeSkill = regexp.MustCompile(`^/skills/([0-9a-f-]{36})(/replay)?$`)

// contextFor is the page context for path: the route in its pattern form
// and the skill id a skill route names, merged with what the page itself
// published (env.setPageContext).
func (p *palette) contextFor(path string) schemaform.Context {
	route, skill := path, ""
	if m := routeSkill.FindStringSubmatch(path); m != nil {
		route, skill = "/skills/{id}"+m[2], m[1]
	}
	c := p.env.pageContext(route)
	if c.SkillID == "" {
		c.SkillID = skill
	}
	return c
}

func (p *palette) OnMount(ctx app.Context) {
	p.keep(ctx)
	p.path = ctx.Page().URL().Path
	// One window listener, run synchronously by the browser, so that
	// preventDefault takes effect: Ctrl/Cmd+K opens, and while the dialog
	// is open Esc closes it and Tab wraps inside it (the focus trap).
	p.keyFn = app.FuncOf(func(this app.Value, args []app.Value) any {
		ev := args[0]
		key := ev.Get("key").String()
		if strings.ToLower(key) == "k" && (ev.Get("ctrlKey").Bool() || ev.Get("metaKey").Bool()) && !ev.Get("altKey").Bool() {
			ev.Call("preventDefault")
			ctx.Dispatch(func(ctx app.Context) {
				if p.open {
					focusID("pal-search")
					return
				}
				p.show(ctx)
			})
			return nil
		}
		d := app.Window().GetElementByID("pal-dialog")
		if !d.Truthy() || !d.Get("open").Bool() {
			return nil
		}
		switch key {
		case "Escape":
			ev.Call("preventDefault")
			ctx.Dispatch(p.hide)
		case "Tab":
			trapTab(d, ev)
		}
		return nil
	})
	app.Window().Call("addEventListener", "keydown", p.keyFn)
	// The launcher is in the navigation bar (frame), which the page
	// renders; it asks for the dialog by an action.
	ctx.Handle(openPaletteAction, func(ctx app.Context, a app.Action) {
		if !p.open {
			p.show(ctx)
		}
	})
}

func (p *palette) OnDismount() {
	if p.keyFn != nil {
		app.Window().Call("removeEventListener", "keydown", p.keyFn)
		p.keyFn.Release()
		p.keyFn = nil
	}
}

func (p *palette) OnNav(ctx app.Context) {
	p.path = ctx.Page().URL().Path
}

func focusID(id string) {
	if el := app.Window().GetElementByID(id); el.Truthy() {
		el.Call("focus")
	}
}

// show opens the dialog: it remembers the focused element, shows the
// dialog modally, focuses the search and reads the catalog again (it is
// live: availability changes).
//
// showModal is called at once, not after the render: the native dialog
// must be open before any close event still queued from an earlier hide
// is handled, or onNativeClose would take that stale event for a close of
// this opening and the state and the dialog would disagree.
func (p *palette) show(ctx app.Context) {
	ctx = p.own()
	p.open = true
	p.returnFocus = app.Window().Get("document").Get("activeElement")
	if d := app.Window().GetElementByID("pal-dialog"); d.Truthy() && !d.Get("open").Bool() {
		d.Call("showModal")
	}
	ctx.Defer(func(ctx app.Context) {
		if p.open {
			focusID("pal-search")
		}
	})
	// The page beside may be re-rendering as the dialog opens; make sure
	// the focus did land inside.
	ctx.After(150*time.Millisecond, func(ctx app.Context) {
		d := app.Window().GetElementByID("pal-dialog")
		if p.open && d.Truthy() && !d.Call("contains", app.Window().Get("document").Get("activeElement")).Bool() {
			focusID("pal-search")
		}
	})
	// The catalog is read again, and the approvals and runs panels are
	// mounted (which reads their lists), after the opened dialog is
	// painted: decoding a large listing holds the page's one thread, and
	// the search and list must show first (with the entries of the last
	// reading).
	afterPaint(ctx, func(ctx app.Context) {
		if p.open {
			p.panels = true
			p.loadCatalog(ctx)
		}
	})
	p.refreshPrefill(ctx)
}

// afterPaint runs f on the UI goroutine after the browser has painted
// its next frame: a requestAnimationFrame callback runs before that
// frame's paint, and a task it posts runs after it.
func afterPaint(ctx app.Context, f func(app.Context)) {
	var frame, after app.Func
	after = app.FuncOf(func(app.Value, []app.Value) any {
		after.Release()
		ctx.Dispatch(f)
		return nil
	})
	frame = app.FuncOf(func(app.Value, []app.Value) any {
		frame.Release()
		app.Window().Call("setTimeout", after, 0)
		return nil
	})
	app.Window().Call("requestAnimationFrame", frame)
}

// refreshPrefill brings the selected capability's form up to date with
// the page context when it has changed since the form was prefilled
// (another page, another selected edge, a demonstration that ended). A
// form that shows a value prefilled from the old context is opened again
// (fresh descriptor, new form): a value of another page must not stay
// marked as this page's; what was typed into it is not kept. A form with
// no prefilled value is prefilled in place: only fields the user has not
// touched are filled. A form whose proposal waits for an approval is left
// as it is: it is what will be resumed.
func (p *palette) refreshPrefill(ctx app.Context) {
	if p.form == nil || p.pending != nil || p.selID == "" {
		return
	}
	now := p.contextFor(p.path)
	if sameContext(p.formCtx, now) {
		return
	}
	inferred := false
	p.form.Walk(func(fl *schemaform.Field) bool {
		inferred = inferred || fl.Inferred != nil
		return !inferred
	})
	if inferred {
		p.openCap(ctx, p.selID, false)
		return
	}
	p.formCtx = now
	if len(p.form.Prefill(now)) > 0 {
		p.onFormChange(ctx, p.form)
	}
}

// sameContext compares two page contexts by value.
func sameContext(a, b schemaform.Context) bool {
	ea, eb := a.EdgeIndex, b.EdgeIndex
	a.EdgeIndex, b.EdgeIndex = nil, nil
	return a == b && (ea == nil) == (eb == nil) && (ea == nil || *ea == *eb)
}

// hide closes the dialog and gives focus back.
func (p *palette) hide(ctx app.Context) {
	if !p.open {
		return
	}
	p.open, p.panels = false, false
	if d := app.Window().GetElementByID("pal-dialog"); d.Truthy() && d.Get("open").Bool() {
		d.Call("close")
	}
	if f := p.returnFocus; f != nil && f.Truthy() && f.Get("isConnected").Bool() {
		f.Call("focus")
	} else {
		focusID("pal-launcher")
	}
	p.returnFocus = nil
}

func (p *palette) onClose(ctx app.Context, e app.Event) { p.hide(ctx) }

// trapTab keeps Tab and Shift+Tab inside the open dialog d: from its
// last focusable element to its first, and back.
func trapTab(d app.Value, ev app.Value) {
	list := d.Call("querySelectorAll", `button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex="0"]`)
	n := list.Length()
	if n == 0 {
		return
	}
	first, last := list.Index(0), list.Index(n-1)
	active := app.Window().Get("document").Get("activeElement")
	inside := d.Call("contains", active).Bool()
	if ev.Get("shiftKey").Bool() {
		if active.Equal(first) || !inside {
			ev.Call("preventDefault")
			last.Call("focus")
		}
		return
	}
	if active.Equal(last) || !inside {
		ev.Call("preventDefault")
		first.Call("focus")
	}
}

// onNativeClose keeps the state right when the browser closed the dialog
// itself (its own Esc handling). A close event handled after the dialog
// was opened again is stale — the dialog is open — and changes nothing.
func (p *palette) onNativeClose(ctx app.Context, e app.Event) {
	if d := app.Window().GetElementByID("pal-dialog"); d.Truthy() && d.Get("open").Bool() {
		return
	}
	p.hide(ctx)
}

// --- backend -------------------------------------------------------------

func (p *palette) onBackendURL(ctx app.Context, e app.Event) {
	p.backendURL = ctx.JSSrc().Get("value").String()
}

func (p *palette) switchBackend(ctx app.Context, raw string) {
	ctx = p.own()
	if err := p.env.connectBackend(raw); err != nil {
		p.backendErr = "Not connected: " + err.Error()
		return
	}
	p.backendErr = ""
	p.gen++
	p.caps, p.index, p.results, p.failures, p.unusable, p.catErr = nil, nil, nil, nil, nil, ""
	p.requested = nil
	p.catVersion++
	p.clearSelection()
	p.loadCatalog(ctx)
}

func (p *palette) onBackendKey(ctx app.Context, e app.Event) {
	if e.Get("key").String() == "Enter" {
		p.backendURL = ctx.JSSrc().Get("value").String()
		p.onConnect(ctx, e)
	}
}

func (p *palette) onConnect(ctx app.Context, e app.Event) {
	raw := strings.TrimSpace(p.backendURL)
	if raw == "" {
		p.backendErr = "Enter the backend's URL (this site's origin)."
		return
	}
	p.switchBackend(ctx, raw)
}

func (p *palette) onLocal(ctx app.Context, e app.Event) { p.switchBackend(ctx, "") }

// --- catalog -------------------------------------------------------------

func (p *palette) loadCatalog(ctx app.Context) {
	ctx = p.own()
	gen := p.gen
	p.catLoad = true
	p.catVersion++
	ctx.Async(func() {
		c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var l capability.Listing
		be, name, err := p.env.capabilityBackend(c)
		if err == nil {
			l, err = be.Catalog(c)
		}
		ctx.Dispatch(func(ctx app.Context) {
			if gen != p.gen {
				return
			}
			p.catLoad, p.backendName = false, name
			p.catVersion++
			if err != nil {
				p.caps, p.index, p.results, p.failures, p.unusable = nil, nil, nil, nil, nil
				p.catErr = "The catalog could not be read: " + describeErr(err)
				return
			}
			p.catErr, p.loadedGen = "", gen
			p.caps, p.failures, p.unusable = l.Capabilities, l.Failures, l.Unusable
			p.index = capability.NewIndex(l.Capabilities)
			p.filter()
		})
	})
}

func (p *palette) filter() {
	if p.index == nil {
		p.results = nil
		return
	}
	p.results = p.index.Filter(p.query)
	p.active = 0
	p.skipDisabled(1)
}

func (p *palette) onQuery(ctx app.Context, e app.Event) {
	p.query = ctx.JSSrc().Get("value").String()
	p.filter()
}

// skipDisabled moves the active entry off unavailable ones in dir.
func (p *palette) skipDisabled(dir int) {
	n := min(len(p.results), paletteShown)
	for tries := 0; tries < n; tries++ {
		if p.index.Capability(p.results[p.active]).Availability != capability.Unavailable {
			return
		}
		p.active = (p.active + dir + n) % n
	}
}

func (p *palette) onSearchKey(ctx app.Context, e app.Event) {
	n := min(len(p.results), paletteShown)
	switch key := e.Get("key").String(); {
	case n == 0 || key != "ArrowDown" && key != "ArrowUp" && key != "Enter":
		// A typed character changes nothing here (the input event that
		// follows filters): no render for it.
		ctx.PreventUpdate()
		return
	}
	switch e.Get("key").String() {
	case "ArrowDown":
		e.PreventDefault()
		p.active = (p.active + 1) % n
		p.skipDisabled(1)
	case "ArrowUp":
		e.PreventDefault()
		p.active = (p.active - 1 + n) % n
		p.skipDisabled(-1)
	case "Enter":
		e.PreventDefault()
		c := p.index.Capability(p.results[p.active])
		if c.Availability != capability.Unavailable {
			p.openCap(ctx, c.ID, true)
		}
	}
}

// onListClick opens the entry clicked (the list's one click handler); an
// unavailable entry cannot be opened.
func (p *palette) onListClick(ctx app.Context, e app.Event) {
	li := e.Get("target").Call("closest", "#pal-list > [data-cap]")
	if !li.Truthy() || li.Call("getAttribute", "aria-disabled").String() == "true" {
		ctx.PreventUpdate()
		return
	}
	p.openCap(ctx, li.Get("dataset").Get("cap").String(), true)
}

// --- selection, form, preflight -------------------------------------------

func (p *palette) clearSelection() {
	p.selID, p.desc, p.descErr, p.form, p.formErr = "", nil, "", nil, ""
	p.preview, p.previewErr, p.confirmed, p.invokeErr, p.started, p.proposed, p.result = nil, "", false, "", "", nil, nil
	p.pending, p.pendState, p.discarded = nil, "", false
}

// openCap refreshes the descriptor (GET /api/capabilities/{id} on an
// HTTP backend), builds the form from its schema, prefills it from the
// page context and asks for a preview.
//
// The user's choice (focus) moves the focus to the detail once it is
// shown; a refresh the palette makes on its own leaves the focus where
// it is.
func (p *palette) openCap(ctx app.Context, id string, focus bool) {
	ctx = p.own()
	p.clearSelection()
	p.selID = id
	// Called from the catalog component's handlers, which render that
	// component only: the detail is the palette's.
	ctx.Update()
	gen := p.gen
	pc := p.contextFor(p.path)
	ctx.Async(func() {
		c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var d capability.Capability
		be, _, err := p.env.capabilityBackend(c)
		if err == nil {
			d, err = be.Describe(c, id)
		}
		ctx.Dispatch(func(ctx app.Context) {
			if gen != p.gen || p.selID != id {
				return
			}
			if err != nil {
				p.descErr = "The descriptor could not be refreshed: " + describeErr(err)
				return
			}
			p.desc = &d
			f, ferr := schemaform.Compile(d.InputSchema)
			if ferr != nil {
				p.formErr = "No form for this input schema: " + ferr.Error()
				return
			}
			f.Prefill(pc)
			p.form, p.formCtx = f, pc
			p.schedulePreflight(ctx, 0)
			if focus {
				ctx.Defer(func(app.Context) { focusID("pal-detail-h") })
			}
		})
	})
}

// proposal is what the form proposes now. The target is the page's
// selected target (schemaform.Context.SelectedTarget of the context the
// form was prefilled from), never a value guessed from the input's field
// names; it is shown beside the form, never hidden.
func (p *palette) proposal() (capability.Proposal, bool) {
	if p.desc == nil || p.form == nil {
		return capability.Proposal{}, false
	}
	in, errs := p.form.JSON()
	if len(errs) > 0 && in == nil {
		return capability.Proposal{}, false
	}
	target, _ := p.formCtx.SelectedTarget()
	return capability.Proposal{CapabilityID: p.desc.ID, Input: in, Target: target, Confirmed: p.confirmed}, true
}

func (p *palette) onFormChange(ctx app.Context, f *schemaform.Form) {
	q, ok := p.proposal()
	if ok && p.proposed != nil && p.proposed.Same(q) {
		// Nothing the backend would see changed (a blur, a re-typed
		// value): the preview and a pending approval still hold.
		return
	}
	p.invokeErr, p.started, p.result = "", "", nil
	if ok && p.pending != nil && p.pending.Edited(q) {
		p.pending, p.pendState, p.discarded = nil, "", true
	}
	p.schedulePreflight(ctx, 250*time.Millisecond)
}

// schedulePreflight asks for a preview after delay; an edit in between
// makes the earlier request moot.
func (p *palette) schedulePreflight(ctx app.Context, delay time.Duration) {
	ctx = p.own()
	p.previewSeq++
	seq, gen := p.previewSeq, p.gen
	p.preview, p.previewErr, p.proposed = nil, "", nil
	if q, ok := p.proposal(); ok {
		p.proposed = &q
	}
	ctx.After(delay, func(ctx app.Context) {
		if seq != p.previewSeq || gen != p.gen {
			return
		}
		q, ok := p.proposal()
		if !ok {
			return
		}
		q.Confirmed = false
		ctx.Async(func() {
			c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var pv capability.Preview
			be, _, err := p.env.capabilityBackend(c)
			if err == nil {
				pv, err = be.Preflight(c, capability.Proposal{CapabilityID: q.CapabilityID, Input: q.Input, Target: q.Target})
			}
			ctx.Dispatch(func(ctx app.Context) {
				if seq != p.previewSeq || gen != p.gen {
					return
				}
				if err != nil {
					p.previewErr = "The preflight preview failed: " + describeErr(err)
					return
				}
				p.preview = &pv
			})
		})
	})
}

func (p *palette) onConfirm(ctx app.Context, e app.Event) {
	p.confirmed = ctx.JSSrc().Get("checked").Bool()
}

// --- invoke and approvals -------------------------------------------------

// invokeLabel names what the button does now. A pending approval is
// resumed by re-submitting the exact proposal: the backend's answer says
// whether it was granted, so the button offers it while the approval is
// not known to be denied.
func (p *palette) invokeLabel() string {
	switch {
	case p.pending != nil:
		return "Resume approved action"
	case p.preview != nil && p.preview.ApprovalRequired:
		return "Request approval"
	}
	return "Invoke"
}

// invokeBlocked says why the button is disabled, or "".
func (p *palette) invokeBlocked() string {
	switch {
	case p.invoking:
		return "Submitting…"
	case p.desc != nil && p.desc.Availability == capability.Unavailable:
		return "Unavailable: " + strings.Join(p.desc.Reasons, "; ")
	case p.pending != nil && p.pendState == capability.ApprovalDenied:
		return "The approval was denied."
	case p.pending != nil:
		// Resuming asks the backend, whose answer is the truth.
		return ""
	case p.preview == nil:
		return "Waiting for the preflight preview."
	case len(p.preview.Problems) > 0:
		return "The input is invalid."
	case p.preview.Decision == skill.DecisionDeny:
		return "Denied: " + orWord(p.preview.Reason, "the backend gave no reason")
	case p.preview.Decision == httpapi.DecisionInvalid:
		return "Invalid: " + orWord(p.preview.Reason, "the backend gave no reason")
	case p.preview.Decision == httpapi.DecisionUnavailable:
		return "Unavailable: " + orWord(p.preview.Reason, "the backend gave no reason")
	case !p.preview.Executable:
		return "Not executable now."
	case p.preview.NeedsConfirmation && !p.confirmed:
		return "Confirm the " + string(p.preview.SideEffect) + " side effect first."
	}
	return ""
}

func (p *palette) onInvoke(ctx app.Context, e app.Event) {
	ctx = p.own()
	e.PreventDefault()
	if p.invokeBlocked() != "" {
		return
	}
	q, ok := p.proposal()
	if !ok {
		return
	}
	resuming := p.pending != nil
	if resuming {
		q = p.pending.Resume()
		q.Confirmed = p.confirmed || q.Confirmed
	}
	p.invoking, p.invokeErr, p.started, p.discarded, p.result = true, "", "", false, nil
	invoked := *p.desc
	gen := p.gen
	ctx.Async(func() {
		c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var rc capability.Receipt
		be, _, err := p.env.capabilityBackend(c)
		if err == nil {
			rc, err = be.Invoke(c, q)
		}
		ctx.Dispatch(func(ctx app.Context) {
			// The button waits for this answer whatever else changed
			// meanwhile (another backend, another capability).
			p.invoking = false
			if gen != p.gen {
				return
			}
			// Once rendered, the answer is scrolled into view: on a phone,
			// or after a long form, it is below the fold of the dialog.
			ctx.Defer(revealOutcome)
			if resuming && p.pending != nil {
				// The backend's answer to the re-submission is the truth
				// about the approval.
				switch capability.ResumeOutcome(rc, err) {
				case capability.ApprovalPending:
					p.pendState = capability.ApprovalPending
					p.started = fmt.Sprintf("Approval %s is not granted yet: the backend still waits for it.", p.pending.Receipt.ApprovalID)
					p.approvalsNonce++
					return
				case capability.ApprovalDenied:
					p.pendState = capability.ApprovalDenied
					p.invokeErr = "The approval was denied: " + describeErr(err)
					p.approvalsNonce++
					return
				}
			}
			if err != nil {
				p.invokeErr = "The invocation failed: " + describeErr(err)
				if p.pending != nil {
					// The backend discarded or refused the approval: it
					// must be requested again.
					p.pending, p.pendState = nil, ""
					p.approvalsNonce++
				}
				return
			}
			p.accepted(invoked, q, rc)
		})
	})
}

// revealOutcome scrolls the dialog (and the detail pane inside it) so
// that the invocation's outcome — the result, else the status line or the
// error — is in view.
func revealOutcome(app.Context) {
	for _, sel := range []string{"#pal-result", "#pal-invoke-error", "#pal-started"} {
		if revealNearest(sel) {
			return
		}
	}
}

// revealNearest scrolls the first element matching sel, if any, the
// least that brings it into view (in every scrolled box around it), and
// reports whether there was one.
func revealNearest(sel string) bool {
	el := app.Window().Get("document").Call("querySelector", sel)
	if !el.Truthy() {
		return false
	}
	opts := app.Window().Get("Object").New()
	opts.Set("block", "nearest")
	el.Call("scrollIntoView", opts)
	return true
}

// accepted shows a successful answer of the invoke route: a pending
// approval, a run to follow, or a synchronous result — which is a
// success, shown through the renderer registry, never a failure the user
// might repeat. c is the capability invoked; when the user has opened
// another since, only the approvals and runs panels learn of the answer.
func (p *palette) accepted(c capability.Capability, q capability.Proposal, rc capability.Receipt) {
	p.approvalsNonce++
	p.runSelect = string(rc.RunID)
	if rc.Status == capability.StatusApprovalRequired {
		if p.requested == nil {
			p.requested = map[string]policy.Effect{}
		}
		p.requested[rc.ApprovalID] = c.Effect
	}
	if p.selID != c.ID {
		return
	}
	switch {
	case rc.Status == capability.StatusApprovalRequired:
		p.pending = &capability.Pending{Proposal: q, Receipt: rc}
		p.pendState = capability.ApprovalPending
		p.started = fmt.Sprintf("Approval %s requested; run %s waits for it.", rc.ApprovalID, rc.RunID)
	case rc.Synchronous():
		p.pending, p.pendState = nil, ""
		if p.reg == nil {
			p.reg = capability.NewRegistry(nil)
		}
		v := p.reg.Render(c.RenderHint, rc.Result)
		p.result = &v
		what := "The action completed"
		if rc.Status == capability.StatusFailed {
			what = "The action ran and reported a failure"
		}
		if rc.RunID != "" {
			p.started = fmt.Sprintf("%s (run %s).", what, rc.RunID)
		} else {
			p.started = what + "; the backend bound no run."
		}
	default:
		p.pending, p.pendState = nil, ""
		p.started = fmt.Sprintf("Run %s started (%s).", rc.RunID, rc.Status)
	}
}

// withheld lists the approvals requested from this dialog for a
// destructive action, sorted: the approvals panel offers no Grant for
// them.
func (p *palette) withheld() []string {
	var out []string
	for id, e := range p.requested {
		if !capability.RequesterMayGrant(e) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func orWord(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// onDecided hears the approvals panel: a decision on the pending
// approval changes what the invoke button offers.
//
// It is called on the approvals panel's context, which renders that panel
// only: the change is dispatched on the palette's own, which renders the
// button.
func (p *palette) onDecided(_ app.Context, a capability.Approval) {
	p.own().Dispatch(func(app.Context) {
		if p.pending != nil && p.pending.Receipt.ApprovalID == a.ID {
			p.pendState = a.State
		}
	})
}

// --- rendering -------------------------------------------------------------

func availabilityBadge(a capability.Availability) app.UI {
	return app.Span().Class("pal-badge pal-badge-" + string(a)).Text(string(a))
}

func (p *palette) Render() app.UI {
	// The search, the list and the detail stay mounted while the dialog
	// is closed (a closed dialog is not rendered, so they cost nothing
	// then): opening shows them as they were instead of building some
	// 500 elements, and showModal focuses the search (autofocus) at once.
	// The approvals and runs panels are mounted while it is open only
	// (from just after it is painted: see show): mounting reads their
	// lists again, and a run is followed while they are shown.
	dialog := app.Dialog().ID("pal-dialog").Class("pal-dialog").Aria("labelledby", "pal-title").
		On("close", p.onNativeClose)
	return app.Div().Class("pal-mount").Body(dialog.Body(
		app.Div().Class("pal-top").Body(
			app.H2().ID("pal-title").Text("Capability workbench"),
			p.renderBackend(),
			app.Button().ID("pal-close").Class("secondary pal-close").Aria("label", "Close the capability workbench").OnClick(p.onClose).Text("Close"),
		),
		app.Div().Class("pal-body").Body(
			&paletteCatalog{p: p, Version: p.catVersion},
			p.renderDetail(),
		),
		app.If(p.open && p.panels, func() app.UI {
			return app.Div().Class("pal-panels").Body(
				&approvalsPanel{env: p.env, Nonce: p.approvalsNonce, Gen: p.gen, OnDecided: p.onDecided, Withheld: p.withheld()},
				&runsPanel{env: p.env, Select: p.runSelect, Gen: p.gen},
			)
		}),
	))
}

// paletteCatalog is the palette's search and list, a component of its
// own so that a keystroke renders the list only, not the palette's
// detail and panels around it. Its state is the palette's (p, set when
// the palette first renders it and kept: go-app copies exported fields
// only); the palette changes Version whenever it changes that state
// itself, which makes go-app render the list again.
type paletteCatalog struct {
	app.Compo

	p       *palette
	Version int
}

func (c *paletteCatalog) Render() app.UI { return c.p.renderCatalog() }

func (p *palette) renderBackend() app.UI {
	name := p.backendName
	if name == "" {
		name = "…"
	}
	// Not a <form>: go-app runs handlers on its own goroutine, so a
	// submit's preventDefault could come too late and reload the page.
	// The name comes after the controls: it changes as the catalog loads,
	// and text that changes width must not move a button under the
	// pointer.
	return app.Div().Class("pal-backend").Role("group").Aria("label", "Backend").Body(
		app.Label().For("pal-backend-url").Text("HTTP backend"),
		app.Input().ID("pal-backend-url").Type("url").Placeholder(p.env.origin()).Value(p.backendURL).OnInput(p.onBackendURL).OnKeyDown(p.onBackendKey),
		app.Button().Type("button").Class("secondary").ID("pal-connect").OnClick(p.onConnect).Text("Connect"),
		app.Button().Type("button").Class("secondary").ID("pal-local").OnClick(p.onLocal).Text("Use local"),
		app.Span().ID("pal-backend-name").Text("Backend: "+name),
		app.If(p.backendErr != "", func() app.UI {
			return app.P().Class("pal-error").ID("pal-backend-error").Role("alert").Text(p.backendErr)
		}),
	)
}

func (p *palette) renderCatalog() app.UI {
	n := min(len(p.results), paletteShown)
	opts := make([]app.UI, n)
	for j := 0; j < n; j++ {
		c := p.index.Capability(p.results[j])
		disabled := c.Availability == capability.Unavailable
		// No click handler per entry: the list has one (onListClick), so
		// that filtering changes text and attributes only, instead of
		// replacing an event listener per entry on every keystroke.
		li := app.Li().ID("pal-opt-"+strconv.Itoa(j)).Role("option").Class("pal-opt").
			DataSet("cap", c.ID).Aria("selected", strconv.FormatBool(j == p.active)).Aria("disabled", strconv.FormatBool(disabled))
		body := []app.UI{
			app.Span().Class("pal-opt-title").Text(c.Title),
			availabilityBadge(c.Availability),
			app.Span().Class("pal-opt-id muted").Text(c.ID),
		}
		if len(c.Reasons) > 0 || len(c.Missing) > 0 {
			parts := append([]string(nil), c.Reasons...)
			if len(c.Missing) > 0 {
				parts = append(parts, "missing: "+strings.Join(c.Missing, ", "))
			}
			body = append(body, app.Span().Class("pal-why").Text(strings.Join(parts, "; ")))
		}
		opts[j] = li.Body(body...)
	}
	active := ""
	if n > 0 {
		active = "pal-opt-" + strconv.Itoa(p.active)
	}
	status := fmt.Sprintf("%d of %d capabilities", len(p.results), len(p.caps))
	if len(p.unusable) > 0 {
		status += fmt.Sprintf("; %d unusable entries", len(p.unusable))
	}
	if len(p.results) > n {
		status += fmt.Sprintf(" (first %d shown; type to narrow)", n)
	}
	if p.catLoad && p.index == nil {
		status = "Reading the catalog…"
	}
	body := []app.UI{
		app.Label().For("pal-search").Text("Search capabilities"),
		app.Input().ID("pal-search").Type("search").Role("combobox").AutoComplete(false).AutoFocus(true).
			Aria("controls", "pal-list").Aria("expanded", "true").Aria("autocomplete", "list").
			Aria("activedescendant", active).Value(p.query).OnInput(p.onQuery).OnKeyDown(p.onSearchKey),
		app.P().ID("pal-count").Class("muted").Aria("live", "polite").Text(status),
	}
	if p.catErr != "" {
		body = append(body, app.P().Class("pal-error").ID("pal-catalog-error").Role("alert").Text(p.catErr))
	}
	for _, f := range p.failures {
		body = append(body, app.P().Class("pal-error pal-source-error").DataSet("source", f.Source).Text("Source "+f.Source+" failed: "+describeErr(f.Err)))
	}
	for _, u := range p.unusable {
		name := fmt.Sprintf("Entry %d", u.Index)
		if u.ID != "" {
			name += " (" + u.ID + ")"
		}
		body = append(body, app.P().Class("pal-error pal-unusable").DataSet("index", strconv.Itoa(u.Index)).
			Text(name+" is unusable: "+u.Reason+"."))
	}
	// data-query names the query the entries were filtered for, quoted
	// (go-app trims attribute values, and a typed space is part of the
	// query), and aria-busy says the catalog is being read again: the
	// list reflects what was typed when the first matches it (the
	// benchmark waits for it too).
	body = append(body, app.Ul().ID("pal-list").Role("listbox").Aria("label", "Capabilities").Class("pal-list").
		Aria("busy", strconv.FormatBool(p.catLoad)).DataSet("query", strconv.Quote(p.query)).OnClick(p.onListClick).Body(opts...))
	return app.Div().Class("pal-catalog").Body(body...)
}

func (p *palette) renderDetail() app.UI {
	if p.selID == "" {
		return app.Div().Class("pal-detail").Body(app.P().Class("muted").Text("Choose a capability: type to search, arrows to move, Enter to open."))
	}
	body := []app.UI{app.H3().ID("pal-detail-h").TabIndex(-1).Text(p.selID)}
	if p.descErr != "" {
		return app.Div().Class("pal-detail").Body(append(body, app.P().Class("pal-error").ID("pal-describe-error").Role("alert").Text(p.descErr))...)
	}
	if p.desc == nil {
		return app.Div().Class("pal-detail").Body(append(body, app.P().Class("muted").Text("Refreshing the descriptor…"))...)
	}
	d := p.desc
	body[0] = app.H3().ID("pal-detail-h").TabIndex(-1).Text(d.Title)
	facts := []app.UI{
		app.Dt().Text("Id"), app.Dd().ID("pal-desc-id").Text(d.ID),
		app.Dt().Text("Availability"), app.Dd().Body(availabilityBadge(d.Availability)),
		app.Dt().Text("Side effect"), app.Dd().ID("pal-desc-effect").Text(string(d.Effect)),
		app.Dt().Text("Render hint"), app.Dd().ID("pal-desc-hint").Text(d.RenderHint),
		app.Dt().Text("Policy capability"), app.Dd().Text(d.PolicyCapability),
	}
	if len(d.Reasons) > 0 {
		facts = append(facts, app.Dt().Text("Reasons"), app.Dd().Class("pal-why").Text(strings.Join(d.Reasons, "; ")))
	}
	if len(d.Missing) > 0 {
		facts = append(facts, app.Dt().Text("Missing"), app.Dd().Class("pal-why").Text(strings.Join(d.Missing, ", ")))
	}
	body = append(body, app.If(d.Description != "", func() app.UI { return app.P().Text(d.Description) }), app.Dl().Class("pal-facts").Body(facts...))
	if p.formErr != "" {
		body = append(body, app.P().Class("pal-error").Role("alert").Text(p.formErr))
	}
	if p.form != nil {
		body = append(body, app.Div().Class("pal-form").ID("pal-form").Body(
			&schemaForm{Form: p.form, OnChange: p.onFormChange, IDPrefix: "pal"},
		))
		target, source := p.formCtx.SelectedTarget()
		if target == "" {
			body = append(body, app.P().ID("pal-target").Class("muted").Text("Target: none (nothing is selected on this page)."))
		} else {
			body = append(body, app.P().ID("pal-target").Body(app.Text("Target: "), app.Code().Text(target), app.Text(" ("+source+")")))
		}
	}
	body = append(body, p.renderPreview(), p.renderInvoke())
	return app.Div().Class("pal-detail").Body(body...)
}

func (p *palette) renderPreview() app.UI {
	if p.previewErr != "" {
		return app.P().Class("pal-error").ID("pal-preflight-error").Role("alert").Text(p.previewErr)
	}
	pv := p.preview
	if pv == nil {
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

func (p *palette) renderInvoke() app.UI {
	var body []app.UI
	if pv := p.preview; pv != nil && pv.NeedsConfirmation {
		body = append(body, app.Div().Class("pal-confirm").Body(
			app.Input().Type("checkbox").ID("pal-confirm").Checked(p.confirmed).OnChange(p.onConfirm),
			app.Label().For("pal-confirm").Text("I confirm this action: its side effect is "+string(pv.SideEffect)+"."),
		))
	}
	if p.pending != nil {
		body = append(body, app.P().Class("pal-pending").ID("pal-pending").Role("status").DataSet("approval", p.pending.Receipt.ApprovalID).Text(
			fmt.Sprintf("Pending approval %s (%s). Once it is granted, resume: the backend's answer says whether it was; editing the form discards it.", p.pending.Receipt.ApprovalID, p.pendState)))
	}
	if p.discarded {
		body = append(body, app.P().Class("pal-pending").ID("pal-discarded").Role("status").Text("The form changed: the pending approval was discarded. Request approval again."))
	}
	blocked := p.invokeBlocked()
	body = append(body,
		app.Button().ID("pal-invoke").Disabled(blocked != "").Aria("describedby", "pal-invoke-why").OnClick(p.onInvoke).Text(p.invokeLabel()),
		app.Span().ID("pal-invoke-why").Class("muted").Text(" "+blocked),
	)
	if p.invokeErr != "" {
		body = append(body, app.P().Class("pal-error").ID("pal-invoke-error").Role("alert").Text(p.invokeErr))
	}
	if p.started != "" {
		body = append(body, app.P().ID("pal-started").Role("status").Text(p.started))
	}
	if p.result != nil {
		body = append(body, app.Div().ID("pal-result").Body(renderResult(*p.result)))
	}
	return app.Div().Class("pal-invoke").Body(body...)
}
