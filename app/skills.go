package main

import (
	"context"
	"fmt"
	"html"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/store"
)

// skillsPage is the local skill library (/skills): the stored skills, newest
// first, with their description, replay count, last fidelity, the verdict
// their newest bundle claims and the verdict re-derived from that bundle's
// evidence; a filter over every stored skill; and "Clear all local data"
// behind a confirmation dialog.
//
// The page reads only the rows it shows (store.ListSkills with a limit) and
// re-derives only their verdicts, after they are painted: a library of
// thousands opens as fast as one of a hundred.
type skillsPage struct {
	app.Compo
	env *env

	loaded   bool
	loadErr  error
	list     store.SkillList         // the rows shown, and how many match and are stored
	table    string                  // the table of list (tableHTML)
	verified map[string]verdictCheck // by bundle content hash
	filter   string
	limit    int // rows shown; grows by pageSize with "Show more"
	clearErr error
	cleared  bool

	// reading is true while a listing is read; stale, that the filter or
	// the limit changed meanwhile, so the result is dropped and the
	// listing read again. One read at a time however fast one types.
	reading, stale bool
	// stopVerify ends the re-verification of the rows shown before.
	stopVerify context.CancelFunc
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
	if p.verified == nil {
		p.verified = map[string]verdictCheck{}
	}
	p.load(ctx)
}

func (p *skillsPage) OnDismount() {
	if p.stopVerify != nil {
		p.stopVerify()
	}
}

// load reads the rows the filter and the limit ask for. It runs on the UI
// goroutine.
func (p *skillsPage) load(ctx app.Context) {
	if p.reading {
		p.stale = true
		return
	}
	p.reading = true
	q := store.SkillQuery{Filter: p.filter, Limit: p.limit}
	ctx.Async(func() {
		st, err := p.env.store(ctx, nil)
		var list store.SkillList
		if err == nil {
			list, err = st.ListSkills(ctx, q)
			p.env.dropStore(err)
		}
		known := make(map[string]verdictCheck, len(list.Skills))
		for _, sk := range list.Skills {
			if c, ok := p.env.verdict(sk.BundleHash); ok {
				known[sk.BundleHash] = c
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.reading = false
			if p.stale {
				p.stale = false
				p.load(ctx)
				return
			}
			p.loaded, p.loadErr = true, err
			if err != nil {
				return
			}
			p.list = list
			maps.Copy(p.verified, known)
			p.table = p.tableHTML()
			// After this update is in the DOM, so that whenPainted waits
			// for the frame that shows it.
			ctx.Defer(func(ctx app.Context) { p.verifyShown(ctx, st) })
		})
	})
}

// verifyShown re-derives the proof of each row shown whose verdict is not
// known yet, newest first: the stored verdict is only a claim. It starts
// once the rows are painted, so verifying (and, the first time, compiling
// the schemas) never delays them. Verdicts are written into their cells
// (showVerified) in batches, at most one per 250 ms, and kept in env by
// content hash, which names immutable bytes, so a later visit shows them
// at once.
func (p *skillsPage) verifyShown(ctx app.Context, st store.Store) {
	if p.stopVerify != nil {
		p.stopVerify()
	}
	var todo []string
	for _, sk := range p.list.Skills {
		if _, ok := p.verified[sk.BundleHash]; !ok {
			todo = append(todo, sk.BundleHash)
		}
	}
	if len(todo) == 0 {
		return
	}
	vctx, stop := context.WithCancel(ctx)
	p.stopVerify = stop
	painted := whenPainted()
	ctx.Async(func() {
		defer stop()
		select {
		case <-painted:
		case <-vctx.Done():
			return
		}
		v, verr := p.env.verify()
		batch := map[string]verdictCheck{}
		last := time.Now()
		flush := func() {
			b := batch
			batch = map[string]verdictCheck{}
			last = time.Now()
			ctx.Dispatch(func(app.Context) {
				maps.Copy(p.verified, b)
				for hash, c := range b {
					showVerified(hash, c)
				}
			})
		}
		for _, hash := range todo {
			if vctx.Err() != nil {
				return
			}
			c, ok := p.env.verdict(hash)
			if !ok {
				if verr != nil {
					c.err = verr
				} else if b, err := st.Bundle(vctx, hash); err != nil {
					c.err = err
				} else if rep, err := v.Bytes(b.Data); err != nil {
					c.err = err
				} else {
					c.verdict = rep.Verdict
					p.env.keepVerdict(hash, c)
				}
			}
			if vctx.Err() != nil {
				return // the read was cancelled, not failed
			}
			batch[hash] = c
			if time.Since(last) > 250*time.Millisecond {
				flush()
			}
		}
		if len(batch) > 0 {
			flush()
		}
	})
}

// whenPainted returns a channel closed once the browser has painted what
// the UI goroutine rendered before the call: a timeout set from an
// animation frame callback runs after that frame is painted. On the
// server, where nothing is painted, it is closed at once.
func whenPainted() <-chan struct{} {
	done := make(chan struct{})
	if app.IsServer {
		close(done)
		return done
	}
	var frame, timeout app.Func
	timeout = app.FuncOf(func(app.Value, []app.Value) any {
		frame.Release()
		timeout.Release()
		close(done)
		return nil
	})
	frame = app.FuncOf(func(app.Value, []app.Value) any {
		app.Window().Call("setTimeout", timeout, 0)
		return nil
	})
	app.Window().Call("requestAnimationFrame", frame)
	return done
}

func (p *skillsPage) onFilter(ctx app.Context, e app.Event) {
	p.filter = ctx.JSSrc().Get("value").String()
	p.limit = pageSize
	p.load(ctx)
}

func (p *skillsPage) onMore(ctx app.Context, e app.Event) {
	p.limit += pageSize
	p.load(ctx)
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
				if p.stopVerify != nil {
					p.stopVerify()
				}
				p.list, p.table = store.SkillList{}, ""
			}
		})
	})
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
	case p.list.Total == 0:
		return app.P().ID("skills-empty").Class("status").Body(
			app.Text("No skills yet. "), app.A().Href("/teach").Text("Teach one"),
			app.Text(" or "), app.A().Href("/import").Text("import a bundle"), app.Text("."))
	}
	shown := p.list.Skills
	count := fmt.Sprintf("%d of %d skills", p.list.Matching, p.list.Total)
	if len(shown) < p.list.Matching {
		count = fmt.Sprintf("%d of %d skills (newest %d shown)", p.list.Matching, p.list.Total, len(shown))
	}
	return app.Div().Body(
		app.Div().Class("field").Body(
			app.Label().For("skills-filter").Text("Filter"),
			app.Input().Type("search").ID("skills-filter").Value(p.filter).
				Placeholder("name, slug or description").OnInput(p.onFilter),
		),
		app.P().ID("skills-count").Class("muted").Aria("live", "polite").Text(count),
		app.Raw(p.table),
		app.If(len(shown) < p.list.Matching, func() app.UI {
			return app.Button().Type("button").ID("skills-more").Class("secondary").
				Text(fmt.Sprintf("Show %d more", min(pageSize, p.list.Matching-len(shown)))).OnClick(p.onMore)
		}),
	)
}

// tableHTML is the markup of the table of the rows listed: one piece of
// HTML that the browser parses at once, where go-app would create, set up
// and keep a JavaScript reference to each of its some two thousand nodes
// (most of the time to show the page was spent there). Every text and
// attribute value from a bundle is escaped (html.EscapeString), so a
// hostile name stays text; links are followed by go-app's own handler of
// clicks on any link.
//
// The re-verified verdicts that arrive later are written into their cells
// (showVerified) rather than into a new table: the markup stays as it
// was, so go-app keeps the table in place, and a focused link keeps its
// focus.
func (p *skillsPage) tableHTML() string {
	var b strings.Builder
	b.WriteString(`<table id="skills-table" class="list"><thead><tr>` +
		`<th scope="col">Skill</th><th scope="col">Description</th><th scope="col">Replays</th>` +
		`<th scope="col">Last fidelity</th><th scope="col">Re-verified</th><th scope="col">Claimed</th>` +
		`</tr></thead><tbody>`)
	esc := html.EscapeString
	for _, s := range p.list.Skills {
		b.WriteString(`<tr class="skill-row"><td><a class="skill-name" href="`)
		b.WriteString(esc("/skills/" + s.ID))
		b.WriteString(`">`)
		b.WriteString(esc(s.Name))
		b.WriteString(`</a><div class="muted">`)
		b.WriteString(esc(s.Slug + " · v" + strconv.Itoa(s.Version)))
		b.WriteString(`</div></td><td class="skill-description">`)
		b.WriteString(esc(s.Description))
		b.WriteString(`</td><td class="skill-replays">`)
		b.WriteString(strconv.Itoa(s.ReplayCount))
		b.WriteString(`</td><td class="skill-fidelity">`)
		if r := s.LastReplay; r != nil {
			b.WriteString(esc(strconv.FormatFloat(r.Fidelity, 'f', 2, 64) + " · " + r.Level + " · " + r.Status))
		} else {
			b.WriteString(`<span class="muted">never replayed</span>`)
		}
		b.WriteString(`</td><td class="skill-verified" data-bundle="`)
		b.WriteString(esc(s.BundleHash))
		b.WriteString(`">`)
		c, ok := p.verified[s.BundleHash]
		b.WriteString(verifiedHTML(c, ok))
		b.WriteString(`</td><td class="skill-claimed">`)
		b.WriteString(badgeHTML(s.Verdict))
		b.WriteString(`</td></tr>`)
	}
	b.WriteString(`</tbody></table>`)
	return b.String()
}

// verifiedHTML is the content of a re-verified cell: the verdict, the
// error, or "verifying…" while it is not known.
func verifiedHTML(c verdictCheck, known bool) string {
	switch {
	case !known:
		return `<span class="muted">verifying…</span>`
	case c.err != nil:
		return `<span>` + badgeHTML("error") + `<span class="error-text"> ` + html.EscapeString(c.err.Error()) + `</span></span>`
	}
	return badgeHTML(c.verdict)
}

// badgeHTML is verdictBadge's markup.
func badgeHTML(v string) string {
	class, title, text := verdictLook(v)
	return `<span class="verdict ` + html.EscapeString(class) + `" title="` + html.EscapeString(title) + `">` +
		html.EscapeString(text) + `</span>`
}

// showVerified writes a re-derived verdict into the cells of its bundle
// in the table shown. A cell no longer shown is no matter: a table built
// later includes the verdicts known by then.
func showVerified(hash string, c verdictCheck) {
	doc := app.Window().Get("document")
	sel := `#skills-table td.skill-verified[data-bundle="` + app.Window().Get("CSS").Call("escape", hash).String() + `"]`
	cells := doc.Call("querySelectorAll", sel)
	for i := range cells.Length() {
		cells.Index(i).Set("innerHTML", verifiedHTML(c, true))
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
