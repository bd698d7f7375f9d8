package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/capability"
	"workbench/pkg/runs"
)

// runsTimelineCap bounds the inspector's timeline: it shows at most this
// many of a run's newest events.
const runsTimelineCap = 200

// runsPanel is the runs inspector, the capability palette's run view: the backend's runs newest first with
// their lifecycle states, and the selected run's events, replayed by
// sequence cursor into a bounded timeline and then followed live until a
// terminal event. A stream_reset stops the follow and asks the user to
// replay the retained window; a dropped connection is resumed after the
// last sequence (package runs). tool_result events go through the
// renderer registry. The list, the replay and the follow fail on their
// own: each failure is shown in its place and the others keep working.
//
// The parent asks it to select a run by changing Select (an invocation's
// run id) and to start over on another backend by changing Gen.
type runsPanel struct {
	app.Compo

	env *env
	ownContext
	// claimFile is the palette's: it says, once, that a run's file is to
	// be downloaded at once (the run was just invoked from the dialog).
	claimFile func(run runs.RunID) bool
	// Select is a run to select and follow; Gen is the backend generation.
	Select string
	Gen    int

	lastSelect string
	lastGen    int
	reg        *capability.Registry

	list    []runs.Run
	listErr string
	listing bool
	listSeq latest

	sel       runs.RunID
	events    []runs.Event
	state     runs.State
	replaying bool // paging through the retained window
	following bool // following live after the replay
	replayErr string
	followErr string
	reset     string // set when a stream_reset ended the follow
	resetSeen int64  // the last sequence seen before the stream_reset
	missing   string // "events 1–4 are no longer retained", when the window starts later than what was seen
	resumed   int
	gap       bool
	chain     int
	// revealing is true while the run followed is the one just invoked
	// from the dialog: each new event is scrolled into view, so that the
	// run's result shows without the user scrolling to it.
	revealing bool
	cancel    context.CancelFunc
}

func (r *runsPanel) OnMount(ctx app.Context) {
	r.keep(ctx)
	r.reg = capability.NewRegistry(nil)
	r.lastGen = r.Gen
	r.refresh(ctx)
	r.OnUpdate(ctx)
}

func (r *runsPanel) OnDismount() {
	if r.cancel != nil {
		r.cancel()
	}
}

func (r *runsPanel) OnUpdate(ctx app.Context) {
	if r.Gen != r.lastGen {
		r.lastGen = r.Gen
		r.stop()
		r.sel, r.events, r.list = "", nil, nil
		r.refresh(ctx)
	}
	if r.Select != r.lastSelect {
		r.lastSelect = r.Select
		if r.Select != "" {
			r.follow(ctx, runs.RunID(r.Select), 0)
			r.revealing = true
			r.refresh(ctx)
		}
	}
}

func (r *runsPanel) stop() {
	r.chain++
	if r.cancel != nil {
		r.cancel()
		r.cancel = nil
	}
	r.following, r.replaying = false, false
}

// refresh reads the run list.
func (r *runsPanel) refresh(ctx app.Context) {
	ctx = r.own()
	r.listing = true
	seq := r.listSeq.next()
	ctx.Async(func() {
		c, cancel := context.WithTimeout(context.Background(), 30e9)
		defer cancel()
		var list []runs.Run
		be, _, err := r.env.capabilityBackend(c)
		if err == nil {
			list, err = be.Runs(c, "")
		}
		ctx.Dispatch(func(ctx app.Context) {
			if !r.listSeq.is(seq) {
				return
			}
			r.listing = false
			if err != nil {
				r.listErr = "The runs could not be listed: " + describeErr(err)
				return
			}
			r.list, r.listErr = list, ""
			for _, x := range list {
				if x.ID == r.sel && !r.following && !r.replaying {
					r.state = x.State
				}
			}
		})
	})
}

func (r *runsPanel) onRefresh(ctx app.Context, e app.Event) { r.refresh(ctx) }

// follow selects run: it replays the retained window into a fresh
// timeline, then follows live unless the run is over. seen is the last
// sequence the user saw of it before (after a stream_reset), 0 for none:
// when the retained window starts later, the lost events are named.
func (r *runsPanel) follow(ctx app.Context, run runs.RunID, seen int64) {
	ctx = r.own()
	r.stop()
	chain := r.chain
	c, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.sel, r.events, r.state, r.gap = run, nil, "", false
	r.replayErr, r.followErr, r.reset, r.resumed, r.missing = "", "", "", 0, ""
	r.replaying, r.revealing = true, false
	ctx.Async(func() {
		be, _, err := r.env.capabilityBackend(c)
		if err != nil {
			ctx.Dispatch(func(ctx app.Context) {
				if r.chain == chain {
					r.replaying, r.replayErr = false, "The run could not be replayed: "+describeErr(err)
				}
			})
			return
		}
		t := runs.NewTimeline(runsTimelineCap)
		on := func(e runs.Event) {
			ctx.Dispatch(func(ctx app.Context) {
				if r.chain == chain {
					r.add(e)
					if r.revealing {
						ctx.Defer(revealNewestEvent)
					}
				}
			})
		}
		st, err := runs.Replay(c, be, run, t, 100, on)
		gap := t.Gap()
		missing := ""
		if from, to, ok := t.Missing(seen); ok {
			missing = lostEvents(from, to)
		}
		ended := err != nil || st.Terminal()
		ctx.Dispatch(func(ctx app.Context) {
			if r.chain != chain {
				return
			}
			r.replaying, r.following, r.gap, r.missing = false, !ended, gap, missing
			if err != nil {
				r.replayErr = "The run could not be replayed: " + describeErr(err)
			} else if st != "" {
				r.state = st
			}
		})
		if ended {
			return
		}
		res, err := runs.Follow(c, be, run, t, on)
		last := t.Last()
		ctx.Dispatch(func(ctx app.Context) {
			if r.chain != chain {
				return
			}
			r.following, r.resumed = false, res.Resumed
			switch {
			case err != nil && c.Err() == nil:
				r.followErr = "Following the run stopped: " + describeErr(err)
			case res.Outcome == runs.OutcomeReset:
				r.reset, r.resetSeen = res.Reason, last
				if r.reset == "" {
					r.reset = "the backend gave no reason"
				}
			}
			r.refresh(ctx)
		})
	})
}

// revealNewestEvent scrolls the newest event of the timeline shown into
// view.
func revealNewestEvent(app.Context) { revealNearest("#pal-timeline > li:last-child") }

// lostEvents says which events are no longer retained.
func lostEvents(from, to int64) string {
	if from == to {
		return fmt.Sprintf("Event %d is no longer retained: the timeline starts at #%d.", from, to+1)
	}
	return fmt.Sprintf("Events %d–%d are no longer retained: the timeline starts at #%d.", from, to, to+1)
}

// add appends a new event (the timeline already dropped duplicates),
// keeping the newest runsTimelineCap.
func (r *runsPanel) add(e runs.Event) {
	r.events = append(r.events, e)
	if len(r.events) > runsTimelineCap {
		r.events = append(r.events[:0:0], r.events[len(r.events)-runsTimelineCap:]...)
	}
	// The state the event puts the run in, by the document's rule,
	// however the backend spells it.
	if st, ok := runs.StateAfterEvent(e); ok {
		r.state = st
	}
}

func (r *runsPanel) onSelect(id runs.RunID) app.EventHandler {
	return func(ctx app.Context, e app.Event) { r.follow(ctx, id, 0) }
}

func (r *runsPanel) onReplayWindow(ctx app.Context, e app.Event) { r.follow(ctx, r.sel, r.resetSeen) }

func (r *runsPanel) Render() app.UI {
	items := make([]app.UI, 0, len(r.list))
	for _, x := range r.list {
		items = append(items, app.Li().Body(
			app.Button().Class("pal-run").Aria("pressed", fmt.Sprint(x.ID == r.sel)).
				DataSet("run", string(x.ID)).OnClick(r.onSelect(x.ID), app.EventScope(string(x.ID))).Body(
				app.Span().Class("pal-run-title").Text(x.Title),
				app.Span().Class("pal-state pal-state-"+string(x.State)).Text(string(x.State)),
				app.Span().Class("muted").Text(" "+string(x.Kind)+" · "+x.StartedAt),
			),
		))
	}
	list := []app.UI{}
	switch {
	case r.listErr != "":
		list = append(list, app.P().Class("pal-error").ID("pal-runs-error").Role("alert").Text(r.listErr))
	case len(r.list) == 0 && !r.listing:
		list = append(list, app.P().Class("muted").Text("No runs yet."))
	}
	list = append(list, app.Ol().Class("pal-runs").Aria("label", "Runs, newest first").Body(items...))

	return app.Section().Class("pal-panel pal-runs-panel").Aria("labelledby", "pal-runs-h").Body(
		app.Div().Class("pal-panel-head").Body(
			app.H3().ID("pal-runs-h").Text("Runs"),
			app.Button().Class("secondary").ID("pal-runs-refresh").OnClick(r.onRefresh).Text("Refresh"),
		),
		app.Div().Body(list...),
		r.renderTimeline(),
	)
}

func (r *runsPanel) renderTimeline() app.UI {
	if r.sel == "" {
		return app.Div()
	}
	status := runStatus(r.replaying, r.following, r.state)
	body := []app.UI{
		app.P().ID("pal-run-status").Aria("live", "polite").Body(
			app.Strong().Text("Run "+string(r.sel)+": "), app.Text(status),
			app.If(r.resumed > 0, func() app.UI {
				return app.Span().ID("pal-run-resumed").Text(fmt.Sprintf(" (connection resumed %d times after the last sequence)", r.resumed))
			}),
		),
	}
	switch {
	case r.missing != "":
		body = append(body, app.P().Class("muted").ID("pal-run-missing").Text(r.missing))
	case r.gap:
		body = append(body, app.P().Class("muted").ID("pal-run-missing").Text("Earlier events are no longer retained; the timeline starts later."))
	}
	if r.replayErr != "" {
		body = append(body, app.P().Class("pal-error").ID("pal-replay-error").Role("alert").Text(r.replayErr))
	}
	if r.followErr != "" {
		body = append(body, app.P().Class("pal-error").ID("pal-follow-error").Role("alert").Text(r.followErr))
	}
	if r.reset != "" {
		body = append(body, app.Div().Class("pal-reset").ID("pal-stream-reset").Role("alert").Body(
			app.P().Text("The event stream was reset — "+r.reset+" — so following stopped: events may have been lost. Replaying the retained window says which."),
			app.Button().ID("pal-replay-window").OnClick(r.onReplayWindow).Text("Replay retained window"),
		))
	}
	evs := make([]app.UI, len(r.events))
	for i, e := range r.events {
		evs[i] = r.renderEvent(e)
	}
	body = append(body, app.Ol().Class("pal-timeline").ID("pal-timeline").Aria("label", "Run events").Body(evs...))
	return app.Div().Class("pal-run-detail").Body(body...)
}

// runStatus labels the selected run: "Replaying" only while the retained
// window is paged through, then the live follow, then the state the run
// reached — a finished run is never left labelled "Replaying".
func runStatus(replaying, following bool, st runs.State) string {
	switch {
	case replaying:
		return "Replaying"
	case following:
		return "Following live"
	case st != "":
		return "State: " + string(st)
	}
	return "Replayed (the backend stated no lifecycle state)"
}

func (r *runsPanel) renderEvent(e runs.Event) app.UI {
	head := app.Div().Class("pal-event-head").Body(
		app.Span().Class("step-no").Text(fmt.Sprintf("#%d", e.Sequence)),
		app.Strong().Text(" "+e.Type),
		app.Span().Class("muted").Text(" "+e.Time),
	)
	li := app.Li().Class("pal-event").DataSet("type", e.Type).DataSet("seq", fmt.Sprint(e.Sequence))
	if e.Type == runs.EventToolResult {
		var d struct {
			RenderHint string `json:"render_hint"`
		}
		json.Unmarshal(e.Data, &d)
		if name, size, ok := eventFile(e); ok {
			return li.Body(head, &runFile{env: r.env, claim: r.claimFile, Run: e.RunID, Name: name, Bytes: size},
				renderResult(r.reg.Render(d.RenderHint, e.Data)))
		}
		return li.Body(head, renderResult(r.reg.Render(d.RenderHint, e.Data)))
	}
	data := string(e.Data)
	if len(data) > 400 {
		data = data[:400] + "…"
	}
	return li.Body(head, app.If(data != "" && data != "null", func() app.UI { return app.Code().Class("pal-event-data").Text(data) }))
}
