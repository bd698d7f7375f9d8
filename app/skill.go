package main

import (
	"context"
	"runtime"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/schemaform"
	"workbench/pkg/skill"
	"workbench/pkg/store"
	"workbench/pkg/verify"
	"workbench/pkg/words"
	"workbench/pkg/workbench"
)

// skillPage is one stored skill (/skills/{id}): its newest version's
// header, the conformance panel, the tabs Manifest / Memory / Compare /
// Audit / History (spec §2.1) and the export dialog. Each tab is a
// component of its own (manifestTab, memoryTab, compareTab, auditTab,
// historyTab); the page makes the ones that keep what they hold while
// another tab is open once per version shown.
//
// Everything shown is read from the stored bundle and its re-verification
// (verify.Report); the verdict the bundle claims is shown only beside the
// re-derived one.
type skillPage struct {
	app.Compo
	env *env

	ownContext
	skillRead
	version int // the version asked for (?v=N); 0 for the newest
	loading bool

	sk       store.Skill
	versions []store.StoredBundle
	stored   store.StoredBundle
	bundle   *skill.Bundle
	report   *verify.Report
	panel    verify.Panel
	advice   workbench.ExportAdvice

	tab string

	// The tabs made when the bundle is read; the Compare tab is made
	// on each render (its state is kept with the skill in the library).
	manifest *manifestTab
	memory   *memoryTab
	audit    *auditTab
	history  *historyTab

	exp     exportState
	pub     publishState // the export dialog's Publish (publish.go)
	del     deletion
	saveMsg string // a new version was stored (from Manifest or Compare)
}

// The tabs of spec §2.1, in order.
var skillTabs = [...]struct{ id, label string }{
	{"manifest", "Manifest"},
	{"memory", "Memory"},
	{"compare", "Compare"},
	{"audit", "Audit"},
	{"history", "History"},
}

// skillIDOf returns the id in /skills/{id} or /skills/{id}/replay.
func skillIDOf(path string) string {
	rest := strings.TrimPrefix(path, "/skills/")
	id, _, _ := strings.Cut(rest, "/")
	return id
}

func (p *skillPage) OnNav(ctx app.Context) {
	ctx.Page().SetTitle("Skill · Skill Workbench")
	u := ctx.Page().URL()
	id := skillIDOf(u.Path)
	// ?v=N shows version N; without it, or with anything but a positive
	// number, the newest.
	version, err := strconv.Atoi(u.Query().Get("v"))
	if err != nil || version < 1 {
		version = 0
	}
	p.keep(ctx)
	if id == p.id && version == p.version && p.bundle != nil {
		p.publishContext()
		return
	}
	// Reset the page's state, keeping go-app's own (the embedded Compo).
	*p = skillPage{Compo: p.Compo, ownContext: p.ownContext, env: p.env, skillRead: skillRead{id: id}, version: version, tab: "manifest"}
	p.publishContext()
	p.load(ctx)
}

// publishContext tells the capability palette (Ctrl/Cmd+K) what the
// page shows, for it to prefill forms with: the skill, and once the
// bundle is read its interaction trace and content hash; while the Audit
// tab is open with an edge selected, that edge. The shell forgets it on
// the next navigation. Called on every change of any of these.
func (p *skillPage) publishContext() {
	c := schemaform.Context{SkillID: p.id}
	if p.bundle != nil {
		c.TraceID, c.ContentHash = p.bundle.Trace.TraceID, p.bundle.ContentHash
	}
	// The trace edge selected in the Audit tab, while that tab is open.
	if edge := p.audit.selected(); p.tab == "audit" && edge != nil {
		e := *edge
		c.EdgeIndex = &e
		if p.bundle != nil && e >= 0 && e < len(p.bundle.Trace.Edges) {
			c.EdgeID = p.bundle.Trace.Edges[e].EdgeID
		}
	}
	p.env.setPageContext(p.own(), c)
}

// loaded is everything the page reads when it opens.
type loaded struct {
	sk       store.Skill
	versions []store.StoredBundle // every stored version, oldest first
	stored   store.StoredBundle   // the one shown
	bundle   *skill.Bundle
	report   *verify.Report
	advice   workbench.ExportAdvice
}

// loadSkill reads version of skill id (0 for the newest) through the
// flow (workbench.Flows.Load: verified, its signer checked against the
// trusted signers). It blocks: call it from a goroutine.
func (e *env) loadSkill(ctx context.Context, id string, version int, blocked func()) (*loaded, error) {
	// Opened here first, to say when another tab blocks it.
	if _, err := e.store(ctx, blocked); err != nil {
		return nil, err
	}
	fl, err := e.flows.Load(ctx, id, version)
	if err != nil {
		e.dropStore(err)
		return nil, err
	}
	l := loaded{sk: fl.Skill, versions: fl.Versions, stored: fl.Stored, bundle: fl.Bundle, report: fl.Report}
	if len(l.stored.Data) >= largeBundle {
		// Reading and verifying a large bundle leaves much garbage. In
		// the browser a collection stops the one thread the page has;
		// made now, it is part of the load the page already says it is
		// doing, instead of a pause on the user's first click.
		runtime.GC()
	}
	return &l, nil
}

// largeBundle is the size from which loadSkill collects its garbage at
// once (see there).
const largeBundle = 4 << 20

func (p *skillPage) load(ctx app.Context) {
	p.loading = true
	id, version := p.id, p.version
	ctx.Async(func() {
		l, err := p.env.loadSkill(ctx, id, version, func() { ctx.Dispatch(func(app.Context) { p.blocked = true }) })
		if err == nil {
			l.advice, err = workbench.AdviseExport(l.bundle)
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.loading = false
			if p.readFailed(ctx, err) {
				return
			}
			p.sk, p.versions, p.stored, p.bundle, p.report, p.advice = l.sk, l.versions, l.stored, l.bundle, l.report, l.advice
			p.panel = l.report.Conformance()
			page := p.own()
			p.manifest = newManifestTab(p.env, page, l.bundle, p.newest(), p.onSaved)
			p.memory = &memoryTab{pageTab: pageTab{page: page}, env: p.env, bundle: l.bundle}
			p.audit = &auditTab{pageTab: pageTab{page: page}, bundle: l.bundle, onSelect: p.publishContext}
			p.history = &historyTab{pageTab: pageTab{page: page}, env: p.env, id: p.id, versions: l.versions, shown: l.stored.SkillVersion}
			p.exp = newExportState(l.advice)
			ctx.Page().SetTitle(l.bundle.Manifest.Name + " · Skill Workbench")
			p.publishContext()
		})
		if err != nil {
			return
		}
		// The manifest form checks every keystroke through the flow
		// layer, with the verifier loadSkill verified with (the tab's,
		// compiled once). It is set after the page is shown; an edit made
		// meanwhile is checked when it is, and cannot be saved before.
		v, serr := p.env.verify()
		ctx.Dispatch(func(app.Context) {
			if p.manifest != nil && p.manifest.bundle == l.bundle {
				p.manifest.setVerifier(v, serr)
			}
		})
	})
}

func (p *skillPage) onTab(id string) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.tab = id
		p.publishContext()
	}
}

// onTabKey moves between tabs with the arrow keys (WAI-ARIA tabs pattern).
func (p *skillPage) onTabKey(ctx app.Context, e app.Event) {
	key := e.Get("key").String()
	i := 0
	for j, t := range skillTabs {
		if t.id == p.tab {
			i = j
		}
	}
	switch key {
	case "ArrowRight":
		i = (i + 1) % len(skillTabs)
	case "ArrowLeft":
		i = (i + len(skillTabs) - 1) % len(skillTabs)
	case "Home":
		i = 0
	case "End":
		i = len(skillTabs) - 1
	default:
		return
	}
	e.PreventDefault()
	p.onTab(skillTabs[i].id)(ctx, e)
	next := "tab-" + skillTabs[i].id
	ctx.Defer(func(app.Context) {
		if el := app.Window().GetElementByID(next); el.Truthy() {
			el.Call("focus")
		}
	})
}

func (p *skillPage) Render() app.UI {
	if ui := p.renderUnread("Skill", p.bundle != nil, ". Skills live in this browser only: ", "Reading the skill from this browser's library and re-verifying its proof…"); ui != nil {
		return ui
	}
	return frame("/skills",
		p.renderHeader(),
		renderConformance(p.panel),
		p.renderExport(),
		p.renderTabs(),
		renderDeleteDialog(p.del, p.onCancelDelete, p.onConfirmDelete),
	)
}

func (p *skillPage) renderHeader() app.UI {
	b := p.bundle
	return app.Div().Class("skill-header").Body(
		app.H1().ID("skill-name").Text(b.Manifest.Name),
		app.P().Class("skill-description").Text(b.Manifest.Description),
		app.Dl().Class("facts").ID("skill-facts").Body(
			app.Dt().Text("Slug"), app.Dd().ID("skill-slug").Body(app.Code().Text(b.Manifest.Slug)),
			app.Dt().Text("Version"), app.Dd().ID("skill-version").Text(strconv.Itoa(b.SkillVersion)),
			app.Dt().Text("Signed"), app.Dd().ID("skill-signed").Body(signedFact(p.report)),
			app.Dt().Text("Content hash"), app.Dd().Body(app.Code().ID("skill-hash").Class("hash").Text(b.ContentHash)),
			app.Dt().Text("Redaction profile"), app.Dd().ID("skill-redaction").Title(b.Evidence.RedactionProfile).Attr("data-value", b.Evidence.RedactionProfile).Text(words.Profile(b.Evidence.RedactionProfile)),
			app.Dt().Text("Body"), app.Dd().Text(b.Manifest.BodyChoice),
			app.Dt().Text("Replays"), app.Dd().ID("skill-replays").Text(strconv.Itoa(p.sk.ReplayCount)),
		),
		p.renderVersions(),
		app.If(p.saveMsg != "", func() app.UI {
			return app.P().Class("status status-ok").ID("skill-saved").Role("status").Text(p.saveMsg)
		}),
		app.Div().Class("skill-actions").Body(
			app.A().Class("button").ID("skill-replay").Href("/skills/"+p.id+"/replay").Text("Replay with a new input"),
			app.Button().Type("button").ID("export-open").Class("secondary").Text("Export bundle…").OnClick(p.onExportOpen),
			app.Button().Type("button").ID("skill-delete").Class("secondary").Text("Delete skill…").OnClick(p.onAskDelete),
		),
	)
}

// newest reports whether the version shown is the skill's newest: edits
// and comparisons are saved as the version after the newest, so they are
// made from it.
func (p *skillPage) newest() bool { return p.stored.ContentHash == p.sk.BundleHash }

// renderVersions links every stored version of the skill.
func (p *skillPage) renderVersions() app.UI {
	if len(p.versions) < 2 {
		return app.Text("")
	}
	items := make([]app.UI, len(p.versions))
	for i, v := range p.versions {
		label := "v" + strconv.Itoa(v.SkillVersion)
		href := "/skills/" + p.id + "?v=" + strconv.Itoa(v.SkillVersion)
		if v.ContentHash == p.sk.BundleHash {
			label += " (newest)"
			href = "/skills/" + p.id
		}
		a := app.A().Href(href).Text(label)
		if v.ContentHash == p.stored.ContentHash {
			a = a.Aria("current", "page")
		}
		items[i] = app.Li().Body(a)
	}
	return app.Nav().Class("versions").ID("skill-versions").Aria("label", "Versions of this skill").Body(
		app.Span().Class("versions-label").Text("Versions:"),
		app.Ul().Body(items...),
		app.If(!p.newest(), func() app.UI {
			return app.P().Class("status").ID("skill-old-version").Text("You are viewing an older version. Edits and comparisons are saved as the next version, so they are made from the newest.")
		}),
	)
}

func (p *skillPage) renderTabs() app.UI {
	tabs := make([]app.UI, 0, len(skillTabs))
	for _, t := range skillTabs {
		selected := t.id == p.tab
		tabIndex := -1
		if selected {
			tabIndex = 0
		}
		tabs = append(tabs, app.Button().Type("button").Role("tab").ID("tab-"+t.id).Class("tab").
			Aria("selected", strconv.FormatBool(selected)).Aria("controls", "panel-"+t.id).
			TabIndex(tabIndex).Text(t.label).OnClick(p.onTab(t.id)))
	}
	var panel app.UI
	switch p.tab {
	case "memory":
		panel = p.memory
	case "compare":
		panel = &compareTab{env: p.env, Bundle: p.bundle, Newest: p.newest(), OnSaved: p.onCompareSaved}
	case "audit":
		panel = p.audit
	case "history":
		panel = p.history
	default:
		panel = p.manifest
	}
	return app.Section().Class("tabs").Aria("label", "Skill details").Body(
		app.Div().Role("tablist").Class("tablist").Aria("label", "Skill details").OnKeyDown(p.onTabKey).Body(tabs...),
		app.Div().Role("tabpanel").ID("panel-"+p.tab).Class("tabpanel").Aria("labelledby", "tab-"+p.tab).TabIndex(0).Body(panel),
	)
}

// onSaved re-reads the skill after a tab (Manifest or Compare) saved a
// version, msg saying which. The tab calls it from its own context; the
// page's own re-renders the page.
func (p *skillPage) onSaved(msg string) {
	p.own().Dispatch(func(ctx app.Context) { p.reload(ctx, msg) })
}

// onCompareSaved is onSaved as the Compare tab calls it.
func (p *skillPage) onCompareSaved(_ app.Context, msg string) { p.onSaved(msg) }

// reload re-reads the skill after a new version was stored, keeping the
// message about it.
func (p *skillPage) reload(ctx app.Context, msg string) {
	*p = skillPage{Compo: p.Compo, ownContext: p.ownContext, env: p.env, skillRead: skillRead{id: p.id}, tab: p.tab, saveMsg: msg}
	p.load(ctx)
}
