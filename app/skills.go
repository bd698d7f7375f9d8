package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/store"
)

// skillsPage is the local skill library (/skills): every stored skill with
// its description, replay count, last fidelity, the verdict its newest
// bundle claims and the verdict re-derived from that bundle's evidence; a
// filter; and "Clear all local data" behind a confirmation dialog.
type skillsPage struct {
	app.Compo
	env *env

	loaded   bool
	loadErr  error
	skills   []store.Skill
	verified map[string]verdictCheck // by bundle content hash
	filter   string
	limit    int // rows shown; grows by pageSize with "Show more"
	clearErr error
	cleared  bool
}

// pageSize is how many rows the table shows at first and adds per "Show
// more": a library of thousands stays quick to open, and the filter
// searches all of it.
const pageSize = 100

// verdictCheck is the re-verification of one stored bundle.
type verdictCheck struct {
	verdict string
	err     error
}

func (p *skillsPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Skills · Skill Workbench")
	p.limit = pageSize
	p.load(ctx)
}

func (p *skillsPage) load(ctx app.Context) {
	ctx.Async(func() {
		st, err := p.env.store(ctx, nil)
		var skills []store.Skill
		if err == nil {
			skills, err = st.Skills(ctx)
			p.env.dropStore(err)
		}
		known := make(map[string]verdictCheck, len(skills))
		for _, sk := range skills {
			if c, ok := p.env.verdict(sk.BundleHash); ok {
				known[sk.BundleHash] = c
			}
		}
		ctx.Dispatch(func(app.Context) {
			p.loaded, p.loadErr, p.skills, p.verified = true, err, skills, known
		})
		if err != nil {
			return
		}
		p.reverify(ctx, st, skills)
	})
}

// reverify re-derives each listed bundle's proof, newest first: the stored
// verdict is only a claim. Verdicts are shown in batches (re-rendering a
// long table once per bundle would cost more than verifying it) and kept
// in env by content hash, which names immutable bytes, so a later visit
// shows them at once.
func (p *skillsPage) reverify(ctx app.Context, st store.Store, skills []store.Skill) {
	v, verr := p.env.verify()
	batch := map[string]verdictCheck{}
	last := time.Now()
	flush := func() {
		b := batch
		batch = map[string]verdictCheck{}
		last = time.Now()
		ctx.Dispatch(func(app.Context) {
			for h, c := range b {
				p.verified[h] = c
			}
		})
	}
	for _, sk := range skills {
		if ctx.Err() != nil {
			return
		}
		c, ok := p.env.verdict(sk.BundleHash)
		if !ok {
			if verr != nil {
				c.err = verr
			} else if b, err := st.Bundle(ctx, sk.BundleHash); err != nil {
				c.err = err
			} else if rep, err := v.Bytes(b.Data); err != nil {
				c.err = err
			} else {
				c.verdict = rep.Verdict
				p.env.keepVerdict(sk.BundleHash, c)
			}
		}
		batch[sk.BundleHash] = c
		if len(batch) >= 100 || time.Since(last) > 250*time.Millisecond {
			flush()
		}
	}
	if len(batch) > 0 {
		flush()
	}
}

func (p *skillsPage) onFilter(ctx app.Context, e app.Event) {
	p.filter = ctx.JSSrc().Get("value").String()
	p.limit = pageSize
}

func (p *skillsPage) onMore(ctx app.Context, e app.Event) {
	p.limit += pageSize
}

func (p *skillsPage) onAskClear(ctx app.Context, e app.Event) {
	p.cleared, p.clearErr = false, nil
	app.Window().GetElementByID("clear-dialog").Call("showModal")
}

func (p *skillsPage) onCancelClear(ctx app.Context, e app.Event) {
	app.Window().GetElementByID("clear-dialog").Call("close")
}

func (p *skillsPage) onConfirmClear(ctx app.Context, e app.Event) {
	app.Window().GetElementByID("clear-dialog").Call("close")
	ctx.Async(func() {
		st, err := p.env.store(ctx, nil)
		if err == nil {
			err = st.Clear(ctx)
			p.env.dropStore(err)
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.clearErr, p.cleared = err, err == nil
			if err == nil {
				p.skills, p.verified = nil, map[string]verdictCheck{}
			}
		})
	})
}

// visible returns the skills the filter keeps: a case-insensitive match
// in name, slug or description.
func (p *skillsPage) visible() []store.Skill {
	q := strings.ToLower(strings.TrimSpace(p.filter))
	if q == "" {
		return p.skills
	}
	var out []store.Skill
	for _, s := range p.skills {
		if strings.Contains(strings.ToLower(s.Name), q) || strings.Contains(strings.ToLower(s.Slug), q) ||
			strings.Contains(strings.ToLower(s.Description), q) {
			out = append(out, s)
		}
	}
	return out
}

func (p *skillsPage) Render() app.UI {
	return frame("/skills",
		app.H1().Text("Skills"),
		app.P().Text("The skills stored in this browser. The verdict a bundle claims is shown beside the verdict the workbench re-derives from its evidence."),
		p.renderList(),
		app.Section().Class("panel").Aria("labelledby", "clear-heading").Body(
			app.H2().ID("clear-heading").Text("Local data"),
			app.Button().Type("button").ID("clear-all").Class("danger").Text("Clear all local data…").OnClick(p.onAskClear),
			app.If(p.cleared, func() app.UI {
				return app.P().ID("clear-done").Class("status status-ok").Role("status").Text("All local data was deleted.")
			}),
			app.If(p.clearErr != nil, func() app.UI {
				return app.P().Class("status status-error").Role("alert").Body(
					app.Text("Nothing was deleted: "), app.Span().Class("error-text").Text(errText(p.clearErr)))
			}),
		),
		app.Dialog().ID("clear-dialog").Aria("labelledby", "clear-dialog-title").Aria("describedby", "clear-dialog-text").Body(
			app.H2().ID("clear-dialog-title").Text("Clear all local data?"),
			app.P().ID("clear-dialog-text").Text("This deletes every skill, bundle, trace and replay stored in this browser. It cannot be undone; export the bundles you want to keep first. Your OpenRouter key (kept for this tab only) is not affected."),
			app.Div().Class("dialog-actions").Body(
				app.Button().Type("button").ID("clear-cancel").Class("secondary").Text("Cancel").OnClick(p.onCancelClear),
				app.Button().Type("button").ID("clear-confirm").Class("danger").Text("Delete everything").OnClick(p.onConfirmClear),
			),
		),
	)
}

func (p *skillsPage) renderList() app.UI {
	switch {
	case !p.loaded:
		return app.P().Class("status status-pending").Text("Opening the library…")
	case p.loadErr != nil:
		return app.P().Class("status status-error").Role("alert").Body(
			app.Text("The library could not be read: "), app.Span().Class("error-text").Text(p.loadErr.Error()))
	case len(p.skills) == 0:
		return app.P().ID("skills-empty").Class("status").Body(
			app.Text("No skills yet. "), app.A().Href("/teach").Text("Teach one"),
			app.Text(" or "), app.A().Href("/import").Text("import a bundle"), app.Text("."))
	}
	matching := p.visible()
	shown := matching
	if len(shown) > p.limit {
		shown = shown[:p.limit]
	}
	rows := make([]app.UI, 0, len(shown))
	for _, s := range shown {
		rows = append(rows, p.renderRow(s))
	}
	count := fmt.Sprintf("%d of %d skills", len(matching), len(p.skills))
	if len(shown) < len(matching) {
		count = fmt.Sprintf("%d of %d skills (newest %d shown)", len(matching), len(p.skills), len(shown))
	}
	return app.Div().Body(
		app.Div().Class("field").Body(
			app.Label().For("skills-filter").Text("Filter"),
			app.Input().Type("search").ID("skills-filter").Value(p.filter).
				Placeholder("name, slug or description").OnInput(p.onFilter),
		),
		app.P().ID("skills-count").Class("muted").Aria("live", "polite").Text(count),
		app.Table().ID("skills-table").Class("list").Body(
			app.THead().Body(app.Tr().Body(
				app.Th().Scope("col").Text("Skill"),
				app.Th().Scope("col").Text("Description"),
				app.Th().Scope("col").Text("Replays"),
				app.Th().Scope("col").Text("Last fidelity"),
				app.Th().Scope("col").Text("Re-verified"),
				app.Th().Scope("col").Text("Claimed"),
			)),
			app.TBody().Body(rows...),
		),
		app.If(len(shown) < len(matching), func() app.UI {
			return app.Button().Type("button").ID("skills-more").Class("secondary").
				Text(fmt.Sprintf("Show %d more", min(pageSize, len(matching)-len(shown)))).OnClick(p.onMore)
		}),
	)
}

func (p *skillsPage) renderRow(s store.Skill) app.UI {
	fidelity := app.UI(app.Span().Class("muted").Text("never replayed"))
	if r := s.LastReplay; r != nil {
		fidelity = app.Span().Text(strconv.FormatFloat(r.Fidelity, 'f', 2, 64) + " · " + r.Level + " · " + r.Status)
	}
	var verified app.UI
	switch c, ok := p.verified[s.BundleHash]; {
	case !ok:
		verified = app.Span().Class("muted").Text("verifying…")
	case c.err != nil:
		verified = app.Span().Body(verdictBadge("error"), app.Span().Class("error-text").Text(" "+c.err.Error()))
	default:
		verified = verdictBadge(c.verdict)
	}
	return app.Tr().Class("skill-row").Body(
		app.Td().Body(
			app.A().Class("skill-name").Href("/skills/"+s.ID).Text(s.Name),
			app.Div().Class("muted").Text(s.Slug+" · v"+strconv.Itoa(s.Version)),
		),
		app.Td().Class("skill-description").Text(s.Description),
		app.Td().Class("skill-replays").Text(strconv.Itoa(s.ReplayCount)),
		app.Td().Class("skill-fidelity").Body(fidelity),
		app.Td().Class("skill-verified").Body(verified),
		app.Td().Class("skill-claimed").Body(verdictBadge(s.Verdict)),
	)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
