package main

import (
	"context"
	"fmt"
	"html"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/signature"
	"workbench/pkg/store"
	"workbench/pkg/verify"
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
	ownContext

	loaded   bool
	loadErr  error
	pins     *signature.PinSet       // the trusted signers, which say which rows' signers are trusted
	pin      pinning                 // the signer the trust dialog asks about
	list     store.SkillList         // the rows shown, and how many match and are stored
	table    string                  // the table of list (tableHTML)
	verified map[string]verdictCheck // by bundle content hash
	filter   string
	sort     store.Sort // from the URL's ?sort=, kept there when changed
	limit    int        // rows shown; grows by pageSize with "Show more"
	clearErr error
	cleared  bool

	// del is the skill the delete dialog asks about; deleted names the
	// one deleted last, for the message.
	del     deletion
	deleted string

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

// verdictCheck is the re-verification of one stored bundle: its verdict
// and its signature, as the bundle alone says them (checkOf). Whether the
// signer is trusted is the pin set's, asked when the row is shown.
type verdictCheck struct {
	verdict string
	err     error
	sig     sigCheck
}

// sigCheck is a bundle's signature checked with no pin set: what it is,
// and for one that verifies, its key.
type sigCheck struct {
	state            string // verify.Signature*: none, present_unverified (verifies, or a string), invalid
	keyID, publicKey string // when it verifies
}

// checkOf is what a report says of its bundle, for the verdict cache.
func checkOf(r *verify.Report) verdictCheck {
	c := verdictCheck{verdict: r.Verdict, sig: sigCheck{state: r.Signature}}
	switch r.Signature {
	case verify.SignatureTrusted, verify.SignatureUnknownKey, verify.SignatureUnverified:
		if pub, ok := r.SignerPublicKey(); ok && r.SignatureKeyID != "" {
			c.sig = sigCheck{state: verify.SignatureUnverified, keyID: r.SignatureKeyID, publicKey: pub}
		} else {
			c.sig.state = verify.SignatureUnverified
		}
	}
	return c
}

func (p *skillsPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Skills · Skill Workbench")
	p.keep(ctx)
	p.limit = pageSize
	u := *ctx.Page().URL()
	p.sort = sortOf(&u)
	p.deleted, p.del = "", deletion{}
	// The skill page sends a person here after deleting a skill, with
	// its name in ?deleted=: say so once, and drop it from the URL so a
	// reload does not say it again.
	if q := u.Query(); q.Get("deleted") != "" {
		p.deleted = q.Get("deleted")
		q.Del("deleted")
		u.RawQuery = q.Encode()
		ctx.Page().ReplaceURL(&u)
	}
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
	q := store.SkillQuery{Filter: p.filter, Limit: p.limit, Sort: p.sort}
	ctx.Async(func() {
		st, err := p.env.store(ctx, nil)
		var list store.SkillList
		var pins *signature.PinSet
		if err == nil {
			list, err = st.ListSkills(ctx, q)
			p.env.dropStore(err)
		}
		if kr, kerr := keyringOf(st); err == nil && kerr == nil {
			pins, _ = kr.TrustedSigners(ctx) // unreadable: no signer reads as trusted
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
			p.list, p.pins = list, pins
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
					showVerified(hash, c, p.pins)
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
					c = checkOf(rep)
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
	p.filter = recordTyped(ctx)
	p.limit = pageSize
	p.load(ctx)
}

// sortOf reads the listing's order from a /skills URL (?sort=name); an
// order it does not know is the default, newest first.
func sortOf(u *url.URL) store.Sort {
	s, err := store.ParseSort(u.Query().Get("sort"))
	if err != nil {
		return store.SortNewest
	}
	return s
}

// withSort returns u with the order in its query: none for the default,
// so /skills stays /skills.
func withSort(u url.URL, s store.Sort) *url.URL {
	q := u.Query()
	if s == store.SortNewest {
		q.Del("sort")
	} else {
		q.Set("sort", s.String())
	}
	u.RawQuery = q.Encode()
	return &u
}

// sortLabels are the order's names on the page.
var sortLabels = map[store.Sort]string{
	store.SortNewest:  "Newest first",
	store.SortName:    "Name (A–Z)",
	store.SortUpdated: "Recently updated",
	store.SortVerdict: "Claimed verdict (worst first)",
}

func (p *skillsPage) onSort(ctx app.Context, e app.Event) {
	s, err := store.ParseSort(recordTyped(ctx))
	if err != nil {
		return
	}
	p.sort = s
	p.limit = pageSize
	// The order is kept in the URL, so a reload or a shared link lists
	// the same way; replacing (not pushing) keeps Back leaving the page.
	ctx.Page().ReplaceURL(withSort(*ctx.Page().URL(), s))
	p.load(ctx)
}

// onTableClick handles the table's Delete and Trust buttons: the table
// is one piece of HTML (tableHTML), so its clicks are caught here and the
// button found from the event's target.
func (p *skillsPage) onTableClick(ctx app.Context, e app.Event) {
	if t := e.Get("target").Call("closest", "button.signer-trust"); t.Truthy() {
		p.pin = newPinning(t.Get("dataset").Get("keyId").String(), t.Get("dataset").Get("key").String())
		ctx.Defer(func(app.Context) { showTrustDialog() })
		return
	}
	btn := e.Get("target").Call("closest", "button.skill-delete")
	if !btn.Truthy() {
		return
	}
	p.del = deletion{id: btn.Get("dataset").Get("skill").String(), name: btn.Get("dataset").Get("name").String()}
	p.deleted = ""
	ctx.Defer(func(app.Context) { showDeleteDialog() })
}

func (p *skillsPage) onCancelDelete(ctx app.Context, e app.Event) {
	p.del = deletion{}
	closeDeleteDialog()
}

func (p *skillsPage) onConfirmDelete(ctx app.Context, e app.Event) {
	p.del.confirm(p.own(), p.env, func(ctx app.Context, name string) {
		p.deleted = name
		p.load(ctx)
	})
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
		app.If(p.deleted != "", func() app.UI {
			return app.P().ID("delete-done").Class("status status-ok").Role("status").Text("Deleted " + p.deleted + " and everything stored with it.")
		}),
		p.renderList(),
		renderDeleteDialog(p.del, p.onCancelDelete, p.onConfirmDelete),
		renderTrustDialog(p.pin, p.pin.onName, p.pin.onCancel, p.onPinConfirm),
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
	if len(shown) < p.list.Matching && p.sort != store.SortNewest {
		count = fmt.Sprintf("%d of %d skills (first %d shown)", p.list.Matching, p.list.Total, len(shown))
	}
	options := make([]app.UI, 0, len(store.Sorts()))
	for _, s := range store.Sorts() {
		options = append(options, app.Option().Value(s.String()).Selected(s == p.sort).Text(sortLabels[s]))
	}
	return app.Div().Body(
		app.Div().Class("field-row").Body(
			app.Div().Class("field").Body(
				app.Label().For("skills-filter").Text("Filter"),
				app.Input().Type("search").ID("skills-filter").Value(p.filter).
					Placeholder("name, slug or description").OnInput(p.onFilter),
			),
			app.Div().Class("field").Body(
				app.Label().For("skills-sort").Text("Sort by"),
				app.Select().ID("skills-sort").OnChange(p.onSort).Body(options...),
			),
		),
		app.P().ID("skills-count").Class("muted").Aria("live", "polite").Text(count),
		app.Div().OnClick(p.onTableClick).Body(app.Raw(p.table)),
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
		`<th scope="col">Last fidelity</th><th scope="col">Re-verified</th><th scope="col">Claimed</th><th scope="col">Signer</th>` +
		`</tr></thead><tbody>`)
	esc := html.EscapeString
	for _, s := range p.list.Skills {
		b.WriteString(`<tr class="skill-row"><td><a class="skill-name" href="`)
		b.WriteString(esc("/skills/" + s.ID))
		b.WriteString(`">`)
		b.WriteString(esc(s.Name))
		b.WriteString(`</a><div class="muted">`)
		b.WriteString(esc(s.Slug + " · v" + strconv.Itoa(s.Version)))
		b.WriteString(`</div><button type="button" class="link-button skill-delete" data-skill="`)
		b.WriteString(esc(s.ID))
		b.WriteString(`" data-name="`)
		b.WriteString(esc(s.Name))
		b.WriteString(`" aria-label="`)
		b.WriteString(esc("Delete " + s.Name + "…"))
		b.WriteString(`">Delete…</button></td><td class="skill-description">`)
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
		b.WriteString(`</td><td class="skill-signer" data-bundle="`)
		b.WriteString(esc(s.BundleHash))
		b.WriteString(`">`)
		b.WriteString(signerHTML(c, ok, p.pins))
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

// signerHTML is the content of a signer cell: who signed the bundle as
// the person's trusted signers have it — "trusted" and the pin's name
// only for a pinned key; otherwise the key's fingerprint, "not in your
// trusted signers" and the button that pins it.
func signerHTML(c verdictCheck, known bool, pins *signature.PinSet) string {
	esc := html.EscapeString
	switch {
	case !known:
		return `<span class="muted">verifying…</span>`
	case c.err != nil:
		return `<span class="muted">not read</span>`
	case c.sig.state == verify.SignatureInvalid:
		return `<strong class="signer signer-invalid status-error">signature invalid</strong>`
	case c.sig.keyID == "" && c.sig.state == verify.SignatureUnverified:
		return `<span class="signer signer-none">no signature object</span>`
	case c.sig.keyID == "":
		return `<span class="signer signer-none">unsigned</span>`
	}
	if pub, err := signature.DecodeKey(c.sig.publicKey); err == nil && pins != nil {
		if pin, ok := pins.Lookup(pub); ok {
			return `<span class="signer signer-trusted">trusted — ` + esc(pin.Name) + `</span>`
		}
	}
	return `<code class="hash signer-key">` + esc(c.sig.keyID) + `</code> <span class="signer signer-unknown">not in your trusted signers</span> ` +
		`<button type="button" class="link-button signer-trust" data-key-id="` + esc(c.sig.keyID) + `" data-key="` + esc(c.sig.publicKey) + `">Trust this signer…</button>`
}

// showVerified writes a re-derived verdict and the signer into the cells
// of its bundle in the table shown. A cell no longer shown is no matter: a
// table built later includes the verdicts known by then.
func showVerified(hash string, c verdictCheck, pins *signature.PinSet) {
	doc := app.Window().Get("document")
	h := app.Window().Get("CSS").Call("escape", hash).String()
	for _, cell := range []struct{ class, html string }{
		{"skill-verified", verifiedHTML(c, true)},
		{"skill-signer", signerHTML(c, true, pins)},
	} {
		cells := doc.Call("querySelectorAll", `#skills-table td.`+cell.class+`[data-bundle="`+h+`"]`)
		for i := range cells.Length() {
			cells.Index(i).Set("innerHTML", cell.html)
		}
	}
}

// onPinConfirm pins the key and lists the rows again, so that every row
// of its signer reads "trusted".
func (p *skillsPage) onPinConfirm(ctx app.Context, e app.Event) {
	p.pin.confirm(p.own(), p.env, p.load)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
