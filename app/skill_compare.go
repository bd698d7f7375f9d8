package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"workbench/pkg/body"
	"workbench/pkg/body/sim"
	"workbench/pkg/compare"
	"workbench/pkg/openrouter"
	"workbench/pkg/skill"
	"workbench/pkg/skillpage"
	"workbench/pkg/store"
	"workbench/pkg/words"
)

// compareState is the Compare tab: the model ids the user typed, the
// comparison's progress, its result (compare.Run) and the save of its
// last version.
type compareState struct {
	models   []string
	running  bool
	progress []string // one line per replayed edge, per model
	result   *compare.Comparison
	err      error
	saving   bool
	saveErr  error
}

func (p *skillPage) compareModels() []string {
	if len(p.cmp.models) < 2 {
		ms := append([]string(nil), p.cmp.models...)
		for len(ms) < 2 {
			ms = append(ms, "")
		}
		p.cmp.models = ms
	}
	return p.cmp.models
}

func (p *skillPage) onCompareModel(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		p.compareModels()
		p.cmp.models[i] = ctx.JSSrc().Get("value").String()
	}
}

func (p *skillPage) onCompareAdd(ctx app.Context, e app.Event) {
	p.cmp.models = append(p.compareModels(), "")
}

// openRouterClient returns a client for the tab's key, through the
// same-origin proxy; nil and no error when the tab keeps no key.
func (e *env) openRouterClient() (*openrouter.Client, error) {
	s, err := e.sessionStorage()
	if err != nil {
		return nil, err
	}
	key, ok, err := s.Key()
	if err != nil || !ok {
		return nil, err
	}
	return openrouter.New(key, openrouter.WithBaseURL(e.origin()+openrouter.DefaultBaseURL))
}

func (p *skillPage) onCompareRun(ctx app.Context, e app.Event) {
	e.PreventDefault()
	ctx = p.own()
	if p.cmp.running {
		return
	}
	var models []string
	for _, m := range p.compareModels() {
		if m = strings.TrimSpace(m); m != "" {
			models = append(models, m)
		}
	}
	p.cmp.result, p.cmp.err, p.cmp.progress, p.cmp.saveErr = nil, nil, nil, nil
	if len(models) < 2 {
		p.cmp.err = fmt.Errorf("type at least two model ids to compare (%d given)", len(models))
		return
	}
	b := p.bundle
	setup, err := skillpage.Prepare(b, nil, false)
	if err != nil {
		p.cmp.err = err
		return
	}
	client, err := p.env.openRouterClient()
	if err != nil {
		p.cmp.err = err
		return
	}
	opt := compare.Options{
		Authorizer: setup.Authorizer, Input: setup.Input, Deterministic: true,
		Progress: func(model string, edge skill.ReplayEdge) {
			line := model + ": " + edgeProgress(b, edge)
			ctx.Dispatch(func(app.Context) { p.cmp.progress = append(p.cmp.progress, line) })
		},
	}
	if client != nil {
		opt.Model = client
	} else if setup.ModelBound {
		p.cmp.err = fmt.Errorf("this skill has parameters a model chooses on replay, and this tab keeps no OpenRouter key: enter one on the start page")
		return
	}
	p.cmp.running = true
	ctx.Async(func() {
		var c *compare.Comparison
		v, err := p.env.verify()
		if err == nil {
			newBody := func() (body.Body, error) { return sim.New(setup.WorldData) }
			c, err = compare.Run(ctx, v, b, newBody, models, opt)
		}
		ctx.Dispatch(func(app.Context) {
			p.cmp.running, p.cmp.result, p.cmp.err = false, c, err
		})
	})
}

func (p *skillPage) onCompareSave(ctx app.Context, e app.Event) {
	c := p.cmp.result
	if c == nil || c.Final == nil || p.cmp.saving {
		return
	}
	ctx = p.own()
	p.cmp.saving, p.cmp.saveErr = true, nil
	final := c.Final
	ctx.Async(func() {
		f, err := store.EncodeBundle(final)
		if err == nil {
			var st store.Store
			if st, err = p.env.store(ctx, nil); err == nil {
				_, err = st.AddBundle(ctx, f)
				p.env.dropStore(err)
			}
		}
		ctx.Dispatch(func(ctx app.Context) {
			p.cmp.saving, p.cmp.saveErr = false, err
			if err == nil {
				p.reload(ctx, "Saved the comparison as version "+strconv.Itoa(final.SkillVersion)+", carrying every model's replay.")
			}
		})
	})
}

// edgeProgress is one replayed edge as a progress line.
func edgeProgress(b *skill.Bundle, e skill.ReplayEdge) string {
	tool := "?"
	if e.Index >= 0 && e.Index < len(b.Trace.Edges) {
		tool = b.Trace.Edges[e.Index].Tool.Name
	}
	s := fmt.Sprintf("edge %d %s: %s", e.Index, tool, words.Match(e.Match))
	if e.Committed {
		s += ", committed"
	} else if e.Match != skill.MatchNotRun {
		s += ", not committed"
	}
	return s
}

func (p *skillPage) renderCompare() app.UI {
	c := p.cmp
	models := p.compareModels()
	fields := make([]app.UI, len(models))
	for i, m := range models {
		id := "compare-model-" + strconv.Itoa(i)
		fields[i] = app.Div().Class("field").Body(
			app.Label().For(id).Text("Model "+strconv.Itoa(i+1)),
			app.Input().Type("text").ID(id).Value(m).Placeholder("provider/model-id").
				Attr("spellcheck", "false").OnInput(p.onCompareModel(i)),
		)
	}
	bound := skillpage.ModelBound(p.bundle)
	note := "Every parameter of this skill is literal or bound to an input: replay makes no model call, and the comparison will say that it cannot tell the models apart."
	if bound {
		note = "Parameters the model chose during the demonstration are chosen again, live, by each model, through this workbench's OpenRouter proxy with this tab's key."
	}
	return app.Div().Body(
		app.H2().Text("Compare models"),
		app.P().Class("muted").Text("Replays this skill once per model on a fresh simulator body, with the inputs it was taught with and under the same policy; each replay is verified, and the proofs are set side by side. "+note),
		app.Form().ID("compare-form").OnSubmit(p.onCompareRun).Body(
			app.Div().Class("compare-fields").Body(fields...),
			app.Div().Class("field-row").Body(
				app.Button().Type("button").Class("secondary").ID("compare-add").Text("Add a model").OnClick(p.onCompareAdd),
				app.Button().Type("submit").ID("compare-run").Disabled(c.running).Text("Run the comparison"),
			),
		),
		app.If(c.running || len(c.progress) > 0, func() app.UI {
			items := make([]app.UI, len(c.progress))
			for i, l := range c.progress {
				items[i] = app.Li().Text(l)
			}
			return app.Div().ID("compare-progress").Aria("live", "polite").Body(
				app.If(c.running, func() app.UI { return app.P().Class("status status-pending").Text("Replaying…") }),
				app.Ol().Class("progress-list").Body(items...),
			)
		}),
		app.If(c.err != nil, func() app.UI {
			return app.Div().Class("status status-error").ID("compare-error").Role("alert").Body(
				app.P().Text("The comparison could not run."),
				app.P().Class("error-text").Text(errText(c.err)),
			)
		}),
		app.If(c.result != nil, func() app.UI { return p.renderComparison(c.result) }),
	)
}

func (p *skillPage) renderComparison(c *compare.Comparison) app.UI {
	cards := make([]app.UI, len(c.Results))
	for i, r := range c.Results {
		cards[i] = renderCompareResult(i, r)
	}
	lines := c.Summary()
	summary := make([]app.UI, len(lines))
	for i, l := range lines {
		summary[i] = app.Li().Text(l)
	}
	return app.Div().ID("compare-result").Body(
		app.H3().Text("Results of v"+strconv.Itoa(c.SkillVersion)+", side by side"),
		app.Div().Class("compare-grid").Body(cards...),
		app.H3().Text("Divergence"),
		app.Ul().ID("compare-summary").Body(summary...),
		app.If(c.Final != nil && p.newest(), func() app.UI {
			return app.Div().Class("field-row").Body(
				app.Button().Type("button").ID("compare-save").Disabled(p.cmp.saving).
					Text("Save as new version v"+strconv.Itoa(c.Final.SkillVersion)).OnClick(p.onCompareSave),
				app.Span().Class("muted").ID("compare-save-note").Body(
					app.Text("One version, the next after v"+strconv.Itoa(c.SkillVersion)+", carrying every model's replay; its verdict "),
					verdictBadge(c.FinalReport.Verdict),
				),
			)
		}),
		app.If(p.cmp.saveErr != nil, func() app.UI {
			return app.Div().Class("status status-error").Role("alert").Body(
				app.P().Text("Not saved; the library is as it was."),
				app.P().Class("error-text").Text(errText(p.cmp.saveErr)),
			)
		}),
	)
}

// renderCompareResult is one model's column: its proof or its failure.
func renderCompareResult(i int, r compare.Result) app.UI {
	card := app.Section().Class("panel compare-card").ID("compare-card-"+strconv.Itoa(i)).Aria("label", "Model "+r.Model)
	head := app.H4().Body(app.Code().Class("compare-model").Text(r.Model))
	if r.Err != nil {
		return card.Body(head,
			app.P().Body(app.Span().Class("verdict verdict-fail").Text("no result")),
			app.P().Class("error-text").Text(r.Err.Error()),
			app.P().Class("muted").Text(words.Count(r.ModelCalls, "model call")+", cost "+words.Cost(r.CostUSD, r.CostKnown)),
		)
	}
	rep := r.Record.Report
	halted := "–"
	if rep.HaltedAtEdge != nil {
		halted = "edge " + strconv.Itoa(*rep.HaltedAtEdge)
	}
	var kinds []string
	for _, s := range rep.SurpriseSignals {
		kinds = append(kinds, fmt.Sprintf("%s at edge %d", words.SurpriseKind(s.Kind), s.EdgeIndex))
	}
	if len(kinds) == 0 {
		kinds = []string{"none"}
	}
	gates := make([]app.UI, len(r.Report.Derived.ProofGates))
	for j, g := range r.Report.Derived.ProofGates {
		gates[j] = app.Tr().Body(app.Th().Scope("row").Body(app.Code().Text(g.ID)), app.Td().Body(verdictBadge(g.Verdict), levelNote(words.LevelBeside(g.Verdict, g.Level))))
	}
	return card.Body(head,
		app.P().Body(app.Text("Verdict "), app.Span().Class("compare-verdict").Body(verdictBadge(r.Verdict()))),
		app.Dl().Class("facts").Body(
			app.Dt().Text("Status"), app.Dd().Class("compare-status").Title(rep.Status).Attr("data-value", rep.Status).Text(words.Status(rep.Status, rep.HaltedAtEdge)),
			app.Dt().Text("Fidelity"), app.Dd().Text(words.Fidelity(rep.Fidelity, rep.EdgesCommitted, rep.EdgesAttempted, len(r.Bundle.Trace.Edges))),
			app.Dt().Text("Level"), app.Dd().Class("compare-level").Body(levelBadge(rep.FidelityLevel)),
			app.Dt().Text("Halted at"), app.Dd().Text(halted),
			app.Dt().Text("Surprises"), app.Dd().Text(strings.Join(kinds, "; ")),
			app.Dt().Text("Model used"), app.Dd().Text(rep.ModelUsed),
			app.Dt().Text("Model calls"), app.Dd().Text(strconv.Itoa(r.ModelCalls)),
			app.Dt().Text("Cost"), app.Dd().Text(words.Cost(r.CostUSD, r.CostKnown)),
		),
		app.Table().Class("list compare-gates").Body(
			app.Caption().Text("Re-verified proof gates"),
			app.TBody().Body(gates...),
		),
	)
}
