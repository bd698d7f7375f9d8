package main

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/skilldiff"
	"workbench/pkg/store"
	"workbench/pkg/words"
)

// historyTab is the skill page's History tab, a component of its own:
// every stored version of the skill and the diff (package skilldiff) of
// two of them — manifest members and the verdict of each gate as the
// workbench re-derives it, never as a bundle claims it.
//
// The page makes one per version it shows and renders that same one each
// time the tab is opened, so the versions compared stay while another
// tab is open.
type historyTab struct {
	app.Compo
	pageTab
	env *env
	// id is the skill's; versions every stored version, oldest first;
	// shown the version the page shows.
	id       string
	versions []store.StoredBundle
	shown    int

	from, to int // versions compared
	diff     *skilldiff.Diff
	busy     bool
	err      error
	// seq numbers the comparisons asked for: an answer to an older one
	// is dropped, so a quick change of versions never shows a stale diff.
	seq latest
}

// OnMount compares the version before the one shown with it, the first
// time the tab opens.
func (h *historyTab) OnMount(ctx app.Context) {
	h.keep(ctx)
	if h.to != 0 || len(h.versions) < 2 {
		return
	}
	h.compareVersions(firstPair(h.versions, h.shown))
}

// firstPair is the two versions the History tab compares first: the one
// before shown and shown, or, when shown is the oldest, shown and the one
// after it. versions has at least two, oldest first.
func firstPair(versions []store.StoredBundle, shown int) (from, to int) {
	to = shown
	for _, v := range versions {
		if v.SkillVersion < to {
			from = v.SkillVersion
		}
	}
	if from == 0 {
		from, to = to, versions[1].SkillVersion
		for _, v := range versions {
			if v.SkillVersion > from {
				to = v.SkillVersion
				break
			}
		}
	}
	return from, to
}

// versionData returns the stored bundle of version n.
func (h *historyTab) versionData(n int) (store.StoredBundle, bool) {
	for _, v := range h.versions {
		if v.SkillVersion == n {
			return v, true
		}
	}
	return store.StoredBundle{}, false
}

// compareVersions re-verifies both versions and diffs them. It runs the
// verification off the UI goroutine.
func (h *historyTab) compareVersions(from, to int) {
	a, okA := h.versionData(from)
	b, okB := h.versionData(to)
	if !okA || !okB {
		return
	}
	seq := h.seq.next()
	h.from, h.to, h.busy, h.err = from, to, true, nil
	h.own().Async(func() {
		d, err := h.diffVersions(a, b)
		h.settle(h, func() {
			if !h.seq.is(seq) {
				return
			}
			h.busy, h.err, h.diff = false, err, d
		})
	})
}

// diffVersions re-derives the proofs of two stored versions and compares
// them. It blocks: call it from a goroutine.
func (h *historyTab) diffVersions(a, b store.StoredBundle) (*skilldiff.Diff, error) {
	v, err := h.env.verify()
	if err != nil {
		return nil, err
	}
	side := func(sb store.StoredBundle) (skilldiff.Version, error) {
		rep, err := v.Bytes(sb.Data)
		if err != nil {
			return skilldiff.Version{}, fmt.Errorf("version %d: %w", sb.SkillVersion, err)
		}
		bu, err := sb.Decode()
		if err != nil {
			return skilldiff.Version{}, fmt.Errorf("version %d: %w", sb.SkillVersion, err)
		}
		return skilldiff.Version{Number: sb.SkillVersion, Manifest: bu.Manifest, Proof: rep.Derived}, nil
	}
	from, err := side(a)
	if err != nil {
		return nil, err
	}
	to, err := side(b)
	if err != nil {
		return nil, err
	}
	d, err := skilldiff.Compare(from, to)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

func (h *historyTab) onPick(which string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		n, err := strconv.Atoi(recordTyped(ctx))
		if err != nil {
			return
		}
		from, to := h.from, h.to
		if which == "from" {
			from = n
		} else {
			to = n
		}
		h.compareVersions(from, to)
	}
}

func (h *historyTab) Render() app.UI {
	rows := make([]app.UI, 0, len(h.versions))
	for i := len(h.versions) - 1; i >= 0; i-- {
		v := h.versions[i]
		rows = append(rows, app.Tr().Body(
			app.Td().Body(app.A().Href("/skills/"+h.id+"?v="+strconv.Itoa(v.SkillVersion)).Text("v"+strconv.Itoa(v.SkillVersion))),
			app.Td().Text(v.CreatedAt),
			app.Td().Body(app.Code().Class("hash").Text(v.ContentHash)),
		))
	}
	list := app.Table().ID("history-versions").Class("list").Body(
		app.THead().Body(app.Tr().Body(
			app.Th().Scope("col").Text("Version"), app.Th().Scope("col").Text("Stored bundle made"), app.Th().Scope("col").Text("Content hash"))),
		app.TBody().Body(rows...),
	)
	if len(h.versions) < 2 {
		return app.Div().Body(app.H2().Text("History"), list,
			app.P().ID("history-single").Class("muted").Text("Only one version is stored, so there is nothing to compare yet."))
	}
	pick := func(id, label, which string, cur int) app.UI {
		opts := make([]app.UI, 0, len(h.versions))
		for _, v := range h.versions {
			opts = append(opts, app.Option().Value(strconv.Itoa(v.SkillVersion)).Selected(v.SkillVersion == cur).Text("v"+strconv.Itoa(v.SkillVersion)))
		}
		return app.Div().Class("field").Body(
			app.Label().For(id).Text(label),
			app.Select().ID(id).OnChange(h.onPick(which)).Body(opts...),
		)
	}
	return app.Div().Body(
		app.H2().Text("History"),
		list,
		app.H3().Text("Compare two versions"),
		app.P().Class("muted").Text("Manifest members that differ, and each gate's verdict as the workbench re-derives it from each version's evidence."),
		app.Div().Class("field-row").Body(
			pick("history-from", "From", "from", h.from),
			pick("history-to", "To", "to", h.to),
		),
		app.If(h.busy, func() app.UI {
			return app.P().Class("status status-pending").Text("Re-verifying both versions…")
		}),
		app.If(h.err != nil, func() app.UI {
			return app.P().Class("status status-error").Role("alert").Body(
				app.Text("The versions could not be compared: "), app.Span().Class("error-text").Text(errText(h.err)))
		}),
		app.If(!h.busy && h.err == nil && h.diff != nil, func() app.UI { return renderDiff(*h.diff) }),
	)
}

// renderDiff shows a diff as two tables: the manifest members that differ
// and every gate, with the changed ones marked.
func renderDiff(d skilldiff.Diff) app.UI {
	from, to := "v"+strconv.Itoa(d.From), "v"+strconv.Itoa(d.To)
	head := func(first string) app.UI {
		return app.THead().Body(app.Tr().Body(
			app.Th().Scope("col").Text(first), app.Th().Scope("col").Text(from), app.Th().Scope("col").Text(to)))
	}
	var fields app.UI
	if len(d.Fields) == 0 {
		fields = app.P().ID("diff-fields-same").Text("The manifests are the same.")
	} else {
		rows := make([]app.UI, len(d.Fields))
		for i, f := range d.Fields {
			rows[i] = app.Tr().Class("diff-field").DataSet("field", f.Name).Body(
				app.Th().Scope("row").Body(app.Code().Text(f.Name)),
				app.Td().Class("diff-value diff-old").Text(orNone(f.Old)),
				app.Td().Class("diff-value diff-new").Text(orNone(f.New)),
			)
		}
		fields = app.Div().Class("table-scroll").Body(app.Table().ID("diff-fields").Class("list").Body(head("Manifest member"), app.TBody().Body(rows...)))
	}
	gateRows := make([]app.UI, 0, len(d.Gates)+1)
	gateRow := func(g skilldiff.Gate, label string) app.UI {
		class := "diff-gate"
		mark := "unchanged"
		if g.Changed() {
			class += " diff-changed"
			mark = "changed"
		}
		return app.Tr().Class(class).DataSet("gate", g.ID).Body(
			app.Th().Scope("row").Body(app.Code().Text(label), app.Span().Class("visually-hidden").Text(" ("+mark+")")),
			app.Td().Body(gateVerdict(g.Old)),
			app.Td().Body(gateVerdict(g.New)),
		)
	}
	gateRows = append(gateRows, gateRow(d.Verdict, "overall verdict"))
	for _, g := range d.Gates {
		gateRows = append(gateRows, gateRow(g, g.ID))
	}
	summary := fmt.Sprintf("%s → %s: %s and %s changed.", from, to,
		words.Count(len(d.Fields), "manifest member"), words.Count(d.GatesChanged(), "gate"))
	return app.Div().ID("history-diff").Body(
		app.P().ID("diff-summary").Role("status").Text(summary),
		fields,
		app.Table().ID("diff-gates").Class("list").Body(head("Gate (re-derived)"), app.TBody().Body(gateRows...)),
	)
}

// gateVerdict is a verdict's badge, or "—" for a gate a version lacks.
func gateVerdict(v string) app.UI {
	if v == "" {
		return app.Span().Class("muted").Text("—")
	}
	return verdictBadge(v)
}

func orNone(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func (p *skillPage) onAskDelete(ctx app.Context, e app.Event) {
	p.del = deletion{id: p.id, name: p.bundle.Manifest.Name}
	ctx.Defer(func(app.Context) { showDeleteDialog() })
}

func (p *skillPage) onCancelDelete(ctx app.Context, e app.Event) {
	p.del = deletion{}
	closeDeleteDialog()
}

// onConfirmDelete deletes the skill and goes to the library, which says
// so; on failure the dialog stays open and says nothing was deleted.
func (p *skillPage) onConfirmDelete(ctx app.Context, e app.Event) {
	p.del.confirm(p.own(), p.env, func(ctx app.Context, name string) {
		ctx.Navigate("/skills?" + url.Values{"deleted": {name}}.Encode())
	})
}
