package main

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/library"
	"workbench/pkg/store"
	"workbench/pkg/verify"
	"workbench/pkg/workbench"
)

// importPage takes skill bundles from disk into the library (/import):
// dropped on the page or picked with the file picker, several at once.
// Each file is imported by workbench.Import, one after the other, and gets
// its own line: accepted, already in the library, or rejected with every
// problem's JSON pointer and message.
type importPage struct {
	app.Compo
	env *env

	dragging bool
	busy     int // files waiting or being imported
	results  []importResult
	blocked  bool // another tab blocks the database upgrade
	sign     signingState

	// link is the ?from= link to import (importlink.go); pin the signer
	// the trust dialog asks about.
	link linkState
	pin  pinning
}

// importResult is one file's line: a library.Result, or why the file
// could not be read or stored.
type importResult struct {
	res library.Result
	err error // reading the file or the store failed; nothing was written
	// data is the file's bytes while it waits for a choice (a
	// collision), for workbench.ResolveImport to read again.
	data []byte
	// resolving: the choice was made and is being stored.
	resolving bool
	// resolved says which choice stored it, once one did.
	resolved library.Choice
	// linked, for a bundle imported by link, is the link and the
	// registry's entry of it.
	linked *workbench.LinkImport
}

func (p *importPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Import · Skill Workbench")
	// The import worker compiles its module, the schemas and the
	// verifier's code, seconds of its own thread: start it now rather
	// than when the first file arrives. Errors surface per file.
	p.env.startImporter()
	p.reloadSigning(ctx)
	p.readLink(ctx)
}

func (p *importPage) onDragOver(ctx app.Context, e app.Event) {
	e.PreventDefault()
	p.dragging = true
}

func (p *importPage) onDragLeave(ctx app.Context, e app.Event) {
	p.dragging = false
}

func (p *importPage) onDrop(ctx app.Context, e app.Event) {
	e.PreventDefault()
	p.dragging = false
	p.importFiles(ctx, e.Get("dataTransfer").Get("files"))
}

func (p *importPage) onPick(ctx app.Context, e app.Event) {
	input := ctx.JSSrc()
	p.importFiles(ctx, input.Get("files"))
	// Picking the same file again should import (and report) it again.
	input.Set("value", "")
}

// pickedFile is a File taken from a FileList while its event lasts.
type pickedFile struct {
	name string
	size int
	file app.Value
}

func (p *importPage) importFiles(ctx app.Context, list app.Value) {
	if !list.Truthy() {
		return
	}
	files := make([]pickedFile, 0, list.Length())
	for i := 0; i < list.Length(); i++ {
		f := list.Index(i)
		files = append(files, pickedFile{name: f.Get("name").String(), size: f.Get("size").Int(), file: f})
	}
	if len(files) == 0 {
		return
	}
	p.busy += len(files)
	ctx.Async(func() {
		for _, f := range files {
			r := p.importOne(ctx, f)
			ctx.Dispatch(func(app.Context) {
				p.busy--
				p.results = append(p.results, r)
			})
		}
	})
}

// importOne reads and imports one file. It runs on the Async goroutine.
func (p *importPage) importOne(ctx app.Context, f pickedFile) importResult {
	if res, ok := workbench.ImportTooLarge(f.name, f.size); ok {
		// Not even read: the strict parser would refuse it anyway.
		return importResult{res: res}
	}
	data, err := readFile(f.file)
	if err != nil {
		return importResult{res: library.Result{Name: f.name}, err: fmt.Errorf("reading the file: %w", err)}
	}
	// Opened here first, to say when another tab blocks it; the flow
	// then imports into the library it finds open.
	if _, err := p.env.store(ctx, func() { ctx.Dispatch(func(app.Context) { p.blocked = true }) }); err != nil {
		return importResult{res: library.Result{Name: f.name}, err: err}
	}
	res, err := p.env.flows.Import(ctx, f.name, data)
	p.env.dropStore(err)
	p.keepVerdict(res)
	r := importResult{res: res, err: err}
	if err == nil && res.Status == library.Collided {
		r.data = data
	}
	return r
}

// keepVerdict keeps an imported bundle's re-derived verdict and signature
// (the flow checked it against the trusted signers) for /skills.
func (p *importPage) keepVerdict(res library.Result) {
	if res.Report != nil {
		p.env.keepVerdict(res.Report.ContentHash, checkOf(res.Report))
	}
}

// onResolve stores the i-th file, which collided with a stored copy, as
// the user chose.
func (p *importPage) onResolve(i int, choice library.Choice) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if i >= len(p.results) || p.results[i].data == nil || p.results[i].resolving {
			return
		}
		p.results[i].resolving = true
		name, data := p.results[i].res.Name, p.results[i].data
		ctx.Async(func() {
			res, err := p.env.flows.ResolveImport(ctx, name, data, choice)
			p.env.dropStore(err)
			ctx.Dispatch(func(app.Context) {
				r := &p.results[i]
				r.resolving = false
				if err != nil {
					// The file still waits: the store failed, nothing
					// was written.
					r.err = err
					return
				}
				r.res, r.data, r.err, r.resolved = res, nil, nil, choice
				if r.linked != nil {
					r.linked.Result = res
				}
			})
		})
	}
}

// summary counts the files imported so far.
func (p *importPage) summary() library.Summary {
	var s library.Summary
	for _, r := range p.results {
		if r.err != nil && r.data == nil {
			s.Add(r.res, r.err)
			continue
		}
		s.Add(r.res, nil)
	}
	return s
}

// readFile reads a File's bytes through its arrayBuffer() promise, waiting
// on a channel: call it from a goroutine, never an event handler.
func readFile(file app.Value) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	var ok, fail app.Func
	release := func() { ok.Release(); fail.Release() }
	ok = app.FuncOf(func(this app.Value, args []app.Value) any {
		buf := app.Window().Get("Uint8Array").New(args[0])
		data := make([]byte, buf.Length())
		app.CopyBytesToGo(data, buf)
		done <- result{data: data}
		release()
		return nil
	})
	fail = app.FuncOf(func(this app.Value, args []app.Value) any {
		msg := "the browser could not read it"
		if len(args) > 0 && args[0].Truthy() {
			msg = args[0].Call("toString").String()
		}
		done <- result{err: errors.New(msg)}
		release()
		return nil
	})
	file.Call("arrayBuffer").Call("then", ok, fail)
	r := <-done
	return r.data, r.err
}

func (p *importPage) Render() app.UI {
	zone := "dropzone"
	if p.dragging {
		zone += " dropzone-active"
	}
	return frame("/import",
		app.H1().Text("Import skill bundles"),
		app.P().Text("Bundles are data, never code: each file is parsed strictly, checked against the bundle schema, its proof re-derived from its own evidence, and only then stored in this browser. Nothing in a bundle is fetched or run."),
		p.renderLink(),
		app.Div().ID("dropzone").Class(zone).
			OnDragOver(p.onDragOver).OnDragEnter(p.onDragOver).OnDragLeave(p.onDragLeave).OnDrop(p.onDrop).
			Body(
				app.P().Text("Drop .skill.json files here, or"),
				app.Label().For("import-files").Class("button").Text("Choose files…"),
				app.Input().Type("file").ID("import-files").Class("visually-hidden").
					Multiple(true).Accept(".json,application/json").OnChange(p.onPick),
			),
		app.If(p.blocked, func() app.UI {
			return app.P().Class("status status-error").Role("alert").Text("Another tab of the workbench holds an older version of the library open. Close it to let this one upgrade the database.")
		}),
		app.Div().Aria("live", "polite").Body(
			app.If(p.busy > 0, func() app.UI {
				return app.P().ID("import-busy").Class("status status-pending").Text("Importing " + strconv.Itoa(p.busy) + " file(s)…")
			}),
		),
		app.If(len(p.results) > 0, func() app.UI {
			return app.Section().Aria("labelledby", "import-results-heading").Body(
				app.H2().ID("import-results-heading").Text("Results"),
				app.P().ID("import-summary").Class("import-summary").Role("status").Text(p.summary().String()),
				app.Ul().ID("import-results").Class("results").Body(
					app.Range(p.results).Slice(func(i int) app.UI {
						if p.results[i].res.Status == library.Collided && p.results[i].data != nil {
							return p.renderCollision(i)
						}
						return p.renderImportResult(p.results[i])
					}),
				),
			)
		}),
		p.renderSigning(),
		renderTrustDialog(p.pin, p.pin.onName, p.pin.onCancel, p.onPinConfirm),
	)
}

func (p *importPage) renderImportResult(r importResult) app.UI {
	name := app.Strong().Class("import-name").Text(r.res.Name)
	if r.err != nil {
		msg := "Not imported: "
		if errors.Is(r.err, store.ErrQuotaExceeded) {
			msg = "Not imported — the browser's storage is full: "
		}
		return app.Li().Class("status status-error import-result import-error").Body(
			name, app.Text(" — "), app.Span().Class("import-status").Text("error"),
			app.P().Text(msg), app.P().Class("error-text").Text(r.err.Error()),
		)
	}
	res := r.res
	switch res.Status {
	case library.Rejected:
		if res.Invalid != nil && verify.HeadlineSays(res.Invalid.Stage) {
			// One problem, said once: the headline holds it.
			return app.Li().Class("status status-error import-result import-rejected").Body(
				name, app.Text(" — "), app.Span().Class("import-status").Text("rejected"),
				app.Div().Class("import-diagnosis").Body(app.P().Class("import-headline").Text(res.Invalid.Headline())),
			)
		}
		problems := make([]app.UI, 0, len(res.Problems))
		for _, pr := range res.Problems {
			problems = append(problems, app.Li().Class("problem").Body(
				app.Code().Class("problem-pointer").Text(pointerText(pr)),
				app.Text(" "),
				app.Span().Class("problem-message").Text(pr.Message),
			))
		}
		if res.ProblemsOmitted > 0 {
			problems = append(problems, app.Li().Class("problem problems-omitted").Text(
				fmt.Sprintf("… and %d more problems", res.ProblemsOmitted)))
		}
		if res.Invalid != nil && res.Invalid.Foreign != nil {
			return app.Li().Class("status status-error import-result import-foreign").Body(
				name, app.Text(" — "), app.Span().Class("import-status").Text("read only, not stored"),
				foreignReading(res.Invalid),
				app.Ul().Class("problems").Body(problems...),
			)
		}
		return app.Li().Class("status status-error import-result import-rejected").Body(
			name, app.Text(" — "), app.Span().Class("import-status").Text("rejected"),
			diagnosis(res.Invalid),
			app.Ul().Class("problems").Body(problems...),
		)
	case library.Duplicate:
		return app.Li().Class("status import-result import-duplicate").Body(
			name, app.Text(" — "), app.Span().Class("import-status").Text("already in the library"),
			app.P().Body(app.Text("A bundle with content hash "), app.Code().Text(res.Report.ContentHash),
				app.Text(" is already stored; nothing was added.")),
			app.P().Class("import-signed").Body(app.Text("Signed: "), signedFact(res.Report)),
			app.P().Class("import-signer").Body(app.Text("Signer: "), signerFact(res.Report, p.onTrustOpen)),
			renderLinked(r.linked),
		)
	}
	rep := res.Report
	over := renderOverclaims("Its proof claims more than its evidence supports, so it counts as a failure:", rep.Overclaims)
	status, version, hash := "accepted", rep.Version, rep.ContentHash
	if res.Skill.BundleHash != "" {
		// The version as stored: the file's bytes, or under Keep both
		// the next version sealed from them, with a hash of its own.
		hash = res.Skill.BundleHash
	}
	switch r.resolved {
	case library.Replace:
		status = "accepted, in place of the stored copy"
	case library.KeepBoth:
		// The file's content was stored as the skill's next version,
		// which is its newest: the record's, not the file's number.
		version = res.Skill.Version
		status = "accepted as version " + strconv.Itoa(version) + "; the stored copy is kept"
	}
	return app.Li().Class("status import-result import-accepted").Body(
		name, app.Text(" — "), app.Span().Class("import-status").Text(status),
		app.P().Body(
			app.Text("Skill "), app.A().Href("/skills/"+res.Skill.ID).Text(rep.SkillName),
			app.Text(" v"+strconv.Itoa(version)+" · re-verified: "), verdictBadge(rep.Verdict),
			app.Text(" · claimed: "), verdictBadge(rep.Claimed.OverallVerdict),
		),
		app.P().Class("import-signed").Body(app.Text("Signed: "), signedFact(rep)),
		app.P().Class("import-signer").Body(app.Text("Signer: "), signerFact(rep, p.onTrustOpen)),
		renderLinked(r.linked),
		app.P().Class("muted").Body(app.Text("content hash as stored "), app.Code().Class("import-stored-hash").Text(hash)),
		over,
		warnings(rep),
	)
}

// warnings lists what an accepted bundle was read despite: numbers whose
// digits a double cannot hold, read as that double (RFC 8785).
func warnings(rep *verify.Report) app.UI {
	if len(rep.Warnings) == 0 {
		return nil
	}
	items := make([]app.UI, 0, len(rep.Warnings)+1)
	for _, w := range rep.Warnings {
		items = append(items, app.Li().Class("import-warning").Body(
			app.Code().Class("problem-pointer").Text(pointerText(w)), app.Text(" "), app.Span().Text(w.Message)))
	}
	if rep.WarningsOmitted > 0 {
		items = append(items, app.Li().Class("import-warning").Text(fmt.Sprintf("… and %d more", rep.WarningsOmitted)))
	}
	return app.Ul().Class("import-warnings").Body(items...)
}

// diagnosis says first what a rejected file is (the headline), its
// content hash recomputed when it claims one, and its problems by cause;
// the problems themselves follow it. Nil when there is nothing to say.
func diagnosis(inv *verify.InvalidError) app.UI {
	if inv == nil {
		return nil
	}
	var causes app.UI
	if items := causeItems(inv); len(items) > 0 {
		causes = app.Ul().Class("import-causes").Body(items...)
	}
	return app.Div().Class("import-diagnosis").Body(
		app.P().Class("import-headline").Text(inv.Headline()),
		recomputedHash(inv),
		causes,
	)
}

// recomputedHash says what a rejected file's content hash is, recomputed,
// beside the one it claims; nil when it claims none.
func recomputedHash(inv *verify.InvalidError) app.UI {
	if inv.Hash == nil {
		return nil
	}
	return app.P().Class("import-hash").Text(inv.Hash.String())
}

// causeItems are a rejected file's problems by cause, a sentence each.
func causeItems(inv *verify.InvalidError) []app.UI {
	groups := inv.Groups()
	items := make([]app.UI, 0, len(groups))
	for _, g := range groups {
		items = append(items, app.Li().Class("import-cause").Text(g.Sentence))
	}
	return items
}

// renderOverclaims lists os under lead; it is nil when there are none.
func renderOverclaims(lead string, os []verify.Overclaim) app.UI {
	if len(os) == 0 {
		return nil
	}
	items := make([]app.UI, 0, len(os))
	for _, o := range os {
		items = append(items, app.Li().Text(o.String()))
	}
	return app.Div().Class("overclaims").Body(app.P().Text(lead), app.Ul().Body(items...))
}

// foreignReading shows a bundle in the other implementation's shape: the
// headline, why it is not stored, what it claims gate by gate beside what
// its contents support under spec v0.1, its overclaims, and then its
// schema problems by cause (diagnosis without the headline).
func foreignReading(inv *verify.InvalidError) app.UI {
	f := inv.Foreign
	rows := make([]app.UI, 0, len(f.Gates)+1)
	for _, g := range f.Gates {
		claimed := app.UI(app.Text("not claimed"))
		if g.Claimed != "" {
			claimed = verdictBadge(g.Claimed)
		}
		level := ""
		if g.ClaimedLevel != "" {
			level = " (" + g.ClaimedLevel + ")"
		}
		rows = append(rows, app.Tr().Class("foreign-gate").DataSet("gate", g.ID).Body(
			app.Th().Scope("row").Body(app.Code().Text(g.ID)),
			app.Td().Class("foreign-claimed").Body(claimed, app.Text(level)),
			app.Td().Class("foreign-found").Body(verdictBadge(g.Verdict)),
			app.Td().Class("foreign-why").Text(g.Why),
		))
	}
	rows = append(rows, app.Tr().Class("foreign-overall").Body(
		app.Th().Scope("row").Text("overall"),
		app.Td().Class("foreign-claimed").Body(verdictBadge(f.Claimed)),
		app.Td().Class("foreign-found").Body(verdictBadge(f.Verdict)),
		app.Td(),
	))
	over := renderOverclaims("Where it claims more than its contents support:", f.Overclaims)
	var causes app.UI
	if items := causeItems(inv); len(items) > 0 {
		causes = app.Div().Body(
			app.P().Text("Against the bundle schema:"),
			app.Ul().Class("import-causes").Body(items...),
		)
	}
	return app.Div().Class("import-diagnosis").Body(
		app.P().Class("import-headline").Text(inv.Headline()),
		app.P().Class("import-foreign-note").Text("Written by the other implementation of the spec, not to spec v0.1: opened read only and not stored in the library, which keeps only bundles whose proof it can re-derive. Below, what it claims beside what its contents support."),
		recomputedHash(inv),
		app.Div().Class("table-scroll").TabIndex(0).Role("region").Aria("label", "Its claims beside what its contents support").Body(
			app.Table().Class("list foreign-gates").Body(
				app.Caption().Text("Proof gates: what it claims, and what its contents support under spec v0.1"),
				app.THead().Body(app.Tr().Body(
					app.Th().Scope("col").Text("Gate"), app.Th().Scope("col").Text("Claimed"),
					app.Th().Scope("col").Text("Under spec v0.1"), app.Th().Scope("col").Text("Why"),
				)),
				app.TBody().Body(rows...),
			),
		),
		over,
		causes,
	)
}

// pointerText shows where a problem is: its JSON pointer, byte offset, or
// "(document)" for the file as a whole.
func pointerText(p verify.Problem) string {
	switch {
	case p.Pointer != "" && p.Offset >= 0:
		return p.Pointer + " (byte " + strconv.Itoa(p.Offset) + ")"
	case p.Pointer != "":
		return p.Pointer
	case p.Offset >= 0:
		return "byte " + strconv.Itoa(p.Offset)
	}
	return "(document)"
}

// renderCollision is the line of a file that is another copy of a stored
// version under another redaction profile: what differs, and the choice
// between replacing the stored copy and keeping both, the suggested one
// first. Nothing is written until one is chosen.
func (p *importPage) renderCollision(i int) app.UI {
	r := p.results[i]
	c := r.res.Collision
	diffs := make([]app.UI, len(c.Differences))
	for j, d := range c.Differences {
		diffs[j] = app.Li().Class("collision-difference").Text(d)
	}
	replace := app.Button().Type("button").Class("import-replace").Disabled(r.resolving).
		Text("Replace the stored copy").OnClick(p.onResolve(i, library.Replace))
	keep := app.Button().Type("button").Class("import-keep-both").Disabled(r.resolving).
		Text("Keep both (this file as the next version)").OnClick(p.onResolve(i, library.KeepBoth))
	suggestion := "Suggested: keep both, so that nothing is lost — this file strips more than the stored copy."
	buttons := []app.UI{keep, replace.Class("secondary")}
	if c.Suggested == library.Replace {
		suggestion = "Suggested: replace — this file keeps more than the stored copy."
		buttons = []app.UI{replace, keep.Class("secondary")}
	}
	return app.Li().Class("status status-pending import-result import-collision").DataSet("suggested", string(c.Suggested)).Body(
		app.Strong().Class("import-name").Text(r.res.Name), app.Text(" — "),
		app.Span().Class("import-status").Text("another copy of a stored version"),
		app.P().Text("Version "+strconv.Itoa(c.Version)+" of this skill is already stored under another redaction profile. Nothing was written; choose what to keep."),
		app.Ul().Class("collision-differences").Body(diffs...),
		app.P().Class("collision-suggestion").Text(suggestion),
		app.Div().Class("field-row").Body(buttons...),
		app.If(r.resolving, func() app.UI { return app.P().Class("status status-pending").Text("Storing…") }),
		app.If(r.err != nil, func() app.UI {
			return app.P().Class("status status-error").Role("alert").Body(
				app.Text("Not stored: "), app.Span().Class("error-text").Text(errText(r.err)))
		}),
	)
}
